// The Slurm commands' transcripts (tests/golden/cmd-*.txt, written against the fake controller
// of slurm/fake_controller_test_util.h) made again against gantryd's own controller: the
// reference cluster's records loaded into a Controller over a memory store (the snapshot a
// restart reads), served on a command socket in this process as gantryd serves it. A transcript
// that differs names a place where the fake says what gantryd does not.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "ctld/command_socket.h"
#include "ctld/controller.h"
#include "ctld/testing.h"
#include "slurm/transcript_test_util.h"
#include "slurm_view/anchor_records_test_util.h"
#include "state/cluster_state.h"
#include "store/memory_store.h"
#include "wire/frame_server.h"

namespace gantry::ctld {
namespace {

using slurm::testing::AnchorNodes;
using slurm::testing::AnchorPartitions;
using slurm::testing::AnchorQueue;
using slurm::testing::AnchorQueueNow;
using slurm::testing::CheckGolden;
using slurm::testing::ScancelCases;
using slurm::testing::ScontrolCases;
using slurm::testing::SinfoCases;
using slurm::testing::SqueueCases;
using slurm::testing::Transcript;

// gantryd's controller holding the reference cluster (slurm_view/anchor_records_test_util.h),
// answering the command socket named by its gantry.conf. Its clock stands at the reference's
// squeue time; no agent answers (none is needed to list).
class AnchorController {
 public:
  AnchorController() {
    char tmpl[] = "/tmp/gantry-ctld-golden-XXXXXX";
    dir_ = mkdtemp(tmpl);
    conf_ = dir_ + "/gantry.conf";
    std::ofstream(conf_) << "ClusterName=anchor\nStateDir=" << dir_ << "\nCommandSocket=" << dir_
                         << "/commands.sock\nControllerSocket=" << dir_ << "/gantryd.sock\n";
    clock_.now = AnchorQueueNow();

    state::ClusterState state;
    state.nodes = AnchorNodes();
    state.partitions = AnchorPartitions();
    for (v1::Job& job : AnchorQueue()) {
      const uint32_t id = job.job_id();
      state.jobs.emplace(id, std::move(job));
    }
    state.next_job_id = state.jobs.rbegin()->first + 1;
    state::RebuildIndexes(&state);
    auto store = store::OpenMemoryStore(disk_, {}, {});
    EXPECT_TRUE(store.ok()) << store.status().ToString();
    store_ = std::move(store).value();
    Result<std::string> snapshot = state::EncodeSnapshot(state::ToSnapshot(state));
    EXPECT_TRUE(snapshot.ok()) << snapshot.status().ToString();
    EXPECT_TRUE(store_->SaveSnapshot({0, *snapshot}).ok());

    ControllerConfig config;
    config.cluster_name = "anchor";
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

struct Transcripted {
  const char* golden;
  std::vector<slurm::testing::Case> (*cases)();
};

class ControllerGoldenTest : public ::testing::TestWithParam<Transcripted> {};

TEST_P(ControllerGoldenTest, TranscriptIsTheOneTheFakeControllerGives) {
  AnchorController controller;
  CheckGolden(GetParam().golden, Transcript(controller, GetParam().cases()));
}

INSTANTIATE_TEST_SUITE_P(Commands, ControllerGoldenTest,
                         ::testing::Values(Transcripted{"cmd-squeue.txt", SqueueCases},
                                           Transcripted{"cmd-sinfo.txt", SinfoCases},
                                           Transcripted{"cmd-scontrol.txt", ScontrolCases},
                                           Transcripted{"cmd-scancel.txt", ScancelCases}));

}  // namespace
}  // namespace gantry::ctld
