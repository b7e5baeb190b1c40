// The agent's spool directory (--spool DIR, Slurm's SlurmdSpoolDir):
//   DIR/                  mode 0755: job users must be able to reach their job's directory
//   DIR/job_<id>/         the job user's, 0700: slurm_script (0700, the user's)
//   DIR/jobs/<id>.rec     root's, 0700 directory: one record per job held here (below)
//   DIR/jobs/<id>.exit    how its batch script ended, written by its keeper (keeper.h)
//   DIR/jobs/<id>.reported  the same, once the agent reported it
//   DIR/jobs/<id>.<step>.ctl  the control FIFO of a step's gantry-stepd (step_keeper.h)
//   DIR/scripts/          root's, 0700: inline prolog/epilog scripts while they run
//   DIR/reports/          root's, 0700: reports not yet acknowledged (report_journal.h)
//   DIR/lease             root's, 0600: the agent's lease, for the keepers (lease_file.h)
// A record lets the next agent instance take over the jobs a crashed or restarted one held (its
// batch scripts run on under their keepers), and find and end what must not go on.
//
// Thread-safe: each call works on its own files.
#ifndef GANTRY_AGENT_SPOOL_H_
#define GANTRY_AGENT_SPOOL_H_

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace gantry::agent {

// DIR/lease for the spool directory `dir`.
inline std::string SpoolLeasePath(const std::string& dir) { return dir + "/lease"; }

// A process, and its /proc start time to tell it from a later one with its pid.
struct RecordedProcess {
  pid_t pid = 0;
  uint64_t start_ticks = 0;

  friend bool operator==(const RecordedProcess&, const RecordedProcess&) = default;
};

// An srun step's gantry-stepd (step_keeper.h), which takes commands at StepControlPath.
struct RecordedStep {
  uint32_t step_id = 0;
  RecordedProcess stepd;

  friend bool operator==(const RecordedStep&, const RecordedStep&) = default;
};

// What the spool remembers about a job held here, from its prolog's success to its end.
struct JobRecord {
  uint32_t job_id = 0;
  uint64_t epoch = 0;
  pid_t pid = 0;             // the batch script (0 = none): also its process group and session id
  uint64_t start_ticks = 0;  // its /proc start time
  RecordedProcess keeper;    // the script's parent (keeper.h); pid 0 = the agent was
  std::string cgroup;        // empty = none
  std::vector<std::string> limit_cgroups;  // cgroup v1 limit directories (job_limits.h)
  std::vector<RecordedProcess> tasks;      // srun tasks an agent ran itself (group leaders)
  std::vector<RecordedStep> steps;         // srun steps run by gantry-stepd

  friend bool operator==(const JobRecord&, const JobRecord&) = default;
};

// "job_id=12\nepoch=3\npid=4242\npgid=4242\nstart_ticks=987\nkeeper=4240:985\ncgroup=/sys/...\n"
// then a "limit_cgroup=" line per limit directory, a "task=<pid>:<start_ticks>" line per task
// and a "step=<step_id>:<pid>:<start_ticks>" line per step.
std::string FormatJobRecord(const JobRecord& record);
// The inverse; errors name the line and the rule. Unknown keys are ignored.
Result<JobRecord> ParseJobRecord(std::string_view text);

class Spool {
 public:
  // Creates the layout above (missing directories only; existing ones keep their modes). `dir`
  // is made absolute.
  static Result<Spool> Open(const std::string& dir);

  const std::string& dir() const { return dir_; }
  std::string JobDir(uint32_t job_id) const;
  std::string ScratchDir() const { return dir_ + "/scripts"; }

  // Writes the batch script as DIR/job_<id>/slurm_script, the directory and file owned by
  // uid/gid with mode 0700, replacing whatever was there; returns the script's path.
  Result<std::string> WriteBatchScript(uint32_t job_id, std::string_view script, uid_t uid,
                                       gid_t gid) const;
  // Removes DIR/job_<id> and everything in it, relative to directory descriptors opened
  // without following links: a user who swaps a directory in the tree for a symbolic link
  // while it runs gets the link removed, nothing outside the tree. At most 128 levels deep.
  void RemoveJobDir(uint32_t job_id) const;
  // The ids of the DIR/job_<id> directories that exist.
  std::vector<uint32_t> JobDirIds() const;

  Status SaveRecord(const JobRecord& record) const;  // atomic replace
  // Removes the record and the job's exit files.
  void RemoveRecord(uint32_t job_id) const;
  // Where the keeper writes how the script ended, and where it goes once reported.
  std::string ExitPath(uint32_t job_id) const;
  std::string StepControlPath(uint32_t job_id, uint32_t step_id) const;
  std::string ReportedPath(uint32_t job_id) const;
  // Every record; unreadable ones are reported in `problems` and removed.
  std::vector<JobRecord> LoadRecords(std::vector<std::string>* problems) const;

 private:
  explicit Spool(std::string dir) : dir_(std::move(dir)) {}
  std::string dir_;
};

}  // namespace gantry::agent

#endif  // GANTRY_AGENT_SPOOL_H_
