// gantry-keeper: the parent of one job's batch script, so that the script outlives its agent, as
// slurmstepd outlives slurmd.
//
// The agent starts the keeper (as root, in the agent's own cgroup, outside the job's) with the
// script's SpawnSpec on the keeper's stdin (EncodeSpawnSpec). The keeper starts the script
// (launcher.h), answers on its stdout with one line, "started <pid> <start_ticks>" or
// "failed <message>", closes it, waits for the script and writes how it ended (its wait status
// and what it used: FormatBatchExit) to its exit file, then exits 0. An agent that restarts
// finds the keeper by the pid in its job record, waits for it to exit (WaitForKeeper) and reads
// the exit file: the job goes on, and its end is reported, across the restart.
//
// An agent that dies and does not come back leaves its keepers on their own, while the
// controller, hearing nothing, counts the node lost and runs its jobs elsewhere. So a keeper
// given the agent's lease file (lease_file.h) watches it: once the lease has run out and the
// agent that held it is gone (LeaseRunOut), it ends its job as the agent would have (SIGCONT
// and SIGTERM to the whole job, SIGKILL after KillWait), in time for the controller's requeue
// (SlurmdTimeout + KillWait + 3 s after it last heard from the node).
//
// Thread-safety: the functions share no state.
#ifndef GANTRY_AGENT_KEEPER_H_
#define GANTRY_AGENT_KEEPER_H_

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <string_view>

#include "agent/launcher.h"
#include "agent/lease_file.h"
#include "base/status.h"

namespace gantry::agent {

// How a batch script ended, as its keeper saw it.
struct BatchExit {
  int32_t wait_status = 0;  // raw, as wait(2) gives it
  int64_t user_cpu_usec = 0;
  int64_t system_cpu_usec = 0;
  int64_t max_rss_kib = 0;  // the largest single process (ru_maxrss)

  friend bool operator==(const BatchExit&, const BatchExit&) = default;
};

// "wait_status=256\nuser_cpu_usec=...\nsystem_cpu_usec=...\nmax_rss_kib=...\n" and back; errors
// name the line and the rule.
std::string FormatBatchExit(const BatchExit& exit);
Result<BatchExit> ParseBatchExit(std::string_view text);

// A SpawnSpec as bytes and back (the descriptor fields are not carried: the keeper uses paths).
// Each field is "<name> <length>\n<bytes>\n"; a list repeats its name. Decoding rejects unknown
// names, bad lengths and trailing bytes, naming the field.
std::string EncodeSpawnSpec(const SpawnSpec& spec);
Result<SpawnSpec> DecodeSpawnSpec(std::string_view bytes);

// A running keeper and the script it started.
struct KeptBatch {
  Spawned keeper;  // the agent's child
  Spawned script;  // the keeper's child: the job's session and process group leader
};

// The agent's lease as a keeper watches it; an empty path = not watched.
struct KeeperLease {
  std::string path;
  uint32_t kill_wait_sec = 30;
};

// How long past the lease's deadline a keeper waits before it ends its job: a living agent
// fences its jobs itself at the deadline (controller_link.h), and this keeps the two apart.
inline constexpr int64_t kKeeperLeaseGraceMs = 1000;

// The keeper's decision: true when `lease` ran out more than kKeeperLeaseGraceMs before `now_ms`
// (CLOCK_MONOTONIC) and the agent holding it no longer runs. A lease of 0 never runs out.
bool LeaseRunOut(const LeaseRecord& lease, int64_t now_ms, bool agent_running);
// LeaseRunOut for the lease file at `path`, now; false while there is no file or a read raced a
// write (the next look decides).
bool LeaseFileRunOut(const std::string& path);

// The agent's side: starts `keeper_path` for `spec`, the keeper writing to `exit_path` when the
// script ends and watching `lease`. Errors: the launch failure the keeper reported
// (FailedPrecondition, as Spawn's), or Unavailable when the keeper itself could not start or
// answer (it is reaped then).
Result<KeptBatch> SpawnKept(const std::string& keeper_path, const SpawnSpec& spec,
                            const std::string& exit_path, const KeeperLease& lease = {});

// Waits until the keeper `pid` (not our child: it was started by an earlier agent) has exited;
// returns at once when it is gone or `start_ticks` shows that the pid is another process now.
void WaitForKeeper(pid_t pid, uint64_t start_ticks);

// The keeper's main(): `gantry-keeper --exit-file PATH [--lease-file PATH --kill-wait SECONDS]`,
// the spec on stdin. Returns the exit code: 0 once the exit file is written, 2 for bad arguments
// or input, 3 when the exit file could not be written.
int RunKeeper(int argc, char** argv);

}  // namespace gantry::agent

#endif  // GANTRY_AGENT_KEEPER_H_
