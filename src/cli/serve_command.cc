#include "cli/serve_command.h"

#include <ostream>

#include "rpc/user_token.h"
#include "serve/serve.h"

namespace gantry::cli {
namespace {

constexpr char kServeUsage[] =
    "usage: gantry serve [--listen HOST:PORT] [--socket PATH] [--tls-cert FILE --tls-key FILE]\n"
    "                    [--url-file FILE]\n"
    "       gantry serve token [--lifespan SECONDS] [--username USER] [--socket PATH]\n"
    "Serves the clusters under $GANTRY_HOME in the Vertex AI API's shape (docs/serve.md) on\n"
    "the unix socket (default $GANTRY_HOME/serve.sock) and on HOST:PORT (plain HTTP on a\n"
    "loopback address only; HTTPS with --tls-cert/--tls-key). `token` prints a token for\n"
    "the TCP listener (X-SLURM-USER-TOKEN or Authorization: Bearer).\n";

}  // namespace

int RunServeCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  const bool token = !args.empty() && args[0] == "token";
  serve::ServeOptions options;
  int64_t lifespan = rpc::kDefaultTokenLifespan;
  std::string user;
  for (size_t i = token ? 1 : 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "-h" || a == "--help") {
      out << kServeUsage;
      return 0;
    }
    const bool has_value = i + 1 < args.size();
    const auto value = [&]() -> const std::string& { return args[++i]; };
    if (a == "--socket" && has_value) {
      options.socket = value();
    } else if (!token && a == "--listen" && has_value) {
      options.listen = value();
    } else if (!token && a == "--tls-cert" && has_value) {
      options.tls_cert = value();
    } else if (!token && a == "--tls-key" && has_value) {
      options.tls_key = value();
    } else if (!token && a == "--url-file" && has_value) {
      options.url_file = value();
    } else if (token && a == "--username" && has_value) {
      user = value();
    } else if (token && a == "--lifespan" && has_value) {
      const std::string& text = value();
      char* end = nullptr;
      lifespan = std::strtoll(text.c_str(), &end, 10);
      if (text.empty() || *end != '\0' || lifespan < 1) {
        err << "gantry serve token: --lifespan \"" << text << "\": a number of seconds (>= 1)\n";
        return 2;
      }
    } else {
      err << "gantry serve: unknown or incomplete argument \"" << a << "\"\n" << kServeUsage;
      return 2;
    }
  }
  if (token) {
    return serve::RunServeToken(
        options.socket.empty() ? serve::DefaultServeSocket() : options.socket, lifespan, user, out,
        err);
  }
  return serve::RunServe(options, out, err);
}

}  // namespace gantry::cli
