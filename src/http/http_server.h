// The daemons' HTTP/1.1 server (gantry-restd's API, gantryd's and the agents' metrics):
// libmicrohttpd (docs/decisions/0012-rest-api.md says why) on sockets this class binds, a unix
// socket and/or TCP, with TLS on TCP when given a certificate. Each connection gets a thread, so a
// handler may block on gantryd; at most `max_connections` are served at once.
//
// A request reaches the handler whole: method, path (without the query), query arguments
// (decoded), headers (names in lower case), body, and for a unix-socket client the kernel's
// word on who it is. Bodies over `max_body_bytes` are answered 413 without calling the handler.
// A handler's exception is answered 500; nothing a client sends stops the server.
//
// Thread-safety: Start/Stop from one thread; the handler runs on many threads at once.
#ifndef GANTRY_HTTP_HTTP_SERVER_H_
#define GANTRY_HTTP_HTTP_SERVER_H_

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/status.h"
#include "wire/unix_socket.h"

struct MHD_Daemon;

namespace gantry::http {

struct HttpRequest {
  std::string method;  // "GET", "POST", ...
  std::string path;    // decoded, without the query
  std::multimap<std::string, std::string> query;
  std::map<std::string, std::string> headers;  // lower-case names
  std::string body;
  std::optional<wire::PeerIdentity> peer;  // unix-socket clients only
  bool tls = false;

  // The first value of a query argument / header (name in lower case), if given.
  std::optional<std::string> Query(const std::string& name) const;
  std::optional<std::string> Header(const std::string& name) const;
};

struct HttpResponse {
  int status = 200;
  std::string content_type = "application/json";
  std::string body;
  std::map<std::string, std::string> headers;
  // A large body in pieces, sent one after another without being joined (after `body`).
  std::vector<std::string> pieces;
};

class HttpServer {
 public:
  using Handler = std::function<HttpResponse(const HttpRequest&)>;

  struct Options {
    std::string unix_path;     // "" = none; the socket is made mode 0666 (auth is per request)
    std::string tcp;           // "HOST:PORT" ("" = none; port 0 = any free one)
    std::string tls_cert_pem;  // with tls_key_pem: TLS on the TCP listener
    std::string tls_key_pem;
    unsigned max_connections = 256;
    unsigned connection_timeout_seconds = 60;
    size_t max_body_bytes = 64u << 20;
  };

  static Result<std::unique_ptr<HttpServer>> Start(const Options& options, Handler handler);
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // Stops accepting, waits for the requests in progress, removes the unix socket file.
  void Stop();

  // The TCP port bound (useful with port 0), 0 without TCP.
  int tcp_port() const { return tcp_port_; }

 private:
  struct Listener;
  HttpServer(Handler handler, size_t max_body_bytes);
  Status Listen(int fd, bool tls, const Options& options);

  Handler handler_;
  size_t max_body_bytes_;
  std::string unix_path_;
  int tcp_port_ = 0;
  std::vector<std::unique_ptr<Listener>> listeners_;
};

// The token a request carries, as slurmrestd reads it: X-SLURM-USER-TOKEN or
// "Authorization: Bearer T"; nullopt when none. Unauthenticated when both are sent, or another
// Authorization scheme.
Result<std::optional<std::string>> TokenOf(const HttpRequest& request);

// What every daemon's metrics port answers alike: 405 for anything but GET/HEAD, "ok" for
// /livez, /readyz and /healthz; nullopt for the other paths (the daemon's own pages).
std::optional<HttpResponse> HealthPage(const HttpRequest& request);

// The HTTP status that answers a refusal with `code`: 400 bad input, 401 unauthenticated, 403
// refused, 404 missing, 409 exists or wrong state, 429 too many, 503 unavailable, 500 otherwise.
int HttpStatusOf(StatusCode code);

// "HOST:PORT" (IPv4 or a name; "[v6]:PORT" for IPv6) bound and listening; InvalidArgument names a
// malformed address, Unavailable the bind error.
Result<int> ListenTcp(const std::string& address);

}  // namespace gantry::http

#endif  // GANTRY_HTTP_HTTP_SERVER_H_
