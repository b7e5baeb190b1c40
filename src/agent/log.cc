#include "agent/log.h"

#include <sys/time.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <ctime>
#include <mutex>

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
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  tm utc{};
  gmtime_r(&ts.tv_sec, &utc);
  char stamp[96];
  snprintf(stamp, sizeof(stamp), "%04d-%02d-%02dT%02d:%02d:%02d.%03ldZ", utc.tm_year + 1900,
           utc.tm_mon + 1, utc.tm_mday, utc.tm_hour, utc.tm_min, utc.tm_sec,
           static_cast<long>(ts.tv_nsec / 1000000));
  std::lock_guard<std::mutex> lock(LogMutex());
  std::string line = std::string(stamp) + " gantry-agent[" + LogNode() + "]: ";
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
