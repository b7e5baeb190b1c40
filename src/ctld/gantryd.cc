#include "ctld/gantryd.h"

#include <fcntl.h>
#include <grpcpp/grpcpp.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <future>
#include <thread>

#include "ctld/command_socket.h"
#include "ctld/config.h"
#include "ctld/controller.h"
#include "ctld/grpc_agent_link.h"
#include "ctld/log_budget.h"
#include "ctld/services.h"
#include "ctld/standby.h"
#include "ha/leadership.h"
#include "http/http_server.h"
#include "metrics/openmetrics.h"
#include "rpc/call_gate.h"
#include "rpc/credential.h"
#include "rpc/unix_listener.h"
#include "spec/effective_config.h"
#include "spec/validate.h"
#include "state/cluster_state.h"
#include "store/etcd_store.h"
#include "store/postgres_store.h"
#include "store/sqlite_store.h"
#include "sys/daemon_flags.h"
#include "sys/disk_reserve.h"
#include "sys/files.h"
#include "sys/log_stamp.h"
#include "sys/offset_clock.h"
#include "sys/oom.h"
#include "sys/privileges.h"
#include "sys/stop_signals.h"
#include "text/ascii.h"
#include "tls/cluster_tls.h"
#include "wire/frame_server.h"

namespace gantry::ctld {
namespace {

constexpr char kVersion[] = "0.1.0";
constexpr char kUsage[] =
    "usage: gantryd --state-dir DIR [--listen HOST:PORT] [--metrics HOST:PORT|none]\n"
    "               [--etcd HOST:PORT,... --name NAME [--advertise HOST:PORT]] [--run-dir DIR]\n"
    "  --state-dir DIR     the cluster's state dir (spec.json, cluster.key, tls/, state.db; with\n"
    "                      AccountingStorageType=accounting_storage/postgresql the state and\n"
    "                      job history live in PostgreSQL instead of state.db)\n"
    "  --listen HOST:PORT  TCP address for agents and remote commands (default 127.0.0.1:0)\n"
    "  --metrics HOST:PORT HTTP address of /metrics, /livez, /readyz, /healthz (default\n"
    "                      127.0.0.1:0; the URL goes to DIR/run/metrics.url)\n"
    "  --etcd HOST:PORT,...  replicated controllers (decision 0017): the etcd members that hold\n"
    "                      the lead and the state; one gantryd leads, the others stand by and\n"
    "                      take over within seconds when it goes (needs a fixed --listen port)\n"
    "  --name NAME         this controller's name among the replicas (with --etcd)\n"
    "  --advertise HOST:PORT  where the others send callers to reach this one (default\n"
    "                      --listen)\n"
    "  --run-dir DIR       sockets, address and URL files (default DIR/run; one per replica\n"
    "                      when several share a state dir)\n";

int Fail(const std::string& message) {
  std::fprintf(stderr, "gantryd: error: %s\n", message.c_str());
  return 1;
}

// A replica's line about the lead, with the time (UTC, milliseconds): takeovers are read from
// the logs of several hosts.
void Note(const std::string& line) {
  std::fprintf(stderr, "%s gantryd: %s\n", sys::LogStamp().c_str(), line.c_str());
}

// A replica whose lead ended stops serving at once and starts again as a standby: the same
// program, the same arguments. Exits (75, "temporary failure") when that cannot be done, for
// a supervisor to start it again.
[[noreturn]] void RestartAsStandby(const std::vector<std::string>& args) {
  std::vector<char*> argv;
  std::string name = "gantryd";
  argv.push_back(name.data());
  std::vector<std::string> copy = args;
  for (std::string& a : copy) argv.push_back(a.data());
  argv.push_back(nullptr);
  execv("/proc/self/exe", argv.data());
  std::fprintf(stderr, "gantryd: cannot start again: %s\n", std::strerror(errno));
  std::_Exit(75);
}

// /metrics (every family), /metrics/<endpoint> (Slurm 25.11's), /livez, /readyz, /healthz.
http::HttpResponse ServeMetrics(const Controller& controller, const http::HttpRequest& request) {
  if (std::optional<http::HttpResponse> health = http::HealthPage(request)) return *health;
  std::string_view endpoint;
  if (request.path == "/metrics" || request.path == "/metrics/") {
    endpoint = "";
  } else if (request.path.starts_with("/metrics/")) {
    endpoint = std::string_view(request.path).substr(9);
  } else {
    return {404, "text/plain", "no such page: " + request.path + "\n", {}, {}};
  }
  Result<std::string> text = controller.Metrics(endpoint);
  if (!text.ok()) return {404, "text/plain", text.status().message() + "\n", {}, {}};
  return {200, metrics::kContentType, std::move(*text), {}, {}};
}

}  // namespace

int RunGantryd(const std::vector<std::string>& args) {
  std::string state_dir;
  std::string listen = "127.0.0.1:0";
  std::string metrics_listen = "127.0.0.1:0";
  std::string etcd_list;
  std::string replica_name;
  std::string advertise;
  std::string run_dir_flag;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (const std::optional<int> done = sys::HelpOrVersion(a, kUsage, "gantryd", kVersion)) {
      return *done;
    }
    const auto value = [&](std::string_view flag) { return sys::FlagValue(args, &i, flag); };
    if (auto v = value("--state-dir")) {
      state_dir = *v;
    } else if (auto l = value("--listen")) {
      listen = *l;
    } else if (auto m = value("--metrics")) {
      metrics_listen = *m;
    } else if (auto e = value("--etcd")) {
      etcd_list = *e;
    } else if (auto n = value("--name")) {
      replica_name = *n;
    } else if (auto ad = value("--advertise")) {
      advertise = *ad;
    } else if (auto r = value("--run-dir")) {
      run_dir_flag = *r;
    } else {
      std::fprintf(stderr, "gantryd: unknown or incomplete flag \"%s\"\n%s", a.c_str(), kUsage);
      return 2;
    }
  }
  if (state_dir.empty()) {
    std::fprintf(stderr, "gantryd: --state-dir is required\n%s", kUsage);
    return 2;
  }
  const std::vector<std::string> etcd_endpoints = text::SplitList(etcd_list, ',');
  const bool replicated = !etcd_endpoints.empty();
  if (replicated != !replica_name.empty()) {
    std::fprintf(stderr, "gantryd: --etcd and --name go together (a replica has both)\n%s", kUsage);
    return 2;
  }
  if (replicated && listen.ends_with(":0")) {
    std::fprintf(stderr,
                 "gantryd: --listen \"%s\": a replicated controller needs a fixed port (the "
                 "agents and commands are given every replica's address)\n",
                 listen.c_str());
    return 2;
  }
  if (advertise.empty()) advertise = listen;

  // What gantryd creates (state.db and its WAL: every job's script and environment) is its
  // owner's alone; the sockets and the address file get their public modes explicitly.
  umask(077);
  if (const std::string why = sys::ShieldFromOomKiller(); !why.empty() && geteuid() == 0) {
    std::fprintf(stderr, "gantryd: not shielded from the OOM killer: %s\n", why.c_str());
  }
  const std::string run_dir = run_dir_flag.empty() ? state_dir + "/run" : run_dir_flag;
  Result<std::string> spec_text = sys::ReadText(state_dir + "/spec.json");
  if (!spec_text.ok()) return Fail(spec_text.status().message());
  spec::CheckedSpec checked = spec::CheckSpecText(*spec_text);
  if (!checked.ok()) {
    return Fail(state_dir + "/spec.json is not a valid cluster spec:\n" +
                checked.diagnostics.ToStatus().message());
  }
  Result<spec::EffectiveConfig> effective = spec::BuildEffectiveConfig(*checked.spec);
  if (!effective.ok()) return Fail(effective.status().message());
  // SlurmUser: root starts gantryd, which gives what it writes and reads to that user and
  // becomes it before anything else (the agents keep running as root; they accept the
  // controller by its certificate, whatever its uid). It is then an operator, like root.
  if (const std::string user = effective->Get("SlurmUser");
      geteuid() == 0 && !user.empty() && user != "root") {
    const std::string tls = state_dir + "/tls";
    Status became = sys::BecomeUser(
        user, {state_dir, run_dir, state_dir + "/cluster.key", state_dir + "/reserve",
               state_dir + "/state.db", state_dir + "/state.db-wal", state_dir + "/state.db-shm",
               state_dir + "/state.db-journal", tls + "/controller.key", tls + "/controller.crt",
               run_dir + "/gantryd.sock", run_dir + "/commands.sock", run_dir + "/gantryd.addr"});
    if (!became.ok()) return Fail(became.message());
    std::fprintf(stderr, "gantryd: running as SlurmUser %s (uid %u)\n", user.c_str(), getuid());
  }
  Result<ControllerConfig> config = ControllerConfigFromSpec(*effective);
  if (!config.ok()) return Fail(config.status().message());
  Result<rpc::ClusterKey> key = rpc::LoadClusterKey(state_dir + "/cluster.key");
  if (!key.ok()) return Fail(key.status().message());
  const tls::TlsPaths tls_paths{state_dir + "/tls"};
  Result<tls::Identity> identity = tls::LoadIdentity(
      tls_paths.ca_cert(), tls_paths.controller_cert(), tls_paths.controller_key());
  if (!identity.ok()) return Fail(identity.status().message());
  if (const std::string kept = sys::KeepDiskReserve(state_dir, config->store_min_free_bytes);
      !kept.empty()) {
    std::fprintf(stderr, "gantryd: %s\n", kept.c_str());
  }
  // Block the stop signals in every thread; the main thread waits for them below.
  const sigset_t stop_signals = sys::BlockStopSignals();
  wire::RaiseDescriptorLimit();
  LimitProtobufLogging();

  // The TCP port is known only once the server is built; the config the agents get needs it.
  grpc::ServerBuilder builder;
  int port = 0;
  // TLS with the cluster's CA: agents present their node's certificate, commands none (they
  // carry credentials bound to each call).
  Authenticator auth(nullptr, *key, config->cluster_name);
  std::shared_ptr<grpc::ServerCredentials> tcp =
      tls::ServerCredentials(*identity, tls::ClientCertificates::kVerifyIfPresent);
  // A caller without a certificate or a credential that holds gets refused from its headers,
  // before its request is read (review M7).
  tcp->SetAuthMetadataProcessor(
      std::make_shared<rpc::CallGate>(*key, config->cluster_name, auth.verifier()));

  // Replicas: stand by until this one leads, then keep the state in etcd, fenced by the term.
  std::unique_ptr<ha::Leadership> leadership;
  std::promise<int> stop_signal;
  std::shared_future<int> stopped = stop_signal.get_future().share();
  Result<std::unique_ptr<store::Store>> store = Unavailable("not opened");
  if (replicated) {
    ha::LeadershipOptions lead;
    lead.endpoints = etcd_endpoints;
    lead.prefix = "gantry/" + config->cluster_name + "/";
    lead.name = replica_name;
    lead.address = advertise;
    leadership = std::make_unique<ha::Leadership>(lead, [args](const std::string& why) {
      Note("the lead is lost (" + why + "): starting again as a standby");
      RestartAsStandby(args);
    });
    std::thread([&stop_signal, &stop_signals, lead_ptr = leadership.get()] {
      const int got = sys::WaitForStopSignal(stop_signals);
      lead_ptr->Cancel();
      stop_signal.set_value(got);
    }).detach();
    Result<std::unique_ptr<StandbyServer>> standby =
        StandbyServer::Start({replica_name, config->cluster_name, kVersion, listen, tcp,
                              run_dir + "/gantryd.sock", run_dir + "/commands.sock"});
    if (!standby.ok()) return Fail(standby.status().message());
    Note("replica " + replica_name + " of cluster " + config->cluster_name + " standing by on " +
         listen + " (etcd " + etcd_list + ")");
    Result<int64_t> term = leadership->WaitToLead([&](const std::optional<ha::Holder>& holder) {
      const std::string leader = holder ? ha::HolderValue(holder->name, holder->address) : "";
      (*standby)->set_leader(leader);
      const std::string line =
          holder ? "leader: " + leader + " (term " + std::to_string(holder->term) + ")"
                 : std::string("no leader known");
      Note(line);
    });
    (*standby)->Stop();
    if (!term.ok()) {
      std::fprintf(stderr, "gantryd: signal %d: stopping\n", stopped.get());
      return 0;
    }
    Note("replica " + replica_name + " leads cluster " + config->cluster_name + " (term " +
         std::to_string(*term) + ")");
    store::EtcdStoreOptions kept;
    kept.endpoints = {leadership->current_endpoint()};  // the member that answered, first
    for (const std::string& e : etcd_endpoints) {
      if (e != kept.endpoints[0]) kept.endpoints.push_back(e);
    }
    kept.prefix = lead.prefix + "state/";
    kept.fence_key = leadership->leader_key();
    kept.fence_revision = *term;
    store = store::OpenEtcdStore(kept);
    if (store.ok()) {
      Note("state in etcd opened (last seq " + std::to_string((*store)->LastSeq()) + ")");
    }
  } else {
    store = config->store_conninfo.empty() ? store::OpenSqliteStore(state_dir + "/state.db")
                                           : store::OpenPostgresStore(config->store_conninfo);
  }
  if (!store.ok()) return Fail(store.status().ToString());
  builder.AddListeningPort(listen, tcp, &port);
  builder.SetMaxReceiveMessageSize(64 << 20);
  builder.SetMaxSendMessageSize(512 << 20);

  const std::string host = listen.substr(0, listen.rfind(':'));
  const Clock& clock = sys::DaemonClock();
  GrpcAgentLink agents(*identity);
  ControllerConfig settings = *config;
  settings.conf_path = state_dir + "/gantry.conf";
  settings.token_key = rpc::TokenKeyOf(*key);
  if (config->store_conninfo.empty()) settings.store_path = state_dir + "/state.db";
  // gRPC needs the services before it binds, and the bound port only after: the controller
  // learns its address once the server is up (it only needs it for job contexts).
  auto controller = std::make_unique<Controller>(settings, store->get(), &clock, &agents);
  if (replicated) {
    controller->set_replica(replica_name, ha::HolderValue(replica_name, advertise));
    // A commit refused (the lead passed on) or lost with etcd: start again as a standby.
    controller->set_on_fatal([args] { RestartAsStandby(args); });
    // scontrol takeover: answer, then hand the lead over and stand by.
    controller->set_on_takeover([args, lead = leadership.get()](const std::string& to) {
      std::thread([args, lead, to] {
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
        const Status handed = lead->HandOver(to);
        Note("takeover: the lead goes to " + to +
             (handed.ok() ? "" : " (the handover key was not written: " + handed.message() + ")") +
             "; starting again as a standby");
        RestartAsStandby(args);
      }).detach();
      return Status::Ok();
    });
  }
  ControllerService controller_service(controller.get(), &auth, kVersion);
  NodeLinkService node_link_service(controller.get(), &auth);
  builder.RegisterService(&controller_service);
  builder.RegisterService(&node_link_service);

  Status recovered = controller->Recover(state::ConfigFromSpec(*effective));
  if (!recovered.ok()) return Fail("recovery failed: " + recovered.ToString());
  if (replicated) Note("recovered");

  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  if (!server || port == 0) return Fail("cannot listen on " + listen);
  const std::string address = replicated ? advertise : host + ":" + std::to_string(port);
  controller->set_controller_address(address);

  Result<std::unique_ptr<rpc::UnixListener>> listener =
      rpc::UnixListener::Listen(run_dir + "/gantryd.sock");
  if (!listener.ok()) return Fail(listener.status().ToString());
  auth.set_listener(listener->get());
  (*listener)->Start(server.get());

  Result<std::unique_ptr<wire::FrameServer>> commands = wire::FrameServer::Listen(
      run_dir + "/commands.sock",
      [&controller](const wire::PeerIdentity& peer, wire::Method method, std::string_view body) {
        return HandleCommand(controller.get(), kVersion, Caller{peer.uid, peer.gid}, method, body);
      });
  if (!commands.ok()) return Fail(commands.status().ToString());
  (*commands)->Start();

  controller->Start();
  // Metrics and health over HTTP (plain: figures, no jobs' contents; loopback by default).
  std::unique_ptr<http::HttpServer> metrics_server;
  if (metrics_listen != "none") {
    http::HttpServer::Options options;
    options.tcp = metrics_listen;
    options.max_connections = 32;
    Result<std::unique_ptr<http::HttpServer>> started =
        http::HttpServer::Start(options, [&controller](const http::HttpRequest& request) {
          return ServeMetrics(*controller, request);
        });
    if (!started.ok()) return Fail(started.status().message());
    metrics_server = std::move(*started);
    const std::string url = "http://" + metrics_listen.substr(0, metrics_listen.rfind(':')) + ":" +
                            std::to_string(metrics_server->tcp_port());
    Status url_written = sys::WriteFileAtomically(run_dir + "/metrics.url", url + "\n", 0644);
    if (!url_written.ok()) return Fail(url_written.ToString());
  }
  Status written = sys::WriteFileAtomically(run_dir + "/gantryd.addr", address + "\n", 0644);
  if (!written.ok()) return Fail(written.ToString());
  const std::string serving = "cluster " + config->cluster_name + " serving on " + address + ", " +
                              run_dir + "/gantryd.sock and " + run_dir + "/commands.sock";
  if (replicated) {
    Note(serving);
  } else {
    std::fprintf(stderr, "gantryd: %s\n", serving.c_str());
  }

  const int received = replicated ? stopped.get() : sys::WaitForStopSignal(stop_signals);
  std::fprintf(stderr, "gantryd: signal %d: stopping\n", received);
  unlink((run_dir + "/gantryd.addr").c_str());
  unlink((run_dir + "/metrics.url").c_str());
  if (metrics_server) metrics_server->Stop();
  (*listener)->Stop();
  (*commands)->Stop();
  controller->Stop();
  server->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(2));
  controller->SaveSnapshotNow();
  // A replica hands the lead on at once: a standby takes over without waiting for the lease.
  if (leadership) leadership->Resign();
  return 0;
}

}  // namespace gantry::ctld
