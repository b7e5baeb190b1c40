// The agent end to end: the real Agent gRPC service and controller link against a fake
// controller (an in-process NodeLink server), over mutual TLS both ways.
#include "agent/agent.h"

#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <thread>

#include "agent/lease_file.h"
#include "agent/spool.h"
#include "agent/test_support.h"
#include "gantry/v1/agent.grpc.pb.h"
#include "gantry/v1/controller.grpc.pb.h"
#include "tls/testing/test_pki.h"

namespace gantry::agent {
namespace {

using gantry::v1::JobReport;
using testing::Eventually;
using testing::MakeJob;
using testing::MakePayload;
using testing::ReadFile;

// The cluster's certificates, shared by the tests of this file.
const tls::testing::TestPki& Pki() {
  static const auto* pki = new tls::testing::TestPki({"n1", "n2"});
  return *pki;
}

// A controller that answers NodeLink and records what the agent sends.
class FakeController final : public gantry::v1::NodeLink::Service {
 public:
  explicit FakeController(tls::Identity identity) : identity_(std::move(identity)) {}
  ~FakeController() override { Stop(); }

  // Serves on `port` (0 = any); returns the bound port.
  int Start(int port = 0) {
    grpc::ServerBuilder builder;
    builder.AddListeningPort(
        "127.0.0.1:" + std::to_string(port),
        tls::ServerCredentials(identity_, tls::ClientCertificates::kVerifyIfPresent), &port_);
    builder.RegisterService(this);
    server_ = builder.BuildAndStart();
    return port_;
  }
  void Stop() {
    if (server_) server_->Shutdown(std::chrono::system_clock::now());
    server_.reset();
  }
  std::string address() const { return "127.0.0.1:" + std::to_string(port_); }

  grpc::Status Register(grpc::ServerContext* context, const gantry::v1::RegisterRequest* request,
                        gantry::v1::RegisterReply* reply) override {
    if (grpc::Status auth = Check(*context); !auth.ok()) return auth;
    std::lock_guard<std::mutex> lock(mu_);
    registers_.push_back(*request);
    order_.push_back("register");
    *reply = register_reply_;
    cv_.notify_all();
    return grpc::Status::OK;
  }
  grpc::Status Heartbeat(grpc::ServerContext* context, const gantry::v1::HeartbeatRequest* request,
                         gantry::v1::HeartbeatReply* reply) override {
    if (grpc::Status auth = Check(*context); !auth.ok()) return auth;
    std::lock_guard<std::mutex> lock(mu_);
    heartbeats_.push_back(*request);
    reply->set_reregister(reregister_);
    reregister_ = false;
    for (uint32_t id : stale_) reply->add_stale_job_ids(id);
    stale_.clear();
    cv_.notify_all();
    return grpc::Status::OK;
  }
  grpc::Status ReportJob(grpc::ServerContext* context, const gantry::v1::JobReport* request,
                         gantry::v1::JobReportReply*) override {
    if (grpc::Status auth = Check(*context); !auth.ok()) return auth;
    std::lock_guard<std::mutex> lock(mu_);
    reports_.push_back(*request);
    order_.push_back("report " + std::to_string(request->job_id()) + " " +
                     JobReport::Kind_Name(request->kind()));
    cv_.notify_all();
    return grpc::Status::OK;
  }

  // Waits until `done` (called under the lock) holds.
  template <typename F>
  bool WaitUntil(F done) {
    std::unique_lock<std::mutex> lock(mu_);
    return cv_.wait_for(lock, testing::kWait, [&] { return done(); });
  }
  std::optional<JobReport> WaitReport(uint32_t job_id, JobReport::Kind kind) {
    std::optional<JobReport> found;
    WaitUntil([&] {
      for (const JobReport& r : reports_) {
        if (r.job_id() == job_id && r.kind() == kind) found = r;
      }
      return found.has_value();
    });
    return found;
  }
  size_t register_count() {
    std::lock_guard<std::mutex> lock(mu_);
    return registers_.size();
  }
  gantry::v1::RegisterRequest last_register() {
    std::lock_guard<std::mutex> lock(mu_);
    return registers_.back();
  }
  int unauthenticated() {
    std::lock_guard<std::mutex> lock(mu_);
    return unauthenticated_;
  }
  void set_reregister() {
    std::lock_guard<std::mutex> lock(mu_);
    reregister_ = true;
  }
  void set_stale(std::vector<uint32_t> ids) {
    std::lock_guard<std::mutex> lock(mu_);
    stale_ = std::move(ids);
  }
  gantry::v1::RegisterReply& register_reply() { return register_reply_; }

  std::vector<gantry::v1::RegisterRequest> registers_;
  std::vector<gantry::v1::HeartbeatRequest> heartbeats_;
  std::vector<JobReport> reports_;
  std::vector<std::string> order_;  // "register", "report <job> <kind>", as they came

 private:
  // Only node n1's certificate speaks for the agent under test.
  grpc::Status Check(const grpc::ServerContext& context) {
    if (tls::PeerName(context) == tls::NodeCertName("n1")) return grpc::Status::OK;
    std::lock_guard<std::mutex> lock(mu_);
    ++unauthenticated_;
    return grpc::Status(grpc::StatusCode::UNAUTHENTICATED, "not n1's certificate");
  }

  const tls::Identity identity_;
  std::unique_ptr<grpc::Server> server_;
  int port_ = 0;
  std::mutex mu_;
  std::condition_variable cv_;
  gantry::v1::RegisterReply register_reply_;
  bool reregister_ = false;
  std::vector<uint32_t> stale_;
  int unauthenticated_ = 0;
};

class AgentTest : public ::testing::Test {
 protected:
  void SetUp() override {
    work_ = tmp_ / "work";
    std::filesystem::create_directories(work_);
    gantry::v1::RegisterReply& reply = controller_.register_reply();
    reply.set_cluster_name("testc");
    reply.set_kill_wait_sec(1);
    reply.set_heartbeat_interval_sec(10);
    reply.set_conf_path("/etc/gantry/gantry.conf");
    reply.add_prolog("#!/bin/sh\necho \"$SLURM_JOB_ID $SLURM_CLUSTER_NAME\" >> " + tmp_ / "prolog" +
                     "\n");
    reply.add_epilog("#!/bin/sh\necho \"$SLURM_JOB_ID\" >> " + tmp_ / "epilog" + "\n");
    controller_.Start();
  }
  void TearDown() override {
    agent_.reset();
    controller_.Stop();
  }

  AgentDaemon& StartAgent() {
    AgentOptions options;
    options.node = "n1";
    options.controller = controller_.address();
    options.identity = Pki().Node("n1");
    options.spool = tmp_ / "spool";
    options.cgroup_root = "none";
    options.clock = &clock_;
    options.retry_min = std::chrono::milliseconds(20);
    options.retry_max = std::chrono::milliseconds(200);
    options.heartbeat_override = std::chrono::milliseconds(50);
    options.flush_timeout = flush_timeout_;
    Result<std::unique_ptr<AgentDaemon>> started = AgentDaemon::Start(options);
    EXPECT_TRUE(started.ok()) << started.status().ToString();
    agent_ = std::move(*started);
    stub_ = StubAs(Pki().Controller());
    return *agent_;
  }

  // A stub to the agent presenting `identity`'s certificate.
  std::unique_ptr<gantry::v1::Agent::Stub> StubAs(const tls::Identity& identity) {
    grpc::ChannelArguments args;
    tls::ExpectServerName(&args, tls::NodeCertName("n1"));
    return gantry::v1::Agent::NewStub(grpc::CreateCustomChannel(
        agent_->address(), tls::ChannelCredentials(identity.ca_pem, &identity), args));
  }

  // A call to the agent as the controller (or through another stub).
  template <typename Request, typename Method>
  grpc::Status Call(Method method, const Request& request,
                    gantry::v1::Agent::Stub* stub = nullptr) {
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + testing::kWait);
    gantry::v1::AgentReply reply;
    return ((stub != nullptr ? *stub : *stub_).*method)(&context, request, &reply);
  }
  grpc::Status Prepare(const gantry::v1::JobContext& context) {
    gantry::v1::PrepareJobRequest request;
    *request.mutable_context() = context;
    return Call(&gantry::v1::Agent::Stub::PrepareJob, request);
  }
  grpc::Status Launch(const gantry::v1::JobContext& context, const std::string& script) {
    gantry::v1::LaunchBatchRequest request;
    *request.mutable_context() = context;
    *request.mutable_payload() = MakePayload(script);
    return Call(&gantry::v1::Agent::Stub::LaunchBatch, request);
  }
  grpc::Status Terminate(uint32_t job_id, uint64_t epoch = 1) {
    gantry::v1::TerminateJobRequest request;
    request.set_job_id(job_id);
    request.set_epoch(epoch);
    return Call(&gantry::v1::Agent::Stub::TerminateJob, request);
  }

  testing::TempDir tmp_;
  testing::FixedClock clock_;
  FakeController controller_{Pki().Controller()};
  std::chrono::milliseconds flush_timeout_{10000};
  std::string work_;
  std::unique_ptr<AgentDaemon> agent_;
  std::unique_ptr<gantry::v1::Agent::Stub> stub_;
};

TEST_F(AgentTest, RegistersWithItsAddressAndRunsAJobThroughItsWholeLife) {
  StartAgent();
  ASSERT_TRUE(controller_.WaitUntil([&] { return !controller_.registers_.empty(); }));
  gantry::v1::RegisterRequest registered = controller_.last_register();
  EXPECT_EQ(registered.node(), "n1");
  EXPECT_EQ(registered.address(), "127.0.0.1:" + std::to_string(agent_->port()));
  EXPECT_EQ(registered.boot_time(), 1764675787);
  EXPECT_GT(registered.cpus(), 0u);
  EXPECT_EQ(registered.version(), kAgentVersion);

  gantry::v1::AgentPingReply ping;
  {
    grpc::ClientContext context;
    ASSERT_TRUE(stub_->Ping(&context, gantry::v1::AgentPingRequest(), &ping).ok());
  }
  EXPECT_EQ(ping.node(), "n1");

  gantry::v1::JobContext job = MakeJob(7, "n1", work_);
  ASSERT_TRUE(Prepare(job).ok());
  ASSERT_TRUE(controller_.WaitReport(7, JobReport::PROLOG_OK).has_value());
  EXPECT_EQ(ReadFile(tmp_ / "prolog"), "7 testc\n");
  ASSERT_TRUE(Launch(job, "#!/bin/sh\necho \"conf=$SLURM_CONF\"\nexit 3\n").ok());
  std::optional<JobReport> ended = controller_.WaitReport(7, JobReport::BATCH_ENDED);
  ASSERT_TRUE(ended.has_value());
  EXPECT_EQ(ended->wait_status(), 3 << 8);
  EXPECT_EQ(ended->node(), "n1");
  EXPECT_EQ(ReadFile(work_ + "/slurm-7.out"), "conf=/etc/gantry/gantry.conf\n");
  ASSERT_TRUE(Terminate(7).ok());
  ASSERT_TRUE(controller_.WaitReport(7, JobReport::EPILOG_OK).has_value());
  EXPECT_EQ(ReadFile(tmp_ / "epilog"), "7\n");
  EXPECT_EQ(controller_.unauthenticated(), 0);
}

TEST_F(AgentTest, HeartbeatsCarryTheRunningJobsAndTheirLaunch) {
  StartAgent();
  ASSERT_TRUE(Launch(MakeJob(8, "n1", work_, /*epoch=*/3), "#!/bin/sh\nsleep 1000\n").ok());
  ASSERT_TRUE(controller_.WaitUntil([&] {
    if (controller_.heartbeats_.empty()) return false;
    const gantry::v1::HeartbeatRequest& last = controller_.heartbeats_.back();
    return last.job_ids_size() == 1 && last.job_ids(0) == 8 && last.node() == "n1" &&
           last.epochs().count(8) == 1 && last.epochs().at(8) == 3;
  }));
  // Stale jobs named by the controller are killed.
  controller_.set_stale({8});
  ASSERT_TRUE(Eventually([&] { return agent_->manager().JobIds().empty(); }));
  ASSERT_TRUE(
      controller_.WaitUntil([&] { return controller_.heartbeats_.back().job_ids_size() == 0; }));
}

TEST_F(AgentTest, RefusesBadRequestsNamingTheField) {
  StartAgent();
  gantry::v1::JobContext job = MakeJob(9, "n1", work_);
  grpc::Status empty_script = Launch(job, "");
  EXPECT_EQ(empty_script.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(empty_script.error_message(), "payload.script: empty");
  grpc::Status wrong_node = Prepare(MakeJob(9, "n2", work_));
  EXPECT_EQ(wrong_node.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(wrong_node.error_message(),
            "context.job.nodes: this node (n1) is not among the job's nodes (n2)");
  gantry::v1::SignalJobOnNodeRequest signal;
  signal.set_job_id(9);
  signal.set_signal(1000);
  EXPECT_EQ(Call(&gantry::v1::Agent::Stub::SignalJob, signal).error_code(),
            grpc::StatusCode::INVALID_ARGUMENT);
  signal.set_signal(SIGTERM);
  grpc::Status not_here = Call(&gantry::v1::Agent::Stub::SignalJob, signal);
  EXPECT_EQ(not_here.error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_EQ(not_here.error_message(), "job 9 (epoch 0) is not running on n1");
  EXPECT_TRUE(agent_->manager().JobIds().empty());
}

TEST_F(AgentTest, ObeysOnlyTheControllersCertificate) {
  StartAgent();
  gantry::v1::PrepareJobRequest request;
  *request.mutable_context() = MakeJob(10, "n1", work_);
  // Another node's certificate, from the same CA: the TLS handshake passes, the call does not.
  std::unique_ptr<gantry::v1::Agent::Stub> as_n2 = StubAs(Pki().Node("n2"));
  grpc::Status other_node = Call(&gantry::v1::Agent::Stub::PrepareJob, request, as_n2.get());
  EXPECT_EQ(other_node.error_code(), grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_NE(other_node.error_message().find("is not the controller's"), std::string::npos)
      << other_node.error_message();
  // No certificate, or one of another CA: no TLS session at all.
  grpc::ChannelArguments args;
  tls::ExpectServerName(&args, tls::NodeCertName("n1"));
  auto anonymous = gantry::v1::Agent::NewStub(grpc::CreateCustomChannel(
      agent_->address(), tls::ChannelCredentials(Pki().Controller().ca_pem, nullptr), args));
  EXPECT_EQ(Call(&gantry::v1::Agent::Stub::PrepareJob, request, anonymous.get()).error_code(),
            grpc::StatusCode::UNAVAILABLE);
  const tls::testing::TestPki other_cluster({"n1"});
  std::unique_ptr<gantry::v1::Agent::Stub> foreign = StubAs(other_cluster.Controller());
  EXPECT_EQ(Call(&gantry::v1::Agent::Stub::PrepareJob, request, foreign.get()).error_code(),
            grpc::StatusCode::UNAVAILABLE);
  // Plain text is not spoken.
  auto plain = gantry::v1::Agent::NewStub(
      grpc::CreateChannel(agent_->address(), grpc::InsecureChannelCredentials()));
  EXPECT_EQ(Call(&gantry::v1::Agent::Stub::PrepareJob, request, plain.get()).error_code(),
            grpc::StatusCode::UNAVAILABLE);
  EXPECT_TRUE(agent_->manager().JobIds().empty());
}

TEST_F(AgentTest, KeepsReportsWhileTheControllerIsDownAndRegistersAgain) {
  StartAgent();
  ASSERT_TRUE(controller_.WaitUntil([&] { return !controller_.registers_.empty(); }));
  const int port = std::stoi(controller_.address().substr(controller_.address().rfind(':') + 1));
  ASSERT_TRUE(Launch(MakeJob(11, "n1", work_), "#!/bin/sh\nsleep 1000\n").ok());
  controller_.Stop();
  ASSERT_TRUE(Terminate(11).ok());
  ASSERT_TRUE(Eventually([&] { return agent_->manager().JobIds().empty(); }));
  EXPECT_GE(agent_->link().queued_reports(), 1u);  // BATCH_ENDED and EPILOG_OK wait
  const size_t registers_before = controller_.register_count();
  ASSERT_EQ(controller_.Start(port), port);
  std::optional<JobReport> epilog = controller_.WaitReport(11, JobReport::EPILOG_OK);
  ASSERT_TRUE(epilog.has_value());
  EXPECT_GT(controller_.register_count(), registers_before);
  ASSERT_TRUE(controller_.WaitUntil([&] {
    std::vector<JobReport::Kind> kinds;
    for (const JobReport& r : controller_.reports_) {
      if (r.job_id() == 11) kinds.push_back(r.kind());
    }
    return kinds == std::vector<JobReport::Kind>{JobReport::BATCH_ENDED, JobReport::EPILOG_OK};
  }));
}

// Review M5: a report the agent could not deliver before it stopped reaches the controller from
// the next agent on the same spool, before that agent registers (so the controller learns how
// the job ended before it hears the agent does not hold it).
TEST_F(AgentTest, ReportsNotDeliveredSurviveARestart) {
  flush_timeout_ = std::chrono::milliseconds(100);
  StartAgent();
  ASSERT_TRUE(controller_.WaitUntil([&] { return !controller_.registers_.empty(); }));
  const int port = std::stoi(controller_.address().substr(controller_.address().rfind(':') + 1));
  controller_.Stop();
  ASSERT_TRUE(Launch(MakeJob(13, "n1", work_), "#!/bin/sh\nexit 4\n").ok());
  ASSERT_TRUE(Eventually([&] { return agent_->link().queued_reports() >= 1; }));
  agent_.reset();  // the BATCH_ENDED (and the epilog's report) never got out
  ASSERT_EQ(controller_.Start(port), port);
  StartAgent();
  std::optional<JobReport> ended = controller_.WaitReport(13, JobReport::BATCH_ENDED);
  ASSERT_TRUE(ended.has_value());
  EXPECT_EQ(ended->wait_status(), 4 << 8);
  ASSERT_TRUE(controller_.WaitUntil([&] { return controller_.registers_.size() >= 2; }));
  std::vector<std::string> order;
  controller_.WaitUntil([&] {  // the predicate runs under the fake's lock: a copy
    order = controller_.order_;
    return true;
  });
  const auto report = std::find(order.begin(), order.end(), "report 13 BATCH_ENDED");
  const auto second_register = std::find(
      std::next(std::find(order.begin(), order.end(), "register")), order.end(), "register");
  EXPECT_LT(report, second_register);
}

// The lease (review M9): cut off from its controller for fence_after_sec, the agent ends its
// jobs itself, so that the controller can run them elsewhere without two copies at once.
TEST_F(AgentTest, EndsItsJobsWhenTheLeaseRunsOut) {
  controller_.register_reply().set_fence_after_sec(1);
  StartAgent();
  ASSERT_TRUE(controller_.WaitUntil([&] { return !controller_.registers_.empty(); }));
  const std::string marker = tmp_ / "still-running";
  ASSERT_TRUE(Launch(MakeJob(12, "n1", work_),
                     "#!/bin/sh\nwhile :; do date > " + marker + "; sleep 0.1; done\n")
                  .ok());
  ASSERT_TRUE(Eventually([&] { return std::filesystem::exists(marker); }));
  controller_.Stop();  // no call acknowledged from now on
  ASSERT_TRUE(Eventually([&] { return agent_->manager().JobIds().empty(); }));
  std::filesystem::remove(marker);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  EXPECT_FALSE(std::filesystem::exists(marker));  // nothing of the job runs on
}

// The lease is on disk for the keepers: renewed with the controller's answers, held by this
// agent, and released when it stops (its jobs have ended by then).
TEST_F(AgentTest, KeepsItsLeaseInTheSpool) {
  controller_.register_reply().set_fence_after_sec(30);
  StartAgent();
  ASSERT_TRUE(agent_->link().WaitRegistered(testing::kWait));
  const std::string path = SpoolLeasePath(tmp_ / "spool");
  Result<LeaseRecord> lease = ReadLeaseFile(path);
  ASSERT_TRUE(lease.ok()) << lease.status().ToString();
  EXPECT_EQ(lease->agent_pid, getpid());
  EXPECT_GT(lease->deadline_ms, MonotonicNowMs() + 25000);
  EXPECT_LE(lease->deadline_ms, MonotonicNowMs() + 30000);
  agent_->Shutdown();
  lease = ReadLeaseFile(path);
  ASSERT_TRUE(lease.ok()) << lease.status().ToString();
  EXPECT_EQ(lease->deadline_ms, 0);
}

// An agent started after a crash keeps to its predecessor's lease until the controller answers:
// one that never reaches it ends the jobs it holds when that lease runs out, as the controller
// runs them elsewhere from then on.
TEST_F(AgentTest, KeepsToThePreviousAgentsLeaseUntilTheControllerAnswers) {
  controller_.Stop();
  std::filesystem::create_directories(tmp_ / "spool");
  {
    Result<LeaseFile> file = LeaseFile::Open(SpoolLeasePath(tmp_ / "spool"));
    ASSERT_TRUE(file.ok()) << file.status().ToString();
    ASSERT_TRUE(file->Write(LeaseRecord{MonotonicNowMs() + 1500, 1, 1}).ok());
  }
  StartAgent();
  ASSERT_TRUE(Launch(MakeJob(12, "n1", work_), "#!/bin/sh\nsleep 1000\n").ok());
  ASSERT_EQ(agent_->manager().JobIds().size(), 1u);
  EXPECT_TRUE(Eventually([&] { return agent_->manager().JobIds().empty(); }));
}

// A controller back within the lease is tried again before the lease ends, whatever retry_max.
TEST(LongestRetry, StaysWellWithinTheLease) {
  using std::chrono::milliseconds;
  struct Case {
    milliseconds min, max, lease, want;
  } cases[] = {
      {milliseconds(500), milliseconds(10000), milliseconds(0), milliseconds(10000)},  // no lease
      {milliseconds(500), milliseconds(10000), milliseconds(6000), milliseconds(600)},
      {milliseconds(500), milliseconds(10000), milliseconds(300000), milliseconds(10000)},
      {milliseconds(500), milliseconds(10000), milliseconds(1000), milliseconds(500)},  // >= min
  };
  for (const Case& c : cases) {
    EXPECT_EQ(LongestRetry(c.min, c.max, c.lease), c.want) << c.lease.count();
  }
}

TEST_F(AgentTest, RegistersAgainWhenTheControllerAsks) {
  StartAgent();
  ASSERT_TRUE(controller_.WaitUntil([&] { return !controller_.registers_.empty(); }));
  ASSERT_TRUE(Launch(MakeJob(12, "n1", work_), "#!/bin/sh\nsleep 1000\n").ok());
  controller_.set_reregister();
  ASSERT_TRUE(controller_.WaitUntil([&] { return controller_.registers_.size() >= 2; }));
  gantry::v1::RegisterRequest again = controller_.last_register();
  ASSERT_EQ(again.running_job_ids_size(), 1);
  EXPECT_EQ(again.running_job_ids(0), 12u);
}

TEST_F(AgentTest, ShutdownEndsJobsAndFlushesTheirReports) {
  StartAgent();
  ASSERT_TRUE(agent_->link().WaitRegistered(testing::kWait));  // the epilog comes with it
  ASSERT_TRUE(Launch(MakeJob(13, "n1", work_), "#!/bin/sh\nsleep 1000\n").ok());
  agent_->Shutdown();
  EXPECT_TRUE(controller_.WaitReport(13, JobReport::BATCH_ENDED).has_value());
  EXPECT_TRUE(controller_.WaitReport(13, JobReport::EPILOG_OK).has_value());
  EXPECT_EQ(ReadFile(tmp_ / "epilog"), "13\n");
}

// The real binary: flag errors exit 2; SIGTERM ends it with 0 after registering.
#ifdef GANTRY_AGENT_BINARY
struct Exit {
  int status = -1;
  std::string err;
};

Exit RunBinary(const std::vector<std::string>& args,
               const std::function<void(pid_t)>& while_running, const std::string& err_file) {
  pid_t pid = fork();
  if (pid == 0) {
    FILE* f = freopen(err_file.c_str(), "w", stderr);
    (void)f;
    std::vector<char*> argv;
    std::string binary = GANTRY_AGENT_BINARY;
    argv.push_back(binary.data());
    std::vector<std::string> copy = args;
    for (std::string& a : copy) argv.push_back(a.data());
    argv.push_back(nullptr);
    execv(binary.c_str(), argv.data());
    _exit(127);
  }
  if (while_running) while_running(pid);
  Exit exit;
  waitpid(pid, &exit.status, 0);
  exit.err = ReadFile(err_file);
  return exit;
}

TEST_F(AgentTest, BinaryExits2OnBadFlagsAnd0OnSigterm) {
  Exit bad = RunBinary({"--node", "n1", "--controller", "nowhere"}, nullptr, tmp_ / "err1");
  ASSERT_TRUE(WIFEXITED(bad.status));
  EXPECT_EQ(WEXITSTATUS(bad.status), 2);
  EXPECT_EQ(bad.err,
            "gantry-agent: --controller: \"nowhere\" is not HOST:PORT\nTry 'gantry-agent "
            "--help'.\n");

  controller_.Stop();
  FakeController controller(Pki().Controller());
  controller.Start();
  const tls::TlsPaths& tls = Pki().paths();
  Exit stopped = RunBinary(
      {"--node", "n1", "--controller", controller.address(), "--ca-file", tls.ca_cert(),
       "--cert-file", tls.node_cert("n1"), "--cert-key-file", tls.node_key("n1"), "--spool",
       tmp_ / "bin-spool"},
      [&](pid_t pid) {
        EXPECT_TRUE(controller.WaitUntil([&] { return !controller.registers_.empty(); }));
        kill(pid, SIGTERM);
      },
      tmp_ / "err2");
  ASSERT_TRUE(WIFEXITED(stopped.status)) << stopped.err;
  EXPECT_EQ(WEXITSTATUS(stopped.status), 0) << stopped.err;
  EXPECT_NE(stopped.err.find("gantry-agent[n1]: registered with controller"), std::string::npos)
      << stopped.err;
  EXPECT_NE(stopped.err.find("received SIGTERM"), std::string::npos) << stopped.err;
}
#endif

}  // namespace
}  // namespace gantry::agent
