// How srun and a step node's agent prove to each other that they hold the step's secret without
// sending it (the secret crosses only the TLS and unix-socket channels, from srun through the
// controller to the agent; the I/O stream between them is plain TCP).
//
//   srun  -> agent   CHALLENGE  srun_nonce (32 random bytes)
//   agent -> srun    HELLO      node, task ids, agent_nonce, proof = StepProof(key, "agent",
//                               srun_nonce, agent_nonce, node)
//   srun  -> agent   WELCOME    proof = StepProof(key, "srun", srun_nonce, agent_nonce, node)
// Each proof covers both nonces, so neither side can replay an answer it saw on another
// connection; a wrong proof closes the connection.
//
// Thread-safe (no shared state).
#ifndef GANTRY_WIRE_STEP_AUTH_H_
#define GANTRY_WIRE_STEP_AUTH_H_

#include <string>
#include <string_view>

#include "base/status.h"

namespace gantry::wire {

inline constexpr size_t kStepNonceBytes = 32;

// HMAC-SHA256 (RFC 2104) of `message` under `key`: 32 raw bytes.
std::string HmacSha256(std::string_view key, std::string_view message);

// The proof one side (`role`: "agent" or "srun") gives for the connection.
std::string StepProof(std::string_view key, std::string_view role, std::string_view srun_nonce,
                      std::string_view agent_nonce, std::string_view node);

// Whether two proofs are equal, in time that does not depend on where they differ.
bool SameProof(std::string_view a, std::string_view b);

}  // namespace gantry::wire

#endif  // GANTRY_WIRE_STEP_AUTH_H_
