// The /gantry/v1/ routes: what Gantry says beyond slurmrestd's API, for the web dashboard and
// scripts: a job's explanation (gantry explain), its output file's tail (for its owner), and
// requeue (scontrol requeue / requeuehold). The same envelope and the same permission rules as
// the /slurm/ routes: gantryd decides what the caller may see and do.
#include <fcntl.h>
#include <sys/fsuid.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>

#include "rest/routes.h"
#include "slurm/explain.h"
#include "slurm_view/job_view.h"
#include "sys/system_time.h"

namespace gantry::rest {
namespace {

constexpr int kDefaultLines = 100;
constexpr int kMostLines = 10000;
constexpr off_t kMostBytes = 1 << 20;  // read at most the file's last MiB

// The job as the caller may see it; a refusal recorded otherwise.
std::optional<v1::Job> LoadJob(Call& call, Reply& reply, uint32_t id) {
  v1::GetJobsRequest request;
  request.add_job_ids(id);
  request.set_include_all(true);
  Result<v1::GetJobsReply> jobs = call.controller->GetJobs(request);
  if (jobs.ok() && jobs->jobs_size() == 0) {
    request.set_history(true);  // gone from memory: its archived record
    jobs = call.controller->GetJobs(request);
  }
  if (jobs.ok() && jobs->jobs_size() == 0) jobs = NotFound("Invalid job id specified");
  if (!jobs.ok()) {
    reply.Fail(jobs.status(), "Unable to query JobId=" + std::to_string(id), "#/job_id");
    return std::nullopt;
  }
  return jobs->jobs(0);
}

// The last `lines` lines of the regular file `path`, opened with uid/gid's file-system identity
// when this daemon runs as root (so it reads only what the job's user may read, and never
// follows a link in the last component), as itself otherwise.
Result<std::pair<std::string, bool>> TailFile(const std::string& path, uid_t uid, gid_t gid,
                                              int lines) {
  const bool root = geteuid() == 0;
  if (!root && geteuid() != uid) {
    return PermissionDenied("gantry-restd runs as uid " + std::to_string(geteuid()) +
                            " and reads only that user's files");
  }
  // setfsuid/setfsgid change this thread's file-system identity only (glibc does not pass them
  // to the other threads), and are put back before anything else runs here.
  if (root) {
    setfsgid(gid);
    setfsuid(uid);
  }
  const int fd = open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
  const int open_errno = errno;
  if (root) {
    setfsuid(0);
    setfsgid(0);
  }
  if (fd < 0) {
    const std::string why = std::string(strerror(open_errno));
    if (open_errno == ENOENT) return NotFound(path + ": " + why);
    return PermissionDenied(path + ": " + why);
  }
  struct stat st {};
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    close(fd);
    return InvalidArgument(path + ": not a regular file");
  }
  const off_t from = std::max<off_t>(0, st.st_size - kMostBytes);
  std::string data(static_cast<size_t>(st.st_size - from), '\0');
  const ssize_t got = pread(fd, data.data(), data.size(), from);
  close(fd);
  if (got < 0) return Unavailable(path + ": " + strerror(errno));
  data.resize(static_cast<size_t>(got));
  // Keep the last `lines` lines (a last line without '\n' counts).
  size_t start = data.size();
  int seen = 0;
  if (start > 0 && data.back() == '\n') --start;
  while (start > 0) {
    const size_t nl = data.rfind('\n', start - 1);
    if (nl == std::string::npos) {
      start = 0;
      break;
    }
    if (++seen == lines) {
      start = nl + 1;
      break;
    }
    start = nl;
  }
  const bool truncated = from > 0 || start > 0;
  return std::make_pair(data.substr(start), truncated);
}

}  // namespace

void ExplainJobRoute(Call& call, Reply& reply) {
  const std::optional<uint32_t> id = JobIdOf(call, reply);
  reply.out().MemberInt("job_id", id.value_or(0));
  std::string text;
  if (id) {
    Result<std::string> explained =
        slurm::LoadAndExplain(*call.controller, {*id, true, {}}, sys::SystemClock::Get().Now(),
                              sys::LocalTimeZone::Get());
    if (explained.ok()) {
      text = std::move(*explained);
    } else {
      reply.Fail(explained.status(), "Unable to explain JobId=" + std::to_string(*id), "#/job_id");
    }
  }
  reply.out().Member("explanation", text);
}

// GET /gantry/v1/job/{id}/output?stream=stdout|stderr&lines=N: the tail of the job's output
// file, for the job's own user (and root) only: the file is the user's, whatever else the
// caller may see of the job.
void JobOutput(Call& call, Reply& reply) {
  const std::optional<uint32_t> id = JobIdOf(call, reply);
  const std::string stream = call.request.Query("stream").value_or("stdout");
  int lines = kDefaultLines;
  if (stream != "stdout" && stream != "stderr") {
    reply.Fail(400, {"stream \"" + stream + "\": expected stdout or stderr", 9201,
                     "Invalid argument", "#/stream"});
  }
  if (const std::optional<std::string> text = call.request.Query("lines")) {
    char* end = nullptr;
    const int64_t value = std::strtoll(text->c_str(), &end, 10);
    if (text->empty() || *end != '\0' || value < 1 || value > kMostLines) {
      reply.Fail(400, {"lines \"" + *text + "\": expected a number from 1 to " +
                           std::to_string(kMostLines),
                       9201, "Invalid argument", "#/lines"});
    } else {
      lines = static_cast<int>(value);
    }
  }
  std::string path;
  std::pair<std::string, bool> tail;
  if (id && !reply.failed()) {
    if (std::optional<v1::Job> job = LoadJob(call, reply, *id)) {
      path = stream == "stdout" ? slurm::StdoutPath(*job) : slurm::StderrPath(*job);
      if (path.empty()) path = slurm::StdoutPath(*job);  // stderr joins stdout
      Result<v1::PingReply> caller = call.controller->Ping();
      if (!caller.ok()) {
        reply.Fail(caller.status(), "Unable to identify the caller", "#");
      } else if (caller->caller_uid() != 0 && caller->caller_uid() != job->user_id()) {
        reply.Fail(403, {"only the job's user may read its output", 1, "Access/permission denied",
                         "#/job_id"});
      } else if (path.empty()) {
        reply.Fail(404, {"the job has no output file (not a batch job)", 2017, "No output file",
                         "#/job_id"});
      } else {
        Result<std::pair<std::string, bool>> read =
            TailFile(path, job->user_id(), job->group_id(), lines);
        if (read.ok()) {
          tail = std::move(*read);
        } else {
          reply.Fail(read.status(), "Unable to read the output of JobId=" + std::to_string(*id),
                     "#/job_id");
        }
      }
    }
  }
  reply.out().MemberInt("job_id", id.value_or(0));
  reply.out().Member("stream", stream == "stderr" ? "stderr" : "stdout").Member("path", path);
  reply.out().Member("text", tail.first).MemberBool("truncated", tail.second);
}

// POST /gantry/v1/job/{id}/requeue[?hold=true]: scontrol requeue (requeuehold).
void RequeueJob(Call& call, Reply& reply) {
  const std::optional<uint32_t> id = JobIdOf(call, reply);
  const std::string hold = call.request.Query("hold").value_or("false");
  if (hold != "true" && hold != "false") {
    reply.Fail(
        400, {"hold \"" + hold + "\": expected true or false", 9201, "Invalid argument", "#/hold"});
  }
  if (id && !reply.failed()) {
    v1::UpdateJobRequest request;
    request.add_job_ids(std::to_string(*id));
    request.set_action(hold == "true" ? "requeuehold" : "requeue");
    Result<v1::UpdateJobReply> done = call.controller->UpdateJob(request);
    Status refused = done.status();
    if (done.ok() && done->errors_size() > 0) refused = StatusOfJobError(done->errors(0));
    if (!refused.ok()) {
      reply.Fail(refused, "Unable to requeue JobId=" + std::to_string(*id), "#/job_id");
    }
  }
  reply.out().MemberInt("job_id", id.value_or(0));
}

}  // namespace gantry::rest
