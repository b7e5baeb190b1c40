// `gantry serve [--listen HOST:PORT] [--socket PATH] [--tls-cert F --tls-key F] [--url-file F]`
// and `gantry serve token [--lifespan S] [--username U] [--socket PATH]` (serve/serve.h).
#ifndef GANTRY_CLI_SERVE_COMMAND_H_
#define GANTRY_CLI_SERVE_COMMAND_H_

#include <iosfwd>
#include <string>
#include <vector>

namespace gantry::cli {

// args excludes "serve". Exit codes: 0 ok, 1 failed, 2 usage error.
int RunServeCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace gantry::cli

#endif  // GANTRY_CLI_SERVE_COMMAND_H_
