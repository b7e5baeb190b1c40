// The gate in front of gantryd's TCP port: refuses a call from its headers, before gRPC reads
// its request (up to 64 MiB), unless the caller shows one of
//  - a certificate of the cluster's CA (agents; the handlers then check which node it names),
//  - a cluster-key credential whose signature and age hold for the call it claims (the
//    x-gantry-call header: "<request type> <body sha256>", rpc/credential.h),
//  - a MUNGE credential that munged accepts for the call it claims (decoded here once, and kept
//    for the handler: CredentialVerifier::PrecheckMunge).
// The handlers still verify everything against the request itself (binding, replay), so the gate
// only decides how much work an unknown peer gets: none without a credential that holds.
// Refusals are UNAUTHENTICATED: "refused before the request was read: <why>".
//
// Thread-safe (gRPC calls Process from its own threads).
#ifndef GANTRY_RPC_CALL_GATE_H_
#define GANTRY_RPC_CALL_GATE_H_

#include <grpcpp/security/auth_metadata_processor.h>

#include <string>

#include "rpc/credential.h"

namespace gantry::rpc {

class CallGate final : public grpc::AuthMetadataProcessor {
 public:
  // `verifier` (the handlers' one) must outlive the gate.
  CallGate(ClusterKey key, std::string audience, CredentialVerifier* verifier)
      : key_(std::move(key)), audience_(std::move(audience)), verifier_(verifier) {}

  // A MUNGE credential means a round trip to munged: not on gRPC's own threads.
  bool IsBlocking() const override { return true; }
  grpc::Status Process(const InputMetadata& metadata, grpc::AuthContext* context,
                       OutputMetadata* consumed, OutputMetadata* response) override;

 private:
  const ClusterKey key_;
  const std::string audience_;
  CredentialVerifier* const verifier_;
};

}  // namespace gantry::rpc

#endif  // GANTRY_RPC_CALL_GATE_H_
