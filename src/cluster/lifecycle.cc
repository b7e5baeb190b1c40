#include "cluster/lifecycle.h"

#include <algorithm>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <map>
#include <ostream>
#include <set>
#include <thread>

#include "cluster/controller_client.h"
#include "cluster/process.h"
#include "cluster/replicas.h"
#include "etcd/etcd_client.h"
#include "model/node_state.h"
#include "sys/disk_reserve.h"
#include "tls/cluster_tls.h"

namespace gantry::cluster {

namespace fs = std::filesystem;

namespace {

using SteadyClock = std::chrono::steady_clock;

constexpr char kAnyAddress[] = "127.0.0.1:0";  // gantryd picks the port
constexpr size_t kLogTailLines = 20;

std::vector<std::string> GantrydSignature(const StateDir& dir) {
  return {"--state-dir", dir.dir()};
}

std::vector<std::string> AgentSignature(const StateDir& dir, const std::string& node) {
  return {"--spool", dir.agent_spool(node)};
}

// The first line of a file a daemon wrote (an address, a URL) without surrounding whitespace;
// nullopt when the file is missing or the line empty.
std::optional<std::string> ReadFirstLine(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  if (!in || !std::getline(in, line)) return std::nullopt;
  const size_t b = line.find_first_not_of(" \t\r");
  const size_t e = line.find_last_not_of(" \t\r");
  if (b == std::string::npos) return std::nullopt;
  return line.substr(b, e - b + 1);
}

// DIR/gantryd.addr.
std::optional<std::string> ReadAddress(const StateDir& dir) {
  return ReadFirstLine(dir.addr_file());
}

void RemoveFile(const std::string& path) {
  std::error_code ec;
  fs::remove(path, ec);
}

std::string Seconds(std::chrono::milliseconds d) {
  const auto ms = d.count();
  if (ms % 1000 == 0) return std::to_string(ms / 1000) + " s";
  return std::to_string(ms) + " ms";
}

std::string StartupFailure(const std::string& what, const std::string& log, uint64_t log_from) {
  std::string message = what + " exited during startup";
  const std::string tail = TailOfFile(log, kLogTailLines, log_from);
  if (tail.empty()) return message + " (" + log + " is empty)";
  return message + "; last lines of " + log + ":\n" + tail.substr(0, tail.size() - 1);
}

// Starts gantryd listening on `listen` and waits until it serves. Returns its address.
Result<std::string> StartGantryd(const Cluster& cluster, const Environment& env,
                                 const std::string& listen, const LifecycleOptions& options,
                                 std::ostream& out) {
  const StateDir& dir = cluster.dir;
  GANTRY_ASSIGN_OR_RETURN(const std::string binary, FindBinary(env, kGantrydName));
  RemoveFile(dir.addr_file());
  const uint64_t log_from = FileSize(dir.gantryd_log());
  GANTRY_ASSIGN_OR_RETURN(
      const pid_t pid,
      SpawnDetached(
          {binary, {"--state-dir", dir.dir(), "--listen", listen}, dir.gantryd_log(), dir.dir()}));
  GANTRY_RETURN_IF_ERROR(WritePidFile(dir.gantryd_pid(), pid));
  const auto deadline = SteadyClock::now() + options.start_timeout;
  Status last = Unavailable("gantryd has not written " + dir.addr_file() + " yet");
  while (true) {
    if (!ProcessAlive(pid)) {
      RemoveFile(dir.gantryd_pid());
      return Unavailable(
          StartupFailure("gantryd (pid " + std::to_string(pid) + ")", dir.gantryd_log(), log_from));
    }
    if (const std::optional<std::string> addr = ReadAddress(dir)) {
      Result<v1::PingReply> ping = PingController(dir.socket(), options.rpc_timeout);
      if (ping.ok()) {
        out << "gantryd  started  pid " << pid << "  " << *addr << "\n";
        return *addr;
      }
      last = ping.status();
    }
    if (SteadyClock::now() >= deadline) break;
    std::this_thread::sleep_for(options.poll);
  }
  return Unavailable("gantryd (pid " + std::to_string(pid) + ") is not serving after " +
                     Seconds(options.start_timeout) + " (" + last.message() +
                     "); it is left running: see " + dir.gantryd_log() +
                     ", stop it with gantry down");
}

// Makes sure gantryd runs and answers; returns its TCP address (what agents are given).
Result<std::string> EnsureGantryd(const Cluster& cluster, const Environment& env,
                                  const LifecycleOptions& options, std::ostream& out) {
  const StateDir& dir = cluster.dir;
  if (const std::optional<pid_t> pid = LiveGantryd(dir)) {
    const auto deadline = SteadyClock::now() + options.start_timeout;
    Status last = Unavailable("no " + dir.addr_file());
    while (true) {
      if (const std::optional<std::string> addr = ReadAddress(dir)) {
        Result<v1::PingReply> ping = PingController(dir.socket(), options.rpc_timeout);
        if (ping.ok()) {
          out << "gantryd  running  pid " << *pid << "  " << *addr << "\n";
          return *addr;
        }
        last = ping.status();
      }
      if (!ProcessAlive(*pid) || SteadyClock::now() >= deadline) break;
      std::this_thread::sleep_for(options.poll);
    }
    if (ProcessAlive(*pid)) {
      return Unavailable("gantryd (pid " + std::to_string(*pid) + ") runs but does not answer (" +
                         last.message() + "); see " + dir.gantryd_log() +
                         ", or restart it: gantry down && gantry up");
    }
  }
  RemoveFile(dir.gantryd_pid());
  // Agents that still run know the old address (their --controller): the new gantryd takes it.
  std::optional<std::string> previous;
  for (const std::string& node : dir.NodesWithPidFiles()) {
    if (const std::optional<pid_t> agent = LiveAgent(dir, node); agent && !previous) {
      previous = ArgvFlagValue(ProcessArgv(*agent), "--controller");
    }
  }
  if (previous && !previous->ends_with(":0")) {
    Result<std::string> addr = StartGantryd(cluster, env, *previous, options, out);
    // Retry on a new port only when it exited (could not bind), not when it is merely slow.
    if (addr.ok() || LiveGantryd(dir)) return addr;
    out << "note: gantryd could not serve on its previous address " << *previous << " ("
        << addr.status().message() << "); starting it on a new port\n";
  }
  return StartGantryd(cluster, env, kAnyAddress, options, out);
}

struct StartedAgent {
  std::string node;
  pid_t pid = 0;
  uint64_t log_from = 0;
  int64_t started_at = 0;  // unix seconds
  bool registered = false;
};

// Waits until every started agent is registered with the controller (or, when the controller
// cannot tell, has stayed alive for agent_settle). Fails when one exits.
Status WaitForAgents(const StateDir& dir, const std::string& controller_socket,
                     std::vector<StartedAgent>& agents, const LifecycleOptions& options,
                     std::ostream& out) {
  const auto start = SteadyClock::now();
  const auto deadline = start + options.start_timeout;
  Status nodes_status;
  while (true) {
    std::vector<std::string> failures;
    for (const StartedAgent& a : agents) {
      if (!ProcessAlive(a.pid)) {
        RemoveFile(dir.agent_pid(a.node));
        failures.push_back(
            StartupFailure("agent " + a.node + " (pid " + std::to_string(a.pid) + ")",
                           dir.agent_log(a.node), a.log_from));
      }
    }
    if (!failures.empty()) {
      std::string message;
      for (const std::string& f : failures) message += (message.empty() ? "" : "\n") + f;
      return Unavailable(message);
    }
    Result<v1::GetNodesReply> nodes = GetControllerNodes(controller_socket, options.rpc_timeout);
    if (nodes.ok()) {
      std::map<std::string, const v1::Node*> by_name;
      for (const v1::Node& n : nodes->nodes()) by_name[n.name()] = &n;
      bool all = true;
      for (StartedAgent& a : agents) {
        const auto it = by_name.find(a.node);
        a.registered = it != by_name.end() && !it->second->address().empty() &&
                       (it->second->boot_time() >= a.started_at ||
                        it->second->last_heartbeat() >= a.started_at);
        all = all && a.registered;
      }
      if (all) return Status::Ok();
    } else {
      nodes_status = nodes.status();
      if (SteadyClock::now() - start >= options.agent_settle) {
        out << "note: cannot confirm that the agents registered (" << nodes_status.message()
            << "); they are running\n";
        return Status::Ok();
      }
    }
    if (SteadyClock::now() >= deadline) break;
    std::this_thread::sleep_for(options.poll);
  }
  std::string pending;
  for (const StartedAgent& a : agents) {
    if (!a.registered) pending += (pending.empty() ? "" : ", ") + a.node;
  }
  return Unavailable("agents still running but not registered with the controller after " +
                     Seconds(options.start_timeout) + ": " + pending + "; see " + dir.logs() +
                     "/agent-<node>.log and " + dir.gantryd_log());
}

Status EnsureAgents(const Cluster& cluster, const std::string& address,
                    const std::string& controller_socket, const Environment& env,
                    const LifecycleOptions& options, std::ostream& out) {
  const StateDir& dir = cluster.dir;
  const tls::TlsPaths tls{dir.tls()};
  std::vector<StartedAgent> started;
  std::optional<std::string> binary;
  for (const std::string& node : ComputeNodes(cluster.config)) {
    if (const std::optional<pid_t> pid = LiveAgent(dir, node)) {
      const std::vector<std::string> argv = ProcessArgv(*pid);
      const std::optional<std::string> controller = ArgvFlagValue(argv, "--controller");
      // An agent of a gantry before TLS has no certificate: it cannot reach this gantryd.
      if (controller == address && ArgvFlagValue(argv, "--cert-file") == tls.node_cert(node)) {
        out << "agent " << node << "  running  pid " << *pid << "\n";
        continue;
      }
      out << "agent " << node << " (pid " << *pid << ") talks to " << controller.value_or("?")
          << ", not " << address << ": restarting it\n";
      GANTRY_RETURN_IF_ERROR(StopProcesses({*pid}, options.stop_timeout).status());
    }
    RemoveFile(dir.agent_pid(node));
    if (!binary) {
      GANTRY_ASSIGN_OR_RETURN(binary, FindBinary(env, kAgentName));
    }
    std::error_code ec;
    fs::create_directories(dir.agent_spool(node), ec);
    if (ec) return Unavailable("cannot create " + dir.agent_spool(node) + ": " + ec.message());
    StartedAgent a;
    a.node = node;
    a.log_from = FileSize(dir.agent_log(node));
    a.started_at = static_cast<int64_t>(std::time(nullptr));
    GANTRY_ASSIGN_OR_RETURN(
        a.pid,
        SpawnDetached({*binary,
                       {"--node", node, "--controller", address, "--ca-file", tls.ca_cert(),
                        "--cert-file", tls.node_cert(node), "--cert-key-file", tls.node_key(node),
                        "--spool", dir.agent_spool(node), "--metrics", "127.0.0.1:0",
                        // The nodes share this host; the state dir's home/ is their /home.
                        "--home", dir.home(), "--emulated"},
                       dir.agent_log(node),
                       dir.dir()}));
    GANTRY_RETURN_IF_ERROR(WritePidFile(dir.agent_pid(node), a.pid));
    started.push_back(a);
  }
  if (started.empty()) return Status::Ok();
  GANTRY_RETURN_IF_ERROR(WaitForAgents(dir, controller_socket, started, options, out));
  for (const StartedAgent& a : started) {
    out << "agent " << a.node << "  started  pid " << a.pid << "\n";
  }
  return Status::Ok();
}

std::vector<std::string> RestdSignature(const StateDir& dir) { return {"--conf", dir.conf()}; }

// Makes sure gantry-restd runs: on DIR/run/restd.sock and HTTPS on 127.0.0.1 (any port, written
// to DIR/run/restd.url), with the certificate the cluster's CA issued it.
Status EnsureRestd(const Cluster& cluster, const Environment& env, const LifecycleOptions& options,
                   std::ostream& out) {
  const StateDir& dir = cluster.dir;
  if (const std::optional<pid_t> pid = LiveRestd(dir)) {
    out << "gantry-restd  running  pid " << *pid << "  " << ReadRestUrl(dir).value_or("") << "\n";
    return Status::Ok();
  }
  GANTRY_ASSIGN_OR_RETURN(const std::string binary, FindBinary(env, kRestdName));
  RemoveFile(dir.restd_url_file());
  const tls::TlsPaths tls{dir.tls()};
  const uint64_t log_from = FileSize(dir.restd_log());
  GANTRY_ASSIGN_OR_RETURN(
      const pid_t pid,
      SpawnDetached(
          {binary,
           {"--conf", dir.conf(), "--tls-cert", tls.rest_cert(), "--tls-key", tls.rest_key(),
            "--url-file", dir.restd_url_file(), "unix:" + dir.restd_socket(), "127.0.0.1:0"},
           dir.restd_log(),
           dir.dir()}));
  GANTRY_RETURN_IF_ERROR(WritePidFile(dir.restd_pid(), pid));
  const auto deadline = SteadyClock::now() + options.start_timeout;
  while (SteadyClock::now() < deadline) {
    if (!ProcessAlive(pid)) {
      RemoveFile(dir.restd_pid());
      return Unavailable(StartupFailure("gantry-restd (pid " + std::to_string(pid) + ")",
                                        dir.restd_log(), log_from));
    }
    if (const std::optional<std::string> url = ReadRestUrl(dir)) {
      out << "gantry-restd  started  pid " << pid << "  " << *url << "\n";
      return Status::Ok();
    }
    std::this_thread::sleep_for(options.poll);
  }
  return Unavailable("gantry-restd (pid " + std::to_string(pid) + ") did not write " +
                     dir.restd_url_file() + " in " + Seconds(options.start_timeout) + "; see " +
                     dir.restd_log());
}

// ---- the replicated form (replicas.h) ------------------------------------------------------

// The member's / the replica's live process, if any (its pid file, checked against its argv).
std::optional<pid_t> LiveMember(const StateDir& dir, const EtcdMember& m) {
  return LiveDaemon(EtcdPidFile(dir, m.name), kEtcdName, {"--data-dir", EtcdDataDir(dir, m.name)});
}

std::optional<pid_t> LiveReplica(const StateDir& dir, const Replica& r) {
  return LiveDaemon(ReplicaPidFile(dir, r.name), kGantrydName,
                    {"--run-dir", ReplicaRunDir(dir, r.name)});
}

// Starts the etcd members that do not run and waits until the cluster answers.
Status EnsureEtcd(const StateDir& dir, const Replicas& replicas, const Environment& env,
                  const LifecycleOptions& options, std::ostream& out) {
  std::string initial;
  for (const EtcdMember& m : replicas.etcd) {
    initial += (initial.empty() ? "" : ",") + m.name + "=http://" + m.peer;
  }
  std::optional<std::string> binary;
  for (const EtcdMember& m : replicas.etcd) {
    if (const std::optional<pid_t> pid = LiveMember(dir, m)) {
      out << "etcd " << m.name << "  running  pid " << *pid << "  " << m.client << "\n";
      continue;
    }
    if (!binary) {
      GANTRY_ASSIGN_OR_RETURN(binary, FindBinary(env, kEtcdName));
    }
    std::error_code ec;
    fs::create_directories(EtcdDataDir(dir, m.name), ec);
    if (ec) return Unavailable("cannot create " + EtcdDataDir(dir, m.name) + ": " + ec.message());
    std::vector<std::string> args = {
        "--name", m.name, "--data-dir", EtcdDataDir(dir, m.name), "--listen-client-urls",
        "http://" + m.client, "--advertise-client-urls", "http://" + m.client, "--listen-peer-urls",
        "http://" + m.peer, "--initial-advertise-peer-urls", "http://" + m.peer,
        "--initial-cluster", initial, "--initial-cluster-state", "new",
        // Transactions as large as the store's batches (store/etcd_store.h).
        "--max-txn-ops", "100000", "--max-request-bytes", "33554432",
        // A member lost is replaced as etcd's leader within a second, and the leases it kept
        // run from then: a failover within 5 s.
        "--heartbeat-interval", "50", "--election-timeout", "500"};
    GANTRY_ASSIGN_OR_RETURN(const pid_t pid, SpawnDetached({*binary, std::move(args),
                                                            EtcdLog(dir, m.name), dir.dir()}));
    GANTRY_RETURN_IF_ERROR(WritePidFile(EtcdPidFile(dir, m.name), pid));
    out << "etcd " << m.name << "  started  pid " << pid << "  " << m.client << "\n";
  }
  const auto deadline = SteadyClock::now() + options.start_timeout;
  Status last;
  while (SteadyClock::now() < deadline) {
    // A new client each time: a channel that met the port closed recovers slowly.
    std::vector<std::string> endpoints;
    for (const EtcdMember& m : replicas.etcd) endpoints.push_back(m.client);
    etcd::EtcdClient probe(endpoints, options.rpc_timeout);
    Result<std::optional<etcd::KeyValue>> got = probe.Get("gantry/probe");
    if (got.ok()) return Status::Ok();
    last = got.status();
    std::this_thread::sleep_for(options.poll);
  }
  return Unavailable("etcd does not answer after " + Seconds(options.start_timeout) + " (" +
                     last.message() + "); see " + dir.logs() + "/etcd-*.log");
}

// Starts the replicas that do not run and waits until one leads; returns its gRPC socket.
Result<std::string> EnsureReplicas(const StateDir& dir, const Replicas& replicas,
                                   const Environment& env, const LifecycleOptions& options,
                                   std::ostream& out) {
  std::optional<std::string> binary;
  for (const Replica& r : replicas.controllers) {
    if (const std::optional<pid_t> pid = LiveReplica(dir, r)) {
      out << "gantryd " << r.name << "  running  pid " << *pid << "  " << r.address << "\n";
      continue;
    }
    if (!binary) {
      GANTRY_ASSIGN_OR_RETURN(binary, FindBinary(env, kGantrydName));
    }
    std::error_code ec;
    fs::create_directories(ReplicaRunDir(dir, r.name), ec);
    GANTRY_ASSIGN_OR_RETURN(
        const pid_t pid, SpawnDetached({*binary,
                                        {"--state-dir", dir.dir(), "--listen", r.address, "--etcd",
                                         replicas.EtcdEndpoints(), "--name", r.name, "--run-dir",
                                         ReplicaRunDir(dir, r.name)},
                                        ReplicaLog(dir, r.name),
                                        dir.dir()}));
    GANTRY_RETURN_IF_ERROR(WritePidFile(ReplicaPidFile(dir, r.name), pid));
    out << "gantryd " << r.name << "  started  pid " << pid << "  " << r.address << "\n";
  }
  const auto deadline = SteadyClock::now() + options.start_timeout;
  while (SteadyClock::now() < deadline) {
    for (const Replica& r : replicas.controllers) {
      const std::string socket = ReplicaRunDir(dir, r.name) + "/gantryd.sock";
      Result<v1::PingReply> ping = PingController(socket, options.rpc_timeout);
      if (ping.ok() && ping->role() == "leader") {
        out << "gantryd " << r.name << " leads\n";
        return socket;
      }
    }
    std::this_thread::sleep_for(options.poll);
  }
  return Unavailable("no gantryd replica leads after " + Seconds(options.start_timeout) + "; see " +
                     dir.logs() + "/gantryd-*.log and etcd-*.log");
}

struct Running {
  std::string name;  // "gantryd" or "agent <node>"
  std::string pid_file;
  pid_t pid = 0;
};

// Stops the given daemons together; prints one line each; removes their pid files.
Status StopAll(const std::vector<Running>& daemons, const LifecycleOptions& options,
               std::ostream& out) {
  if (daemons.empty()) return Status::Ok();
  std::vector<pid_t> pids;
  pids.reserve(daemons.size());
  for (const Running& r : daemons) pids.push_back(r.pid);
  GANTRY_ASSIGN_OR_RETURN(const std::vector<StopResult> results,
                          StopProcesses(pids, options.stop_timeout));
  for (size_t i = 0; i < daemons.size(); ++i) {
    out << daemons[i].name << "  stopped  pid " << daemons[i].pid;
    if (results[i].killed) {
      out << " (killed: still running " << Seconds(options.stop_timeout) << " after SIGTERM)";
    }
    out << "\n";
    RemoveFile(daemons[i].pid_file);
  }
  return Status::Ok();
}

// Stops the agents of `nodes` that run.
Status StopAgents(const StateDir& dir, const std::vector<std::string>& nodes,
                  const LifecycleOptions& options, std::ostream& out) {
  std::vector<Running> agents;
  for (const std::string& node : nodes) {
    if (const std::optional<pid_t> pid = LiveAgent(dir, node)) {
      agents.push_back({"agent " + node, dir.agent_pid(node), *pid});
    } else {
      RemoveFile(dir.agent_pid(node));
    }
  }
  return StopAll(agents, options, out);
}

// Stops gantry-restd if it runs and removes its pid and URL files.
Status StopRestd(const StateDir& dir, const LifecycleOptions& options, std::ostream& out) {
  std::vector<Running> d;
  if (const std::optional<pid_t> pid = LiveRestd(dir)) {
    d.push_back({"gantry-restd", dir.restd_pid(), *pid});
  }
  RemoveFile(dir.restd_pid());
  GANTRY_RETURN_IF_ERROR(StopAll(d, options, out));
  RemoveFile(dir.restd_url_file());
  return Status::Ok();
}

// Stops gantryd if it runs and removes its pid and address files.
Status StopGantryd(const StateDir& dir, const LifecycleOptions& options, std::ostream& out) {
  std::vector<Running> d;
  if (const std::optional<pid_t> pid = LiveGantryd(dir)) {
    d.push_back({"gantryd", dir.gantryd_pid(), *pid});
  }
  RemoveFile(dir.gantryd_pid());
  GANTRY_RETURN_IF_ERROR(StopAll(d, options, out));
  RemoveFile(dir.addr_file());
  return Status::Ok();
}

std::string NodeStateText(const v1::Node& n) {
  model::NodeState state;
  state.base = static_cast<model::NodeBaseState>(n.state());
  state.flags = n.state_flags();
  return model::NodeStateString(state);
}

}  // namespace

std::optional<pid_t> LiveGantryd(const StateDir& dir) {
  return LiveDaemon(dir.gantryd_pid(), kGantrydName, GantrydSignature(dir));
}

std::optional<pid_t> LiveAgent(const StateDir& dir, const std::string& node) {
  return LiveDaemon(dir.agent_pid(node), kAgentName, AgentSignature(dir, node));
}

std::optional<pid_t> LiveRestd(const StateDir& dir) {
  return LiveDaemon(dir.restd_pid(), kRestdName, RestdSignature(dir));
}

std::optional<std::string> ReadRestUrl(const StateDir& dir) {
  return ReadFirstLine(dir.restd_url_file());
}

std::optional<std::string> ReadMetricsUrl(const StateDir& dir) {
  return ReadFirstLine(dir.metrics_url_file());
}

Status Up(const Cluster& cluster, const Environment& env, const LifecycleOptions& options,
          std::ostream& out) {
  GANTRY_RETURN_IF_ERROR(cluster.dir.CheckSocketPath());
  // On a full disk, the reserve goes first: `up` writes pid files and gantryd commits.
  if (const std::string freed = sys::KeepDiskReserve(cluster.dir.dir(), sys::kStoreMinFreeBytes);
      !freed.empty()) {
    out << freed << "\n";
  }
  GANTRY_RETURN_IF_ERROR(cluster.dir.Secure());
  GANTRY_ASSIGN_OR_RETURN(const std::optional<Replicas> replicas, LoadReplicas(cluster.dir));
  GANTRY_RETURN_IF_ERROR(
      RefreshGantryConf(cluster.dir, cluster.config.cluster_name, replicas ? &*replicas : nullptr));
  // Clusters made before TLS, nodes added since and certificates near their end.
  GANTRY_RETURN_IF_ERROR(tls::EnsureClusterCertificates(tls::TlsPaths{cluster.dir.tls()},
                                                        ComputeNodes(cluster.config)));
  if (replicas) {
    GANTRY_RETURN_IF_ERROR(EnsureEtcd(cluster.dir, *replicas, env, options, out));
    GANTRY_ASSIGN_OR_RETURN(const std::string leader,
                            EnsureReplicas(cluster.dir, *replicas, env, options, out));
    GANTRY_RETURN_IF_ERROR(
        EnsureAgents(cluster, replicas->ControllerAddresses(), leader, env, options, out));
  } else {
    GANTRY_ASSIGN_OR_RETURN(const std::string address, EnsureGantryd(cluster, env, options, out));
    GANTRY_RETURN_IF_ERROR(EnsureAgents(cluster, address, cluster.dir.socket(), env, options, out));
  }
  return EnsureRestd(cluster, env, options, out);
}

Status Down(const StateDir& dir, const LifecycleOptions& options, std::ostream& out) {
  GANTRY_RETURN_IF_ERROR(StopRestd(dir, options, out));
  GANTRY_RETURN_IF_ERROR(StopAgents(dir, dir.NodesWithPidFiles(), options, out));
  GANTRY_RETURN_IF_ERROR(StopGantryd(dir, options, out));
  Result<std::optional<Replicas>> replicas = LoadReplicas(dir);
  if (!replicas.ok() || !*replicas) return replicas.status();
  // The replicas, then the members they keep their state in.
  std::vector<Running> controllers;
  for (const Replica& r : (*replicas)->controllers) {
    if (const std::optional<pid_t> pid = LiveReplica(dir, r)) {
      controllers.push_back({"gantryd " + r.name, ReplicaPidFile(dir, r.name), *pid});
    }
  }
  GANTRY_RETURN_IF_ERROR(StopAll(controllers, options, out));
  std::vector<Running> members;
  for (const EtcdMember& m : (*replicas)->etcd) {
    if (const std::optional<pid_t> pid = LiveMember(dir, m)) {
      members.push_back({"etcd " + m.name, EtcdPidFile(dir, m.name), *pid});
    }
  }
  return StopAll(members, options, out);
}

Status RestartForUpdate(const Cluster& before, const Cluster& after, const Environment& env,
                        const LifecycleOptions& options, std::ostream& out) {
  const StateDir& dir = after.dir;
  if (!LiveGantryd(dir)) {
    out << "gantryd is not running: the new spec takes effect at the next gantry up\n";
    return Status::Ok();
  }
  // Nodes whose agent must go: removed ones, and those whose pool changed shape.
  std::map<std::string, const spec::EffectivePool*> old_pool_of;
  for (const spec::EffectivePool& p : before.config.pools) {
    for (const std::string& n : p.node_names) old_pool_of[n] = &p;
  }
  std::set<std::string> keep;
  for (const spec::EffectivePool& p : after.config.pools) {
    if (p.login) continue;
    for (const std::string& n : p.node_names) {
      const auto it = old_pool_of.find(n);
      if (it == old_pool_of.end()) continue;
      const spec::EffectivePool& o = *it->second;
      if (!o.login && o.id == p.id && o.machine_type == p.machine_type && o.cpus == p.cpus &&
          o.real_memory_mib == p.real_memory_mib && o.gpus == p.gpus && o.gpu_type == p.gpu_type &&
          o.node_config == p.node_config) {
        keep.insert(n);
      }
    }
  }
  std::vector<std::string> stop;
  for (const std::string& n : dir.NodesWithPidFiles()) {
    if (!keep.contains(n)) stop.push_back(n);
  }
  out << "restarting gantryd with the new spec";
  if (!stop.empty()) {
    out << "; stopping the agents of " << stop.size() << " removed or changed node"
        << (stop.size() == 1 ? "" : "s");
  }
  out << "\n";
  GANTRY_RETURN_IF_ERROR(StopAgents(dir, stop, options, out));
  GANTRY_RETURN_IF_ERROR(StopGantryd(dir, options, out));
  return Up(after, env, options, out);
}

Status DeleteCluster(const StateDir& dir, const LifecycleOptions& options, std::ostream& out) {
  if (!dir.HoldsCluster()) {
    return FailedPrecondition(dir.dir() + " holds no cluster (no spec.json); not deleting it");
  }
  GANTRY_RETURN_IF_ERROR(Down(dir, options, out));
  std::error_code ec;
  fs::remove_all(dir.dir(), ec);
  if (ec) return Unavailable("cannot remove " + dir.dir() + ": " + ec.message());
  return Status::Ok();
}

int ClusterStatus::RunningAgents() const {
  return static_cast<int>(
      std::count_if(agents.begin(), agents.end(), [](const AgentStatus& a) { return a.pid > 0; }));
}

int ClusterStatus::ExpectedAgents() const {
  return static_cast<int>(
      std::count_if(agents.begin(), agents.end(), [](const AgentStatus& a) { return a.expected; }));
}

bool ClusterStatus::AllRunning() const {
  if (gantryd_pid == 0 || !ping.ok()) return false;
  return std::all_of(agents.begin(), agents.end(),
                     [](const AgentStatus& a) { return !a.expected || a.pid > 0; });
}

bool ClusterStatus::NoneRunning() const {
  return gantryd_pid == 0 && RunningAgents() == 0 &&
         std::none_of(replicas.begin(), replicas.end(),
                      [](const ReplicaStatus& r) { return r.pid != 0; }) &&
         std::none_of(etcd.begin(), etcd.end(), [](const ReplicaStatus& m) { return m.pid != 0; });
}

ClusterStatus InspectCluster(const Cluster& cluster, bool ask_controller,
                             std::chrono::milliseconds rpc_timeout) {
  const StateDir& dir = cluster.dir;
  ClusterStatus s;
  s.ping = Unavailable("gantryd is not running");
  s.nodes = s.ping;
  if (const std::optional<pid_t> pid = LiveGantryd(dir)) {
    s.gantryd_pid = *pid;
    s.gantryd_address = ReadAddress(dir).value_or("");
  }
  // Replicas: each one's process and role; the leader stands for "gantryd" below.
  std::string controller_socket = dir.socket();
  if (Result<std::optional<Replicas>> replicas = LoadReplicas(dir); replicas.ok() && *replicas) {
    for (const Replica& r : (*replicas)->controllers) {
      ReplicaStatus rs{r.name, r.address, 0, ""};
      const std::string socket = ReplicaRunDir(dir, r.name) + "/gantryd.sock";
      if (const std::optional<pid_t> pid = LiveReplica(dir, r)) {
        rs.pid = *pid;
        if (ask_controller) {
          Result<v1::PingReply> ping = PingController(socket, rpc_timeout);
          rs.role = ping.ok() ? ping->role() : "not answering";
        }
      }
      if (rs.role == "leader" || (s.gantryd_pid == 0 && rs.pid != 0 && !ask_controller)) {
        s.gantryd_pid = rs.pid;
        s.gantryd_address = r.address;
        controller_socket = socket;
      }
      s.replicas.push_back(rs);
    }
    for (const EtcdMember& m : (*replicas)->etcd) {
      s.etcd.push_back({m.name, m.client, LiveMember(dir, m).value_or(0), ""});
    }
  }
  if (const std::optional<pid_t> pid = LiveRestd(dir)) {
    s.restd_pid = *pid;
    s.rest_url = ReadRestUrl(dir).value_or("");
  }
  std::set<std::string> seen;
  for (const std::string& node : ComputeNodes(cluster.config)) {
    seen.insert(node);
    s.agents.push_back({node, LiveAgent(dir, node).value_or(0), "", true});
  }
  for (const std::string& node : dir.NodesWithPidFiles()) {
    if (seen.contains(node)) continue;
    if (const std::optional<pid_t> pid = LiveAgent(dir, node)) {
      s.agents.push_back({node, *pid, "", false});
    }
  }
  if (s.gantryd_pid == 0 || !ask_controller) return s;
  Result<v1::PingReply> ping = PingController(controller_socket, rpc_timeout);
  s.ping = ping.status();
  if (!ping.ok()) return s;
  Result<v1::GetNodesReply> nodes = GetControllerNodes(controller_socket, rpc_timeout);
  s.nodes = nodes.status();
  if (!nodes.ok()) return s;
  std::map<std::string, std::string> states;
  for (const v1::Node& n : nodes->nodes()) states[n.name()] = NodeStateText(n);
  for (AgentStatus& a : s.agents) {
    const auto it = states.find(a.node);
    if (it != states.end()) a.controller_state = it->second;
  }
  return s;
}

}  // namespace gantry::cluster
