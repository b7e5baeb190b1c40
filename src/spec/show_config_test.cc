#include "spec/show_config.h"

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "spec/slurm_keys.h"
#include "tests/testing/spec_files.h"

namespace gantry::spec {
namespace {

using ::testing::HasSubstr;

std::string GoldenFile(std::string_view name) { return testing::ReadGolden(std::string(name)); }

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) lines.push_back(line);
  return lines;
}

// The cluster-wide Key=Value lines of a slurm.conf (NodeName=/PartitionName= lines skipped).
std::map<std::string, std::string> ClusterValues(const std::string& slurm_conf) {
  std::map<std::string, std::string> values;
  for (const std::string& line : Lines(slurm_conf)) {
    if (line.empty() || line[0] == '#' || line.starts_with("NodeName=") ||
        line.starts_with("PartitionName=")) {
      continue;
    }
    const size_t eq = line.find('=');
    if (eq != std::string::npos) values[line.substr(0, eq)] = line.substr(eq + 1);
  }
  return values;
}

// The machine- and moment-dependent values of the anchor capture.
ShowConfigInput AnchorInput() {
  ShowConfigInput in;
  in.values = ClusterValues(GoldenFile("anchor-slurm.conf"));
  in.data_time = "2026-12-02T11:46:49";
  in.boot_time = "2026-12-02T11:38:00";
  in.next_job_id = 21452;
  in.slurm_conf = "/etc/slurm/slurm.conf";
  in.slurm_version = "22.05.8";
  in.plugin_dir = "/usr/lib/x86_64-linux-gnu/slurm-wlm";
  in.slurm_user_id = 64030;
  in.slurmd_user_id = 0;
  in.node_count = 4;  // gpu[1-4]
  in.multiple_slurmd = true;
  return in;
}

// The value printed for `name`, or "<absent>".
std::string ValueOf(const std::string& listing, std::string_view name) {
  for (const std::string& line : Lines(listing)) {
    const size_t sep = line.find(" = ");
    if (sep == std::string::npos) continue;
    std::string key = line.substr(0, sep);
    while (!key.empty() && key.back() == ' ') key.pop_back();
    if (key == name) return line.substr(sep + 3);
  }
  return "<absent>";
}

std::string Render(std::map<std::string, std::string> values) {
  ShowConfigInput in;
  in.values = std::move(values);
  in.values.emplace("ClusterName", "c1");
  in.values.emplace("SlurmctldHost", "ctl");
  in.node_count = 2;
  return RenderShowConfig(in);
}

TEST(ShowConfigTest, MatchesTheAnchorClusterListingLineByLine) {
  const std::string expected = GoldenFile("anchor-show-config.txt");
  ASSERT_FALSE(expected.empty());
  const std::string got = RenderShowConfig(AnchorInput());
  const std::vector<std::string> want = Lines(expected);
  const std::vector<std::string> have = Lines(got);
  for (size_t i = 0; i < std::max(want.size(), have.size()); ++i) {
    EXPECT_EQ(i < have.size() ? have[i] : "<missing>", i < want.size() ? want[i] : "<extra>")
        << "line " << i + 1;
  }
  EXPECT_EQ(got, expected);  // and byte for byte, trailing spaces and final newline included
}

TEST(ShowConfigTest, NamesArePaddedTo23Columns) {
  const std::string got = RenderShowConfig(AnchorInput());
  EXPECT_THAT(got, HasSubstr("\nAuthType                = auth/munge\n"));
  EXPECT_THAT(got, HasSubstr("\nPriorityWeightFairShare = 10000\n"));        // exactly 23
  EXPECT_THAT(got, HasSubstr("\nPrioritySiteFactorParameters = (null)\n"));  // longer
  EXPECT_THAT(got, HasSubstr("\nPowerPlugin             = \n"));             // empty, not (null)
}

TEST(ShowConfigTest, DefaultsOfSlurm2205) {
  const std::string got = Render({});
  EXPECT_EQ(ValueOf(got, "AccountingStorageEnforce"), "none");
  EXPECT_EQ(ValueOf(got, "AccountingStorageType"), "accounting_storage/none");
  EXPECT_EQ(ValueOf(got, "AccountingStoragePort"), "0");
  EXPECT_EQ(ValueOf(got, "AccountingStorageUser"), "root");
  EXPECT_EQ(ValueOf(got, "AccountingStorageTRES"),
            "cpu,mem,energy,node,billing,fs/disk,vmem,pages");
  EXPECT_EQ(ValueOf(got, "DefMemPerNode"), "UNLIMITED");
  EXPECT_EQ(ValueOf(got, "DefMemPerCPU"), "<absent>");
  EXPECT_EQ(ValueOf(got, "MaxMemPerNode"), "UNLIMITED");
  EXPECT_EQ(ValueOf(got, "MaxJobCount"), "10000");
  EXPECT_EQ(ValueOf(got, "MaxDBDMsgs"), "20008");  // 2 * MaxJobCount + 4 * nodes
  EXPECT_EQ(ValueOf(got, "MaxNodeCount"), "2");
  EXPECT_EQ(ValueOf(got, "MaxArraySize"), "1001");
  EXPECT_EQ(ValueOf(got, "MessageTimeout"), "10 sec");
  EXPECT_EQ(ValueOf(got, "MinJobAge"), "300 sec");
  EXPECT_EQ(ValueOf(got, "ReturnToService"), "0");
  EXPECT_EQ(ValueOf(got, "PreemptMode"), "OFF");
  EXPECT_EQ(ValueOf(got, "PreemptType"), "preempt/none");
  EXPECT_EQ(ValueOf(got, "PreemptExemptTime"), "00:00:00");
  EXPECT_EQ(ValueOf(got, "ProctrackType"), "proctrack/cgroup");
  EXPECT_EQ(ValueOf(got, "SchedulerType"), "sched/backfill");
  EXPECT_EQ(ValueOf(got, "SelectType"), "select/linear");
  EXPECT_EQ(ValueOf(got, "SelectTypeParameters"), "<absent>");
  EXPECT_EQ(ValueOf(got, "SlurmctldPort"), "6817");
  EXPECT_EQ(ValueOf(got, "SlurmdPort"), "6818");
  EXPECT_EQ(ValueOf(got, "SlurmUser"), "root(0)");
  EXPECT_EQ(ValueOf(got, "SuspendTime"), "INFINITE");
  EXPECT_EQ(ValueOf(got, "SuspendTimeout"), "30 sec");
  EXPECT_EQ(ValueOf(got, "TaskPluginParam"), "(null type)");
  EXPECT_EQ(ValueOf(got, "SlurmctldSyslogDebug"), "(null)");
  EXPECT_EQ(ValueOf(got, "LogTimeFormat"), "iso8601_ms");
  EXPECT_EQ(ValueOf(got, "SlurmctldHost[0]"), "ctl");
  EXPECT_EQ(ValueOf(got, "ClusterName"), "c1");
}

TEST(ShowConfigTest, BasicPriorityShowsOnlyPriorityType) {
  const std::string got = Render({});
  EXPECT_EQ(ValueOf(got, "PriorityType"), "priority/basic");
  for (std::string_view hidden : {"PriorityDecayHalfLife", "PriorityCalcPeriod", "PriorityFlags",
                                  "PriorityWeightAge", "FairShareDampeningFactor"}) {
    EXPECT_EQ(ValueOf(got, hidden), "<absent>") << hidden;
  }
}

TEST(ShowConfigTest, MultifactorPriorityBlock) {
  const std::string got = Render({{"PriorityType", "priority/multifactor"},
                                  {"PriorityDecayHalfLife", "14-0"},
                                  {"PriorityCalcPeriod", "5"},
                                  {"PriorityMaxAge", "1-0"},
                                  {"PriorityFavorSmall", "YES"},
                                  {"PriorityUsageResetPeriod", "weekly"},
                                  {"priority_weight_fairshare", "5000"}});
  EXPECT_EQ(ValueOf(got, "FairShareDampeningFactor"), "1");
  EXPECT_EQ(ValueOf(got, "PriorityDecayHalfLife"), "14-00:00:00");
  EXPECT_EQ(ValueOf(got, "PriorityCalcPeriod"), "00:05:00");
  EXPECT_EQ(ValueOf(got, "PriorityMaxAge"), "1-00:00:00");
  EXPECT_EQ(ValueOf(got, "PriorityFavorSmall"), "Yes");
  EXPECT_EQ(ValueOf(got, "PriorityFlags"), "");
  EXPECT_EQ(ValueOf(got, "PriorityUsageResetPeriod"), "WEEKLY");
  EXPECT_EQ(ValueOf(got, "PriorityWeightFairShare"), "5000");
  EXPECT_EQ(ValueOf(got, "PriorityWeightAge"), "0");
  EXPECT_EQ(ValueOf(got, "PriorityWeightTRES"), "(null)");
}

TEST(ShowConfigTest, PriorityFlagsInSlurmOrder) {
  const auto flags = [](std::string_view v) {
    return ValueOf(
        Render({{"PriorityType", "priority/multifactor"}, {"PriorityFlags", std::string(v)}}),
        "PriorityFlags");
  };
  EXPECT_EQ(flags("MAX_TRES,NO_FAIR_TREE"), "NO_FAIR_TREE,MAX_TRES");
  EXPECT_EQ(flags("DEPTH_OBLIVIOUS"), "DEPTH_OBLIVIOUS,NO_FAIR_TREE");
  EXPECT_EQ(flags("small_relative_to_time,accrue_always"), "ACCRUE_ALWAYS,SMALL_RELATIVE_TO_TIME");
  EXPECT_EQ(flags("NO_NORMAL_PART"), "NO_NORMAL_ALL");  // Slurm 22.05's collapsing
}

TEST(ShowConfigTest, PreemptModeIsNormalised) {
  const auto mode = [](std::string_view v) {
    return ValueOf(Render({{"PreemptMode", std::string(v)}}), "PreemptMode");
  };
  EXPECT_EQ(mode("SUSPEND,GANG"), "GANG,SUSPEND");
  EXPECT_EQ(mode("gang,suspend"), "GANG,SUSPEND");
  EXPECT_EQ(mode("requeue"), "REQUEUE");
  EXPECT_EQ(mode("CANCEL,WITHIN"), "WITHIN,CANCEL");
  EXPECT_EQ(mode("GANG"), "GANG");
  EXPECT_EQ(mode("OFF"), "OFF");
  EXPECT_EQ(mode("REQUEUE,CANCEL"), "UNKNOWN");
}

TEST(ShowConfigTest, SelectTypeParametersUpperCasedInSlurmOrder) {
  const auto params = [](std::string_view type, std::string_view v) {
    std::map<std::string, std::string> values = {{"SelectType", std::string(type)}};
    if (!v.empty()) values["SelectTypeParameters"] = std::string(v);
    return ValueOf(Render(values), "SelectTypeParameters");
  };
  EXPECT_EQ(params("select/cons_tres", "CR_Core_Memory"), "CR_CORE_MEMORY");
  EXPECT_EQ(params("select/cons_tres", "CR_Pack_Nodes,cr_cpu_memory"),
            "CR_CPU_MEMORY,CR_PACK_NODES");
  EXPECT_EQ(params("select/cons_tres", "CR_Socket,CR_ONE_TASK_PER_CORE"),
            "CR_SOCKET,CR_ONE_TASK_PER_CORE");
  EXPECT_EQ(params("select/cons_tres", ""), "CR_CORE_MEMORY");  // the plugin's default
  EXPECT_EQ(params("select/linear", ""), "<absent>");
}

TEST(ShowConfigTest, AccountingEnforceImpliesItsPrerequisites) {
  const auto enforce = [](std::string_view v) {
    return ValueOf(Render({{"AccountingStorageEnforce", std::string(v)}}),
                   "AccountingStorageEnforce");
  };
  EXPECT_EQ(enforce("qos"), "associations,qos");
  EXPECT_EQ(enforce("safe"), "associations,limits,safe");
  EXPECT_EQ(enforce("limits,associations"), "associations,limits");
  EXPECT_EQ(enforce("nojobs"), "nojobs,nosteps");
  EXPECT_EQ(enforce("all"), "associations,limits,qos,safe,wckeys");
  EXPECT_EQ(ValueOf(Render({{"AccountingStorageEnforce", "wckeys"}}), "TrackWCKey"), "Yes");
}

TEST(ShowConfigTest, AccountingTresPutsBuiltInsFirst) {
  const auto tres = [](std::string_view v) {
    return ValueOf(Render({{"AccountingStorageTRES", std::string(v)}}), "AccountingStorageTRES");
  };
  EXPECT_EQ(tres("gres/gpu,license/matlab"),
            "cpu,mem,energy,node,billing,fs/disk,vmem,pages,gres/gpu,license/matlab");
  EXPECT_EQ(tres("cpu,gres/gpu,gres/gpu"),
            "cpu,mem,energy,node,billing,fs/disk,vmem,pages,gres/gpu");
}

TEST(ShowConfigTest, MemoryLimitLineNamesTheSettingInForce) {
  const std::string per_node = Render({{"DefMemPerNode", "64000"}, {"MaxMemPerCPU", "8000"}});
  EXPECT_EQ(ValueOf(per_node, "DefMemPerNode"), "64000");
  EXPECT_EQ(ValueOf(per_node, "DefMemPerCPU"), "<absent>");
  EXPECT_EQ(ValueOf(per_node, "MaxMemPerCPU"), "8000");
  EXPECT_EQ(ValueOf(per_node, "MaxMemPerNode"), "<absent>");
  EXPECT_EQ(ValueOf(Render({{"DefMemPerCPU", "0"}}), "DefMemPerCPU"), "0");
}

TEST(ShowConfigTest, TimersAndUnits) {
  const std::string got = Render({{"KillWait", "45"},
                                  {"SuspendTimeout", "0"},
                                  {"SuspendTime", "600"},
                                  {"OverTimeLimit", "UNLIMITED"},
                                  {"ResvOverRun", "5"},
                                  {"ResumeRate", "100"},
                                  {"VSizeFactor", "110"},
                                  {"PreemptExemptTime", "1-0"},
                                  {"MinJobAge", "1"}});
  EXPECT_EQ(ValueOf(got, "KillWait"), "45 sec");
  EXPECT_EQ(ValueOf(got, "SuspendTimeout"), "NONE");
  EXPECT_EQ(ValueOf(got, "SuspendTime"), "600 sec");
  EXPECT_EQ(ValueOf(got, "OverTimeLimit"), "UNLIMITED");
  EXPECT_EQ(ValueOf(got, "ResvOverRun"), "5 min");
  EXPECT_EQ(ValueOf(got, "ResumeRate"), "100 nodes/min");
  EXPECT_EQ(ValueOf(got, "VSizeFactor"), "110 percent");
  EXPECT_EQ(ValueOf(got, "PreemptExemptTime"), "1-00:00:00");
  EXPECT_EQ(ValueOf(got, "MinJobAge"), "2 sec");  // Slurm raises MinJobAge below 2
}

TEST(ShowConfigTest, SlurmdbdAccountingShowsItsPortAndNoUser) {
  const std::string got = Render({{"AccountingStorageType", "accounting_storage/slurmdbd"}});
  EXPECT_EQ(ValueOf(got, "AccountingStoragePort"), "6819");
  EXPECT_EQ(ValueOf(got, "AccountingStorageUser"), "N/A");
}

TEST(ShowConfigTest, MaxJobCountIsCappedByTheJobIdRange) {
  const std::string got =
      Render({{"FirstJobId", "1000"}, {"MaxJobId", "5999"}, {"MaxJobCount", "10000"}});
  EXPECT_EQ(ValueOf(got, "MaxJobCount"), "5000");
  EXPECT_EQ(ValueOf(got, "MaxDBDMsgs"), "10008");
}

TEST(ShowConfigTest, ControllerPingLines) {
  ShowConfigInput in;
  in.values = {{"ClusterName", "c1"}};
  in.controllers = {{"ctl1", "10.0.0.1", true}, {"ctl2", "", false}};
  const std::string got = RenderShowConfig(in);
  EXPECT_EQ(ValueOf(got, "SlurmctldHost[0]"), "ctl1(10.0.0.1)");
  EXPECT_EQ(ValueOf(got, "SlurmctldHost[1]"), "ctl2");
  EXPECT_THAT(got, HasSubstr("\n\nSlurmctld(primary) at ctl1 is UP\n"
                             "Slurmctld(backup) at ctl2 is DOWN\n"));
  EXPECT_TRUE(got.ends_with("is DOWN\n"));
}

TEST(ShowConfigTest, ClusterNameIsLowerCased) {
  ShowConfigInput in;
  in.values = {{"ClusterName", "Anchor"}};
  EXPECT_EQ(ValueOf(RenderShowConfig(in), "ClusterName"), "anchor");
  in.cluster_name = "VTC1";
  EXPECT_EQ(ValueOf(RenderShowConfig(in), "ClusterName"), "vtc1");
}

TEST(ShowConfigTest, UnreadableValuesAreShownAsWrittenWithoutCrashing) {
  const std::string got = Render({{"KillWait", "soon"},
                                  {"PriorityType", "priority/multifactor"},
                                  {"PriorityDecayHalfLife", "bogus"}});
  EXPECT_EQ(ValueOf(got, "KillWait"), "soon sec");
  EXPECT_EQ(ValueOf(got, "PriorityDecayHalfLife"), "bogus");
}

// The listing's parameter names and the catalog agree: every name the 22.05 listing prints is a
// cluster-level catalog key, and every name in the anchor capture is either derived or listed.
TEST(ShowConfigTest, ListingNamesAreCatalogKeys) {
  for (std::string_view name : ShowConfigParameterNames()) {
    EXPECT_NE(FindSlurmKey(name, kClusterScope), nullptr) << name;
  }
  // Lines computed rather than read from slurm.conf (JobDefaults is made of DefCPUPerGPU and
  // DefMemPerGPU).
  const std::set<std::string_view> derived = {"BOOT_TIME",   "HASH_VAL",   "MULTIPLE_SLURMD",
                                              "NEXT_JOB_ID", "SLURM_CONF", "SLURM_VERSION",
                                              "JobDefaults"};
  const std::vector<std::string_view> listed = ShowConfigParameterNames();
  const std::set<std::string_view> listed_set(listed.begin(), listed.end());
  EXPECT_EQ(listed_set.size(), listed.size());
  std::set<std::string> in_anchor;
  for (const std::string& line : Lines(GoldenFile("anchor-show-config.txt"))) {
    const size_t sep = line.find(" = ");
    if (sep == std::string::npos) continue;
    std::string name = line.substr(0, sep);
    while (!name.empty() && name.back() == ' ') name.pop_back();
    if (const size_t bracket = name.find('['); bracket != std::string::npos) {
      name = name.substr(0, bracket);
    }
    in_anchor.insert(name);
    if (derived.contains(name)) continue;
    EXPECT_TRUE(listed_set.contains(name)) << name << " is in the anchor listing";
  }
  // Conversely, each listed name shows in the anchor capture unless it is the other spelling of
  // a memory limit (the anchor sets DefMemPerCPU, so DefMemPerNode is not printed).
  for (std::string_view name : listed) {
    if (name == "DefMemPerNode" || name == "MaxMemPerCPU") continue;
    EXPECT_TRUE(in_anchor.contains(std::string(name))) << name << " is not in the anchor listing";
  }
}

}  // namespace
}  // namespace gantry::spec
