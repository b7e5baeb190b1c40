#include "ctld/controller.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <pwd.h>
#include <signal.h>
#include <unistd.h>

#include <filesystem>
#include <functional>
#include <mutex>
#include <optional>

#include "core/pass_log.h"
#include "ctld/command_socket.h"
#include "ctld/testing.h"
#include "slurm_view/squeue_listing.h"
#include "state/testing.h"
#include "store/memory_store.h"

namespace gantry::ctld {
namespace {

using model::JobBaseState;
using state::testing::kNow;
using state::testing::MakeNode;
using state::testing::MakePartition;
using ::testing::ElementsAre;
using testing::FakeAgents;
using testing::FakeClock;

constexpr Caller kRoot{0, 0};
const Caller kAlice{1001, 1001};
const Caller kBob{1002, 1002};

class ControllerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    config_.cluster_name = "test";
    config_.core.kill_wait_sec = 5;
    config_.core.node_timeout_sec = 30;
    config_.slurm_user_uid = 0;
    Open();
  }
  void TearDown() override {
    if (controller_) ExpectListingsAgree();
    controller_.reset();
    store_.reset();
  }

  // (Re)opens the store and a controller over it, as a gantryd (re)start does.
  void Open() {
    controller_.reset();
    store_.reset();
    auto store = store::OpenMemoryStore(disk_, {}, faults_);
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    store_ = std::move(store).value();
    controller_ = std::make_unique<Controller>(config_, store_.get(), &clock_, &agents_);
    v1::ConfigLoaded config;
    for (const char* n : {"n0", "n1", "n2"}) *config.add_nodes() = MakeNode(n, 8, 32000, "");
    *config.add_partitions() = MakePartition("batch", {"n0", "n1", "n2"}, true);
    ASSERT_TRUE(controller_->Recover(config).ok());
  }

  void RegisterAll(std::vector<uint32_t> held = {}) {
    for (const char* n : {"n0", "n1", "n2"}) {
      v1::RegisterRequest r;
      r.set_node(n);
      r.set_address(std::string("127.0.0.1:") + (n + 1));
      r.set_boot_time(boot_time_);
      for (uint32_t id : held) r.add_running_job_ids(id);
      ASSERT_TRUE(controller_->Register(kRoot, r).ok());
    }
  }

  void HeartbeatAll() {
    for (const char* n : {"n0", "n1", "n2"}) Heartbeat(n);
  }
  // One node's heartbeat: the jobs it holds, of those the ones it launched and the ones it is
  // ending.
  void Heartbeat(const std::string& node, std::vector<uint32_t> held = {},
                 std::vector<uint32_t> launched = {}, std::vector<uint32_t> ending = {}) {
    v1::HeartbeatRequest hb;
    hb.set_node(node);
    hb.set_boot_time(boot_time_);
    for (uint32_t id : held) hb.add_job_ids(id);
    for (uint32_t id : launched) hb.add_launched_job_ids(id);
    for (uint32_t id : ending) hb.add_ending_job_ids(id);
    ASSERT_TRUE(controller_->Heartbeat(kRoot, hb).ok());
  }

  uint32_t Submit(const Caller& who, uint32_t nodes = 1,
                  const std::string& script = "#!/bin/sh\n") {
    return SubmitWith(
        who, [nodes](v1::JobRequest* r) { r->set_min_nodes(nodes); }, script);
  }
  // Submits a request in /tmp with `edit` applied; 0 when it is refused.
  uint32_t SubmitWith(const Caller& who, const std::function<void(v1::JobRequest*)>& edit,
                      const std::string& script = "#!/bin/sh\n") {
    v1::SubmitJobRequest r;
    r.mutable_request()->set_work_dir("/tmp");
    edit(r.mutable_request());
    r.mutable_payload()->set_script(script);
    Result<v1::SubmitJobReply> reply = controller_->Submit(who, r);
    EXPECT_TRUE(reply.ok()) << reply.status().ToString();
    return reply.ok() ? reply->job_id() : 0;
  }

  // The command socket's listings (serialized records, cached between changes) say what the
  // records say: a cached record that missed a change shows here. Job() checks every time.
  void ExpectListingsAgree() {
    v1::GetJobsReply live;
    ASSERT_TRUE(controller_->GetJobs(v1::GetJobsRequest(), &live).ok());
    wire::Slices bytes;
    ASSERT_TRUE(controller_->GetJobsSerialized(v1::GetJobsRequest(), &bytes).ok());
    v1::GetJobsReply listed;
    ASSERT_TRUE(listed.ParseFromString(bytes.Flatten()));
    ASSERT_EQ(listed.jobs_size(), live.jobs_size());
    for (int i = 0; i < live.jobs_size(); ++i) {
      EXPECT_EQ(listed.jobs(i).SerializeAsString(), live.jobs(i).SerializeAsString())
          << "job " << live.jobs(i).job_id() << " listed as\n"
          << listed.jobs(i).DebugString() << "but is\n"
          << live.jobs(i).DebugString();
    }
    // squeue's listing made here (kept between changes) is the one made from the records.
    v1::GetJobsRequest squeue;
    squeue.mutable_squeue()->set_format(slurm::kSqueueLongFormat);
    wire::Slices lines_bytes;
    ASSERT_TRUE(controller_->GetJobsSerialized(squeue, &lines_bytes).ok());
    v1::GetJobsReply lines;
    ASSERT_TRUE(lines.ParseFromString(lines_bytes.Flatten()));
    v1::GetJobsReply lines_grpc;
    ASSERT_TRUE(controller_->GetJobs(squeue, &lines_grpc).ok());
    EXPECT_EQ(lines_grpc.SerializeAsString(), lines.SerializeAsString());
    const slurm::SqueueQuery query = *slurm::QueryOf(squeue.squeue());
    slurm::ListingPiece piece = slurm::NewPiece(query, 0);
    for (const v1::Job& job : live.jobs()) {
      slurm::AddRecord(query, job, slurm::JobPrintContext{lines.now(), &TimeZone::Utc(), "test"},
                       &piece);
    }
    const slurm::ListingPiece* pieces[] = {&piece};
    std::string text;
    for (const std::string& l : lines.lines()) text += l;
    EXPECT_EQ(text, slurm::OrderedText(pieces));
  }

  v1::Job Job(uint32_t id) {
    ExpectListingsAgree();
    v1::GetJobsRequest r;
    r.add_job_ids(id);
    v1::GetJobsReply reply;
    EXPECT_TRUE(controller_->GetJobs(r, &reply).ok());
    return reply.jobs_size() == 1 ? reply.jobs(0) : v1::Job();
  }
  JobBaseState State(uint32_t id) { return static_cast<JobBaseState>(Job(id).state()); }

  v1::Node Node(const std::string& name) {
    v1::GetNodesRequest r;
    r.add_names(name);
    v1::GetNodesReply reply;
    controller_->GetNodes(r, &reply);
    return reply.nodes_size() == 1 ? reply.nodes(0) : v1::Node();
  }

  Status Report(const std::string& node, uint32_t id, v1::JobReport::Kind kind, int status = 0) {
    v1::JobReport r;
    r.set_node(node);
    r.set_job_id(id);
    r.set_epoch(Job(id).agent_epoch());
    r.set_kind(kind);
    r.set_wait_status(status);
    return controller_->Report(kRoot, r);
  }

  // Runs a started job's prologs on all its nodes.
  void PrologsDone(uint32_t id) {
    const v1::Job job = Job(id);
    for (const std::string& n : job.nodes()) {
      ASSERT_TRUE(Report(n, id, v1::JobReport::PROLOG_OK).ok());
    }
  }

  // sacct's view: the ids of every job, live or archived, in the window, of those users.
  std::vector<uint32_t> HistoryIds(int64_t start, int64_t end, std::vector<uint32_t> users = {}) {
    v1::GetJobsRequest r;
    r.set_history(true);
    r.set_window_start(start);
    r.set_window_end(end);
    for (uint32_t uid : users) r.add_user_ids(uid);
    v1::GetJobsReply reply;
    EXPECT_TRUE(controller_->GetJobs(r, &reply).ok());
    std::vector<uint32_t> ids;
    for (const v1::Job& job : reply.jobs()) ids.push_back(job.job_id());
    return ids;
  }

  ControllerConfig config_;
  FakeClock clock_;
  FakeAgents agents_;
  int64_t boot_time_ = kNow - 100;
  // The store's disk outlives each store: Open() again is a restart. faults_ applies to the
  // store Open() makes next.
  std::shared_ptr<store::MemoryDisk> disk_ = std::make_shared<store::MemoryDisk>();
  store::FaultPlan faults_;
  std::unique_ptr<store::Store> store_;
  std::unique_ptr<Controller> controller_;
};

TEST_F(ControllerTest, BatchJobRunsThroughPrologLaunchEndAndEpilog) {
  RegisterAll();
  agents_.Take();
  const uint32_t id = Submit(kAlice, 1, "#!/bin/sh\necho hi\n");
  EXPECT_EQ(id, 1u);
  EXPECT_EQ(State(id), JobBaseState::kPending);
  controller_->RunOnce();
  EXPECT_EQ(State(id), JobBaseState::kRunning);
  EXPECT_THAT(agents_.Take(), ElementsAre("Prepare n0 1"));
  PrologsDone(id);
  std::vector<FakeAgents::Call> launch = agents_.TakeCalls();
  ASSERT_EQ(launch.size(), 1u);
  EXPECT_EQ(launch[0].what, "Launch");
  EXPECT_EQ(launch[0].script, "#!/bin/sh\necho hi\n");  // the payload came back from the store
  EXPECT_EQ(launch[0].epoch, 1u);
  ASSERT_TRUE(Report("n0", id, v1::JobReport::BATCH_ENDED, 0).ok());
  EXPECT_EQ(State(id), JobBaseState::kCompleted);
  EXPECT_THAT(agents_.Take(), ElementsAre("Terminate n0 1"));
  EXPECT_TRUE(Job(id).state_flags() & static_cast<uint32_t>(model::JobFlag::kCompleting));
  ASSERT_TRUE(Report("n0", id, v1::JobReport::EPILOG_OK).ok());
  EXPECT_FALSE(Job(id).state_flags() & static_cast<uint32_t>(model::JobFlag::kCompleting));
  EXPECT_EQ(Node("n0").job_ids_size(), 0);
}

// PriorityUsageResetPeriod=DAILY: the usage a job left is gone once a day has begun.
// A commit the store fails leaves the state in memory ahead of the disk: gantryd stops (exit 70)
// before anyone is answered, and a restart finds what was durable.
// gantry-restd's calls: a request in an AsUser envelope is answered as the token's user, whoever
// is on the socket; a root token may name another user.
TEST_F(ControllerTest, ACallInATokenEnvelopeIsMadeAsTheTokensUser) {
  config_.token_key = rpc::TokenKeyOf(rpc::ClusterKey{std::string(32, 'k')});
  Open();
  Result<wire::Slices> issued =
      HandleCommand(controller_.get(), "test", kRoot, wire::Method::kIssueToken,
                    v1::IssueTokenRequest().SerializeAsString());
  ASSERT_TRUE(issued.ok()) << issued.status().ToString();
  v1::IssueTokenReply token;
  ASSERT_TRUE(token.ParseFromString(issued->Flatten()));
  // Ping answers who the controller thinks the caller is.
  const auto ping_as = [&](const std::string& token_text, const std::string& user_name,
                           wire::Method method = wire::Method::kPing) -> Result<v1::PingReply> {
    v1::AsUserRequest envelope;
    envelope.set_token(token_text);
    envelope.set_user_name(user_name);
    envelope.set_method(static_cast<uint32_t>(method));
    envelope.set_request(v1::PingRequest().SerializeAsString());
    GANTRY_ASSIGN_OR_RETURN(wire::Slices reply,
                            HandleCommand(controller_.get(), "test", kAlice, wire::Method::kAsUser,
                                          envelope.SerializeAsString()));
    v1::PingReply ping;
    if (!ping.ParseFromString(reply.Flatten())) return Internal("bad reply");
    return ping;
  };
  Result<v1::PingReply> as_root = ping_as(token.token(), "");
  ASSERT_TRUE(as_root.ok()) << as_root.status().ToString();
  EXPECT_EQ(as_root->caller_uid(), 0u);
  const passwd* nobody = getpwnam("nobody");
  ASSERT_NE(nobody, nullptr);
  Result<v1::PingReply> as_nobody = ping_as(token.token(), "nobody");
  ASSERT_TRUE(as_nobody.ok()) << as_nobody.status().ToString();
  EXPECT_EQ(as_nobody->caller_uid(), nobody->pw_uid);
  EXPECT_EQ(ping_as("not.a.token", "").status().code(), StatusCode::kUnauthenticated);
  EXPECT_EQ(ping_as(token.token(), "", wire::Method::kAsUser).status(),
            InvalidArgument("AsUser: method 100 is not a controller method"));
}

TEST_F(ControllerTest, MetricsServeSlurmsEndpointsAndTimeTheCommits) {
  Submit(kAlice);
  Result<std::string> all = controller_->Metrics("");
  ASSERT_TRUE(all.ok()) << all.status().ToString();
  EXPECT_NE(all->find("\nslurm_nodes 3\n"), std::string::npos) << *all;
  EXPECT_NE(all->find("\nslurm_jobs_pending 1\n"), std::string::npos);
  // The submission's commit, and recovery's before it.
  EXPECT_NE(all->find("\ngantry_commit_seconds_count 2\n"), std::string::npos) << *all;
  EXPECT_NE(all->find("\ngantry_jobs_submitted_total 1\n"), std::string::npos);
  EXPECT_TRUE(all->ends_with("# EOF\n"));
  EXPECT_EQ(all->find("slurm_user_jobs_pending"), std::string::npos);  // only when asked
  Result<std::string> users = controller_->Metrics("jobs-users-accts");
  ASSERT_TRUE(users.ok());
  EXPECT_NE(users->find("slurm_user_jobs_pending{username="), std::string::npos);
  Result<std::string> nodes = controller_->Metrics("nodes");
  ASSERT_TRUE(nodes.ok());
  EXPECT_EQ(nodes->find("slurm_jobs"), std::string::npos);
  EXPECT_EQ(controller_->Metrics("secrets").status().code(), StatusCode::kNotFound);
}

TEST_F(ControllerTest, AFailedCommitStopsTheControllerBeforeItAnswers) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  // The restart's recovery commits once (the configuration); then the submission.
  faults_.fail_commit = disk_->commits() + 2;
  Open();
  v1::SubmitJobRequest request;
  request.mutable_request()->set_work_dir("/");
  EXPECT_EXIT((void)controller_->Submit(kRoot, request), ::testing::ExitedWithCode(70),
              "fatal: the store failed a commit: .*injected fault: commit [0-9]+ fails");
}

TEST_F(ControllerTest, UsageStartsAgainAtTheResetPeriod) {
  config_.core.priority.usage_reset = sched::UsageResetPeriod::kDaily;
  Open();
  RegisterAll();
  const uint32_t id = Submit(kRoot);
  controller_->RunOnce();
  PrologsDone(id);
  clock_.now += 600;
  ASSERT_TRUE(Report("n0", id, v1::JobReport::BATCH_ENDED, 0).ok());
  ASSERT_TRUE(Report("n0", id, v1::JobReport::EPILOG_OK).ok());
  auto root_usage = [&] {
    v1::GetPrioritiesRequest r;
    r.set_shares(true);
    double usage = -1;
    const v1::GetPrioritiesReply reply = controller_->GetPriorities(r);
    for (const v1::ShareInfo& share : reply.shares()) {
      if (share.account() == "root" && share.user() == "root") usage = share.raw_usage();
    }
    return usage;
  };
  controller_->RunOnce();
  EXPECT_GT(root_usage(), 0);  // the same day
  clock_.now += 24 * 3600;
  controller_->RunOnce();
  EXPECT_EQ(root_usage(), 0);
}

// bf_interval=60: passes between backfilling ones keep strict order (a short job waits behind a
// blocked wide one) and the wide job keeps the start the last backfill planned for it.
TEST_F(ControllerTest, BackfillRunsAtMostOncePerBfInterval) {
  config_.core.scheduler.bf_interval_sec = 60;
  Open();
  RegisterAll();
  auto job = [&](uint32_t nodes, uint32_t minutes) {
    return SubmitWith(kAlice, [=](v1::JobRequest* r) {
      r->set_min_nodes(nodes);
      r->set_time_limit_min(minutes);
    });
  };
  const uint32_t running = job(1, 10);
  controller_->RunOnce();  // backfills (the first pass)
  ASSERT_EQ(State(running), JobBaseState::kRunning);
  const uint32_t wide = job(3, 10);
  const uint32_t shorter = job(1, 5);
  clock_.now += 10;
  HeartbeatAll();
  controller_->RunOnce();  // 10 s later: strict order
  EXPECT_EQ(State(shorter), JobBaseState::kPending);
  EXPECT_EQ(Job(shorter).reason(), "Priority");
  EXPECT_EQ(Job(wide).expected_start_time(), 0);
  clock_.now += 50;
  HeartbeatAll();
  controller_->RunOnce();  // 60 s after the last backfill
  EXPECT_EQ(State(shorter), JobBaseState::kRunning);
  const int64_t planned = Job(wide).expected_start_time();
  EXPECT_GT(planned, clock_.now);
  clock_.now += 1;
  HeartbeatAll();
  controller_->RunOnce();
  EXPECT_EQ(Job(wide).expected_start_time(), planned);  // kept until the next backfill
}

TEST_F(ControllerTest, FailingScriptEndsFailedWithItsExitCode) {
  RegisterAll();
  const uint32_t id = Submit(kAlice);
  controller_->RunOnce();
  PrologsDone(id);
  ASSERT_TRUE(Report("n0", id, v1::JobReport::BATCH_ENDED, 3 << 8).ok());
  EXPECT_EQ(State(id), JobBaseState::kFailed);
  EXPECT_EQ(Job(id).exit_status(), 3 << 8);
}

// Delivery until confirmed (review M4): a TerminateJob or LaunchBatch the agent never got (its
// retries ran out) goes again once the heartbeats keep showing it owed, and only then.
TEST_F(ControllerTest, HeartbeatsBringBackATerminateTheAgentMissed) {
  RegisterAll();
  const uint32_t id = Submit(kAlice);
  controller_->RunOnce();
  PrologsDone(id);
  ASSERT_TRUE(Report("n0", id, v1::JobReport::BATCH_ENDED, 0).ok());
  agents_.Take();  // the Terminate: lost on its way
  Heartbeat("n0", {id}, {id});
  clock_.now += 10;  // a call in flight may still land: nothing yet
  Heartbeat("n0", {id}, {id});
  EXPECT_TRUE(agents_.Take().empty());
  clock_.now += 30;  // KillWait 5 + 2 heartbeats + 5 s later, still owed
  Heartbeat("n0", {id}, {id});
  EXPECT_THAT(agents_.Take(), ElementsAre("Terminate n0 1"));
  Heartbeat("n0", {id}, {id});
  EXPECT_TRUE(agents_.Take().empty());  // not at every heartbeat
  // Once the agent says it is ending the job, a long epilog is waited for, not re-sent.
  clock_.now += 300;
  Heartbeat("n0", {id}, {id}, {id});
  clock_.now += 300;
  Heartbeat("n0", {id}, {id}, {id});
  EXPECT_TRUE(agents_.Take().empty());
  ASSERT_TRUE(Report("n0", id, v1::JobReport::EPILOG_OK).ok());
  clock_.now += 60;
  Heartbeat("n0");
  EXPECT_TRUE(agents_.Take().empty());
}

TEST_F(ControllerTest, HeartbeatsBringBackALaunchTheAgentMissed) {
  RegisterAll();
  const uint32_t id = Submit(kAlice);
  controller_->RunOnce();
  PrologsDone(id);
  EXPECT_THAT(agents_.Take(), ElementsAre("Prepare n0 1", "Launch n0 1"));  // lost
  Heartbeat("n0", {id});
  clock_.now += 40;
  Heartbeat("n0", {id});
  std::vector<FakeAgents::Call> again = agents_.TakeCalls();
  ASSERT_EQ(again.size(), 1u);
  EXPECT_EQ(again[0].what, "Launch");
  EXPECT_EQ(again[0].script, "#!/bin/sh\n");
  // Once launched it is never sent again, and a node that is not the batch host owes nothing.
  clock_.now += 40;
  Heartbeat("n0", {id}, {id});
  Heartbeat("n1", {id});
  clock_.now += 40;
  Heartbeat("n0", {id}, {id});
  EXPECT_TRUE(agents_.Take().empty());
}

// A PrepareJob lost, or still queued when gantryd died: an agent that did not restart does not
// register again, so its heartbeats bring the prolog back (the chaos test found a job
// CONFIGURING forever). An agent that holds the job runs its prolog: nothing is sent again.
TEST_F(ControllerTest, HeartbeatsBringBackAPrologTheAgentMissed) {
  RegisterAll();
  const uint32_t id = Submit(kAlice);
  controller_->RunOnce();
  EXPECT_THAT(agents_.Take(), ElementsAre("Prepare n0 1"));  // lost
  Heartbeat("n0");
  clock_.now += 40;
  Heartbeat("n0");
  EXPECT_THAT(agents_.Take(), ElementsAre("Prepare n0 1"));
  clock_.now += 40;
  Heartbeat("n0", {id});  // it holds the job now: its prolog runs
  clock_.now += 40;
  Heartbeat("n0", {id});
  EXPECT_TRUE(agents_.Take().empty());
  EXPECT_TRUE(Job(id).state_flags() & static_cast<uint32_t>(model::JobFlag::kConfiguring));
}

// A PrepareJob of a launch that was requeued meanwhile can reach an agent late (it was retried
// while the node was cut off): the agent then holds the earlier launch and refuses the current
// one. The heartbeats' epochs show it: the earlier launch is ended at once, and the current
// prolog is sent again once the agent no longer holds the job (the chaos test found a job
// CONFIGURING forever).
TEST_F(ControllerTest, AnEarlierLaunchAnAgentHoldsIsEndedAndTheCurrentOneSent) {
  RegisterAll();
  const uint32_t id = Submit(kAlice);
  controller_->RunOnce();
  ASSERT_EQ(Job(id).nodes(0), "n0");
  const uint64_t first = Job(id).agent_epoch();
  v1::UpdateJobRequest requeue;
  requeue.set_action("requeue");
  requeue.add_job_ids(std::to_string(id));
  ASSERT_TRUE(controller_->UpdateJob(kAlice, requeue).ok());
  // The controller hears the first launch ended (its TerminateJob overtook the late PrepareJob).
  ASSERT_TRUE(Report("n0", id, v1::JobReport::EPILOG_OK).ok());
  for (int i = 0; i < 3; ++i) {  // past the requeue delay (cred_expire 120 s + 1)
    clock_.now += 41;
    HeartbeatAll();
  }
  controller_->RunOnce();
  ASSERT_TRUE(model::IsActive(State(id)));
  ASSERT_EQ(Job(id).nodes(0), "n0");
  const uint64_t second = Job(id).agent_epoch();
  ASSERT_GT(second, first);
  agents_.Take();  // the second PrepareJob: refused, as n0 still holds the first launch
  auto heartbeat = [&](std::optional<uint64_t> held_epoch) {
    v1::HeartbeatRequest hb;
    hb.set_node("n0");
    hb.set_boot_time(boot_time_);
    if (held_epoch) {
      hb.add_job_ids(id);
      (*hb.mutable_epochs())[id] = *held_epoch;
    }
    ASSERT_TRUE(controller_->Heartbeat(kRoot, hb).ok());
  };
  heartbeat(first);
  std::vector<FakeAgents::Call> calls = agents_.TakeCalls();
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(calls[0].what, "Terminate");
  EXPECT_EQ(calls[0].epoch, first);
  heartbeat(first);
  EXPECT_TRUE(agents_.Take().empty());  // not at every heartbeat
  heartbeat(std::nullopt);              // the earlier launch has ended there
  clock_.now += 40;
  heartbeat(std::nullopt);
  calls = agents_.TakeCalls();
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(calls[0].what, "Prepare");
  EXPECT_EQ(calls[0].epoch, second);
  clock_.now += 40;
  heartbeat(second);  // the current launch: its prolog runs, nothing more is owed
  clock_.now += 40;
  heartbeat(second);
  EXPECT_TRUE(agents_.Take().empty());
}

// An agent that died during a job's epilog and was started again holds the job (it took it over
// from its spool): the job is not stale there, and the TerminateJob that registering brings
// back makes it run the epilog and report it. Another node's job is stale.
TEST_F(ControllerTest, AnAgentBackDuringAnEpilogRunsItAgain) {
  RegisterAll();
  const uint32_t id = Submit(kAlice);
  controller_->RunOnce();
  PrologsDone(id);
  ASSERT_TRUE(Report("n0", id, v1::JobReport::BATCH_ENDED, 0).ok());
  agents_.Take();  // the TerminateJob: the agent died while it ran the epilog
  v1::RegisterRequest r;
  r.set_node("n0");
  r.set_address("127.0.0.1:9");
  r.set_boot_time(boot_time_ + 1);
  r.add_running_job_ids(id);
  r.add_running_job_ids(999);
  Result<v1::RegisterReply> reply = controller_->Register(kRoot, r);
  ASSERT_TRUE(reply.ok()) << reply.status().ToString();
  EXPECT_THAT(reply->stale_job_ids(), ElementsAre(999u));
  EXPECT_THAT(agents_.Take(), ElementsAre("Terminate n0 1"));
  ASSERT_TRUE(Report("n0", id, v1::JobReport::EPILOG_OK).ok());
  EXPECT_FALSE(Job(id).state_flags() & static_cast<uint32_t>(model::JobFlag::kCompleting));
}

TEST_F(ControllerTest, AScriptKilledForMemoryEndsOutOfMemory) {
  RegisterAll();
  const uint32_t id = Submit(kAlice);
  controller_->RunOnce();
  PrologsDone(id);
  ASSERT_TRUE(Report("n0", id, v1::JobReport::BATCH_ENDED, model::kWaitStatusOom).ok());
  EXPECT_EQ(State(id), JobBaseState::kOutOfMemory);
  EXPECT_EQ(Job(id).exit_status(), model::kWaitStatusOom);  // sacct: 0:125
}

TEST_F(ControllerTest, MultiNodeJobGetsDistinctNodesAndLaunchesAfterEveryProlog) {
  RegisterAll();
  agents_.Take();
  const uint32_t id = Submit(kAlice, 2);
  const uint32_t big = Submit(kAlice, 2);
  controller_->RunOnce();
  EXPECT_THAT(Job(id).nodes(), ElementsAre("n0", "n1"));
  EXPECT_EQ(State(big), JobBaseState::kPending);  // one node left: waits
  EXPECT_EQ(Job(big).reason(), "Resources");
  EXPECT_THAT(agents_.Take(), ElementsAre("Prepare n0 1", "Prepare n1 1"));
  ASSERT_TRUE(Report("n1", id, v1::JobReport::PROLOG_OK).ok());
  EXPECT_TRUE(agents_.Take().empty());  // n0's prolog still runs
  ASSERT_TRUE(Report("n0", id, v1::JobReport::PROLOG_OK).ok());
  EXPECT_THAT(agents_.Take(), ElementsAre("Launch n0 1"));
}

TEST_F(ControllerTest, CancelPendingEndsAtOnceAndRunningTerminatesOnEveryNode) {
  RegisterAll();
  const uint32_t running = Submit(kAlice, 2);
  controller_->RunOnce();
  const uint32_t pending = Submit(kAlice, 3);
  agents_.Take();
  v1::SignalJobRequest r;
  r.add_job_ids(std::to_string(pending));
  r.add_job_ids(std::to_string(running));
  Result<v1::SignalJobReply> reply = controller_->Signal(kAlice, r);
  ASSERT_TRUE(reply.ok());
  EXPECT_EQ(reply->errors_size(), 0);
  EXPECT_EQ(State(pending), JobBaseState::kCancelled);
  EXPECT_EQ(State(running), JobBaseState::kCancelled);
  EXPECT_THAT(agents_.Take(), ElementsAre("Terminate n0 1", "Terminate n1 1"));
  // The script's end after the cancel changes nothing.
  ASSERT_TRUE(Report("n0", running, v1::JobReport::BATCH_ENDED, SIGTERM).ok());
  EXPECT_EQ(State(running), JobBaseState::kCancelled);
}

// sdiag: jobs counted by what happened to them, the passes, the calls by type and user; a
// reset is for operators and starts the counters again.
TEST_F(ControllerTest, StatisticsCountJobsPassesAndCalls) {
  RegisterAll();
  const uint32_t running = Submit(kAlice, 2);
  controller_->RunOnce();
  const uint32_t pending = Submit(kAlice, 3);  // 1 node left: waits
  controller_->RunOnce();
  v1::SignalJobRequest cancel;
  cancel.add_job_ids(std::to_string(pending));
  ASSERT_TRUE(controller_->Signal(kAlice, cancel).ok());
  { DiagStats::Call call(&controller_->stats(), model::RpcType::kJobInfo, kBob.uid); }
  clock_.now += 90;
  DiagStats::Call self(&controller_->stats(), model::RpcType::kStatsInfo, kAlice.uid);
  Result<v1::GetStatsReply> stats = controller_->GetStats(kAlice, v1::GetStatsRequest(), &self);
  ASSERT_TRUE(stats.ok()) << stats.status().ToString();
  EXPECT_EQ(stats->since(), kNow);
  EXPECT_EQ(stats->time(), kNow + 90);
  EXPECT_EQ(stats->jobs_submitted(), 2u);
  EXPECT_EQ(stats->jobs_started(), 1u);
  EXPECT_EQ(stats->jobs_canceled(), 1u);
  EXPECT_EQ(stats->jobs_completed(), 0u);
  EXPECT_EQ(stats->jobs_running(), 1u);
  EXPECT_EQ(stats->jobs_pending(), 0u);
  EXPECT_EQ(stats->schedule_cycle_counter(), 2u);
  EXPECT_EQ(stats->schedule_cycle_depth(), 2u);  // one job tried in each pass
  EXPECT_EQ(stats->bf_cycle_counter(), 1u);      // the second pass planned the 3-node job
  EXPECT_EQ(stats->bf_last_depth(), 1u);
  EXPECT_EQ(stats->server_thread_count(), 1u);  // this call
  EXPECT_TRUE(stats->pending_rpcs().empty());
  ASSERT_EQ(stats->rpc_types_size(), 1);
  EXPECT_EQ(stats->rpc_types(0).id(), static_cast<uint32_t>(model::RpcType::kJobInfo));
  ASSERT_EQ(stats->rpc_users_size(), 1);
  EXPECT_EQ(stats->rpc_users(0).id(), kBob.uid);
  EXPECT_EQ(stats->rpc_users(0).count(), 1u);

  v1::GetStatsRequest reset;
  reset.set_reset(true);
  Result<v1::GetStatsReply> denied = controller_->GetStats(kAlice, reset, &self);
  EXPECT_EQ(denied.status().code(), StatusCode::kPermissionDenied);
  EXPECT_EQ(denied.status().message(), "Access/permission denied");
  ASSERT_TRUE(controller_->GetStats(kRoot, reset, &self).ok());
  stats = controller_->GetStats(kAlice, v1::GetStatsRequest(), &self);
  ASSERT_TRUE(stats.ok());
  EXPECT_EQ(stats->since(), kNow + 90);
  EXPECT_EQ(stats->jobs_submitted(), 0u);
  EXPECT_EQ(stats->schedule_cycle_counter(), 0u);
  EXPECT_EQ(stats->jobs_running(), 1u);  // states are the state's, not counters
  EXPECT_TRUE(stats->rpc_types().empty());
  EXPECT_EQ(State(running), JobBaseState::kRunning);
}

TEST_F(ControllerTest, UsersCannotTouchOtherUsersJobs) {
  RegisterAll();
  const uint32_t id = Submit(kAlice);
  v1::SignalJobRequest r;
  r.add_job_ids(std::to_string(id));
  Result<v1::SignalJobReply> reply = controller_->Signal(kBob, r);
  ASSERT_TRUE(reply.ok());
  ASSERT_EQ(reply->errors_size(), 1);
  EXPECT_EQ(reply->errors(0).message(), "Access/permission denied");
  EXPECT_EQ(State(id), JobBaseState::kPending);
  v1::UpdateJobRequest hold;
  hold.add_job_ids(std::to_string(id));
  hold.set_action("hold");
  Result<v1::UpdateJobReply> held = controller_->UpdateJob(kBob, hold);
  ASSERT_TRUE(held.ok());
  EXPECT_EQ(held->errors_size(), 1);
  v1::UpdateNodeRequest drain;
  drain.set_names("n0");
  drain.set_state("DRAIN");
  drain.set_reason("x");
  EXPECT_EQ(controller_->UpdateNode(kBob, drain).code(), StatusCode::kPermissionDenied);
  // Root may.
  reply = controller_->Signal(kRoot, r);
  ASSERT_TRUE(reply.ok());
  EXPECT_EQ(reply->errors_size(), 0);
  EXPECT_EQ(State(id), JobBaseState::kCancelled);
}

TEST_F(ControllerTest, UserFilterTakesANumericUidRootsZeroIncluded) {
  const uint32_t alices = Submit(kAlice);
  const uint32_t roots = Submit(kRoot);
  v1::SignalJobRequest r;
  r.set_user("0");  // scancel -u root
  Result<v1::SignalJobReply> reply = controller_->Signal(kRoot, r);
  ASSERT_TRUE(reply.ok()) << reply.status().ToString();
  EXPECT_EQ(State(roots), JobBaseState::kCancelled);
  EXPECT_EQ(State(alices), JobBaseState::kPending);
  r.set_user("1001");
  ASSERT_TRUE(controller_->Signal(kRoot, r).ok());
  EXPECT_EQ(State(alices), JobBaseState::kCancelled);
  r.set_user("no-such-user-here");
  EXPECT_EQ(controller_->Signal(kRoot, r).status().message(), "Invalid user id: no-such-user-here");
}

TEST_F(ControllerTest, AccountQosAndNodeFiltersAndADryRun) {
  auto submit = [&](const std::string& account, const std::string& qos) {
    return SubmitWith(kAlice, [&](v1::JobRequest* r) {
      r->set_account(account);
      r->set_qos(qos);
    });
  };
  const uint32_t a = submit("physics", "normal");
  const uint32_t b = submit("chem", "high");
  RegisterAll();  // both start, one node each
  controller_->RunOnce();
  ASSERT_EQ(State(a), JobBaseState::kRunning);
  const std::string b_node = Job(b).nodes(0);

  v1::SignalJobRequest r;
  r.set_account("physics");
  r.set_dry_run(true);  // scancel -i asks first: nothing changes
  Result<v1::SignalJobReply> listed = controller_->Signal(kRoot, r);
  ASSERT_TRUE(listed.ok()) << listed.status().ToString();
  EXPECT_THAT(listed->signalled(), ElementsAre(a));
  EXPECT_EQ(State(a), JobBaseState::kRunning);

  r.set_dry_run(false);
  r.set_account("nosuch");
  ASSERT_TRUE(controller_->Signal(kRoot, r).ok());
  EXPECT_EQ(State(a), JobBaseState::kRunning);
  r.clear_account();
  r.set_qos("high");
  r.add_nodes("n9");  // b is not there: both filters must hold
  EXPECT_THAT(controller_->Signal(kRoot, r)->signalled(), ElementsAre());
  r.add_nodes(b_node);
  EXPECT_THAT(controller_->Signal(kRoot, r)->signalled(), ElementsAre(b));
  EXPECT_EQ(Job(b).state_flags() & static_cast<uint32_t>(model::JobFlag::kCompleting),
            static_cast<uint32_t>(model::JobFlag::kCompleting));
  EXPECT_EQ(State(a), JobBaseState::kRunning);
}

TEST_F(ControllerTest, EndedJobsStayInTheHistoryAfterThePurgeAndARestart) {
  config_.min_job_age_sec = 300;
  Open();
  const uint32_t early = Submit(kAlice);  // submitted at kNow
  clock_.now += 100;
  const uint32_t cancelled = Submit(kBob);
  const uint32_t pending = Submit(kAlice);
  v1::SignalJobRequest cancel;
  cancel.add_job_ids(std::to_string(cancelled));
  cancel.add_job_ids(std::to_string(early));
  ASSERT_TRUE(controller_->Signal(kRoot, cancel).ok());
  EXPECT_EQ(Job(cancelled).cancelled_by_uid(), 0u);
  EXPECT_TRUE(Job(cancelled).has_cancelled_by_uid());
  EXPECT_FALSE(Job(pending).has_cancelled_by_uid());

  clock_.now += 1000;  // past MinJobAge: the ended jobs leave the controller's memory
  controller_->RunOnce();
  EXPECT_EQ(Job(cancelled).job_id(), 0u);
  EXPECT_THAT(HistoryIds(0, 0), ElementsAre(early, cancelled, pending));
  Open();  // and a restart
  EXPECT_THAT(HistoryIds(0, 0), ElementsAre(early, cancelled, pending));
  EXPECT_THAT(HistoryIds(0, 0, {kBob.uid}), ElementsAre(cancelled));
  // Window: submitted by its end, not ended before its start; pending jobs never ended.
  EXPECT_THAT(HistoryIds(kNow + 101, 0), ElementsAre(pending));
  EXPECT_THAT(HistoryIds(0, kNow + 50), ElementsAre(early));

  v1::GetJobsRequest one;
  one.set_history(true);
  one.add_job_ids(cancelled);
  v1::GetJobsReply reply;
  ASSERT_TRUE(controller_->GetJobs(one, &reply).ok());
  ASSERT_EQ(reply.jobs_size(), 1);
  EXPECT_EQ(reply.jobs(0).state(), static_cast<uint32_t>(JobBaseState::kCancelled));
  EXPECT_EQ(reply.jobs(0).user_id(), kBob.uid);
  EXPECT_TRUE(reply.jobs(0).has_cancelled_by_uid());
}

TEST_F(ControllerTest, NoJobsAndNoStepsKeepJobsAndStepsOutOfTheHistory) {
  const uint32_t id = Submit(kAlice);
  v1::GetJobsRequest history;
  history.set_history(true);
  v1::GetJobsReply reply;
  ASSERT_TRUE(controller_->GetJobs(history, &reply).ok());
  ASSERT_EQ(reply.jobs_size(), 1);
  EXPECT_TRUE(reply.jobs(0).batch_flag());

  config_.admit.enforce_nosteps = true;  // AccountingStorageEnforce=nosteps
  Open();
  reply.Clear();
  ASSERT_TRUE(controller_->GetJobs(history, &reply).ok());
  ASSERT_EQ(reply.jobs_size(), 1);
  EXPECT_EQ(reply.jobs(0).job_id(), id);
  EXPECT_FALSE(reply.jobs(0).batch_flag());  // sacct prints no .batch line
  EXPECT_EQ(reply.jobs(0).steps_size(), 0);
  EXPECT_TRUE(Job(id).batch_flag());  // the job itself is unchanged

  config_.admit.enforce_nojobs = true;  // nojobs: sacct sees nothing
  Open();
  reply.Clear();
  ASSERT_TRUE(controller_->GetJobs(history, &reply).ok());
  EXPECT_EQ(reply.jobs_size(), 0);
}

TEST_F(ControllerTest, ListingsSplitIntoShardsJoinToTheWholeListing) {
  for (int i = 0; i < 3; ++i) Submit(kAlice);
  auto listed = [&](uint32_t shard, uint32_t shards) {
    v1::GetJobsRequest r;
    r.set_shard(shard);
    r.set_shards(shards);
    wire::Slices bytes;
    EXPECT_TRUE(controller_->GetJobsSerialized(r, &bytes).ok());
    v1::GetJobsReply reply;
    EXPECT_TRUE(reply.ParseFromString(bytes.Flatten()));
    return reply;
  };
  const v1::GetJobsReply whole = listed(0, 0);
  ASSERT_EQ(whole.jobs_size(), 3);
  EXPECT_EQ(whole.shards(), 0u);
  // One block of job ids: one shard has it, the other nothing.
  const v1::GetJobsReply first = listed(0, 2);
  const v1::GetJobsReply second = listed(1, 2);
  EXPECT_EQ(first.shards(), 2u);
  EXPECT_EQ(second.shards(), 2u);
  EXPECT_EQ(first.jobs_size(), 0);
  EXPECT_EQ(first.jobs_at_most(), 0u);
  EXPECT_EQ(second.jobs_size(), 3);
  v1::GetJobsRequest grpc;  // the same over gRPC's GetJobs
  grpc.set_shard(1);
  grpc.set_shards(2);
  v1::GetJobsReply reply;
  ASSERT_TRUE(controller_->GetJobs(grpc, &reply).ok());
  EXPECT_EQ(reply.shards(), 2u);
  EXPECT_EQ(reply.jobs_size(), 3);

  // Blocks are split evenly, in order, whatever their number.
  std::vector<std::shared_ptr<const RecordCache::Block>> blocks;
  for (int i = 0; i < 5; ++i) blocks.push_back(std::make_shared<RecordCache::Block>());
  std::vector<std::shared_ptr<const RecordCache::Block>> joined;
  for (uint32_t shard = 0; shard < 3; ++shard) {
    v1::GetJobsRequest r;
    r.set_shard(shard);
    r.set_shards(3);
    const auto part = Controller::ShardOf(r, blocks);
    EXPECT_GE(part.size(), 1u);
    joined.insert(joined.end(), part.begin(), part.end());
  }
  EXPECT_EQ(joined, blocks);
}

TEST_F(ControllerTest, HistoryCanLeaveOutJobsThatNeverBecameEligible) {
  const uint32_t eligible = Submit(kAlice);
  const uint32_t held = SubmitWith(kAlice, [](v1::JobRequest* r) { r->set_hold(true); });
  clock_.now += 100;
  const uint32_t later = Submit(kAlice);

  auto ids = [&](int64_t window_end) {
    v1::GetJobsRequest r;
    r.set_history(true);
    r.set_window_end(window_end);
    r.set_eligible_in_window(true);
    wire::Slices bytes;
    EXPECT_TRUE(controller_->GetJobsSerialized(r, &bytes).ok());
    v1::GetJobsReply reply;
    EXPECT_TRUE(reply.ParseFromString(bytes.Flatten()));
    std::vector<uint32_t> out;
    for (const v1::Job& job : reply.jobs()) out.push_back(job.job_id());
    return out;
  };
  EXPECT_THAT(ids(0), ElementsAre(eligible, later));
  EXPECT_THAT(ids(kNow + 50), ElementsAre(eligible));  // `later` became eligible after the end
  EXPECT_THAT(HistoryIds(0, 0), ElementsAre(eligible, held, later));
}

TEST_F(ControllerTest, JobsWaitForTheirDependenciesOrAreCancelledWhenThoseFail) {
  RegisterAll();
  const uint32_t first = Submit(kAlice);
  v1::SignalJobRequest cancel;
  cancel.add_job_ids(std::to_string(first));
  ASSERT_TRUE(controller_->Signal(kAlice, cancel).ok());  // ends CANCELLED: afterok never holds
  auto submit_after = [&](uint32_t kill) {
    v1::SubmitJobRequest r;
    r.mutable_request()->set_min_nodes(1);
    r.mutable_request()->set_work_dir("/tmp");
    r.mutable_request()->set_dependency("afterok:" + std::to_string(first));
    r.mutable_request()->set_kill_on_invalid_dep(kill);
    r.mutable_payload()->set_script("#!/bin/sh\n");
    Result<v1::SubmitJobReply> reply = controller_->Submit(kAlice, r);
    EXPECT_TRUE(reply.ok()) << reply.status().ToString();
    return reply.ok() ? reply->job_id() : 0;
  };
  const uint32_t killed = submit_after(1);
  const uint32_t kept = submit_after(0);
  controller_->RunOnce();
  EXPECT_EQ(State(killed), JobBaseState::kCancelled);
  EXPECT_EQ(Job(killed).reason(), "DependencyNeverSatisfied");
  EXPECT_EQ(State(kept), JobBaseState::kPending);
  EXPECT_EQ(Job(kept).reason(), "DependencyNeverSatisfied");
}

TEST_F(ControllerTest, RequeueEndsTheRunAndQueuesTheJobAgain) {
  RegisterAll();
  agents_.Take();
  const uint32_t id = Submit(kAlice);
  const uint32_t waiting = Submit(kAlice);
  controller_->RunOnce();
  PrologsDone(id);
  PrologsDone(waiting);
  agents_.Take();
  const std::string node = Job(id).nodes(0);
  v1::UpdateJobRequest r;
  r.set_action("requeuehold");
  r.add_job_ids(std::to_string(id));
  r.add_job_ids("999");
  Result<v1::UpdateJobReply> reply = controller_->UpdateJob(kBob, r);
  ASSERT_TRUE(reply.ok());
  ASSERT_EQ(reply->errors_size(), 2);
  EXPECT_EQ(reply->errors(0).message(), "Access/permission denied");
  EXPECT_EQ(reply->errors(1).message(), "Invalid job id specified");
  reply = controller_->UpdateJob(kAlice, r);
  ASSERT_TRUE(reply.ok());
  EXPECT_EQ(State(id), JobBaseState::kPending);
  EXPECT_EQ(Job(id).restarts(), 1u);
  EXPECT_EQ(Job(id).priority(), 0u);
  EXPECT_EQ(Job(id).reason(), "job requeued in held state");
  EXPECT_THAT(agents_.Take(), ElementsAre("Terminate " + node + " " + std::to_string(id)));
  r.set_action("requeue");
  r.clear_job_ids();
  r.add_job_ids(std::to_string(id));
  reply = controller_->UpdateJob(kAlice, r);
  ASSERT_TRUE(reply.ok());
  ASSERT_EQ(reply->errors_size(), 1);
  EXPECT_EQ(reply->errors(0).message(), "Job is pending execution");
}

TEST_F(ControllerTest, UnknownAndFinishedJobsGetSlurmsErrors) {
  v1::SignalJobRequest r;
  r.add_job_ids("999");
  r.add_job_ids("abc");
  Result<v1::SignalJobReply> reply = controller_->Signal(kRoot, r);
  ASSERT_TRUE(reply.ok());
  ASSERT_EQ(reply->errors_size(), 2);
  EXPECT_EQ(reply->errors(0).message(), "Invalid job id specified");
  const uint32_t id = Submit(kAlice);
  v1::SignalJobRequest cancel;
  cancel.add_job_ids(std::to_string(id));
  ASSERT_TRUE(controller_->Signal(kAlice, cancel).ok());
  reply = controller_->Signal(kAlice, cancel);
  ASSERT_TRUE(reply.ok());
  ASSERT_EQ(reply->errors_size(), 1);
  EXPECT_EQ(reply->errors(0).message(), "Job/step already completing or completed");
}

TEST_F(ControllerTest, SignalGoesToTheNodesAndTheJobKeepsRunning) {
  RegisterAll();
  const uint32_t id = Submit(kAlice, 2);
  controller_->RunOnce();
  PrologsDone(id);
  agents_.Take();
  v1::SignalJobRequest r;
  r.add_job_ids(std::to_string(id));
  r.set_signal(SIGUSR1);
  ASSERT_TRUE(controller_->Signal(kAlice, r).ok());
  EXPECT_THAT(agents_.Take(), ElementsAre("Signal n0 1", "Signal n1 1"));
  EXPECT_EQ(State(id), JobBaseState::kRunning);
  r.set_batch_only(true);
  ASSERT_TRUE(controller_->Signal(kAlice, r).ok());
  EXPECT_THAT(agents_.Take(), ElementsAre("Signal n0 1"));
}

TEST_F(ControllerTest, TimeLimitEndsTheJobAsTimeout) {
  RegisterAll();
  v1::SubmitJobRequest r;
  r.mutable_request()->set_time_limit_min(2);
  r.mutable_request()->set_work_dir("/tmp");
  Result<v1::SubmitJobReply> reply = controller_->Submit(kAlice, r);
  ASSERT_TRUE(reply.ok()) << reply.status().ToString();
  const uint32_t id = reply->job_id();
  controller_->RunOnce();
  ASSERT_EQ(State(id), JobBaseState::kRunning) << Job(id).ShortDebugString();
  PrologsDone(id);
  clock_.now += 119;
  HeartbeatAll();
  controller_->RunOnce();
  EXPECT_EQ(State(id), JobBaseState::kRunning);
  agents_.Take();
  clock_.now += 1;
  HeartbeatAll();
  controller_->RunOnce();
  EXPECT_EQ(State(id), JobBaseState::kTimeout);
  EXPECT_THAT(agents_.Take(), ElementsAre("Terminate n0 1"));
}

TEST_F(ControllerTest, PrologFailureDrainsTheNodeAndRequeuesTheJobHeld) {
  RegisterAll();
  const uint32_t id = Submit(kAlice);
  controller_->RunOnce();
  agents_.Take();
  ASSERT_TRUE(Report("n0", id, v1::JobReport::PROLOG_FAILED).ok());
  const v1::Job job = Job(id);
  EXPECT_EQ(State(id), JobBaseState::kPending);
  EXPECT_EQ(job.priority(), 0u);
  EXPECT_EQ(job.restarts(), 1u);
  EXPECT_EQ(job.reason(), "launch failed requeued held");
  EXPECT_EQ(Node("n0").reason(), "Prolog error");
  EXPECT_TRUE(Node("n0").state_flags() & static_cast<uint32_t>(model::NodeFlag::kDrain));
  EXPECT_THAT(agents_.Take(), ElementsAre("Terminate n0 1"));
  ASSERT_TRUE(Report("n0", id, v1::JobReport::EPILOG_OK).ok());
  // Released by its owner, it runs on another node with a new epoch.
  v1::UpdateJobRequest release;
  release.add_job_ids(std::to_string(id));
  release.set_action("release");
  ASSERT_TRUE(controller_->UpdateJob(kRoot, release).ok());
  // Slurm's requeue delay: the launch credential of the failed run (120 s) must expire first.
  controller_->RunOnce();
  EXPECT_EQ(State(id), JobBaseState::kPending);
  EXPECT_EQ(Job(id).reason(), "BeginTime");
  EXPECT_EQ(Job(id).request().begin_time(), job.submit_time() + 121);
  clock_.now += 121;
  HeartbeatAll();
  controller_->RunOnce();
  EXPECT_EQ(State(id), JobBaseState::kRunning);
  EXPECT_THAT(Job(id).nodes(), ElementsAre("n1"));
  EXPECT_EQ(Job(id).agent_epoch(), 2u);
}

TEST_F(ControllerTest, SilentNodeGoesDownAndItsJobsRequeueOrFail) {
  RegisterAll();
  v1::SubmitJobRequest r;
  r.mutable_request()->set_work_dir("/tmp");
  r.mutable_request()->set_requeue(2);  // --no-requeue
  const uint32_t no_requeue = controller_->Submit(kAlice, r)->job_id();
  r.mutable_request()->set_requeue(1);
  const uint32_t requeue = controller_->Submit(kAlice, r)->job_id();
  controller_->RunOnce();
  EXPECT_THAT(Job(no_requeue).nodes(), ElementsAre("n0"));
  EXPECT_THAT(Job(requeue).nodes(), ElementsAre("n1"));
  // n0 and n1 go silent; n2 keeps heartbeating. After SlurmdTimeout (30 s) they are DOWN, but
  // their agents may still be ending the jobs (their lease ran out with SlurmdTimeout too, then
  // KillWait 5 s): the jobs stay where they are until that is surely over (review M9).
  clock_.now += 31;
  Heartbeat("n2");
  controller_->RunOnce();
  EXPECT_EQ(Node("n0").state(), static_cast<uint32_t>(model::NodeBaseState::kDown));
  EXPECT_EQ(Node("n0").reason(), "Not responding");
  EXPECT_NE(Node("n2").state(), static_cast<uint32_t>(model::NodeBaseState::kDown));
  EXPECT_EQ(State(no_requeue), JobBaseState::kRunning);
  EXPECT_EQ(State(requeue), JobBaseState::kRunning);
  clock_.now += 7;  // 38 s: SlurmdTimeout + KillWait + 3 s not yet past
  Heartbeat("n2");
  controller_->RunOnce();
  EXPECT_EQ(State(no_requeue), JobBaseState::kRunning);
  clock_.now += 1;
  Heartbeat("n2");
  controller_->RunOnce();
  EXPECT_EQ(State(no_requeue), JobBaseState::kNodeFail);
  // The requeued job went back to pending; it may start again once its last run's launch
  // credential has expired (Slurm's cred_expire, 120 s, + 1), on n2.
  controller_->RunOnce();
  EXPECT_EQ(Job(requeue).restarts(), 1u);
  EXPECT_EQ(State(requeue), JobBaseState::kPending);
  EXPECT_EQ(Job(requeue).reason(), "BeginTime");
  EXPECT_EQ(Job(requeue).request().begin_time(), clock_.now + 121);
  clock_.now += 120;
  Heartbeat("n2");
  controller_->RunOnce();
  EXPECT_EQ(State(requeue), JobBaseState::kPending);
  clock_.now += 1;
  Heartbeat("n2");
  controller_->RunOnce();
  EXPECT_EQ(State(requeue), JobBaseState::kRunning);
  EXPECT_THAT(Job(requeue).nodes(), ElementsAre("n2"));
}

// M6: a step of the wall clock (forward past SlurmdTimeout and the time limit, or back) marks
// no node down and ends no job; time limits count the time that really passed.
TEST_F(ControllerTest, AWallClockStepMarksNoNodeDownAndEndsNoJob) {
  RegisterAll();
  const uint32_t id = SubmitWith(kAlice, [](v1::JobRequest* r) { r->set_time_limit_min(2); });
  controller_->RunOnce();
  PrologsDone(id);
  ASSERT_EQ(State(id), JobBaseState::kRunning);
  clock_.wall_step = 6 * 60;  // 6 minutes ahead, at once
  controller_->RunOnce();
  EXPECT_EQ(State(id), JobBaseState::kRunning);
  for (const char* n : {"n0", "n1", "n2"}) {
    EXPECT_NE(Node(n).state(), static_cast<uint32_t>(model::NodeBaseState::kDown)) << n;
  }
  clock_.wall_step = -3600;  // and an hour back
  clock_.now += 100;
  HeartbeatAll();
  controller_->RunOnce();
  EXPECT_EQ(State(id), JobBaseState::kRunning);
  clock_.now += 20;  // 120 s of running: the limit
  HeartbeatAll();
  controller_->RunOnce();
  EXPECT_EQ(State(id), JobBaseState::kTimeout);
  // Its end is its start plus the 120 s it ran, not the stepped clock (an hour before its start).
  EXPECT_EQ(Job(id).end_time() - Job(id).start_time(), 120);
}

TEST_F(ControllerTest, RestartRestoresJobsIdsAndRunningJobsStayRunning) {
  RegisterAll();
  const uint32_t running = Submit(kAlice);
  controller_->RunOnce();
  PrologsDone(running);
  const uint32_t pending = Submit(kAlice, 3);
  const int64_t start = Job(running).start_time();

  Open();  // the controller restarts from the store
  EXPECT_EQ(State(running), JobBaseState::kRunning);
  EXPECT_EQ(Job(running).start_time(), start);
  EXPECT_EQ(State(pending), JobBaseState::kPending);
  EXPECT_EQ(Submit(kAlice), pending + 1);  // ids continue, never reused
  // The agent of n0 still runs the job: it stays running.
  agents_.Take();
  RegisterAll({running});
  EXPECT_EQ(State(running), JobBaseState::kRunning);
}

TEST_F(ControllerTest, AgentThatLostItsJobEndsItOnRegistration) {
  RegisterAll();
  v1::SubmitJobRequest r;
  r.mutable_request()->set_work_dir("/tmp");
  r.mutable_request()->set_requeue(2);
  const uint32_t id = controller_->Submit(kAlice, r)->job_id();
  controller_->RunOnce();
  PrologsDone(id);
  boot_time_ += 50;  // the agents restarted and hold nothing
  RegisterAll();
  EXPECT_EQ(State(id), JobBaseState::kNodeFail);
}

// The pass log (core/pass_log.h): each cycle that started a job leaves its mark in the store's
// side table, which snapshots do not compact and a restart goes on with.
TEST_F(ControllerTest, PassLogKeepsTheCyclesThatDecidedAcrossSnapshotsAndRestarts) {
  RegisterAll();
  Submit(kAlice, 1, "#!/bin/sh\n");
  const uint64_t seen_first = controller_->events_applied();
  controller_->RunOnce();
  controller_->SaveSnapshotNow();
  Open();
  RegisterAll({1});  // job 1 still runs on its node
  clock_.now += 5;
  Submit(kAlice, 1, "#!/bin/sh\n");
  controller_->RunOnce();
  controller_->RunOnce();  // nothing left to decide: no mark
  auto get = [this](const std::string& key) { return store_->Get(key); };
  Result<std::vector<v1::PassMark>> marks = core::ReadPassLog(get);
  ASSERT_TRUE(marks.ok()) << marks.status().ToString();
  ASSERT_EQ(marks->size(), 2u);
  EXPECT_EQ((*marks)[0].time(), kNow);
  EXPECT_GE((*marks)[0].seen(), seen_first);
  EXPECT_EQ((*marks)[1].time(), kNow + 5);
  EXPECT_GT((*marks)[1].seen(), (*marks)[0].seen());
}

TEST_F(ControllerTest, SnapshotThenRestartKeepsEverything) {
  RegisterAll();
  for (int i = 0; i < 5; ++i) Submit(kAlice);
  controller_->RunOnce();
  controller_->SaveSnapshotNow();
  const uint32_t after = Submit(kBob);
  Open();
  EXPECT_EQ(Job(after).user_id(), kBob.uid);
  EXPECT_EQ(State(1), JobBaseState::kRunning);
  EXPECT_EQ(Submit(kAlice), after + 1);
}

TEST_F(ControllerTest, NodeUpdatesNeedAKnownNodeAndAReason) {
  v1::UpdateNodeRequest r;
  r.set_names("n9");
  r.set_state("DRAIN");
  r.set_reason("x");
  EXPECT_EQ(controller_->UpdateNode(kRoot, r).code(), StatusCode::kNotFound);
  r.set_names("n[0-1]");
  r.set_reason("");
  EXPECT_EQ(controller_->UpdateNode(kRoot, r).message(),
            "You must specify a reason when DOWNING or DRAINING a node. Request denied");
  r.set_reason("maintenance");
  ASSERT_TRUE(controller_->UpdateNode(kRoot, r).ok());
  EXPECT_EQ(Node("n1").reason(), "maintenance");
  r.set_state("RESUME");
  r.set_reason("");
  ASSERT_TRUE(controller_->UpdateNode(kRoot, r).ok());
  EXPECT_FALSE(Node("n1").state_flags() & static_cast<uint32_t>(model::NodeFlag::kDrain));
  r.set_state("bogus");
  EXPECT_EQ(controller_->UpdateNode(kRoot, r).code(), StatusCode::kInvalidArgument);
}

// scontrol suspend/resume: one job id per call, Slurm's texts per refused id.
std::vector<std::string> SuspendErrors(Controller& c, const Caller& who, const std::string& action,
                                       std::vector<std::string> ids) {
  v1::UpdateJobRequest r;
  r.set_action(action);
  for (const std::string& id : ids) r.add_job_ids(id);
  Result<v1::UpdateJobReply> reply = c.UpdateJob(who, r);
  EXPECT_TRUE(reply.ok()) << reply.status().ToString();
  std::vector<std::string> out;
  if (reply.ok()) {
    for (const v1::JobError& e : reply->errors()) out.push_back(e.job_id() + ": " + e.message());
  }
  return out;
}

TEST_F(ControllerTest, SuspendStopsTheJobAndItsClockAndResumeMovesTheEndTime) {
  RegisterAll();
  v1::SubmitJobRequest r;
  r.mutable_request()->set_time_limit_min(2);
  r.mutable_request()->set_work_dir("/tmp");
  const uint32_t id = controller_->Submit(kAlice, r)->job_id();
  controller_->RunOnce();
  PrologsDone(id);
  agents_.Take();
  const int64_t start = Job(id).start_time();

  clock_.now += 30;
  EXPECT_TRUE(SuspendErrors(*controller_, kRoot, "suspend", {std::to_string(id)}).empty());
  EXPECT_EQ(State(id), JobBaseState::kSuspended);
  EXPECT_EQ(Job(id).pre_suspend_secs(), 30);
  std::vector<FakeAgents::Call> calls = agents_.TakeCalls();
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(calls[0].what, "Signal");
  EXPECT_EQ(calls[0].signal, SIGSTOP);
  // Suspending it again changes nothing and is no error (Slurm 22.05).
  EXPECT_TRUE(SuspendErrors(*controller_, kRoot, "suspend", {std::to_string(id)}).empty());
  EXPECT_TRUE(agents_.Take().empty());

  // Well past the time limit while suspended: it keeps its time.
  clock_.now += 600;
  HeartbeatAll();
  controller_->RunOnce();
  EXPECT_EQ(State(id), JobBaseState::kSuspended);

  // The state is durable.
  Open();
  EXPECT_EQ(State(id), JobBaseState::kSuspended);
  agents_.Take();
  // An agent that still holds it is told again to keep it stopped.
  RegisterAll({id});
  EXPECT_EQ(State(id), JobBaseState::kSuspended);
  EXPECT_THAT(agents_.Take(), ElementsAre("Signal n0 1"));

  EXPECT_TRUE(SuspendErrors(*controller_, kRoot, "resume", {std::to_string(id)}).empty());
  EXPECT_EQ(State(id), JobBaseState::kRunning);
  EXPECT_EQ(Job(id).end_time(), clock_.now + 120 - 30);
  EXPECT_GT(Job(id).end_time(), start + 120);
  calls = agents_.TakeCalls();
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(calls[0].signal, SIGCONT);

  // 90 s of running time are left.
  clock_.now += 89;
  HeartbeatAll();
  controller_->RunOnce();
  EXPECT_EQ(State(id), JobBaseState::kRunning);
  clock_.now += 1;
  HeartbeatAll();
  controller_->RunOnce();
  EXPECT_EQ(State(id), JobBaseState::kTimeout);
}

TEST_F(ControllerTest, SuspendAndResumeRefuseWithSlurmsTexts) {
  RegisterAll();
  const uint32_t running = Submit(kAlice);
  controller_->RunOnce();
  PrologsDone(running);
  const uint32_t pending = Submit(kAlice, 3);
  const std::string r = std::to_string(running);
  const std::string p = std::to_string(pending);
  EXPECT_THAT(SuspendErrors(*controller_, kAlice, "suspend", {r, "999"}),
              ElementsAre(r + ": Access/permission denied", "999: Unexpected message received"));
  EXPECT_THAT(SuspendErrors(*controller_, kRoot, "suspend", {p, "0", r + "_1"}),
              ElementsAre(p + ": Job is pending execution", "0: Unexpected message received",
                          r + "_1: Invalid job id specified"));
  EXPECT_THAT(SuspendErrors(*controller_, kRoot, "resume", {r, p}),
              ElementsAre(r + ": Job is not suspended", p + ": Job is pending execution"));
  EXPECT_EQ(State(running), JobBaseState::kRunning);

  // A cancelled suspended job ends: its processes get SIGCONT and SIGTERM from TerminateJob.
  EXPECT_TRUE(SuspendErrors(*controller_, kRoot, "suspend", {r}).empty());
  agents_.Take();
  v1::SignalJobRequest cancel;
  cancel.add_job_ids(r);
  ASSERT_TRUE(controller_->Signal(kAlice, cancel).ok());
  EXPECT_EQ(State(running), JobBaseState::kCancelled);
  EXPECT_THAT(agents_.Take(), ElementsAre("Terminate n0 1"));
  EXPECT_THAT(SuspendErrors(*controller_, kRoot, "resume", {r}),
              ElementsAre(r + ": Job/step already completing or completed"));
}

TEST_F(ControllerTest, PartitionUpdatesAreForOperatorsAndSurviveARestart) {
  v1::UpdatePartitionRequest r;
  r.set_name("batch");
  (*r.mutable_settings())["State"] = "drain";
  EXPECT_EQ(controller_->UpdatePartition(kAlice, r).message(), "Invalid user id");
  r.set_name("nosuch");
  EXPECT_EQ(controller_->UpdatePartition(kRoot, r).message(), "Invalid partition name specified");
  r.set_name("batch");
  ASSERT_TRUE(controller_->UpdatePartition(kRoot, r).ok());
  r.clear_settings();
  (*r.mutable_settings())["MaxTime"] = "30";
  ASSERT_TRUE(controller_->UpdatePartition(kRoot, r).ok());
  auto batch = [&] {
    v1::GetNodesReply reply;
    controller_->GetNodes(v1::GetNodesRequest(), &reply);
    return reply.partitions(0);
  };
  EXPECT_EQ(batch().state(), "DRAIN");
  // DRAIN refuses new jobs (Slurm's text) ...
  RegisterAll();
  v1::SubmitJobRequest submit;
  submit.mutable_request()->set_work_dir("/tmp");
  EXPECT_EQ(controller_->Submit(kAlice, submit).status().message(),
            "Required partition not available (inactive or drain)");
  Open();  // ... also after a restart
  EXPECT_EQ(batch().state(), "DRAIN");
  EXPECT_EQ(batch().max_time_min(), 30u);
  (*r.mutable_settings())["State"] = "UP";
  ASSERT_TRUE(controller_->UpdatePartition(kRoot, r).ok());
  EXPECT_TRUE(controller_->Submit(kAlice, submit).ok());
}

// Every key Slurm's scontrol lets an operator change applies, with the spec's rules for values;
// bad ones change nothing.
TEST_F(ControllerTest, PartitionUpdatesTakeEveryOperatorKey) {
  auto update = [&](std::map<std::string, std::string> settings) {
    v1::UpdatePartitionRequest r;
    r.set_name("batch");
    r.mutable_settings()->insert(settings.begin(), settings.end());
    return controller_->UpdatePartition(kRoot, r);
  };
  auto batch = [&] {
    v1::GetNodesReply reply;
    controller_->GetNodes(v1::GetNodesRequest(), &reply);
    return reply.partitions(0);
  };
  ASSERT_TRUE(update({{"PreemptMode", "requeue"},
                      {"PriorityTier", "7"},
                      {"AllowAccounts", "physics,chem"},
                      {"OverSubscribe", "FORCE:2"},
                      {"MaxNodes", "2"},
                      {"GraceTime", "30"},
                      {"DenyQos", "scavenger"},
                      {"Nodes", "n[0-1]"}})
                  .ok());
  v1::Partition p = batch();
  EXPECT_EQ(p.preempt_mode(), "REQUEUE");
  EXPECT_EQ(p.priority_tier(), 7u);
  EXPECT_EQ(p.allow_accounts(), "physics,chem");
  EXPECT_EQ(p.oversubscribe(), "FORCE:2");
  EXPECT_EQ(p.max_nodes(), 2u);
  EXPECT_EQ(p.grace_time_sec(), 30u);
  EXPECT_EQ(p.extra().at("DenyQos"), "scavenger");
  EXPECT_THAT(p.nodes(), ElementsAre("n0", "n1"));
  EXPECT_THAT(Node("n2").partitions(), ElementsAre());
  EXPECT_THAT(Node("n0").partitions(), ElementsAre("batch"));

  EXPECT_EQ(update({{"PriorityTier", "high"}}).message(),
            "Invalid input: PriorityTier=high: \"high\" is not a non-negative integer");
  EXPECT_EQ(update({{"Bogus", "1"}}).message(),
            "Update of this parameter is not supported: Bogus=1");
  EXPECT_EQ(update({{"Nodes", "n[0-9]"}}).message(), "Invalid node name specified");
  EXPECT_EQ(update({}).message(), "No changes specified");
  Open();  // the changes survive a restart
  EXPECT_EQ(batch().priority_tier(), 7u);
  EXPECT_THAT(batch().nodes(), ElementsAre("n0", "n1"));
  EXPECT_THAT(Node("n2").partitions(), ElementsAre());
}

// A step srun launches: laid out inside the allocation, recorded, then each step node's agent
// is asked for its tasks; only the job's owner may, and a bad launch records nothing.
TEST_F(ControllerTest, StepsAreLaidOutRecordedAndSentToEachNodesAgent) {
  RegisterAll();
  const uint32_t id = Submit(kAlice, 2);
  controller_->RunOnce();
  PrologsDone(id);
  agents_.Take();
  v1::JobStepRequest r;
  r.set_job_id(id);
  r.set_name("train");
  r.set_num_tasks(4);
  r.set_distribution("cyclic");
  r.mutable_launch()->add_argv("python3");
  r.mutable_launch()->set_io_host("login");
  r.mutable_launch()->set_io_port(4242);
  r.mutable_launch()->set_io_key("0123456789abcdef0123");
  EXPECT_EQ(controller_->JobStep(kBob, r).status().message(), "Access/permission denied");
  Result<v1::JobStepReply> reply = controller_->JobStep(kAlice, r);
  ASSERT_TRUE(reply.ok()) << reply.status().ToString();
  EXPECT_THAT(reply->step().nodes(), ElementsAre("n0", "n1"));
  EXPECT_THAT(reply->step().tasks_per_node(), ElementsAre(2, 2));
  EXPECT_THAT(agents_.Take(), ElementsAre("Tasks n0 1", "Tasks n1 1"));
  ASSERT_EQ(Job(id).steps_size(), 1);
  EXPECT_EQ(Job(id).steps(0).distribution(), "cyclic");
  EXPECT_EQ(Job(id).steps(0).num_tasks(), 4u);

  r.set_node_list("n2");  // not the job's
  EXPECT_NE(controller_->JobStep(kAlice, r).status().message().find(
                "Requested node configuration is not available"),
            std::string::npos);
  r.clear_node_list();
  r.mutable_launch()->set_io_key("short");
  EXPECT_FALSE(controller_->JobStep(kAlice, r).ok());
  EXPECT_EQ(Job(id).steps_size(), 1);
  EXPECT_TRUE(agents_.Take().empty());
}

// salloc's allocation: no batch script is launched; "complete" ends it with the exit status of
// what ran in it, and only such a job can be completed.
TEST_F(ControllerTest, AnAllocationRunsWithoutAScriptUntilCompleted) {
  RegisterAll();
  const uint32_t id = SubmitWith(kAlice, [](v1::JobRequest* r) { r->set_allocation_only(true); });
  const uint32_t batch = Submit(kAlice);
  controller_->RunOnce();
  agents_.Take();
  PrologsDone(id);
  EXPECT_TRUE(agents_.Take().empty());  // nothing to launch
  EXPECT_FALSE(Job(id).batch_flag());
  v1::UpdateJobRequest complete;
  complete.add_job_ids(std::to_string(batch));
  complete.set_action("complete");
  Result<v1::UpdateJobReply> refused = controller_->UpdateJob(kAlice, complete);
  ASSERT_TRUE(refused.ok());
  ASSERT_EQ(refused->errors_size(), 1);
  complete.set_job_ids(0, std::to_string(id));
  complete.set_exit_status(3 << 8);
  Result<v1::UpdateJobReply> done = controller_->UpdateJob(kAlice, complete);
  ASSERT_TRUE(done.ok());
  EXPECT_EQ(done->errors_size(), 0);
  EXPECT_EQ(State(id), JobBaseState::kFailed);
  EXPECT_EQ(Job(id).exit_status(), 3 << 8);
}

}  // namespace
}  // namespace gantry::ctld
