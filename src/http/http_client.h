// A minimal HTTP/1.1 client for a server on a unix socket (gantry serve calls each cluster's
// gantry-restd this way): one request per connection ("Connection: close"), the answer read to
// the end, a chunked body decoded. Bounded: answers over `max_bytes` are refused.
// Thread-safe (no shared state).
#ifndef GANTRY_HTTP_HTTP_CLIENT_H_
#define GANTRY_HTTP_HTTP_CLIENT_H_

#include <chrono>
#include <map>
#include <string>

#include "base/status.h"

namespace gantry::http {

struct ClientReply {
  int status = 0;
  std::map<std::string, std::string> headers;  // lower-case names
  std::string body;
};

struct ClientRequest {
  std::string method = "GET";
  std::string target = "/";  // path and query
  std::map<std::string, std::string> headers;
  std::string body;
};

// Unavailable when the socket cannot be reached or the answer is cut or malformed.
Result<ClientReply> CallUnixSocket(const std::string& socket_path, const ClientRequest& request,
                                   std::chrono::milliseconds timeout = std::chrono::seconds(60),
                                   size_t max_bytes = 256u << 20);

}  // namespace gantry::http

#endif  // GANTRY_HTTP_HTTP_CLIENT_H_
