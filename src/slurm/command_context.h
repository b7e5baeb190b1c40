// Everything a Slurm command reads from its process, passed in so that commands run the same way
// in tests (fixed clock, fake controller, captured streams) as in the real binary.
//
// SystemContext() fills it from the real process: the streams, environ, cwd, hostname, ids,
// session id, umask, the real clock and the local time zone, passwd lookups, and a connector that
// reads GANTRY_CONF (default /etc/gantry/gantry.conf) and dials the controller.
// Not thread-safe; one command at a time.
#ifndef GANTRY_SLURM_COMMAND_CONTEXT_H_
#define GANTRY_SLURM_COMMAND_CONTEXT_H_

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "base/time.h"
#include "slurm/controller_client.h"

namespace gantry::slurm {

struct CommandContext {
  // Program name as the user typed it (argv[0] or the command word after gantry-slurm); getopt
  // messages use it.
  std::string argv0;
  std::istream* in = nullptr;
  std::ostream* out = nullptr;
  std::ostream* err = nullptr;

  std::vector<std::string> environment;  // "K=V", in environ order
  std::string cwd;
  std::string hostname;  // short host name (SubmitHost, AllocNode)
  uint32_t uid = 0;
  uint32_t gid = 0;
  uint32_t sid = 0;      // getsid(0)
  uint32_t umask = 022;  // the process umask (SLURM_UMASK)
  int prio_process = 0;  // getpriority(PRIO_PROCESS) (SLURM_PRIO_PROCESS)

  UnixTime now = 0;  // used when the controller does not report its clock
  const TimeZone* time_zone = nullptr;

  // The controller. Errors are Slurm's texts (connect failure...).
  std::function<Result<std::unique_ptr<ControllerClient>>()> connect;
  // Each controller on its own, in the configured order (scontrol ping); unset: just `connect`.
  std::function<std::vector<Result<std::unique_ptr<ControllerClient>>>()> connect_each;
  // passwd/group lookups: name -> uid, uid -> name, gid -> name. nullopt when unknown.
  std::function<std::optional<uint32_t>(std::string_view)> uid_of;
  std::function<std::optional<std::string>(uint32_t)> user_name;
  std::function<std::optional<std::string>(uint32_t)> group_name;
  // The passwd comment (GECOS) of a user name (sreport's Proper Name); nullopt when unknown.
  std::function<std::optional<std::string>(std::string_view)> user_comment;
  // Whether standard input is a terminal (an interactive sreport echoes commands it reads from
  // anything else, as readline does).
  bool stdin_is_terminal = false;

  // The value of an environment variable, if set.
  std::optional<std::string> GetEnv(std::string_view name) const;
  // A user name for messages: the passwd name, else the number.
  std::string UserName(uint32_t id) const;
};

// A uid's passwd name (getpwuid_r: safe on any thread); nullopt when it has none.
std::optional<std::string> LookupUserName(uint32_t uid);

// The real process: std::cin/cout/cerr, environ, getcwd, gethostname, getuid/getgid, getsid,
// umask, getpriority, SystemClock, LocalTimeZone, getpwnam_r/getpwuid_r/getgrgid_r, isatty(0),
// and a connector reading GANTRY_CONF.
CommandContext SystemContext(std::string argv0);

}  // namespace gantry::slurm

#endif  // GANTRY_SLURM_COMMAND_CONTEXT_H_
