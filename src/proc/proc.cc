#include "proc/proc.h"

#include <dirent.h>
#include <unistd.h>

#include <charconv>
#include <fstream>
#include <sstream>

namespace gantry::proc {
namespace {

template <typename T>
bool ParseNumber(std::string_view text, T* out) {
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), *out);
  return ec == std::errc() && ptr == text.data() + text.size();
}

}  // namespace

std::optional<ProcStat> ParseProcStat(std::string_view text) {
  size_t open = text.find('(');
  size_t close = text.rfind(')');
  if (open == std::string_view::npos || close == std::string_view::npos || close < open) {
    return std::nullopt;
  }
  ProcStat stat;
  std::string_view pid_text = text.substr(0, open);
  while (!pid_text.empty() && pid_text.back() == ' ') pid_text.remove_suffix(1);
  if (!ParseNumber(pid_text, &stat.pid)) return std::nullopt;
  // Fields after the command: 3 state, 4 ppid, 5 pgrp, 6 session, ... 22 starttime.
  std::vector<std::string_view> fields;
  std::string_view rest = text.substr(close + 1);
  size_t pos = 0;
  while (pos < rest.size()) {
    while (pos < rest.size() && (rest[pos] == ' ' || rest[pos] == '\n')) ++pos;
    size_t end = pos;
    while (end < rest.size() && rest[end] != ' ' && rest[end] != '\n') ++end;
    if (end > pos) fields.push_back(rest.substr(pos, end - pos));
    pos = end;
  }
  // fields[0] is field 3 (state); field N is fields[N - 3].
  if (fields.size() < 20 || fields[0].size() != 1) return std::nullopt;
  stat.state = fields[0][0];
  if (!ParseNumber(fields[1], &stat.ppid) || !ParseNumber(fields[2], &stat.pgid) ||
      !ParseNumber(fields[3], &stat.sid) || !ParseNumber(fields[19], &stat.start_ticks)) {
    return std::nullopt;
  }
  if (fields.size() >= 22 &&
      (!ParseNumber(fields[20], &stat.vsize_bytes) || !ParseNumber(fields[21], &stat.rss_pages))) {
    return std::nullopt;
  }
  return stat;
}

std::optional<ProcIo> ParseProcIo(std::string_view text) {
  ProcIo io;
  bool read = false;
  bool written = false;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    const size_t colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    std::string_view value = line.substr(colon + 1);
    while (!value.empty() && value.front() == ' ') value.remove_prefix(1);
    if (line.substr(0, colon) == "read_bytes") read = ParseNumber(value, &io.read_bytes);
    if (line.substr(0, colon) == "write_bytes") written = ParseNumber(value, &io.write_bytes);
  }
  if (!read || !written) return std::nullopt;
  return io;
}

std::optional<ProcIo> ReadProcIo(pid_t pid, const std::string& proc_root) {
  std::ifstream in(proc_root + "/" + std::to_string(pid) + "/io");
  if (!in) return std::nullopt;
  std::stringstream buffer;
  buffer << in.rdbuf();
  return ParseProcIo(buffer.str());
}

std::optional<ProcStat> ReadProcStat(pid_t pid, const std::string& proc_root) {
  std::ifstream in(proc_root + "/" + std::to_string(pid) + "/stat");
  if (!in) return std::nullopt;
  std::stringstream buffer;
  buffer << in.rdbuf();
  return ParseProcStat(buffer.str());
}

std::vector<pid_t> GroupOrSessionMembers(pid_t pgid, pid_t sid, const std::string& proc_root) {
  std::vector<pid_t> members;
  DIR* dir = opendir(proc_root.c_str());
  if (dir == nullptr) return members;
  while (dirent* entry = readdir(dir)) {
    pid_t pid = 0;
    if (!ParseNumber(std::string_view(entry->d_name), &pid) || pid <= 0) continue;
    std::optional<ProcStat> stat = ReadProcStat(pid, proc_root);
    if (!stat || stat->state == 'Z' || stat->state == 'X') continue;
    if ((pgid > 0 && stat->pgid == pgid) || (sid > 0 && stat->sid == sid)) {
      members.push_back(pid);
    }
  }
  closedir(dir);
  return members;
}

std::vector<pid_t> ProcessTree(pid_t root, const std::string& proc_root) {
  const std::string root_children =
      proc_root + "/" + std::to_string(root) + "/task/" + std::to_string(root) + "/children";
  if (access(root_children.c_str(), R_OK) != 0) {
    if (IsDeadOrZombie(root)) return {};
    return GroupOrSessionMembers(root, root, proc_root);
  }
  std::vector<pid_t> tree;
  std::vector<pid_t> todo = {root};
  while (!todo.empty() && tree.size() < 100000) {
    const pid_t pid = todo.back();
    todo.pop_back();
    const std::optional<ProcStat> stat = ReadProcStat(pid, proc_root);
    if (!stat || stat->state == 'Z' || stat->state == 'X') continue;
    tree.push_back(pid);
    const std::string tasks = proc_root + "/" + std::to_string(pid) + "/task";
    DIR* dir = opendir(tasks.c_str());
    if (dir == nullptr) continue;
    while (dirent* entry = readdir(dir)) {
      if (entry->d_name[0] == '.') continue;
      std::ifstream children(tasks + "/" + entry->d_name + "/children");
      for (pid_t child = 0; children >> child;) todo.push_back(child);
    }
    closedir(dir);
  }
  return tree;
}

bool IsStillRunning(pid_t pid, uint64_t start_ticks) {
  const std::optional<ProcStat> stat = ReadProcStat(pid);
  return stat && stat->state != 'Z' && (start_ticks == 0 || stat->start_ticks == start_ticks);
}

bool IsDeadOrZombie(pid_t pid) {
  std::optional<ProcStat> stat = ReadProcStat(pid);
  return !stat || stat->state == 'Z' || stat->state == 'X';
}

}  // namespace gantry::proc
