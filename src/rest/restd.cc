#include "rest/restd.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <optional>

#include "http/http_server.h"
#include "rest/router.h"
#include "slurm/client_config.h"
#include "sys/daemon_flags.h"
#include "sys/files.h"
#include "sys/stop_signals.h"

namespace gantry::rest {
namespace {

constexpr char kVersion[] = "0.1.0";

constexpr char kUsage[] =
    "usage: gantry-restd [--conf PATH] [--tls-cert PEM --tls-key PEM] [--plain-http]\n"
    "                    [--url-file FILE] LISTEN...\n"
    "  LISTEN             unix:/path (peer credentials or tokens) or HOST:PORT (tokens)\n"
    "  --conf PATH        gantry.conf (default $GANTRY_CONF, else /etc/gantry/gantry.conf)\n"
    "  --tls-cert PEM     certificate (and --tls-key its key) for HTTPS on HOST:PORT\n"
    "  --plain-http       serve HOST:PORT without TLS (behind a TLS proxy only)\n"
    "  --url-file FILE    write the TCP listener's URL there once it listens\n";

int Fail(const std::string& message) {
  std::fprintf(stderr, "gantry-restd: error: %s\n", message.c_str());
  return 1;
}

}  // namespace

int RunRestd(const std::vector<std::string>& args) {
  std::string conf_path;
  if (const char* env = std::getenv("GANTRY_CONF")) conf_path = env;
  if (conf_path.empty()) conf_path = "/etc/gantry/gantry.conf";
  std::string cert_file;
  std::string key_file;
  std::string url_file;
  bool plain_http = false;
  http::HttpServer::Options options;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (const std::optional<int> done = sys::HelpOrVersion(a, kUsage, "gantry-restd", kVersion)) {
      return *done;
    }
    const auto value = [&](std::string_view flag) { return sys::FlagValue(args, &i, flag); };
    if (auto v = value("--conf")) {
      conf_path = *v;
    } else if (auto c = value("--tls-cert")) {
      cert_file = *c;
    } else if (auto k = value("--tls-key")) {
      key_file = *k;
    } else if (auto u = value("--url-file")) {
      url_file = *u;
    } else if (a == "--plain-http") {
      plain_http = true;
    } else if (a.rfind("unix:", 0) == 0 && options.unix_path.empty()) {
      options.unix_path = a.substr(5);
    } else if (!a.starts_with("-") && a.find(':') != std::string::npos && options.tcp.empty()) {
      options.tcp = a;
    } else {
      std::fprintf(stderr, "gantry-restd: unknown or incomplete argument \"%s\"\n%s", a.c_str(),
                   kUsage);
      return 2;
    }
  }
  if (options.unix_path.empty() && options.tcp.empty()) {
    std::fprintf(stderr, "gantry-restd: give at least one LISTEN address\n%s", kUsage);
    return 2;
  }
  if (cert_file.empty() != key_file.empty()) {
    return Fail("--tls-cert and --tls-key go together");
  }
  if (!options.tcp.empty() && cert_file.empty() && !plain_http) {
    return Fail("TCP " + options.tcp +
                " needs --tls-cert and --tls-key (or --plain-http behind a TLS proxy)");
  }
  if (!cert_file.empty()) {
    Result<std::string> cert = sys::ReadText(cert_file);
    if (!cert.ok()) return Fail(cert.status().message());
    Result<std::string> key = sys::ReadText(key_file);
    if (!key.ok()) return Fail(key.status().message());
    options.tls_cert_pem = *cert;
    options.tls_key_pem = *key;
  }
  Result<slurm::ClientConfig> conf = slurm::LoadClientConfig(conf_path);
  if (!conf.ok()) return Fail(conf.status().message());
  if (conf->command_socket.empty()) {
    return Fail(conf_path + " names no CommandSocket: gantry-restd runs on the controller's host");
  }

  const sigset_t stop_signals = sys::BlockStopSignals();

  char name[256] = {};
  gethostname(name, sizeof(name) - 1);
  const std::string hostname(name);
  const Router router(RestConfig{conf->cluster_name, conf->command_socket, getuid(), kVersion,
                                 hostname.substr(0, hostname.find('.'))});
  Result<std::unique_ptr<http::HttpServer>> server = http::HttpServer::Start(
      options, [&router](const HttpRequest& request) { return router.Handle(request); });
  if (!server.ok()) return Fail(server.status().message());
  std::string url;
  if (!options.tcp.empty()) {
    std::string host = options.tcp.substr(0, options.tcp.rfind(':'));
    // The local cluster's certificate names localhost (tls/cluster_tls.h).
    if (host.empty() || host == "0.0.0.0" || host == "127.0.0.1") host = "localhost";
    url = std::string(options.tls_cert_pem.empty() ? "http" : "https") + "://" + host + ":" +
          std::to_string((*server)->tcp_port());
  }
  if (!url_file.empty()) {
    const Status written = sys::WriteFileAtomically(url_file, url + "\n", 0644);
    if (!written.ok()) return Fail(written.message());
  }
  std::fprintf(stderr, "gantry-restd: cluster %s, serving%s%s%s%s\n", conf->cluster_name.c_str(),
               options.unix_path.empty() ? "" : " unix:", options.unix_path.c_str(),
               url.empty() ? "" : " ", url.c_str());
  const int received = sys::WaitForStopSignal(stop_signals);
  std::fprintf(stderr, "gantry-restd: signal %d: stopping\n", received);
  (*server)->Stop();
  if (!url_file.empty()) unlink(url_file.c_str());
  return 0;
}

}  // namespace gantry::rest
