#include "agent/script_runner.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>

#include "agent/launcher.h"
#include "sys/child_process.h"

namespace gantry::agent {
namespace {

Status WriteScriptFile(const std::string& path, const std::string& text) {
  unlink(path.c_str());
  const auto writing = LockForWritingExecutable();
  int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0700);
  if (fd < 0) return Unavailable("open(" + path + "): " + std::strerror(errno));
  size_t done = 0;
  while (done < text.size()) {
    ssize_t n = write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      int err = errno;
      close(fd);
      return Unavailable("write(" + path + "): " + std::strerror(err));
    }
    done += static_cast<size_t>(n);
  }
  if (close(fd) != 0) return Unavailable("close(" + path + "): " + std::strerror(errno));
  return Status::Ok();
}

}  // namespace

ScriptOutcome RunScripts(const ScriptBatch& batch) {
  for (size_t i = 0; i < batch.entries.size(); ++i) {
    const std::string& entry = batch.entries[i];
    std::string path = entry;
    std::string name = batch.kind + " " + entry;
    bool inline_script = false;
    struct stat st {};
    if (stat(entry.c_str(), &st) != 0) {
      if (entry.rfind("#!", 0) != 0) {
        return {false, name + ": no such file (and not an inline script starting with \"#!\")"};
      }
      inline_script = true;
      name = batch.kind + " " + std::to_string(i + 1) + " (inline script)";
      path = batch.scratch_dir;
      path += "/" + batch.kind + "-" + batch.tag + "-" + std::to_string(i + 1);
      if (Status s = WriteScriptFile(path, entry); !s.ok()) {
        return {false, name + ": " + s.message()};
      }
    } else if (!S_ISREG(st.st_mode)) {
      return {false, name + ": not a regular file"};
    }
    SpawnSpec spec;
    spec.path = path;
    spec.env = batch.env;
    spec.stderr_to_agent = true;
    Result<Spawned> spawned = Spawn(spec);
    if (!spawned.ok()) {
      if (inline_script) unlink(path.c_str());
      return {false, name + ": " + spawned.status().message()};
    }
    const bool timed_out = !sys::WaitChildExit(spawned->pid, batch.timeout);
    // Whatever the script left behind in its process group goes with it (before reaping, so
    // that the group id still names this group).
    kill(-spawned->pid, SIGKILL);
    const int status = sys::ReapChild(spawned->pid);
    if (inline_script) unlink(path.c_str());
    if (timed_out) {
      auto secs = std::chrono::duration_cast<std::chrono::seconds>(batch.timeout).count();
      std::string limit =
          secs > 0 ? std::to_string(secs) + " s" : std::to_string(batch.timeout.count()) + " ms";
      return {false, name + ": timed out after " + limit};
    }
    if (status != 0) return {false, name + ": " + DescribeWaitStatus(status)};
  }
  return {true, ""};
}

}  // namespace gantry::agent
