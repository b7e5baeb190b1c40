// `gantry serve`: the clusters under $GANTRY_HOME over HTTP (serve_api.h), on a unix socket
// (peer credentials) and, when asked, on TCP: plain HTTP on a loopback address only, HTTPS
// (--tls-cert, --tls-key) anywhere else. Runs in the foreground until SIGTERM or SIGINT, then
// waits for the running operations. Its token key is $GANTRY_HOME/serve.key (made at the first
// start, mode 0600); operations are kept in $GANTRY_HOME/.serve/operations/.
#ifndef GANTRY_SERVE_SERVE_H_
#define GANTRY_SERVE_SERVE_H_

#include <iosfwd>
#include <string>

namespace gantry::serve {

struct ServeOptions {
  std::string listen;    // "HOST:PORT" ("" = unix socket only; port 0 = any free one)
  std::string socket;    // "" = $GANTRY_HOME/serve.sock
  std::string tls_cert;  // PEM files, both or neither
  std::string tls_key;
  std::string url_file;  // where to write the TCP URL once listening ("" = none)
};

// Exit code: 0 after a stop signal, 1 when it could not start (said on `err`).
int RunServe(const ServeOptions& options, std::ostream& out, std::ostream& err);

// `gantry serve token`: asks the server on its unix socket for a token for the calling user
// (or `user`, for root and the server's user); prints GANTRY_SERVE_TOKEN=... Exit code 0/1.
int RunServeToken(const std::string& socket, int64_t lifespan, const std::string& user,
                  std::ostream& out, std::ostream& err);

// The default unix socket: $GANTRY_HOME/serve.sock.
std::string DefaultServeSocket();

}  // namespace gantry::serve

#endif  // GANTRY_SERVE_SERVE_H_
