#include "agent/spool.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "agent/launcher.h"

namespace gantry::agent {
namespace {

std::string ErrnoText() { return std::strerror(errno); }

Status MakeDirs(const std::string& path, mode_t mode) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) return Status::Ok();
  std::filesystem::path parent = std::filesystem::path(path).parent_path();
  if (!parent.empty() && parent != path) GANTRY_RETURN_IF_ERROR(MakeDirs(parent.string(), 0755));
  if (mkdir(path.c_str(), mode) != 0 && errno != EEXIST) {
    return Unavailable("mkdir(" + path + "): " + ErrnoText());
  }
  return Status::Ok();
}

Status WriteAll(int fd, std::string_view data, const std::string& path) {
  size_t done = 0;
  while (done < data.size()) {
    ssize_t n = write(fd, data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return Unavailable("write(" + path + "): " + ErrnoText());
    done += static_cast<size_t>(n);
  }
  return Status::Ok();
}

// Trees deeper than this are left in place (each level holds a descriptor).
constexpr int kMaxRemoveDepth = 128;

// Removes `name` in the directory `parent_fd` and, if it is a directory, everything in it.
// Every step is relative to a descriptor of a directory opened with O_NOFOLLOW: a component a
// user swaps for a symbolic link while this runs is removed as a link, never followed (root
// deleting in a user-writable tree by path names can be made to delete any file).
void RemoveTreeAt(int parent_fd, const char* name, int depth) {
  const int fd =
      openat(parent_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    // Not a directory (a file, a link, a socket...), or gone: remove the entry itself.
    if (errno == ENOTDIR || errno == ELOOP) unlinkat(parent_fd, name, 0);
    return;
  }
  if (depth < kMaxRemoveDepth) {
    const int list_fd = dup(fd);
    DIR* dir = list_fd >= 0 ? fdopendir(list_fd) : nullptr;
    if (dir == nullptr && list_fd >= 0) close(list_fd);
    std::vector<std::string> names;
    while (dir != nullptr) {
      const dirent* entry = readdir(dir);
      if (entry == nullptr) break;
      const std::string_view n = entry->d_name;
      if (n != "." && n != "..") names.emplace_back(n);
    }
    if (dir != nullptr) closedir(dir);
    for (const std::string& n : names) {
      if (unlinkat(fd, n.c_str(), 0) != 0 && (errno == EISDIR || errno == EPERM)) {
        RemoveTreeAt(fd, n.c_str(), depth + 1);
      }
    }
  }
  close(fd);
  unlinkat(parent_fd, name, AT_REMOVEDIR);
}

// RemoveTreeAt until `name` is gone, at most a few passes: a job of the same user may still be
// writing into the tree while it is removed.
void RemoveTreeAgainAt(int parent_fd, const char* name) {
  for (int pass = 0; pass < 4; ++pass) {
    RemoveTreeAt(parent_fd, name, 0);
    struct stat st {};
    if (fstatat(parent_fd, name, &st, AT_SYMLINK_NOFOLLOW) != 0) return;
  }
}

template <typename T>
bool ParseNumber(std::string_view text, T* out) {
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), *out);
  return ec == std::errc() && ptr == text.data() + text.size() && !text.empty();
}

}  // namespace

std::string FormatJobRecord(const JobRecord& record) {
  std::string out;
  out += "job_id=" + std::to_string(record.job_id) + "\n";
  out += "epoch=" + std::to_string(record.epoch) + "\n";
  out += "pid=" + std::to_string(record.pid) + "\n";
  out += "pgid=" + std::to_string(record.pid) + "\n";
  out += "start_ticks=" + std::to_string(record.start_ticks) + "\n";
  auto process = [](const RecordedProcess& p) {
    return std::to_string(p.pid) + ":" + std::to_string(p.start_ticks);
  };
  if (record.keeper.pid != 0) out += "keeper=" + process(record.keeper) + "\n";
  out += "cgroup=" + record.cgroup + "\n";
  for (const std::string& dir : record.limit_cgroups) out += "limit_cgroup=" + dir + "\n";
  for (const RecordedProcess& task : record.tasks) out += "task=" + process(task) + "\n";
  for (const RecordedStep& step : record.steps) {
    out += "step=" + std::to_string(step.step_id) + ":" + process(step.stepd) + "\n";
  }
  return out;
}

Result<JobRecord> ParseJobRecord(std::string_view text) {
  JobRecord record;
  bool have_id = false;
  size_t pos = 0;
  int line_no = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    ++line_no;
    if (line.empty()) continue;
    size_t eq = line.find('=');
    if (eq == std::string_view::npos) {
      return InvalidArgument("line " + std::to_string(line_no) + ": expected key=value");
    }
    std::string_view key = line.substr(0, eq);
    std::string_view value = line.substr(eq + 1);
    bool ok = true;
    if (key == "job_id") {
      ok = ParseNumber(value, &record.job_id);
      have_id = ok;
    } else if (key == "epoch") {
      ok = ParseNumber(value, &record.epoch);
    } else if (key == "pid") {
      ok = ParseNumber(value, &record.pid);
    } else if (key == "start_ticks") {
      ok = ParseNumber(value, &record.start_ticks);
    } else if (key == "keeper" || key == "task") {
      RecordedProcess process;
      const size_t colon = value.find(':');
      ok = colon != std::string_view::npos && ParseNumber(value.substr(0, colon), &process.pid) &&
           ParseNumber(value.substr(colon + 1), &process.start_ticks) && process.pid > 0;
      if (key == "keeper") {
        record.keeper = process;
      } else {
        record.tasks.push_back(process);
      }
    } else if (key == "step") {
      RecordedStep step;
      const size_t first = value.find(':');
      const size_t second = first == std::string_view::npos ? first : value.find(':', first + 1);
      ok = second != std::string_view::npos && ParseNumber(value.substr(0, first), &step.step_id) &&
           ParseNumber(value.substr(first + 1, second - first - 1), &step.stepd.pid) &&
           ParseNumber(value.substr(second + 1), &step.stepd.start_ticks) && step.stepd.pid > 0;
      record.steps.push_back(step);
    } else if (key == "cgroup") {
      record.cgroup = std::string(value);
    } else if (key == "limit_cgroup") {
      record.limit_cgroups.emplace_back(value);
    }
    if (!ok) {
      return InvalidArgument("line " + std::to_string(line_no) + ": " + std::string(key) +
                             (key == "keeper" || key == "task"
                                  ? ": expected <pid>:<start_ticks>: \""
                              : key == "step" ? ": expected <step_id>:<pid>:<start_ticks>: \""
                                              : ": not a number: \"") +
                             std::string(value) + "\"");
    }
  }
  if (!have_id || record.job_id == 0) return InvalidArgument("no job_id");
  if (record.pid < 0) return InvalidArgument("pid: negative");
  return record;
}

Result<Spool> Spool::Open(const std::string& dir) {
  if (dir.empty()) return InvalidArgument("--spool: empty directory name");
  std::error_code ec;
  std::string absolute = std::filesystem::absolute(dir, ec).lexically_normal().string();
  if (ec) return InvalidArgument("--spool: " + dir + ": " + ec.message());
  while (absolute.size() > 1 && absolute.back() == '/') absolute.pop_back();
  GANTRY_RETURN_IF_ERROR(MakeDirs(absolute, 0755));
  for (const char* sub : {"/jobs", "/scripts"}) {
    std::string path = absolute + sub;
    if (mkdir(path.c_str(), 0700) != 0 && errno != EEXIST) {
      return Unavailable("mkdir(" + path + "): " + ErrnoText());
    }
    if (access(path.c_str(), W_OK | X_OK) != 0) {
      return Unavailable(path + ": not writable: " + ErrnoText());
    }
  }
  return Spool(absolute);
}

std::string Spool::JobDir(uint32_t job_id) const { return dir_ + "/job_" + std::to_string(job_id); }

Result<std::string> Spool::WriteBatchScript(uint32_t job_id, std::string_view script, uid_t uid,
                                            gid_t gid) const {
  const std::string job_dir = JobDir(job_id);
  RemoveJobDir(job_id);
  if (mkdir(job_dir.c_str(), 0700) != 0) {
    return Unavailable("mkdir(" + job_dir + "): " + ErrnoText());
  }
  const std::string path = job_dir + "/slurm_script";
  auto writing = LockForWritingExecutable();
  int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0700);
  if (fd < 0) return Unavailable("open(" + path + "): " + ErrnoText());
  Status written = WriteAll(fd, script, path);
  if (written.ok() && fchown(fd, uid, gid) != 0) {
    written = Unavailable("fchown(" + path + "): " + ErrnoText());
  }
  if (written.ok() && fchmod(fd, 0700) != 0) {
    written = Unavailable("fchmod(" + path + "): " + ErrnoText());
  }
  if (close(fd) != 0 && written.ok()) written = Unavailable("close(" + path + "): " + ErrnoText());
  writing.unlock();
  GANTRY_RETURN_IF_ERROR(written);
  // The directory goes to the user last, once the script is in place.
  if (chown(job_dir.c_str(), uid, gid) != 0) {
    return Unavailable("chown(" + job_dir + "): " + ErrnoText());
  }
  return path;
}

void Spool::RemoveJobDir(uint32_t job_id) const {
  // The spool is root's (its entries cannot be swapped); job_<id> and below are the user's.
  const int spool_fd = open(dir_.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (spool_fd < 0) return;
  RemoveTreeAgainAt(spool_fd, ("job_" + std::to_string(job_id)).c_str());
  close(spool_fd);
}

std::vector<uint32_t> Spool::JobDirIds() const {
  std::vector<uint32_t> ids;
  DIR* dir = opendir(dir_.c_str());
  if (dir == nullptr) return ids;
  while (dirent* entry = readdir(dir)) {
    std::string_view name = entry->d_name;
    uint32_t id = 0;
    if (name.substr(0, 4) == "job_" && ParseNumber(name.substr(4), &id)) ids.push_back(id);
  }
  closedir(dir);
  return ids;
}

Status Spool::SaveRecord(const JobRecord& record) const {
  const std::string path = dir_ + "/jobs/" + std::to_string(record.job_id) + ".rec";
  const std::string tmp = path + ".tmp";
  int fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) return Unavailable("open(" + tmp + "): " + ErrnoText());
  // No fsync: the record serves the next agent after this one dies, and the page cache outlives
  // a process. After a machine crash the job's processes are gone with it.
  Status written = WriteAll(fd, FormatJobRecord(record), tmp);
  close(fd);
  if (written.ok() && rename(tmp.c_str(), path.c_str()) != 0) {
    written = Unavailable("rename(" + tmp + "): " + ErrnoText());
  }
  if (!written.ok()) unlink(tmp.c_str());
  return written;
}

void Spool::RemoveRecord(uint32_t job_id) const {
  unlink((dir_ + "/jobs/" + std::to_string(job_id) + ".rec").c_str());
  unlink(ExitPath(job_id).c_str());
  unlink(ReportedPath(job_id).c_str());
}

std::string Spool::ExitPath(uint32_t job_id) const {
  return dir_ + "/jobs/" + std::to_string(job_id) + ".exit";
}

std::string Spool::StepControlPath(uint32_t job_id, uint32_t step_id) const {
  return dir_ + "/jobs/" + std::to_string(job_id) + "." + std::to_string(step_id) + ".ctl";
}

std::string Spool::ReportedPath(uint32_t job_id) const {
  return dir_ + "/jobs/" + std::to_string(job_id) + ".reported";
}

std::vector<JobRecord> Spool::LoadRecords(std::vector<std::string>* problems) const {
  std::vector<JobRecord> records;
  const std::string jobs = dir_ + "/jobs";
  DIR* dir = opendir(jobs.c_str());
  if (dir == nullptr) return records;
  std::vector<std::string> names;
  while (dirent* entry = readdir(dir)) {
    std::string name = entry->d_name;
    if (name != "." && name != "..") names.push_back(name);
  }
  closedir(dir);
  for (const std::string& name : names) {
    std::string path = jobs;
    path += "/";
    path += name;
    if (name.ends_with(".rec.tmp")) {
      unlink(path.c_str());  // a temporary file from an interrupted save
      continue;
    }
    if (!name.ends_with(".rec")) continue;  // exit files (and a keeper's, being written)
    std::ifstream in(path);
    std::stringstream buffer;
    buffer << in.rdbuf();
    Result<JobRecord> record = ParseJobRecord(buffer.str());
    if (!record.ok()) {
      if (problems != nullptr) problems->push_back(path + ": " + record.status().message());
      unlink(path.c_str());
      continue;
    }
    records.push_back(*record);
  }
  return records;
}

}  // namespace gantry::agent
