#include "slurm/command_context.h"

#include <pwd.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <iostream>

#include "sys/passwd.h"
#include "sys/system_time.h"

extern char** environ;

namespace gantry::slurm {

std::optional<std::string> CommandContext::GetEnv(std::string_view name) const {
  for (const std::string& entry : environment) {
    if (entry.size() > name.size() && entry[name.size()] == '=' &&
        std::string_view(entry).substr(0, name.size()) == name) {
      return entry.substr(name.size() + 1);
    }
  }
  return std::nullopt;
}

std::string CommandContext::UserName(uint32_t id) const {
  if (user_name) {
    if (std::optional<std::string> name = user_name(id)) return *name;
  }
  return std::to_string(id);
}

namespace {

std::optional<std::string> LookupUserComment(std::string_view name) {
  const std::string key(name);
  passwd pw{};
  passwd* result = nullptr;
  std::vector<char> buf(16384);
  if (getpwnam_r(key.c_str(), &pw, buf.data(), buf.size(), &result) == 0 && result != nullptr) {
    return std::string(pw.pw_gecos != nullptr ? pw.pw_gecos : "");
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string> LookupUserName(uint32_t uid) { return sys::LookupUserName(uid); }

CommandContext SystemContext(std::string argv0) {
  CommandContext ctx;
  ctx.argv0 = std::move(argv0);
  ctx.in = &std::cin;
  ctx.out = &std::cout;
  ctx.err = &std::cerr;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) ctx.environment.emplace_back(*e);
  char cwd[PATH_MAX] = {};
  if (getcwd(cwd, sizeof(cwd)) != nullptr) ctx.cwd = cwd;
  char host[256] = {};
  if (gethostname(host, sizeof(host) - 1) == 0) {
    ctx.hostname = host;
    const size_t dot = ctx.hostname.find('.');
    if (dot != std::string::npos) ctx.hostname.resize(dot);
  }
  ctx.uid = static_cast<uint32_t>(getuid());
  ctx.gid = static_cast<uint32_t>(getgid());
  const pid_t sid = getsid(0);
  ctx.sid = sid < 0 ? 0 : static_cast<uint32_t>(sid);
  const mode_t mask = ::umask(0);
  ::umask(mask);
  ctx.umask = static_cast<uint32_t>(mask);
  errno = 0;
  const int prio = getpriority(PRIO_PROCESS, 0);
  ctx.prio_process = errno == 0 ? prio : 0;
  ctx.now = sys::SystemClock::Get().Now();
  ctx.time_zone = &sys::LocalTimeZone::Get();
  ctx.uid_of = sys::LookupUid;
  ctx.user_name = LookupUserName;
  ctx.group_name = sys::LookupGroupName;
  ctx.user_comment = LookupUserComment;
  ctx.stdin_is_terminal = isatty(STDIN_FILENO) == 1;
  std::string conf = kDefaultGantryConf;
  if (std::optional<std::string> env = ctx.GetEnv("GANTRY_CONF"); env && !env->empty()) {
    conf = *env;
  }
  ctx.connect = [conf]() -> Result<std::unique_ptr<ControllerClient>> {
    GANTRY_ASSIGN_OR_RETURN(ClientConfig config, LoadClientConfig(conf));
    return ControllerClient::Connect(config);
  };
  ctx.connect_each = [conf]() {
    std::vector<Result<std::unique_ptr<ControllerClient>>> clients;
    Result<ClientConfig> config = LoadClientConfig(conf);
    if (!config.ok()) {
      clients.emplace_back(config.status());
      return clients;
    }
    for (const Endpoint& endpoint : ResolveEndpoints(*config)) {
      Result<std::unique_ptr<ControllerTransport>> transport = ConnectEndpoint(*config, endpoint);
      if (!transport.ok()) {
        clients.emplace_back(transport.status());
        continue;
      }
      clients.emplace_back(
          std::make_unique<ControllerClient>(std::move(*transport), endpoint.host));
    }
    return clients;
  };
  return ctx;
}

}  // namespace gantry::slurm
