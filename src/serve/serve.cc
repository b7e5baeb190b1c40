#include "serve/serve.h"

#include <unistd.h>

#include <filesystem>
#include <ostream>

#include "http/http_client.h"
#include "http/http_server.h"
#include "rpc/credential.h"
#include "serve/serve_api.h"
#include "sys/files.h"
#include "sys/stop_signals.h"

namespace gantry::serve {
namespace {

// Whether HOST of "HOST:PORT" is a loopback address (plain HTTP is allowed there only).
bool IsLoopback(const std::string& listen) {
  const std::string host = listen.substr(0, listen.rfind(':'));
  return host == "127.0.0.1" || host == "localhost" || host == "[::1]" || host.starts_with("127.");
}

// serve.key, made (0600) when missing.
Result<rpc::ClusterKey> EnsureKey(const std::string& path) {
  if (!std::filesystem::exists(path)) {
    GANTRY_ASSIGN_OR_RETURN(const std::string text, rpc::NewClusterKeyText());
    GANTRY_RETURN_IF_ERROR(sys::WriteFileAtomically(path, text, 0600));
  }
  return rpc::LoadClusterKey(path);
}

}  // namespace

std::string DefaultServeSocket() {
  Result<std::string> root = cluster::StateRoot(cluster::Environment::FromProcess());
  return root.ok() ? *root + "/serve.sock" : "serve.sock";
}

int RunServe(const ServeOptions& options, std::ostream& out, std::ostream& err) {
  const auto fail = [&err](const std::string& why) {
    err << "gantry serve: " << why << "\n";
    return 1;
  };
  const cluster::Environment env = cluster::Environment::FromProcess();
  Result<std::string> root = cluster::StateRoot(env);
  if (!root.ok()) return fail(root.status().message());
  std::error_code ec;
  std::filesystem::create_directories(*root, ec);
  if (ec) return fail(*root + ": " + ec.message());
  if (options.tls_cert.empty() != options.tls_key.empty()) {
    return fail("--tls-cert and --tls-key go together");
  }
  http::HttpServer::Options http;
  http.unix_path = options.socket.empty() ? *root + "/serve.sock" : options.socket;
  http.tcp = options.listen;
  http.max_body_bytes = 8u << 20;
  if (!options.listen.empty() && options.tls_cert.empty() && !IsLoopback(options.listen)) {
    return fail("--listen " + options.listen +
                " is not a loopback address: give --tls-cert and --tls-key (plain HTTP is "
                "served on 127.0.0.1 only)");
  }
  if (!options.tls_cert.empty()) {
    Result<std::string> cert = sys::ReadText(options.tls_cert);
    if (!cert.ok()) return fail(cert.status().message());
    Result<std::string> key = sys::ReadText(options.tls_key);
    if (!key.ok()) return fail(key.status().message());
    http.tls_cert_pem = *cert;
    http.tls_key_pem = *key;
  }
  Result<rpc::ClusterKey> key = EnsureKey(*root + "/serve.key");
  if (!key.ok()) return fail(key.status().message());
  Result<std::unique_ptr<OperationStore>> operations =
      OperationStore::Open(*root + "/.serve/operations");
  if (!operations.ok()) return fail(operations.status().message());

  const sigset_t stop_signals = sys::BlockStopSignals();
  const ServeApi api(ServeConfig{*root, getuid(), env, rpc::TokenKeyOf(*key), {}},
                     operations->get());
  Result<std::unique_ptr<http::HttpServer>> server = http::HttpServer::Start(
      http, [&api](const http::HttpRequest& request) { return api.Handle(request); });
  if (!server.ok()) return fail(server.status().message());
  std::string url;
  if (!options.listen.empty()) {
    const std::string host = options.listen.substr(0, options.listen.rfind(':'));
    url = std::string(http.tls_cert_pem.empty() ? "http" : "https") + "://" +
          (host.empty() || host == "0.0.0.0" ? "127.0.0.1" : host) + ":" +
          std::to_string((*server)->tcp_port());
  }
  if (!options.url_file.empty()) {
    if (Status s = sys::WriteFileAtomically(options.url_file, url + "\n", 0644); !s.ok()) {
      return fail(s.message());
    }
  }
  out << "gantry serve: the clusters under " << *root << " on unix:" << http.unix_path
      << (url.empty() ? "" : " and " + url) << std::endl;
  const int received = sys::WaitForStopSignal(stop_signals);
  out << "gantry serve: signal " << received << ": stopping" << std::endl;
  (*server)->Stop();
  (*operations)->WaitIdle();
  if (!options.url_file.empty()) unlink(options.url_file.c_str());
  return 0;
}

int RunServeToken(const std::string& socket, int64_t lifespan, const std::string& user,
                  std::ostream& out, std::ostream& err) {
  http::ClientRequest request;
  request.method = "POST";
  request.target = "/gantry/v1/serve/token?lifespan=" + std::to_string(lifespan);
  if (!user.empty()) request.target += "&username=" + user;
  Result<http::ClientReply> reply = http::CallUnixSocket(socket, request);
  if (!reply.ok()) {
    err << "gantry serve token: " << reply.status().message() << " (is gantry serve running?)\n";
    return 1;
  }
  const nlohmann::json answer = nlohmann::json::parse(reply->body, nullptr, false);
  if (reply->status != 200 || !answer.is_object() || !answer.contains("token")) {
    err << "gantry serve token: "
        << (answer.is_object() && answer.contains("error")
                ? answer["error"].value("message", reply->body)
                : reply->body)
        << "\n";
    return 1;
  }
  out << "GANTRY_SERVE_TOKEN=" << answer["token"].get<std::string>() << "\n";
  return 0;
}

}  // namespace gantry::serve
