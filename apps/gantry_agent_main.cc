// gantry-agent: the node agent (see src/agent/agent.h and agent_flags.h).
// Exit status: 0 after SIGTERM/SIGINT, 2 for a bad command line, 1 when it cannot start.
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <iostream>
#include <string>
#include <vector>

#include "agent/agent.h"
#include "agent/agent_flags.h"
#include "agent/log.h"
#include "sys/offset_clock.h"
#include "sys/oom.h"
#include "sys/stop_signals.h"
#include "tls/cluster_tls.h"

int main(int argc, char** argv) {
  using gantry::Result;
  namespace agent = gantry::agent;
  namespace tls = gantry::tls;
  namespace sys = gantry::sys;
  std::vector<std::string> args(argv + 1, argv + argc);
  Result<agent::AgentFlags> flags = agent::ParseAgentFlags(args);
  if (!flags.ok()) {
    std::cerr << "gantry-agent: " << flags.status().message() << "\n"
              << "Try 'gantry-agent --help'.\n";
    return 2;
  }
  if (flags->help) {
    std::cout << agent::AgentUsage();
    return 0;
  }
  if (flags->version) {
    std::cout << "gantry-agent " << agent::kAgentVersion << "\n";
    return 0;
  }

  // SIGTERM and SIGINT are taken below: blocked before any thread starts, so that
  // every thread inherits the mask (job processes get it reset by the launcher).
  const sigset_t stop_signals = gantry::sys::BlockStopSignals();

  agent::SetLogNode(flags->node);
  if (const std::string why = sys::ShieldFromOomKiller(); !why.empty() && geteuid() == 0) {
    agent::Log("not shielded from the OOM killer: " + why);
  }
  Result<tls::Identity> identity =
      tls::LoadIdentity(flags->ca_file, flags->cert_file, flags->cert_key_file);
  if (!identity.ok()) {
    std::cerr << "gantry-agent: " << identity.status().message() << "\n";
    return 1;
  }
  if (identity->name != tls::NodeCertName(flags->node)) {
    std::cerr << "gantry-agent: --cert-file: " << flags->cert_file << " names " << identity->name
              << ", not node " << flags->node << " (" << tls::NodeCertName(flags->node) << ")\n";
    return 1;
  }
  agent::AgentOptions options;
  options.node = flags->node;
  options.controller = flags->controller;
  options.identity = *identity;
  options.spool = flags->spool;
  options.listen = flags->listen;
  options.advertise = flags->advertise;
  options.metrics = flags->metrics;
  options.home = flags->home;
  options.emulated = flags->emulated;
  options.clock = &sys::DaemonClock();
  // Each batch script's parent is gantry-keeper, and each srun step runs under gantry-stepd,
  // both installed beside this program.
  {
    char self[4096];
    const ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
    const std::string exe = n > 0 ? std::string(self, static_cast<size_t>(n)) : std::string();
    const std::string dir = exe.substr(0, exe.rfind('/') + 1);
    options.keeper_path = dir + "gantry-keeper";
    options.stepd_path = dir + "gantry-stepd";
    for (const std::string& helper : {options.keeper_path, options.stepd_path}) {
      if (exe.empty() || access(helper.c_str(), X_OK) != 0) {
        std::cerr << "gantry-agent: cannot start: " << helper
                  << " is missing or not executable: it must be installed beside gantry-agent\n";
        return 1;
      }
    }
  }
  Result<std::unique_ptr<agent::AgentDaemon>> daemon = agent::AgentDaemon::Start(options);
  if (!daemon.ok()) {
    std::cerr << "gantry-agent: cannot start: " << daemon.status().message() << "\n";
    return 1;
  }

  const int received = gantry::sys::WaitForStopSignal(stop_signals);
  agent::Log(std::string("received ") + (received == SIGINT ? "SIGINT" : "SIGTERM") +
             ": ending jobs and exiting");
  (*daemon)->Shutdown();
  return 0;
}
