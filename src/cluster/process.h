// Process helpers for `gantry up/down/status`: start a daemon detached from the terminal, find
// out whether the process a pid file names is alive and really the daemon we started, and stop
// one with SIGTERM, then SIGKILL after a timeout.
//
// Daemons are started with a double fork: the daemon is reparented to init at once (never a
// zombie of the caller), runs in its own session (setsid), stdin is /dev/null, stdout and stderr
// are appended to a log file. A failure to exec is reported back to the caller as an error.
// Liveness counts a zombie (state Z in /proc/PID/stat) as dead, since an init that does not reap
// would otherwise keep a killed daemon "alive" forever.
//
// Thread-safety: all functions are thread-safe (SpawnDetached forks; the child only calls
// async-signal-safe functions before exec).
#ifndef GANTRY_CLUSTER_PROCESS_H_
#define GANTRY_CLUSTER_PROCESS_H_

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace gantry::cluster {

struct SpawnOptions {
  std::string program;            // path of the executable (no PATH search)
  std::vector<std::string> args;  // argv[1..]; argv[0] is `program`
  std::string log_file;           // stdout and stderr, opened O_APPEND|O_CREAT (0644)
  std::string working_dir;        // empty: "/"
};

// Starts the program detached; returns its pid once it has exec'd. Errors name the program and
// the failing step (log file, fork, exec: "No such file or directory").
Result<pid_t> SpawnDetached(const SpawnOptions& options);

// Whether `pid` names a live process (a zombie counts as dead). pid <= 0 is never alive.
bool ProcessAlive(pid_t pid);

// The process's argv from /proc/PID/cmdline; empty when it is gone or unreadable.
std::vector<std::string> ProcessArgv(pid_t pid);

// Whether argv is `program` started with `required` among its arguments: the base name of
// argv[0] is `program_name`, or of argv[1] when argv[0] is an interpreter running a script
// (`/bin/sh /path/gantryd ...`); and `required` occurs as consecutive arguments after it.
bool ArgvMatches(const std::vector<std::string>& argv, std::string_view program_name,
                 const std::vector<std::string>& required);

// The value after `flag` in argv ("--controller" -> "127.0.0.1:4000"); nullopt when absent.
std::optional<std::string> ArgvFlagValue(const std::vector<std::string>& argv,
                                         std::string_view flag);

// A pid file holds the pid in decimal and a newline. Read: nullopt when the file is missing or
// does not hold a positive pid.
std::optional<pid_t> ReadPidFile(const std::string& path);
// Written atomically (temporary file, then rename).
Status WritePidFile(const std::string& path, pid_t pid);

// The pid in `pid_file` when that process is alive and ArgvMatches(program_name, required);
// nullopt otherwise (no file, dead process, or a reused pid running something else).
std::optional<pid_t> LiveDaemon(const std::string& pid_file, std::string_view program_name,
                                const std::vector<std::string>& required);

struct StopResult {
  bool was_running = false;  // the process was alive when we started
  bool killed = false;       // it outlived `timeout` after SIGTERM and got SIGKILL
};

// Sends SIGTERM to each pid, waits up to `timeout` for all of them to exit (polling), then
// SIGKILLs the survivors and waits up to `kill_timeout` more. One result per pid, same order.
// Errors only when a process survives SIGKILL (or cannot be signalled: EPERM).
Result<std::vector<StopResult>> StopProcesses(
    const std::vector<pid_t>& pids, std::chrono::milliseconds timeout,
    std::chrono::milliseconds kill_timeout = std::chrono::seconds(5));

// The last `max_lines` lines of a text file written after byte `from` (for "the daemon exited
// during startup": only what this start wrote); empty when the file cannot be read.
std::string TailOfFile(const std::string& path, size_t max_lines, uint64_t from = 0);

// The size of a file; 0 when it does not exist.
uint64_t FileSize(const std::string& path);

}  // namespace gantry::cluster

#endif  // GANTRY_CLUSTER_PROCESS_H_
