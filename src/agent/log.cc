#include "agent/log.h"

#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <mutex>

#include "sys/log_stamp.h"

namespace gantry::agent {
namespace {

std::mutex& LogMutex() {
  static std::mutex mu;
  return mu;
}
std::string& LogNode() {
  static std::string node;
  return node;
}
std::atomic<bool> g_enabled{true};

}  // namespace

void SetLogNode(std::string_view node) {
  std::lock_guard<std::mutex> lock(LogMutex());
  LogNode() = std::string(node);
}

void SetLogEnabled(bool enabled) { g_enabled = enabled; }

void Log(std::string_view text) {
  if (!g_enabled) return;
  const std::string stamp = sys::LogStamp();
  std::lock_guard<std::mutex> lock(LogMutex());
  std::string line = stamp + " gantry-agent[" + LogNode() + "]: ";
  line.append(text);
  line += '\n';
  // One write per line, so that lines stay whole even with other writers on the same file.
  size_t done = 0;
  while (done < line.size()) {
    ssize_t n = write(STDERR_FILENO, line.data() + done, line.size() - done);
    if (n <= 0) break;
    done += static_cast<size_t>(n);
  }
}

}  // namespace gantry::agent
