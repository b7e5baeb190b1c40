#include "slurm/sinfo_format.h"

#include <gtest/gtest.h>

#include <string>

#include "slurm_view/anchor_records_test_util.h"
#include "tests/testing/spec_files.h"

namespace gantry::slurm {
namespace {

using ::gantry::testing::ReadGolden;
using testing::AnchorNode;
using testing::AnchorNodes;
using testing::AnchorPartitions;

v1::GetNodesReply AnchorReply() {
  v1::GetNodesReply reply;
  for (const v1::Node& n : AnchorNodes()) *reply.add_nodes() = n;
  for (const v1::Partition& p : AnchorPartitions()) *reply.add_partitions() = p;
  return reply;
}

std::string Sinfo(const v1::GetNodesReply& reply, std::string_view format, SinfoQuery query = {},
                  std::string_view sort = "#P,-t") {
  const SinfoFormat f = ParseSinfoFormat(format);
  std::vector<SinfoRecord> records = BuildSinfoRecords(reply, query, f);
  SortSinfoRecords(&records, sort);
  SinfoPrintContext ctx;
  ctx.tz = &TimeZone::Utc();
  return RenderSinfo(f, records, false, ctx);
}

std::string WithoutFirstLine(const std::string& s) { return s.substr(s.find('\n') + 1); }

TEST(SinfoAnchorTest, DefaultMatchesSlurm) {
  EXPECT_EQ(Sinfo(AnchorReply(), kSinfoDefaultFormat), ReadGolden("cmd-anchor-sinfo.txt"));
}

TEST(SinfoAnchorTest, SummarizeMatchesSlurm) {
  EXPECT_EQ(Sinfo(AnchorReply(), kSinfoSummarizeFormat), ReadGolden("cmd-anchor-sinfo-s.txt"));
}

TEST(SinfoAnchorTest, NodeLongMatchesSlurm) {
  SinfoQuery q;
  q.node_oriented = true;
  EXPECT_EQ(Sinfo(AnchorReply(), kSinfoNodeLongFormat, q, "N"),
            WithoutFirstLine(ReadGolden("cmd-anchor-sinfo-N-l.txt")));
}

v1::GetNodesReply MixedReply() {
  v1::GetNodesReply reply = AnchorReply();
  v1::Node* gpu2 = reply.mutable_nodes(1);
  gpu2->set_alloc_cpus(16);  // mixed
  v1::Node* gpu3 = reply.mutable_nodes(2);
  gpu3->set_state(static_cast<uint32_t>(model::NodeBaseState::kIdle));
  gpu3->set_alloc_cpus(0);
  gpu3->set_alloc_mem_mb(0);
  gpu3->clear_alloc_gres();
  v1::Node* gpu4 = reply.mutable_nodes(3);
  gpu4->set_state(static_cast<uint32_t>(model::NodeBaseState::kIdle));
  gpu4->set_state_flags(static_cast<uint32_t>(model::NodeFlag::kDrain));
  gpu4->set_alloc_cpus(0);
  gpu4->set_alloc_mem_mb(0);
  gpu4->clear_alloc_gres();
  gpu4->set_reason("bad gpu");
  gpu4->set_reason_uid(0);
  gpu4->set_reason_time(testing::At("2026-12-02T11:00:00"));
  return reply;
}

TEST(SinfoFormatTest, GroupsByStateAndSortsStatesDescending) {
  EXPECT_EQ(Sinfo(MixedReply(), kSinfoDefaultFormat),
            "PARTITION AVAIL  TIMELIMIT  NODES  STATE NODELIST\n"
            "a4*          up   infinite      1  drain gpu4\n"
            "a4*          up   infinite      1    mix gpu2\n"
            "a4*          up   infinite      1  alloc gpu1\n"
            "a4*          up   infinite      1   idle gpu3\n"
            "high         up   infinite      1  drain gpu4\n"
            "high         up   infinite      1    mix gpu2\n"
            "high         up   infinite      1  alloc gpu1\n"
            "high         up   infinite      1   idle gpu3\n");
}

TEST(SinfoFormatTest, SummarizeCountsAllocIdleOther) {
  EXPECT_EQ(Sinfo(MixedReply(), "%P %F %C"),
            "PARTITION NODES(A/I/O/T) CPUS(A/I/O/T)\n"
            "a4* 2/1/1/4 80/112/64/256\n"
            "high 2/1/1/4 80/112/64/256\n");
}

TEST(SinfoFormatTest, ReasonsListIgnoresPartitions) {
  SinfoQuery q;
  q.reasons_only = true;
  const SinfoFormat f = ParseSinfoFormat(kSinfoReasonsFormat);
  const v1::GetNodesReply reply = MixedReply();
  std::vector<SinfoRecord> records = BuildSinfoRecords(reply, q, f);
  SinfoPrintContext ctx;
  ctx.tz = &TimeZone::Utc();
  ctx.user_name = [](uint32_t) { return std::optional<std::string>("root"); };
  EXPECT_EQ(RenderSinfo(f, records, false, ctx),
            "REASON               USER      TIMESTAMP           NODELIST\n"
            "bad gpu              root      2026-12-02T11:00:00 gpu4\n");
}

TEST(SinfoFormatTest, StateAndPartitionFilters) {
  SinfoQuery q;
  q.states = model::ParseSinfoStateFilter("idle,drain").value();
  q.partitions = {"high"};
  EXPECT_EQ(Sinfo(MixedReply(), "%R %t %N", q),
            "PARTITION STATE NODELIST\nhigh drain gpu4\nhigh idle gpu3\n");
}

TEST(SinfoFormatTest, EmptyPartitionAndHiddenPartition) {
  v1::GetNodesReply reply = AnchorReply();
  v1::Partition* empty = reply.add_partitions();
  empty->set_name("spare");
  empty->set_max_time_min(60);
  v1::Partition* hidden = reply.add_partitions();
  hidden->set_name("secret");
  hidden->set_hidden(true);
  hidden->add_nodes("gpu[1-2]");
  EXPECT_EQ(Sinfo(reply, kSinfoDefaultFormat),
            "PARTITION AVAIL  TIMELIMIT  NODES  STATE NODELIST\n"
            "a4*          up   infinite      4  alloc gpu[1-4]\n"
            "high         up   infinite      4  alloc gpu[1-4]\n"
            "spare        up    1:00:00      0    n/a \n");
  SinfoQuery all;
  all.all = true;
  EXPECT_NE(Sinfo(reply, kSinfoDefaultFormat, all)
                .find("secret       up   infinite      2  alloc gpu[1-2]\n"),
            std::string::npos);
}

TEST(SinfoFormatTest, UnknownLetterIsAnError) {
  const SinfoFormat f = ParseSinfoFormat("%P %Q");
  ASSERT_EQ(f.errors.size(), 1u);
  EXPECT_EQ(f.errors[0], "Invalid node format specification: Q");
}

TEST(SinfoFormatTest, LongFormatNamesWidthsAndErrors) {
  struct Case {
    const char* format;
    const char* expected;
    std::vector<std::string> errors;
  };
  const Case cases[] = {
      // Captured from Slurm 22.05: an unknown name prints only its suffix; node lists are cut.
      {"partition:.5X,Foo:7,nodelist:3,cpus:.4|",
       "PARTIXNODCPUS|\n  a4*Xgpu  64|\n highXgpu  64|\n",
       {"sinfo: error: Invalid job format specification: Foo"}},
      {"NodeList:.3,PartitionName:0,nodeai:0",
       "NODELISTPARTITIONNODES(A/I)\ngpua44/0\ngpuhigh4/0\n",
       {}},
      {"PARTITION:0 ,Time:0 ,statecomplete:0",
       "PARTITION TIMELIMIT STATECOMPLETE\n"
       "a4* infinite allocated\nhigh infinite allocated\n",
       {}},
  };
  const v1::GetNodesReply reply = AnchorReply();
  for (const Case& c : cases) {
    SCOPED_TRACE(c.format);
    const SinfoFormat f = ParseSinfoLongFormat(c.format);
    EXPECT_EQ(f.errors, c.errors);
    std::vector<SinfoRecord> records = BuildSinfoRecords(reply, {}, f);
    SortSinfoRecords(&records, "#P,-t");
    EXPECT_EQ(RenderSinfo(f, records, false, {}), c.expected);
  }
}

}  // namespace
}  // namespace gantry::slurm
