#include "spec/slurm_keys.h"

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/spec_files.h"

namespace gantry::spec {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::StartsWith;

std::string Golden(std::string_view name) { return testing::ReadGolden(std::string(name)); }

const SlurmKey& Key(std::string_view name, Scope scope = kClusterScope) {
  const SlurmKey* k = FindSlurmKey(name, scope);
  if (k == nullptr) {
    ADD_FAILURE() << "no catalog entry for " << name << " at " << ScopeNames(scope);
    static const SlurmKey kMissing{.name = "missing"};
    return kMissing;
  }
  return *k;
}

std::string Error(std::string_view name, std::string_view value, Scope scope = kClusterScope) {
  const Status st = ValidateSlurmValue(Key(name, scope), value);
  return st.ok() ? "OK" : st.message();
}

// --- Key spelling -------------------------------------------------------------------------------

TEST(SlurmKeysTest, NormalizeKeyIgnoresCaseAndUnderscores) {
  EXPECT_EQ(NormalizeKey("DefMemPerCPU"), "defmempercpu");
  EXPECT_EQ(NormalizeKey("defmempercpu"), "defmempercpu");
  EXPECT_EQ(NormalizeKey("def_mem_per_cpu"), "defmempercpu");
  EXPECT_EQ(NormalizeKey("_"), "");
}

TEST(SlurmKeysTest, AnySpellingFindsTheCanonicalName) {
  for (std::string_view spelling :
       {"DefMemPerCPU", "defmempercpu", "def_mem_per_cpu", "DEF_MEM_PER_CPU"}) {
    const SlurmKey* k = FindSlurmKey(spelling);
    ASSERT_NE(k, nullptr) << spelling;
    EXPECT_EQ(k->name, "DefMemPerCPU");
  }
  // slurm.conf's own mixed spellings (the anchor cluster writes Waittime and
  // PriorityWeightFairshare; scontrol prints WaitTime and PriorityWeightFairShare).
  EXPECT_EQ(FindSlurmKey("Waittime")->name, "WaitTime");
  EXPECT_EQ(FindSlurmKey("PriorityWeightFairShare")->name, "PriorityWeightFairshare");
  EXPECT_EQ(FindSlurmKey("priority_weight_fairshare")->name, "PriorityWeightFairshare");
  EXPECT_EQ(FindSlurmKey("UsePam")->name, "UsePAM");
  EXPECT_EQ(FindSlurmKey("NoSuchKey"), nullptr);
}

// --- Scopes -------------------------------------------------------------------------------------

TEST(SlurmKeysTest, KeysBelongToTheirSlurmConfLines) {
  struct Case {
    std::string_view key;
    uint8_t scopes;
  };
  const Case cases[] = {
      {"PriorityType", kClusterScope},
      {"SchedulerParameters", kClusterScope},
      {"DefMemPerCPU", kClusterScope | kPartitionScope},
      {"PreemptMode", kClusterScope | kPartitionScope},
      {"DisableRootJobs", kClusterScope | kPartitionScope},
      {"SelectTypeParameters", kClusterScope | kPartitionScope},
      {"MaxTime", kPartitionScope},
      {"PriorityTier", kPartitionScope},
      {"TRESBillingWeights", kPartitionScope},
      {"State", kPartitionScope | kNodeScope},
      {"CpuBind", kPartitionScope | kNodeScope},
      {"Weight", kNodeScope},
      {"Features", kNodeScope},
      {"RealMemory", kNodeScope},
  };
  for (const Case& c : cases) EXPECT_EQ(ScopesOf(c.key), c.scopes) << c.key;
  EXPECT_EQ(ScopesOf("Bogus"), 0);
}

TEST(SlurmKeysTest, PartitionAndNodeStateAreDifferentEntries) {
  EXPECT_EQ(Error("State", "INACTIVE", kPartitionScope), "OK");
  EXPECT_EQ(Error("State", "CLOUD", kNodeScope), "OK");
  EXPECT_THAT(Error("State", "CLOUD", kPartitionScope),
              StartsWith("\"CLOUD\" is not one of UP, DOWN, DRAIN, INACTIVE"));
  EXPECT_THAT(Error("State", "INACTIVE", kNodeScope),
              StartsWith("\"INACTIVE\" is not one of CLOUD, DOWN, DRAIN, FAIL, FAILING, FUTURE, "
                         "UNKNOWN"));
}

TEST(SlurmKeysTest, ScopeNamesAreReadable) {
  EXPECT_EQ(ScopeNames(kClusterScope), "cluster");
  EXPECT_EQ(ScopeNames(kPartitionScope | kNodeScope), "partition, node set");
  EXPECT_EQ(ScopeNames(kClusterScope | kPartitionScope | kNodeScope),
            "cluster, partition, node set");
}

// --- Coverage of slurm.conf(5) ------------------------------------------------------------------

TEST(SlurmKeysTest, CoversEveryPartitionParameter) {
  for (std::string_view key : {"AllocNodes",
                               "AllowAccounts",
                               "AllowGroups",
                               "AllowQos",
                               "Alternate",
                               "CpuBind",
                               "DefCPUPerGPU",
                               "DefMemPerCPU",
                               "DefMemPerGPU",
                               "DefMemPerNode",
                               "DefaultTime",
                               "DenyAccounts",
                               "DenyQos",
                               "DisableRootJobs",
                               "ExclusiveUser",
                               "GraceTime",
                               "Hidden",
                               "LLN",
                               "MaxCPUsPerNode",
                               "MaxMemPerCPU",
                               "MaxMemPerNode",
                               "MaxNodes",
                               "MaxTime",
                               "MinNodes",
                               "OverSubscribe",
                               "OverTimeLimit",
                               "PowerDownOnIdle",
                               "PreemptMode",
                               "PriorityJobFactor",
                               "PriorityTier",
                               "QOS",
                               "ReqResv",
                               "ResumeTimeout",
                               "RootOnly",
                               "SelectTypeParameters",
                               "State",
                               "SuspendTime",
                               "SuspendTimeout",
                               "TRESBillingWeights"}) {
    const SlurmKey* k = FindSlurmKey(key, kPartitionScope);
    ASSERT_NE(k, nullptr) << key;
    EXPECT_TRUE(k->refused.empty()) << key;
  }
}

TEST(SlurmKeysTest, CoversEveryNodeParameter) {
  for (std::string_view key :
       {"Boards", "CoreSpecCount", "CoresPerSocket", "CPUs", "CpuBind", "CPUSpecList", "Features",
        "Gres", "MemSpecLimit", "Port", "RealMemory", "Reason", "Sockets", "SocketsPerBoard",
        "State", "ThreadsPerCore", "TmpDisk", "TRESWeights", "Weight"}) {
    const SlurmKey* k = FindSlurmKey(key, kNodeScope);
    ASSERT_NE(k, nullptr) << key;
    EXPECT_TRUE(k->refused.empty()) << key;
  }
}

TEST(SlurmKeysTest, CoversThePriorityPreemptSchedulerAndSelectFamilies) {
  for (std::string_view key : {"PriorityCalcPeriod",
                               "PriorityDecayHalfLife",
                               "PriorityFavorSmall",
                               "PriorityFlags",
                               "PriorityMaxAge",
                               "PriorityParameters",
                               "PrioritySiteFactorParameters",
                               "PrioritySiteFactorPlugin",
                               "PriorityType",
                               "PriorityUsageResetPeriod",
                               "PriorityWeightAge",
                               "PriorityWeightAssoc",
                               "PriorityWeightFairshare",
                               "PriorityWeightJobSize",
                               "PriorityWeightPartition",
                               "PriorityWeightQOS",
                               "PriorityWeightTRES",
                               "PreemptMode",
                               "PreemptType",
                               "PreemptExemptTime",
                               "SchedulerParameters",
                               "SchedulerTimeSlice",
                               "SchedulerType",
                               "SelectType",
                               "SelectTypeParameters"}) {
    const SlurmKey* k = FindSlurmKey(key, kClusterScope);
    ASSERT_NE(k, nullptr) << key;
    EXPECT_TRUE(k->refused.empty()) << key;
  }
}

// Every Key=Value of the anchor cluster's real slurm.conf resolves at its line's scope and (unless
// the service refuses the key) carries a value the catalog accepts.
TEST(SlurmKeysTest, AcceptsTheAnchorClusterSlurmConf) {
  const std::string conf = Golden("anchor-slurm.conf");
  ASSERT_FALSE(conf.empty());
  std::istringstream lines(conf);
  std::string line;
  int checked = 0;
  while (std::getline(lines, line)) {
    if (line.empty() || line[0] == '#') continue;
    Scope scope = kClusterScope;
    std::vector<std::string> pairs;
    if (line.starts_with("NodeName=") || line.starts_with("PartitionName=")) {
      scope = line.starts_with("NodeName=") ? kNodeScope : kPartitionScope;
      std::istringstream words(line);
      std::string word;
      words >> word;  // the NodeName=/PartitionName= itself
      while (words >> word) pairs.push_back(word);
    } else {
      pairs.push_back(line);
    }
    for (const std::string& pair : pairs) {
      const size_t eq = pair.find('=');
      ASSERT_NE(eq, std::string::npos) << pair;
      const std::string key = pair.substr(0, eq);
      const std::string value = pair.substr(eq + 1);
      SCOPED_TRACE(pair);
      const SlurmKey* k = FindSlurmKey(key, scope);
      ASSERT_NE(k, nullptr);
      if (!k->refused.empty()) continue;  // Prolog, Epilog, SlurmctldHost, NodeAddr, Default...
      EXPECT_EQ(ValidateSlurmValue(*k, value), Status::Ok());
      ++checked;
    }
  }
  EXPECT_GT(checked, 50);
}

// --- What the managed service refuses ------------------------------------------------------------

TEST(SlurmKeysTest, RefusesServiceOwnedKeysWithTheReason) {
  struct Case {
    std::string_view key;
    Scope scope;
    std::string_view reason_part;
  };
  const Case cases[] = {
      {"Prolog", kClusterScope, "prolog_bash_scripts"},
      {"Epilog", kClusterScope, "epilog_bash_scripts"},
      {"RequeueExit", kClusterScope, "requeue"},
      {"RequeueExitHold", kClusterScope, "requeue"},
      {"StorageHost", kClusterScope, "slurmdbd.conf"},
      {"StoragePort", kClusterScope, "slurmdbd.conf"},
      {"StorageUser", kClusterScope, "slurmdbd.conf"},
      {"StoragePass", kClusterScope, "slurmdbd.conf"},
      {"StorageLoc", kClusterScope, "slurmdbd.conf"},
      {"StorageType", kClusterScope, "slurmdbd.conf"},
      {"PurgeJobAfter", kClusterScope, "slurmdbd.conf"},
      {"PurgeStepAfter", kClusterScope, "slurmdbd.conf"},
      {"PurgeEventAfter", kClusterScope, "slurmdbd.conf"},
      {"PurgeResvAfter", kClusterScope, "slurmdbd.conf"},
      {"PurgeSuspendAfter", kClusterScope, "slurmdbd.conf"},
      {"PurgeTXNAfter", kClusterScope, "slurmdbd.conf"},
      {"PurgeUsageAfter", kClusterScope, "slurmdbd.conf"},
      {"ArchiveDir", kClusterScope, "slurmdbd.conf"},
      {"ArchiveJobs", kClusterScope, "slurmdbd.conf"},
      {"DbdHost", kClusterScope, "slurmdbd.conf"},
      {"DbdPort", kClusterScope, "slurmdbd.conf"},
      {"DbdAddr", kClusterScope, "slurmdbd.conf"},
      {"DbdBackupHost", kClusterScope, "slurmdbd.conf"},
      {"Default", kPartitionScope, "first one in"},
      {"PartitionName", kPartitionScope, "partition's id"},
      {"Nodes", kPartitionScope, "node_pool_ids"},
      {"NodeName", kNodeScope, "generated"},
      {"FastSchedule", kClusterScope, "config_overrides"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(std::string(c.key));
    const Result<const SlurmKey*> r = ResolveConfigKey(c.key, c.scope);
    ASSERT_FALSE(r.ok());
    EXPECT_THAT(r.status().message(), HasSubstr("is managed by the service: "));
    EXPECT_THAT(r.status().message(), HasSubstr(c.reason_part));
  }
  EXPECT_EQ(ResolveConfigKey("Prolog", kClusterScope).status().message(),
            "\"Prolog\" is managed by the service: the service runs its own prolog; add scripts "
            "with orchestrator_spec.slurm_spec.prolog_bash_scripts");
}

TEST(SlurmKeysTest, ResolvesAllowedKeysInAnySpelling) {
  const Result<const SlurmKey*> r = ResolveConfigKey("def_mem_per_cpu", kPartitionScope);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ((*r)->name, "DefMemPerCPU");
  const Result<const SlurmKey*> w = ResolveConfigKey("weight", kNodeScope);
  ASSERT_TRUE(w.ok());
  EXPECT_EQ((*w)->name, "Weight");
}

TEST(SlurmKeysTest, ReportsAKeyAtTheWrongLevel) {
  EXPECT_EQ(ResolveConfigKey("MaxTime", kClusterScope).status().message(),
            "\"MaxTime\" cannot be set in the cluster config (it belongs to: partition)");
  EXPECT_EQ(ResolveConfigKey("PriorityType", kPartitionScope).status().message(),
            "\"PriorityType\" cannot be set in the partition config (it belongs to: cluster)");
  EXPECT_EQ(ResolveConfigKey("weight", kPartitionScope).status().message(),
            "\"Weight\" cannot be set in the partition config (it belongs to: node set)");
}

TEST(SlurmKeysTest, UnknownKeysGetADidYouMean) {
  EXPECT_EQ(ResolveConfigKey("DefMemPerCpus", kClusterScope).status().message(),
            "unknown slurm.conf parameter \"DefMemPerCpus\" (did you mean \"DefMemPerCPU\"?)");
  EXPECT_THAT(ResolveConfigKey("PriorityWeightFairshar", kClusterScope).status().message(),
              HasSubstr("(did you mean \"PriorityWeightFairshare\""));
  EXPECT_THAT(ResolveConfigKey("MaxTim", kPartitionScope).status().message(),
              HasSubstr("(did you mean \"MaxTime\""));
  EXPECT_EQ(ResolveConfigKey("Frobnicate", kClusterScope).status().message(),
            "unknown slurm.conf parameter \"Frobnicate\"");
  EXPECT_FALSE(ResolveConfigKey("", kClusterScope).ok());
  EXPECT_FALSE(ResolveConfigKey("___", kClusterScope).ok());
}

TEST(SlurmKeysTest, SuggestKeysRanksByDistanceAndSkipsRefusedKeys) {
  EXPECT_THAT(SuggestKeys("defmempercpus"), ::testing::Contains("DefMemPerCPU"));
  EXPECT_EQ(SuggestKeys("defmempercpus").front(), "DefMemPerCPU");
  EXPECT_THAT(SuggestKeys("Weigth", 3, kNodeScope), ElementsAre("Weight"));
  EXPECT_LE(SuggestKeys("PriorityWeight", 2).size(), 2u);
  EXPECT_TRUE(SuggestKeys("x").empty());
  EXPECT_TRUE(SuggestKeys("defmempercpu", 0).empty());
  for (const std::string& s : SuggestKeys("Prologg", 10)) EXPECT_NE(s, "Prolog");
  for (const std::string& s : SuggestKeys("StorageHosts", 10)) EXPECT_NE(s, "StorageHost");
}

// --- Value rules --------------------------------------------------------------------------------

struct ValueCase {
  std::string_view key;
  std::string_view value;
  std::string_view expected;  // "OK", or the start of the error message
  Scope scope = kClusterScope;
};

void CheckCases(const std::vector<ValueCase>& cases) {
  for (const ValueCase& c : cases) {
    SCOPED_TRACE(std::string(c.key) + "=" + std::string(c.value));
    const std::string got = Error(c.key, c.value, c.scope);
    if (c.expected == "OK") {
      EXPECT_EQ(got, "OK");
    } else {
      EXPECT_THAT(got, StartsWith(std::string(c.expected)));
    }
  }
}

TEST(SlurmKeysTest, BooleansAreYesOrNo) {
  CheckCases({
      {"PriorityFavorSmall", "YES", "OK"},
      {"PriorityFavorSmall", "no", "OK"},
      {"PriorityFavorSmall", "true", "OK"},
      {"PriorityFavorSmall", "0", "OK"},
      {"Hidden", "Yes", "OK", kPartitionScope},
      {"PriorityFavorSmall", "maybe", "\"maybe\" is not one of YES, NO"},
      {"ExclusiveUser", "", "\"\" is not one of YES, NO", kPartitionScope},
  });
  EXPECT_EQ(Error("PriorityFavorSmall", "maybe"), "\"maybe\" is not one of YES, NO");
}

TEST(SlurmKeysTest, PluginTypesAreExactNames) {
  CheckCases({
      {"PreemptType", "preempt/none", "OK"},
      {"PreemptType", "preempt/partition_prio", "OK"},
      {"PreemptType", "preempt/qos", "OK"},
      {"PriorityType", "priority/basic", "OK"},
      {"PriorityType", "priority/multifactor", "OK"},
      {"SelectType", "select/cons_tres", "OK"},
      {"SelectType", "select/cons_res", "OK"},
      {"SelectType", "select/linear", "OK"},
      {"SchedulerType", "sched/backfill", "OK"},
      {"PreemptType", "preempt/QOS",
       "\"preempt/QOS\" is not one of preempt/none, preempt/partition_prio, preempt/qos"},
      {"PriorityType", "multifactor", "\"multifactor\" is not one of priority/basic, "},
      {"TaskPlugin", "task/affinity,task/cgroup", "OK"},
      {"TaskPlugin", "task/affinity,task/bogus",
       "\"task/bogus\" (in \"task/affinity,task/bogus\")"},
  });
  EXPECT_THAT(Error("PreemptType", "preempt/QOS"), HasSubstr("(did you mean \"preempt/qos\"?)"));
}

TEST(SlurmKeysTest, WordsAreCaseInsensitive) {
  CheckCases({
      {"PriorityUsageResetPeriod", "NONE", "OK"},
      {"PriorityUsageResetPeriod", "weekly", "OK"},
      {"PriorityUsageResetPeriod", "QUARTERLY", "OK"},
      {"PriorityUsageResetPeriod", "FORTNIGHTLY",
       "\"FORTNIGHTLY\" is not one of NONE, NOW, DAILY, WEEKLY, MONTHLY, QUARTERLY, YEARLY"},
      {"EnforcePartLimits", "ALL", "OK"},
      {"SlurmctldDebug", "debug3", "OK"},
      {"SlurmctldDebug", "loud", "\"loud\" is not one of quiet, fatal"},
  });
}

TEST(SlurmKeysTest, HealthChecksAreTheNodesOwn) {
  CheckCases({
      {"HealthCheckProgram", "/usr/sbin/nhc", "OK"},
      {"HealthCheckProgram", "nhc", "\"nhc\" is not an absolute path"},
      {"HealthCheckInterval", "300", "OK"},
      {"HealthCheckInterval", "5m", "\"5m\" is not a whole number of seconds"},
      {"HealthCheckNodeState", "idle,cycle", "OK"},
      {"HealthCheckNodeState", "NONDRAINED_IDLE", "OK"},
      {"HealthCheckNodeState", "BUSY", "\"BUSY\" is not one of ALLOC, ANY, CYCLE"},
      {"TmpFS", "/scratch", "OK"},
      {"TmpFS", "scratch", "\"scratch\" is not an absolute path"},
  });
}

TEST(SlurmKeysTest, PreemptModeWordsOnly) {
  CheckCases({
      {"PreemptMode", "SUSPEND,GANG", "OK"},
      {"PreemptMode", "REQUEUE", "OK"},
      {"PreemptMode", "off", "OK", kPartitionScope},
      {"PreemptMode", "CANCEL", "OK"},
      {"PreemptMode", "WITHIN,PRIORITY,SUSPEND", "OK"},  // combinations are the caller's rule
      {"PreemptMode", "GANG,SUSPNED",
       "\"SUSPNED\" (in \"GANG,SUSPNED\") is not one of OFF, CANCEL, GANG, REQUEUE, SUSPEND, "
       "PRIORITY, WITHIN (did you mean \"SUSPEND\"?)"},
      {"PreemptMode", "GANG,,SUSPEND", "\"GANG,,SUSPEND\" has an empty item"},
      {"PreemptMode", "", "\"\" is empty"},
  });
}

TEST(SlurmKeysTest, SelectTypeParametersAtClusterAndPartition) {
  CheckCases({
      {"SelectTypeParameters", "CR_Core_Memory", "OK"},
      {"SelectTypeParameters", "cr_cpu_memory", "OK"},
      {"SelectTypeParameters", "CR_Socket_Memory,CR_ONE_TASK_PER_CORE", "OK"},
      {"SelectTypeParameters", "CR_Core,CR_Pack_Nodes,CR_LLN", "OK"},
      {"SelectTypeParameters", "CR_Cores", "\"CR_Cores\" is not one of CR_CPU, CR_Core"},
      {"SelectTypeParameters", "CR_Core", "OK", kPartitionScope},
      {"SelectTypeParameters", "CR_Socket", "OK", kPartitionScope},
      {"SelectTypeParameters", "CR_Core_Memory",
       "\"CR_Core_Memory\" is not one of CR_Core, "
       "CR_Socket",
       kPartitionScope},
  });
}

TEST(SlurmKeysTest, AccountingEnforceAndPriorityFlags) {
  CheckCases({
      {"AccountingStorageEnforce", "associations,limits,qos", "OK"},
      {"AccountingStorageEnforce", "all,nojobs", "OK"},
      {"AccountingStorageEnforce", "safe,wckeys", "OK"},
      {"AccountingStorageEnforce", "assocs",
       "\"assocs\" is not one of associations, limits, "
       "nojobs, nosteps, qos, safe, wckeys, all"},
      {"PriorityFlags", "MAX_TRES,NO_FAIR_TREE", "OK"},
      {"PriorityFlags", "ACCRUE_ALWAYS,CALCULATE_RUNNING,DEPTH_OBLIVIOUS,INCR_ONLY", "OK"},
      {"PriorityFlags", "NO_NORMAL_ALL,NO_NORMAL_ASSOC,NO_NORMAL_PART,NO_NORMAL_QOS", "OK"},
      {"PriorityFlags", "NO_NORMAL_TRES,SMALL_RELATIVE_TO_TIME", "OK"},
      {"PriorityFlags", "FAIRTREE", "\"FAIRTREE\" is not one of ACCRUE_ALWAYS"},
  });
}

TEST(SlurmKeysTest, SchedulerParametersKnowsItsOptions) {
  CheckCases({
      // The anchor cluster's value (slurm.conf of the HTC guide).
      {"SchedulerParameters",
       "batch_sched_delay=20,bf_continue,bf_interval=300,bf_min_age_reserve=10800,"
       "bf_resolution=600,bf_yield_interval=1000000,partition_job_depth=500,"
       "sched_max_job_start=200,sched_min_interval=2000000",
       "OK"},
      // The Vertex documentation's example.
      {"SchedulerParameters", "bf_continue,bf_window=1440,bf_resolution=600", "OK"},
      {"SchedulerParameters", "default_queue_depth=100,sched_interval=60,bf_max_job_test=500",
       "OK"},
      {"SchedulerParameters", "bf_interval=-1", "OK"},
      {"SchedulerParameters", "bf_hetjob_prio=max,delay_boot=10:00", "OK"},
      {"SchedulerParameters", "BF_CONTINUE", "OK"},
      {"SchedulerParameters", "bf_windw=10",
       "\"bf_windw=10\" is not a known SchedulerParameters option (did you mean \"bf_window\""},
      {"SchedulerParameters", "bf_continue,bf_window",
       "\"bf_window\" (in \"bf_continue,bf_window\") needs a value (bf_window=<integer>)"},
      {"SchedulerParameters", "bf_continue=1",
       "\"bf_continue=1\" takes no value (write just bf_continue)"},
      {"SchedulerParameters", "bf_window=1d",
       "\"bf_window=1d\" needs an integer value, not \"1d\""},
      {"SchedulerParameters", "bf_hetjob_prio=", "\"bf_hetjob_prio=\" needs a value after '='"},
  });
}

TEST(SlurmKeysTest, DurationsAreSlurmTimeStrings) {
  CheckCases({
      {"MaxTime", "4-00:00:00", "OK", kPartitionScope},
      {"MaxTime", "INFINITE", "OK", kPartitionScope},
      {"MaxTime", "UNLIMITED", "OK", kPartitionScope},
      {"MaxTime", "60", "OK", kPartitionScope},
      {"DefaultTime", "1:00:00", "OK", kPartitionScope},
      {"DefaultTime", "2-12", "OK", kPartitionScope},
      {"PreemptExemptTime", "00:10:00", "OK"},
      {"PriorityDecayHalfLife", "7-0", "OK"},
      {"PriorityMaxAge", "14-0", "OK"},
      {"PriorityCalcPeriod", "5", "OK"},
      {"MaxTime", "4days",
       "\"4days\" is not a Slurm time (M, M:S, H:M:S, D-H, D-H:M or D-H:M:S, or UNLIMITED, "
       "INFINITE)",
       kPartitionScope},
      {"PriorityCalcPeriod", "UNLIMITED", "\"UNLIMITED\" is not allowed: a finite time"},
      {"PriorityCalcPeriod", "0", "\"0\" is too short: the minimum is 00:01:00"},
      {"PriorityCalcPeriod", "0:30", "OK"},  // rounded up to a minute, as Slurm does
  });
}

TEST(SlurmKeysTest, IntegersSecondsAndRanges) {
  CheckCases({
      {"PriorityTier", "20", "OK", kPartitionScope},
      {"PriorityTier", "65533", "OK", kPartitionScope},
      {"PriorityTier", "65534", "\"65534\" is out of range (allowed: 0 to 65533)", kPartitionScope},
      {"PriorityTier", "-1", "\"-1\" is not a non-negative integer", kPartitionScope},
      {"PriorityTier", "high", "\"high\" is not a non-negative integer", kPartitionScope},
      {"PriorityTier", "1e3", "\"1e3\" is not a non-negative integer", kPartitionScope},
      {"PriorityWeightAge", "1000", "OK"},
      {"PriorityWeightFairshare", "4294967295", "OK"},
      {"PriorityWeightFairshare", "4294967296", "\"4294967296\" is out of range"},
      {"MaxNodes", "UNLIMITED", "OK", kPartitionScope},
      {"MaxNodes", "none", "\"none\" is not a non-negative integer or one of UNLIMITED, INFINITE",
       kPartitionScope},
      {"OverTimeLimit", "UNLIMITED", "OK"},
      {"FirstJobId", "0", "\"0\" is out of range (allowed: 1 to 4294967295)"},
      {"MaxDBDMsgs", "9999", "\"9999\" is out of range (allowed: 10000 to 4294967295)"},
      {"KillWait", "30", "OK"},
      {"KillWait", "30s", "\"30s\" is not a whole number of seconds"},
      {"SchedulerTimeSlice", "4", "\"4\" is out of range (allowed: 5 to 65535)"},
      {"SuspendTime", "NONE", "OK"},
      {"SuspendTime", "-1", "OK"},
      {"SuspendTime", "600", "OK"},
      {"SuspendTime", "NONE", "\"NONE\" is not a whole number of seconds or one of UNLIMITED",
       kPartitionScope},
      {"Weight", "10", "OK", kNodeScope},
      {"CPUs", "0", "\"0\" is out of range (allowed: 1 to 65535)", kNodeScope},
  });
}

TEST(SlurmKeysTest, MemoryIsWholeMiBWithoutSuffix) {
  CheckCases({
      {"DefMemPerCPU", "4096", "OK"},
      {"DefMemPerCPU", "4096", "OK", kPartitionScope},
      {"MaxMemPerNode", "UNLIMITED", "OK"},
      {"RealMemory", "256000", "OK", kNodeScope},
      {"RealMemory", "0", "\"0\" is out of range (the minimum is 1)", kNodeScope},
      {"DefMemPerCPU", "4G",
       "\"4G\" is not a whole number of MiB (slurm.conf takes memory sizes without a unit "
       "suffix; write 4096 for 4G)"},
      {"DefMemPerCPU", "lots",
       "\"lots\" is not a whole number of MiB (slurm.conf takes memory sizes without a unit "
       "suffix)"},
  });
}

TEST(SlurmKeysTest, TresListsAndWeights) {
  CheckCases({
      {"PriorityWeightTRES", "cpu=100,mem=150", "OK"},
      {"PriorityWeightTRES", "CPU=1000,Mem=2000,GRES/gpu=3000", "OK"},
      {"TRESBillingWeights", "CPU=1.0,Mem=0.25G,GRES/gpu=2.0", "OK", kPartitionScope},
      {"TRESWeights", "cpu=1,mem=.5G", "OK", kNodeScope},
      {"PriorityWeightTRES", "cpu=1,gpu=2",
       "\"gpu=2\" (in \"cpu=1,gpu=2\"): \"gpu\" is not a TRES name (cpu, mem, energy, node, "
       "billing, fs/disk, vmem, pages, or gres/NAME, license/NAME, bb/NAME, fs/NAME, ic/NAME) "
       "(did you mean \"gres/gpu\" or \"cpu\"?)"},
      {"PriorityWeightTRES", "cpu", "\"cpu\" is not TRES=weight"},
      {"PriorityWeightTRES", "cpu=lots", "\"cpu=lots\" is not a list of TRES=weight pairs ("},
      {"PriorityWeightTRES", "", "\"\" is empty (expected TRES=weight pairs"},
      {"AccountingStorageTRES", "gres/gpu", "OK"},
      {"AccountingStorageTRES", "gres/gpu,gres/gpu:b200,license/matlab,bb/datawarp", "OK"},
      {"AccountingStorageTRES", "gres/gpu,gpu", "\"gpu\" is not a TRES name ("},
      {"AccountingStorageTRES", "fs/", "\"fs/\" is not a TRES name ("},
  });
  EXPECT_THAT(Error("AccountingStorageTRES", "gres/gpu,gpu"),
              HasSubstr("(did you mean \"gres/gpu\" or \"cpu\"?) (in \"gres/gpu,gpu\")"));
}

TEST(SlurmKeysTest, OverSubscribeTakesAnOptionalJobCount) {
  CheckCases({
      {"OverSubscribe", "NO", "OK", kPartitionScope},
      {"OverSubscribe", "EXCLUSIVE", "OK", kPartitionScope},
      {"OverSubscribe", "YES", "OK", kPartitionScope},
      {"OverSubscribe", "FORCE", "OK", kPartitionScope},
      {"OverSubscribe", "FORCE:4", "OK", kPartitionScope},
      {"OverSubscribe", "yes:2", "OK", kPartitionScope},
      {"OverSubscribe", "FORCE:0", "\"FORCE:0\": the job count after ':' must be 1 to 32767",
       kPartitionScope},
      {"OverSubscribe", "EXCLUSIVE:2",
       "\"EXCLUSIVE:2\" is not one of NO, EXCLUSIVE, YES, YES:<count>, FORCE, FORCE:<count>",
       kPartitionScope},
      {"OverSubscribe", "SOMETIMES", "\"SOMETIMES\" is not one of NO, EXCLUSIVE", kPartitionScope},
  });
}

TEST(SlurmKeysTest, PortsAndRanges) {
  CheckCases({
      {"SlurmctldPort", "6817", "OK"},
      {"SlurmctldPort", "7810-7813", "OK"},
      {"SrunPortRange", "60001-63000", "OK"},
      {"Port", "6831-6834", "OK", kNodeScope},
      {"SlurmctldPort", "7813-7810", "\"7813-7810\" is not a port (1 to 65535) or a range"},
      {"SlurmctldPort", "70000", "\"70000\" is not a port"},
      {"SlurmctldPort", "-", "\"-\" is not a port"},
  });
}

TEST(SlurmKeysTest, FreeTextKeysAcceptAnything) {
  CheckCases({
      {"ClusterName", "anchor", "OK"},
      {"Features", "gpu,b200", "OK", kNodeScope},
      {"AllowQos", "normal,high", "OK", kPartitionScope},
      {"JobAcctGatherFrequency", "task=30,energy=60", "OK"},
  });
}

TEST(SlurmKeysTest, ErrorMessagesQuoteHostileValues) {
  const std::string got = Error("PriorityFavorSmall", "a\"b\nc");
  EXPECT_EQ(got, "\"a\\\"b\\x0ac\" is not one of YES, NO");  // the newline as \x0a
}

// --- Table invariants
// -----------------------------------------------------------------------------

TEST(SlurmKeysTest, TableIsWellFormed) {
  std::set<std::pair<std::string, uint8_t>> seen;
  for (const SlurmKey& k : AllSlurmKeys()) {
    SCOPED_TRACE(std::string(k.name));
    EXPECT_FALSE(k.name.empty());
    EXPECT_NE(k.scopes, 0);
    EXPECT_LE(k.min, k.max);
    // No two entries of one name share a scope: FindSlurmKey(name, scope) is unambiguous.
    for (uint8_t bit : {kClusterScope, kPartitionScope, kNodeScope}) {
      if (k.scopes & bit) {
        EXPECT_TRUE(seen.insert({NormalizeKey(k.name), bit}).second);
      }
    }
    if (k.kind == ValueKind::kWord || k.kind == ValueKind::kWordList) {
      EXPECT_FALSE(k.words.empty());
    }
    if (!k.refused.empty()) {
      EXPECT_EQ(k.kind, ValueKind::kString);
    }
  }
}

TEST(SlurmKeysTest, EnumFactsFromSlurmConf5) {
  const auto words = [](std::string_view key, Scope scope = kClusterScope) {
    const SlurmKey& k = Key(key, scope);
    return std::vector<std::string_view>(k.words.begin(), k.words.end());
  };
  EXPECT_THAT(words("PreemptType"),
              ElementsAre("preempt/none", "preempt/partition_prio", "preempt/qos"));
  EXPECT_THAT(words("PriorityType"), ElementsAre("priority/basic", "priority/multifactor"));
  EXPECT_THAT(words("PreemptMode"),
              ElementsAre("OFF", "CANCEL", "GANG", "REQUEUE", "SUSPEND", "PRIORITY", "WITHIN"));
  EXPECT_THAT(words("PriorityUsageResetPeriod"),
              ElementsAre("NONE", "NOW", "DAILY", "WEEKLY", "MONTHLY", "QUARTERLY", "YEARLY"));
  EXPECT_THAT(words("State", kPartitionScope), ElementsAre("UP", "DOWN", "DRAIN", "INACTIVE"));
  EXPECT_THAT(words("SelectType"),
              ::testing::IsSupersetOf({"select/cons_tres", "select/cons_res", "select/linear"}));
}

}  // namespace
}  // namespace gantry::spec
