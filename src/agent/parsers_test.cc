// The agent's small parsers: /proc stat lines, mountinfo, spool records, command-line flags,
// request checks.
#include <gtest/gtest.h>

#include "agent/agent_flags.h"
#include "agent/cgroup.h"
#include "agent/request_check.h"
#include "agent/spool.h"

namespace gantry::agent {
namespace {

TEST(ParseCgroup2Mount, PrefersSysFsCgroup) {
  const char hybrid[] =
      "30 23 0:26 / /sys/fs/cgroup ro,nosuid - tmpfs tmpfs ro,mode=755\n"
      "31 30 0:27 / /sys/fs/cgroup/unified rw,nosuid shared:10 - cgroup2 cgroup2 rw\n"
      "32 30 0:28 / /sys/fs/cgroup/memory rw - cgroup cgroup rw,memory\n";
  EXPECT_EQ(ParseCgroup2Mount(hybrid), "/sys/fs/cgroup/unified");
  const char unified[] =
      "25 1 0:22 / /other/cg rw - cgroup2 cgroup2 rw\n"
      "26 1 0:23 / /sys/fs/cgroup rw,nosuid shared:4 - cgroup2 cgroup2 rw,nsdelegate\n";
  EXPECT_EQ(ParseCgroup2Mount(unified), "/sys/fs/cgroup");
  EXPECT_EQ(ParseCgroup2Mount("22 1 8:1 / / rw - ext4 /dev/sda1 rw\n"), std::nullopt);
  EXPECT_EQ(ParseCgroup2Mount(""), std::nullopt);
}

TEST(JobRecord, RoundTrips) {
  JobRecord record;
  record.job_id = 12;
  record.epoch = 3;
  record.pid = 4242;
  record.start_ticks = 987;
  record.keeper = {4240, 985};
  record.cgroup = "/sys/fs/cgroup/gantry.slice/n1/job_12";
  record.limit_cgroups = {"/sys/fs/cgroup/memory/gantry.slice/n1/job_12"};
  record.tasks = {{4300, 990}, {4301, 991}};
  record.steps = {{0, {4400, 995}}, {2, {4410, 996}}};
  std::string text = FormatJobRecord(record);
  EXPECT_EQ(text,
            "job_id=12\nepoch=3\npid=4242\npgid=4242\nstart_ticks=987\nkeeper=4240:985\n"
            "cgroup=/sys/fs/cgroup/gantry.slice/n1/job_12\n"
            "limit_cgroup=/sys/fs/cgroup/memory/gantry.slice/n1/job_12\n"
            "task=4300:990\ntask=4301:991\nstep=0:4400:995\nstep=2:4410:996\n");
  Result<JobRecord> parsed = ParseJobRecord(text);
  ASSERT_TRUE(parsed.ok());
  EXPECT_EQ(*parsed, record);
}

TEST(JobRecord, RefusesDamagedRecords) {
  struct Case {
    std::string text;
    std::string error;
  };
  const Case cases[] = {
      {"", "no job_id"},
      {"epoch=1\n", "no job_id"},
      {"job_id=0\n", "no job_id"},
      {"job_id=x\n", "line 1: job_id: not a number: \"x\""},
      {"job_id=1\npid=12a\n", "line 2: pid: not a number: \"12a\""},
      {"job_id=1\ngarbage\n", "line 2: expected key=value"},
      {"job_id=1\nkeeper=12\n", "line 2: keeper: expected <pid>:<start_ticks>: \"12\""},
      {"job_id=1\ntask=0:5\n", "line 2: task: expected <pid>:<start_ticks>: \"0:5\""},
      {"job_id=1\nstep=3:12\n", "line 2: step: expected <step_id>:<pid>:<start_ticks>: \"3:12\""},
  };
  for (const Case& c : cases) {
    Result<JobRecord> parsed = ParseJobRecord(c.text);
    ASSERT_FALSE(parsed.ok()) << c.text;
    EXPECT_EQ(parsed.status().message(), c.error);
  }
  EXPECT_TRUE(ParseJobRecord("job_id=5\nfuture_key=1\n").ok());
}

TEST(ParseAgentFlags, ReadsEveryFlagBothWays) {
  Result<AgentFlags> flags =
      ParseAgentFlags({"--node", "a4-0", "--controller=10.0.0.1:6817", "--ca-file", "/ca",
                       "--cert-file=/c", "--cert-key-file", "/k", "--spool=/s", "--listen",
                       "0.0.0.0:7000", "--advertise", "a4-0.local"});
  ASSERT_TRUE(flags.ok()) << flags.status().ToString();
  EXPECT_EQ(flags->node, "a4-0");
  EXPECT_EQ(flags->controller, "10.0.0.1:6817");
  EXPECT_EQ(flags->ca_file, "/ca");
  EXPECT_EQ(flags->cert_file, "/c");
  EXPECT_EQ(flags->cert_key_file, "/k");
  EXPECT_EQ(flags->spool, "/s");
  EXPECT_EQ(flags->listen, "0.0.0.0:7000");
  EXPECT_EQ(flags->advertise, "a4-0.local");
  Result<AgentFlags> defaults =
      ParseAgentFlags({"--node", "n", "--controller", "h:1", "--ca-file", "a", "--cert-file", "c",
                       "--cert-key-file", "k", "--spool", "s"});
  ASSERT_TRUE(defaults.ok());
  EXPECT_EQ(defaults->listen, "127.0.0.1:0");
  EXPECT_EQ(defaults->advertise, "");
  EXPECT_TRUE(ParseAgentFlags({"--help", "--bogus"})->help);
  Result<AgentFlags> replicated =
      ParseAgentFlags({"--node", "n", "--controller", "h1:1,h2:1,h3:1", "--ca-file", "a",
                       "--cert-file", "c", "--cert-key-file", "k", "--spool", "s"});
  ASSERT_TRUE(replicated.ok()) << replicated.status().ToString();
  EXPECT_EQ(replicated->controller, "h1:1,h2:1,h3:1");
}

TEST(ParseAgentFlags, ErrorsNameTheFlag) {
  const std::vector<std::string> base = {"--node",          "n", "--controller", "h:1",
                                         "--ca-file",       "a", "--cert-file",  "c",
                                         "--cert-key-file", "k", "--spool",      "s"};
  auto with = [&](std::vector<std::string> extra) {
    std::vector<std::string> args = base;
    args.insert(args.end(), extra.begin(), extra.end());
    return args;
  };
  struct Case {
    std::vector<std::string> args;
    std::string error;
  };
  const Case cases[] = {
      {{}, "--node: required"},
      {{"--node"}, "--node: missing value"},
      {{"--node="}, "--node: empty value"},
      {{"--node", "a b", "--controller", "h:1"},
       "--node: \"a b\" is not a node name (letters, digits, '-', '_', '.', not starting with "
       "'.' or '-')"},
      {{"--node", ".."},
       "--node: \"..\" is not a node name (letters, digits, '-', '_', '.', not "
       "starting with '.' or '-')"},
      {{"--node", "n"}, "--controller: required"},
      {{"--node", "n", "--controller", "host"}, "--controller: \"host\" is not HOST:PORT"},
      // Replicated controllers: every address is checked.
      {{"--node", "n", "--controller", "h:1,h:0"}, "--controller: \"h:0\": port 0 is not a port"},
      {{"--node", "n", "--controller", "h:1,host"}, "--controller: \"host\" is not HOST:PORT"},
      {{"--node", "n", "--controller", "h:0"}, "--controller: \"h:0\": port 0 is not a port"},
      {{"--node", "n", "--controller", "h:99999"},
       "--controller: \"h:99999\": port \"99999\" is not a number from 0 to 65535"},
      {{"--node", "n", "--controller", "h:1"}, "--ca-file: required"},
      {{"--node", "n", "--controller", "h:1", "--ca-file", "a"}, "--cert-file: required"},
      {{"--node", "n", "--controller", "h:1", "--ca-file", "a", "--cert-file", "c"},
       "--cert-key-file: required"},
      {{"--node", "n", "--controller", "h:1", "--ca-file", "a", "--cert-file", "c",
        "--cert-key-file", "k"},
       "--spool: required"},
      {with({"--listen", "nohost"}), "--listen: \"nohost\" is not HOST:PORT"},
      {with({"--advertise", "h:80"}),
       "--advertise: \"h:80\" is not a host name or address "
       "(no port)"},
      {with({"--frobnicate"}), "unknown flag \"--frobnicate\""},
      {with({"extra"}), "unexpected argument \"extra\" (flags only)"},
  };
  for (const Case& c : cases) {
    Result<AgentFlags> flags = ParseAgentFlags(c.args);
    ASSERT_FALSE(flags.ok()) << c.error;
    EXPECT_EQ(flags.status().message(), c.error);
  }
}

TEST(HostPort, SplitsAndJoins) {
  Result<HostPort> v4 = ParseHostPort("127.0.0.1:0");
  ASSERT_TRUE(v4.ok());
  EXPECT_EQ(v4->host, "127.0.0.1");
  EXPECT_EQ(v4->port, 0);
  Result<HostPort> v6 = ParseHostPort("[::1]:7000");
  ASSERT_TRUE(v6.ok());
  EXPECT_EQ(v6->host, "::1");
  EXPECT_EQ(v6->port, 7000);
  EXPECT_EQ(JoinHostPort("::1", 7000), "[::1]:7000");
  EXPECT_EQ(JoinHostPort("n1", 7), "n1:7");
  EXPECT_FALSE(ParseHostPort("::1:7000").ok());
  EXPECT_FALSE(ParseHostPort(":7000").ok());
}

gantry::v1::JobContext Context(uint32_t job_id, std::vector<std::string> nodes, uint32_t index) {
  gantry::v1::JobContext context;
  context.mutable_job()->set_job_id(job_id);
  for (const std::string& n : nodes) context.mutable_job()->add_nodes(n);
  context.set_node_index(index);
  return context;
}

TEST(CheckRequests, NameTheBadField) {
  EXPECT_TRUE(CheckJobContext(Context(1, {"n1", "n2"}, 1), "n2", "context").ok());
  struct Case {
    gantry::v1::JobContext context;
    std::string error;
  };
  gantry::v1::JobContext bad_env = Context(1, {"n1"}, 0);
  bad_env.add_extra_env("OK=1");
  bad_env.add_extra_env("NOEQUALS");
  const Case cases[] = {
      {Context(0, {"n1"}, 0), "context.job.job_id: missing (0)"},
      {Context(1, {}, 0), "context.job.nodes: empty"},
      {Context(1, {"n2", "n3"}, 0),
       "context.job.nodes: this node (n1) is not among the job's nodes (n[2-3])"},
      {Context(1, {"n1"}, 4), "context.node_index: 4 is out of range for 1 nodes"},
      {Context(1, {"n0", "n1"}, 0), "context.node_index: 0 names node n0, not this node (n1)"},
      {bad_env,
       "context.extra_env[1]: \"NOEQUALS\" is not NAME=VALUE (a name, '=', no NUL "
       "byte)"},
  };
  for (const Case& c : cases) {
    Status status = CheckJobContext(c.context, "n1", "context");
    EXPECT_EQ(status.code(), StatusCode::kInvalidArgument) << c.error;
    EXPECT_EQ(status.message(), c.error);
  }

  gantry::v1::LaunchBatchRequest launch;
  EXPECT_EQ(CheckLaunchBatch(launch, "n1").message(), "context: missing");
  *launch.mutable_context() = Context(1, {"n0", "n1"}, 1);
  EXPECT_EQ(CheckLaunchBatch(launch, "n1").message(),
            "context.job.nodes: the batch script runs on the job's first node (n0), not on this "
            "node (n1)");
  *launch.mutable_context() = Context(1, {"n1"}, 0);
  EXPECT_EQ(CheckLaunchBatch(launch, "n1").message(), "payload.script: empty");
  launch.mutable_payload()->set_script("#!/bin/sh\n");
  EXPECT_EQ(CheckLaunchBatch(launch, "n1").message(),
            "context.job.request.work_dir: \"\" is not an absolute path");
  launch.mutable_context()->mutable_job()->mutable_request()->set_work_dir("/w");
  launch.mutable_context()->mutable_job()->mutable_request()->set_std_out(std::string("a\0b", 3));
  EXPECT_EQ(CheckLaunchBatch(launch, "n1").message(),
            "context.job.request.std_out: \"a\\0b\" contains a NUL byte");
  launch.mutable_context()->mutable_job()->mutable_request()->clear_std_out();
  launch.mutable_payload()->add_environment("=x");
  EXPECT_EQ(CheckLaunchBatch(launch, "n1").message(),
            "payload.environment[0]: \"=x\" is not NAME=VALUE (a name, '=', no NUL byte)");

  gantry::v1::SignalJobOnNodeRequest signal;
  EXPECT_EQ(CheckSignalJob(signal).message(), "job_id: missing (0)");
  signal.set_job_id(3);
  signal.set_signal(0);
  EXPECT_EQ(CheckSignalJob(signal).message().substr(0, 36), "signal: 0 is not a signal number (1-");
  signal.set_signal(15);
  EXPECT_TRUE(CheckSignalJob(signal).ok());
  signal.set_scope(gantry::v1::SIGNAL_SUSPEND);
  EXPECT_EQ(CheckSignalJob(signal).message(),
            "scope: SIGNAL_SUSPEND takes SIGSTOP or SIGCONT, not signal 15");
  signal.set_scope(static_cast<gantry::v1::SignalScope>(9));
  EXPECT_EQ(CheckSignalJob(signal).message(), "scope: 9 is not a SignalScope");

  gantry::v1::TerminateJobRequest terminate;
  EXPECT_EQ(CheckTerminateJob(terminate).message(), "job_id: missing (0)");
  terminate.set_job_id(4);
  terminate.set_kill_wait_sec(70000);
  EXPECT_EQ(CheckTerminateJob(terminate).message(), "kill_wait_sec: 70000 is more than 65533");
  terminate.set_kill_wait_sec(30);
  *terminate.mutable_context() = Context(5, {"n1"}, 0);
  EXPECT_EQ(CheckTerminateJob(terminate).message(), "context.job.job_id: 5 differs from job_id 4");
}

}  // namespace
}  // namespace gantry::agent
