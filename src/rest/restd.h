// gantry-restd: the REST daemon (slurmrestd's v0.0.42 API over gantryd). A client of gantryd's
// command socket, found through gantry.conf as the commands find it; it holds no key and acts
// only as its callers (rest/router.h).
//
//   gantry-restd [--conf PATH] [--tls-cert PEM --tls-key PEM] [--plain-http] [--url-file F]
//                LISTEN...
// LISTEN is "unix:/path" (local auth by peer credentials, or tokens) or "HOST:PORT" (tokens;
// TLS with --tls-cert/--tls-key; plain HTTP only with --plain-http, for a TLS proxy in front,
// as slurmrestd is run). --url-file gets the TCP URL once it listens (port 0 picks one).
// Runs until SIGTERM or SIGINT.
#ifndef GANTRY_REST_RESTD_H_
#define GANTRY_REST_RESTD_H_

#include <string>
#include <vector>

namespace gantry::rest {

int RunRestd(const std::vector<std::string>& args);

}  // namespace gantry::rest

#endif  // GANTRY_REST_RESTD_H_
