// Accounting limits on one job: the Grp*, Max* and Min* limits of its QOS and of its association
// (and of the accounts above it), with Slurm's precedence and its reason for each.
//
// Precedence (Slurm's resource limits): a limit the job's QOS sets replaces the association's
// same limit: the same kind for the same TRES, MaxWall, GrpJobs, GrpWall, and the QOS's
// MaxJobsPU replaces the association's MaxJobs. An association's Max* limits come from itself,
// else from the first account above that sets them (per TRES for TRES lists); Grp* limits apply
// at every account up to root, each counting every job under that account.
//
// How each limit counts (`LimitUse` says what runs now; usage tallies are state/usage.h's):
//   MaxWall                the job's time limit                                  > limit
//   MaxTRES (per job)      the job's TRES                                        > limit
//   MaxTRESPerNode         the job's TRES on one node                            > limit
//   MaxTRESMins            the job's TRES x its time limit (minutes)             > limit
//   MinTRES                the job's TRES                                        < limit
//   GrpJobs, MaxJobs(PU)   running jobs                                          >= limit
//   GrpTRES, MaxTRESPU     the running jobs' TRES + the job's                    > limit
//   GrpTRESRunMins         the running jobs' TRES x minutes left + the job's TRES x time limit
//                                                                                > limit
//   GrpTRESMins            TRES minutes used (tally + running jobs so far)       >= limit,
//                          or the job's TRES x time limit alone                  > limit
//   GrpWall                wall minutes used (tally + running jobs so far)       >= limit
// An UNLIMITED time limit exceeds every minutes limit. Checked in that order for the QOS
// (MinTRES last of all), then for the association and the accounts above it.
//
// A stand-alone check (CheckStandAlone) counts nothing running and no usage: the job on its own,
// which is what a QOS with DenyOnLimit refuses at submission.
// Pure; thread-compatible (a JobLimits caches what it parsed).
#ifndef GANTRY_STATE_JOB_LIMITS_H_
#define GANTRY_STATE_JOB_LIMITS_H_

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "gantry/v1/accounting.pb.h"
#include "model/tres_limit.h"
#include "state/accounting.h"
#include "state/usage.h"

namespace gantry::state {

using model::kTresLimitKinds;
using model::TresLimitKind;
using model::TresLimitReason;
using model::TresLimitText;

// What runs now under one QOS, one (QOS, user), or one account.
struct InUse {
  uint32_t jobs = 0;
  TresAmounts tres;                                      // held by the running jobs
  std::map<std::string, double, std::less<>> run_mins;   // TRES x minutes left
  std::map<std::string, double, std::less<>> used_mins;  // TRES x minutes run so far
  double wall_min = 0;                                   // minutes run so far
};

// A job as the limits see it.
struct LimitedJob {
  std::string user;
  std::string qos;
  std::string account;
  const v1::Association* association = nullptr;  // nullptr: association limits do not apply
  TresAmounts tres;                              // JobTresOf
  int64_t nodes = 1;
  uint32_t time_limit_min = 0xFFFFFFFF;  // UNLIMITED
  uint32_t elapsed_min = 0;              // running jobs: minutes run so far
};

// `job` as the limits see it, under `association` (nullptr: none), with time limit
// `time_limit_min` (0: UNLIMITED): what it holds once running, else what it asks for.
LimitedJob LimitedJobOf(const v1::Job& job, const v1::Association* association,
                        uint32_t time_limit_min);

struct LimitUse {
  std::map<std::string, InUse, std::less<>> qos;
  std::map<std::string, InUse, std::less<>> qos_user;  // QosUserKey
  std::map<std::string, InUse, std::less<>> account;   // jobs under the account
  std::map<uint32_t, uint32_t> association_jobs;       // running jobs by association id

  static std::string QosUserKey(std::string_view qos, std::string_view user);
};

class JobLimits {
 public:
  // `safe` (AccountingStorageEnforce=safe): a job starts only if it can run to its time limit
  // within GrpTRESMins and GrpWall: used + the running jobs' minutes left + the job's > limit
  // holds it.
  explicit JobLimits(const AccountingDb& db, bool safe = false) : db_(db), safe_(safe) {}

  // Why `job` may not start beside `use` at `now` ("" = it may).
  std::string_view Check(const LimitedJob& job, const LimitUse& use, int64_t now);
  std::string_view CheckStandAlone(const LimitedJob& job);

  // `job` runs from now on: it counts in `use` (at `now` it has run elapsed_min).
  void Count(const LimitedJob& job, LimitUse* use);

  // The account's association and those above it, made once.
  const std::vector<const v1::Association*>& ChainOf(std::string_view account);

 private:
  using TresList = std::vector<std::pair<std::string, int64_t>>;
  using Parsed = std::array<TresList, kTresLimitKinds>;
  struct Effective {  // an association's Max* limits with those inherited from above
    Parsed tres;
    MaxLimits counts;
  };

  std::string_view Evaluate(const LimitedJob& job, const LimitUse* use, int64_t now);
  const Parsed& ParsedQos(const v1::Qos& q);
  const Parsed& ParsedAssociation(const v1::Association& a);
  const Effective& EffectiveOf(const v1::Association& a);

  const AccountingDb& db_;
  const bool safe_;
  std::map<std::string, Parsed, std::less<>> qos_;
  std::map<uint32_t, Parsed> associations_;
  std::map<uint32_t, Effective> effective_;
  std::map<std::string, std::vector<const v1::Association*>, std::less<>> chains_;
  // Usage tallies read at tallies_now_.
  int64_t tallies_now_ = 0;
  std::map<std::string, v1::UsageTally, std::less<>> qos_tallies_;
  std::map<uint32_t, v1::UsageTally> association_tallies_;
};

}  // namespace gantry::state

#endif  // GANTRY_STATE_JOB_LIMITS_H_
