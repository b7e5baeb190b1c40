// The Slurm commands' transcripts (tests/golden/cmd-*.txt, written against the fake controller
// of slurm/fake_controller_test_util.h) made again against gantryd's own controller: the
// reference cluster's records loaded into a Controller over a memory store (the snapshot a
// restart reads), served on a command socket in this process as gantryd serves it. A transcript
// that differs names a place where the fake says what gantryd does not.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "ctld/command_socket.h"
#include "ctld/controller.h"
#include "ctld/testing.h"
#include "model/job_state.h"
#include "sched/priority.h"
#include "slurm/transcript_test_util.h"
#include "slurm_view/anchor_records_test_util.h"
#include "state/anchor_accounting_test_util.h"
#include "state/cluster_state.h"
#include "store/memory_store.h"
#include "wire/frame_server.h"

namespace gantry::ctld {
namespace {

using slurm::testing::AnchorNodes;
using slurm::testing::AnchorPartitions;
using slurm::testing::AnchorQueue;
using slurm::testing::AnchorQueueNow;
using slurm::testing::AnchorSacctHistory;
using slurm::testing::CheckGolden;
using slurm::testing::SacctCases;
using slurm::testing::ScancelCases;
using slurm::testing::ScontrolCases;
using slurm::testing::SdiagCases;
using slurm::testing::SinfoCases;
using slurm::testing::SprioAndSshareCaptures;
using slurm::testing::SqueueCases;
using slurm::testing::StdoutOf;
using slurm::testing::Transcript;

// gantryd's controller holding the reference cluster (slurm_view/anchor_records_test_util.h):
// its queue, its accounting and priority settings when sprio was captured
// (state/anchor_accounting_test_util.h), and the jobs sacct's transcript lists in the archive.
// It answers the command socket named by its gantry.conf. Its clock stands at the reference's
// squeue time; no agent answers (none is needed to list).
class AnchorController {
 public:
  // Holds `queue` (the reference's squeue capture by default) and `archived`, jobs that ended
  // before the controller started (sacct finds them in its store's archive).
  explicit AnchorController(std::vector<v1::Job> queue = AnchorQueue(),
                            const std::vector<v1::Job>& archived = {}) {
    char tmpl[] = "/tmp/gantry-ctld-golden-XXXXXX";
    dir_ = mkdtemp(tmpl);
    conf_ = dir_ + "/gantry.conf";
    std::ofstream(conf_) << "ClusterName=anchor\nStateDir=" << dir_ << "\nCommandSocket=" << dir_
                         << "/commands.sock\nControllerSocket=" << dir_ << "/gantryd.sock\n";
    std::ofstream(dir_ + "/down.conf")
        << "ClusterName=anchor\nControllerSocket=" << dir_ << "/nosuch.sock\n";
    clock_.now = AnchorQueueNow();

    state::ClusterState state;
    state.nodes = AnchorNodes();
    state.partitions = AnchorPartitions();
    for (v1::Job& job : queue) {
      const uint32_t id = job.job_id();
      state.jobs.emplace(id, std::move(job));
    }
    state.next_job_id = state.jobs.rbegin()->first + 1;
    state.accounting = state::testing::AnchorAccounting(clock_.now);
    state::RebuildIndexes(&state);
    auto store = store::OpenMemoryStore(disk_, {}, {});
    EXPECT_TRUE(store.ok()) << store.status().ToString();
    store_ = std::move(store).value();
    Result<std::string> snapshot = state::EncodeSnapshot(state::ToSnapshot(state));
    EXPECT_TRUE(snapshot.ok()) << snapshot.status().ToString();
    EXPECT_TRUE(store_->SaveSnapshot({0, *snapshot}).ok());
    store::WriteBatch archive;
    for (const v1::Job& job : archived) {
      archive.archive.push_back({.job_id = job.job_id(),
                                 .submit_time = job.submit_time(),
                                 .end_time = job.end_time(),
                                 .user_id = job.user_id(),
                                 .record = job.SerializeAsString()});
    }
    EXPECT_TRUE(store_->EnqueueWrite(std::move(archive))->Wait().ok());

    ControllerConfig config;
    config.cluster_name = "anchor";
    const std::map<std::string, std::string> keys = state::testing::AnchorPriorityKeys();
    Result<sched::PriorityConfig> priority = sched::PriorityConfig::FromKeys(
        [&keys](std::string_view key) -> std::optional<std::string> {
          const auto it = keys.find(std::string(key));
          if (it == keys.end()) return std::nullopt;
          return it->second;
        });
    EXPECT_TRUE(priority.ok()) << priority.status().ToString();
    if (priority.ok()) config.core.priority = *priority;
    controller_ = std::make_unique<Controller>(config, store_.get(), &clock_, &agents_);
    v1::ConfigLoaded loaded;
    for (const v1::Node& node : state.nodes) *loaded.add_nodes() = node;
    for (const v1::Partition& partition : state.partitions) *loaded.add_partitions() = partition;
    const Status recovered = controller_->Recover(loaded);
    EXPECT_TRUE(recovered.ok()) << recovered.ToString();

    auto frames = wire::FrameServer::Listen(
        dir_ + "/commands.sock",
        [this](const wire::PeerIdentity&, wire::Method method, std::string_view body) {
          const uint32_t uid = caller_uid;
          return HandleCommand(controller_.get(), "0.1.0", Caller{uid, uid}, method, body);
        });
    EXPECT_TRUE(frames.ok()) << frames.status().ToString();
    frames_ = std::move(frames).value();
    frames_->Start();
  }
  ~AnchorController() {
    frames_->Stop();
    controller_.reset();
    std::filesystem::remove_all(dir_);
  }

  const std::string& dir() const { return dir_; }
  const std::string& conf_path() const { return conf_; }
  std::atomic<uint32_t> caller_uid = 0;  // who the next call comes from

 private:
  std::string dir_;
  std::string conf_;
  testing::FakeClock clock_;
  testing::FakeAgents agents_;
  std::shared_ptr<store::MemoryDisk> disk_ = std::make_shared<store::MemoryDisk>();
  std::unique_ptr<store::Store> store_;
  std::unique_ptr<Controller> controller_;
  std::unique_ptr<wire::FrameServer> frames_;
};

// The reference's squeue capture and the jobs sacct's transcript lists (AnchorSacctHistory):
// those still pending or running among them are held, the others archived.
std::unique_ptr<AnchorController> SacctController() {
  std::vector<v1::Job> queue = AnchorQueue();
  std::vector<v1::Job> archived;
  for (v1::Job& job : AnchorSacctHistory()) {
    const bool ended = model::IsFinished(static_cast<model::JobBaseState>(job.state()));
    (ended ? archived : queue).push_back(std::move(job));
  }
  return std::make_unique<AnchorController>(std::move(queue), archived);
}

struct Transcripted {
  const char* golden;
  std::vector<slurm::testing::Case> (*cases)();
  bool with_history = false;  // held by SacctController()
};

class ControllerGoldenTest : public ::testing::TestWithParam<Transcripted> {};

TEST_P(ControllerGoldenTest, TranscriptIsTheOneTheFakeControllerGives) {
  std::unique_ptr<AnchorController> controller =
      GetParam().with_history ? SacctController() : std::make_unique<AnchorController>();
  CheckGolden(GetParam().golden, Transcript(*controller, GetParam().cases()));
}

INSTANTIATE_TEST_SUITE_P(Commands, ControllerGoldenTest,
                         ::testing::Values(Transcripted{"cmd-squeue.txt", SqueueCases},
                                           Transcripted{"cmd-sinfo.txt", SinfoCases},
                                           Transcripted{"cmd-scontrol.txt", ScontrolCases},
                                           Transcripted{"cmd-scancel.txt", ScancelCases},
                                           Transcripted{"cmd-sacct.txt", SacctCases, true},
                                           Transcripted{"cmd-sdiag.txt", SdiagCases}));

// `text` with the characters under `header`'s column blanked on every line (fixed-width output).
std::string WithoutColumn(const std::string& text, const std::string& header) {
  const size_t begin = text.find(header);
  if (begin == std::string::npos) return text;
  std::istringstream lines(text);
  std::string out;
  for (std::string line; std::getline(lines, line);) {
    if (line.size() > begin) {
      const size_t width = std::min(header.size(), line.size() - begin);
      line.replace(begin, width, width, ' ');
    }
    out += line + "\n";
  }
  return out;
}

// sprio and sshare, computed by the controller from the reference cluster's state when they were
// captured, print what the reference cluster's own sprio and sshare printed. Except sshare's
// EffectvUsage: Gantry computes it when asked, Slurm's is as of its last priority calculation
// (docs/compatibility.md), so that column is compared as Gantry computes it.
TEST(ControllerGoldenTest, SprioAndSshareAreTheReferenceClustersCaptures) {
  AnchorController controller(state::testing::AnchorSprioJobs(AnchorQueueNow()));
  for (const slurm::testing::Captured& c : SprioAndSshareCaptures()) {
    const std::string out = StdoutOf(controller, c.command.user, c.command.line);
    const std::string golden = ::gantry::testing::ReadGolden(c.golden);
    EXPECT_EQ(WithoutColumn(out, "EffectvUsage"), WithoutColumn(golden, "EffectvUsage"))
        << c.command.line;
  }
  // Each row's usage over its parent's: research 173878.2 / 272546.9 = 0.637975.
  EXPECT_NE(StdoutOf(controller, "root", "sshare -a")
                .find(" research                                1    0.333333      173878      "
                      "0.637975"),
            std::string::npos);
}

}  // namespace
}  // namespace gantry::ctld
