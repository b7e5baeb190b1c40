#include "slurm/sbatch.h"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <istream>
#include <iterator>
#include <ostream>
#include <sstream>
#include <thread>

#include "model/job_state.h"
#include "slurm/command_util.h"
#include "slurm/commands.h"
#include "slurm/sbatch_script.h"
#include "text/ascii.h"
#include "text/begin_time.h"
#include "text/hostlist.h"

namespace gantry::slurm {
namespace {

std::string_view SbatchKeyOf(std::string_view entry) { return entry.substr(0, entry.find('=')); }

void SetVar(std::vector<std::string>* env, std::string_view key, std::string_view value,
            bool overwrite = true) {
  for (std::string& entry : *env) {
    if (SbatchKeyOf(entry) == key) {
      if (overwrite) entry = std::string(key) + "=" + std::string(value);
      return;
    }
  }
  env->push_back(std::string(key) + "=" + std::string(value));
}

std::string SbatchBaseName(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::string Octal(uint32_t mask) {
  char buf[16];
  std::snprintf(buf, sizeof(buf), "0%o", mask & 0777);
  return buf;
}

void PrintErrorLines(const CommandContext& ctx, const std::vector<std::string>& lines) {
  for (const std::string& line : lines) *ctx.err << "sbatch: error: " << line << "\n";
}

// Prints an option error; returns its exit code.
int Report(const CommandContext& ctx, const OptionResult& r) {
  *ctx.err << "sbatch: error: " << r.message << "\n";
  return r.exit_code;
}

bool Unsupported(int id) { return id >= kOptUnsupported && id < kOptUnsupported + 0x100; }

// --export-file's content: a descriptor number from 3 on, else a file name (relative to `cwd`).
Result<std::string> ReadExportFile(const std::string& name, const std::string& cwd) {
  int fd = -1;
  bool own = true;
  if (!name.empty() && std::all_of(name.begin(), name.end(), text::IsAsciiDigit) &&
      name.size() < 6 && std::stoi(name) >= 3) {
    fd = std::stoi(name);
    own = false;
  } else {
    fd = open(Absolute(name, cwd).c_str(), O_RDONLY | O_CLOEXEC);
  }
  if (fd < 0) return NotFound(name);
  std::string content;
  char buffer[65536];
  for (;;) {
    const ssize_t n = read(fd, buffer, sizeof(buffer));
    if (n > 0) {
      content.append(buffer, static_cast<size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (own) close(fd);
    if (n < 0) return NotFound(name);
    return content;
  }
}

// -W/--wait: polls the job (every record of an array) until all have ended and returns the
// highest exit code among them, 1 for a record a signal ended, as sbatch does. Gantry polls
// from 0.1 s on (doubling up to 2 s); sbatch's first look is after 2 s.
int WaitForJob(ControllerClient& client, uint32_t job_id, CommandContext& ctx) {
  v1::GetJobsRequest request;
  request.add_job_ids(job_id);
  request.set_include_all(true);
  auto delay = std::chrono::milliseconds(100);
  for (;;) {
    std::this_thread::sleep_for(delay);
    delay = std::min(delay * 2, std::chrono::milliseconds(2000));
    Result<v1::GetJobsReply> reply = client.GetJobs(request);
    if (!reply.ok()) {
      if (reply.status().code() == StatusCode::kNotFound) break;
      *ctx.err << "sbatch: error: Currently unable to load job state information, retrying: "
               << reply.status().message() << "\n";
      continue;
    }
    if (reply->jobs().empty()) break;
    int code = 0;
    bool ended = true;
    for (const v1::Job& job : reply->jobs()) {
      if (!model::IsFinished(static_cast<model::JobBaseState>(job.state()))) {
        ended = false;
        break;
      }
      const int status = job.exit_status();
      code = std::max(code, status >= 0 && WIFEXITED(status) ? WEXITSTATUS(status) : 1);
    }
    if (ended) return code;
  }
  *ctx.err << "sbatch: error: Job " << job_id << " no longer found and exit code not found\n";
  return 0;
}

}  // namespace

std::vector<std::string> BatchEnvironment(const std::vector<std::string>& environment,
                                          const std::string& export_spec) {
  if (export_spec.empty() || text::EqualsIgnoreCase(export_spec, "ALL")) return environment;
  std::vector<std::string> items = SplitList(export_spec);
  bool all = false;
  for (const std::string& item : items) all = all || text::EqualsIgnoreCase(item, "ALL");
  std::vector<std::string> env;
  for (const std::string& entry : environment) {
    if (all || SbatchKeyOf(entry).substr(0, 6) == "SLURM_") env.push_back(entry);
  }
  if (text::EqualsIgnoreCase(export_spec, "NONE")) return env;
  for (const std::string& item : items) {
    if (text::EqualsIgnoreCase(item, "ALL") || text::EqualsIgnoreCase(item, "NONE")) continue;
    const size_t eq = item.find('=');
    if (eq != std::string::npos) {
      SetVar(&env, item.substr(0, eq), item.substr(eq + 1));
      continue;
    }
    for (const std::string& entry : environment) {
      if (SbatchKeyOf(entry) == item) SetVar(&env, item, entry.substr(item.size() + 1));
    }
  }
  return env;
}

std::vector<std::string> ParseExportFile(std::string_view content) {
  const char separator = content.find('\0') != std::string_view::npos ? '\0' : '\n';
  std::vector<std::string> out;
  for (std::string_view entry : text::Split(content, separator)) {
    const size_t eq = entry.find('=');
    if (eq == std::string_view::npos || eq == 0) continue;
    out.emplace_back(entry);
  }
  return out;
}

v1::SubmitJobRequest BuildSubmitRequest(const SbatchOptions& o, const BatchScript& script,
                                        const CommandContext& ctx) {
  v1::SubmitJobRequest submit;
  v1::JobRequest* r = submit.mutable_request();
  v1::JobPayload* p = submit.mutable_payload();

  if (o.job_name) {
    r->set_name(*o.job_name);
  } else if (script.wrap) {
    r->set_name("wrap");
  } else if (script.path.empty()) {
    r->set_name("sbatch");
  } else {
    r->set_name(SbatchBaseName(script.path));
  }
  for (const std::string& part : o.partitions) r->add_partitions(part);
  r->set_min_nodes(o.min_nodes.value_or(0));
  r->set_max_nodes(o.max_nodes.value_or(0));
  r->set_num_tasks(o.ntasks.value_or(0));
  r->set_ntasks_per_node(o.ntasks_per_node.value_or(0));
  r->set_cpus_per_task(o.cpus_per_task.value_or(0));
  r->set_mem_per_node_mb(o.mem_mb.value_or(0));
  r->set_mem_per_cpu_mb(o.mem_per_cpu_mb.value_or(0));
  r->set_time_limit_min(o.time_limit_min.value_or(0));
  r->set_time_min_min(o.time_min_min.value_or(0));
  r->set_submit_dir(ctx.cwd);
  r->set_work_dir(o.chdir ? Absolute(*o.chdir, ctx.cwd) : ctx.cwd);
  r->set_std_in(o.input.value_or(""));
  r->set_std_out(o.output.value_or(""));
  r->set_std_err(o.error.value_or(""));
  r->set_hold(o.hold);
  r->set_account(o.account.value_or(""));
  r->set_qos(o.qos.value_or(""));
  r->set_comment(o.comment.value_or(""));
  r->set_nice(o.nice.value_or(0));
  r->set_begin_time(o.begin.value_or(0));
  r->set_dependency(o.dependency.value_or(""));
  r->set_array(o.array.value_or(""));
  r->set_req_nodes(o.nodelist.value_or(""));
  r->set_exc_nodes(o.exclude.value_or(""));
  r->set_features(o.constraint.value_or(""));
  r->set_exclusive(o.exclusive);
  r->set_requeue(o.requeue);
  r->set_gres(o.gres.value_or(""));
  r->set_submit_host(ctx.hostname);
  r->set_alloc_sid(ctx.sid);
  r->set_mail_type(o.mail_type.value_or(""));
  r->set_mail_user(o.mail_user.value_or(""));
  r->set_command(script.wrap || script.path.empty() ? "" : Absolute(script.path, ctx.cwd));
  r->set_kill_on_invalid_dep(o.kill_on_invalid_dep);
  r->set_wrap(script.wrap);
  const std::string export_spec = o.export_env.value_or("ALL");
  r->set_export_env(export_spec);

  std::vector<std::string> env = ctx.environment;
  SetVar(&env, "SLURM_PRIO_PROCESS", std::to_string(ctx.prio_process));
  SetVar(&env, "SLURM_SUBMIT_DIR", ctx.cwd);
  SetVar(&env, "SLURM_SUBMIT_HOST", ctx.hostname);
  SetVar(&env, "SLURM_UMASK", Octal(ctx.umask), /*overwrite=*/false);
  if (o.export_env) SetVar(&env, "SLURM_EXPORT_ENV", *o.export_env);
  std::vector<std::string> exported = BatchEnvironment(env, export_spec);
  for (const std::string& entry : o.export_file_env) {
    const size_t eq = entry.find('=');
    SetVar(&exported, entry.substr(0, eq), entry.substr(eq + 1));
  }
  for (const std::string& entry : exported) p->add_environment(entry);
  r->set_open_append(o.open_append);
  r->set_warn_signal(o.warn_signal);
  r->set_warn_seconds(o.warn_seconds);
  r->set_warn_batch_only(o.warn_batch_only);
  p->set_script(script.text);
  p->set_export_spec(export_spec);
  for (const std::string& arg : script.args) p->add_argv(arg);
  return submit;
}

int RunSbatch(const std::vector<std::string>& args, CommandContext& ctx) {
  const TimeZone& tz = ctx.time_zone ? *ctx.time_zone : TimeZone::Utc();
  const ParsedArgs first = ParseArgs(ctx.argv0, args, SbatchShortOptions(), SbatchLongOptions(),
                                     ArgOrder::kRequireOrder);
  // Options before a getopt error still take effect first, as in Slurm's first pass.
  SbatchOptions scratch;
  for (const ParsedOption& o : first.options) {
    if (o.id == kOptHelp) {
      *ctx.out << kSbatchHelp;
      return 0;
    }
    if (o.id == kOptUsage) {
      *ctx.out << kSbatchUsage;
      return 0;
    }
    if (o.id == kOptVersion) {
      *ctx.out << kVersionLine;
      return 0;
    }
    const OptionResult r = ApplySbatchOption(&scratch, o.id, o.value, ctx.now, tz);
    if (!r.ok) return Report(ctx, r);
  }
  if (!first.error.empty()) {
    ReportUsageError(ctx, "sbatch", first.error);
    return 255;
  }

  BatchScript script;
  if (scratch.wrap) {
    if (!first.operands.empty()) {
      *ctx.err << "sbatch: error: Script arguments not permitted with --wrap option\n";
      return 1;
    }
    script.wrap = true;
    script.text = WrapScript(*scratch.wrap);
  } else if (!first.operands.empty()) {
    script.path = first.operands[0];
    script.args.assign(first.operands.begin() + 1, first.operands.end());
    std::ifstream in(script.path, std::ios::binary);
    if (!in) {
      *ctx.err << "sbatch: error: Unable to open file " << script.path << "\n";
      return 1;
    }
    std::ostringstream text;
    text << in.rdbuf();
    script.text = text.str();
  } else if (ctx.in != nullptr) {
    script.text.assign(std::istreambuf_iterator<char>(*ctx.in), std::istreambuf_iterator<char>());
  }
  if (std::vector<std::string> problems = CheckBatchScript(script.text); !problems.empty()) {
    PrintErrorLines(ctx, problems);
    return 1;
  }

  Result<Directives> directives =
      ScanDirectives(script.text, script.path.empty() ? "(null)" : script.path);
  if (!directives.ok()) {
    *ctx.err << "sbatch: fatal: " << directives.status().message() << "\n";
    return 1;
  }
  PrintErrorLines(ctx, directives->warnings);

  // Script directives, then SBATCH_* variables, then the command line: later wins.
  SbatchOptions options;
  const ParsedArgs from_script = ParseArgs("sbatch", directives->args, SbatchShortOptions(),
                                           SbatchLongOptions(), ArgOrder::kRequireOrder);
  for (const ParsedOption& o : from_script.options) {
    if (o.id == kOptWrap || o.id == kOptHelp || o.id == kOptUsage || o.id == kOptVersion) {
      continue;
    }
    const OptionResult r = ApplySbatchOption(&options, o.id, o.value, ctx.now, tz);
    if (!r.ok) return Report(ctx, r);
  }
  if (!from_script.error.empty()) {
    ReportUsageError(ctx, "sbatch", from_script.error);
    return 255;
  }
  for (const SbatchEnvVar& var : SbatchEnvVars()) {
    std::optional<std::string> value = ctx.GetEnv(var.variable);
    if (!value || Unsupported(var.option_id)) continue;
    if (std::string_view("aMSmkOW").find(static_cast<char>(var.option_id)) !=
        std::string_view::npos) {
      continue;  // options not implemented yet: ignored when they come from the environment
    }
    const OptionResult r = ApplySbatchOption(&options, var.option_id, *value, ctx.now, tz);
    if (!r.ok) return Report(ctx, r);
  }
  for (const ParsedOption& o : first.options) {
    (void)ApplySbatchOption(&options, o.id, o.value, ctx.now, tz);
  }
  if (const OptionResult r = VerifySbatchOptions(options); !r.ok) {
    *ctx.err << "sbatch: fatal: " << r.message << "\n";
    return r.exit_code;
  }
  ResolveGpuOptions(&options);

  if (options.export_file) {
    Result<std::string> content = ReadExportFile(*options.export_file, ctx.cwd);
    if (!content.ok()) {
      *ctx.err << "sbatch: error: Could not open user environment file " << *options.export_file
               << "\n";
      return 1;
    }
    options.export_file_env = ParseExportFile(*content);
  }

  v1::SubmitJobRequest request = BuildSubmitRequest(options, script, ctx);
  request.set_test_only(options.test_only);
  std::unique_ptr<ControllerClient> client =
      ConnectOrReport(ctx, "sbatch", "sbatch: error: Batch job submission failed: ");
  if (!client) return 1;
  Result<v1::SubmitJobReply> reply = client->SubmitJob(request);
  // A full queue (MaxJobCount) is worth waiting for, as sbatch does: one message, then 1, 2,
  // ... 15 s between 15 more tries.
  for (int retry = 1; !reply.ok() && reply.status().code() == StatusCode::kResourceExhausted &&
                      !options.test_only && retry <= 15;
       ++retry) {
    if (retry == 1) {
      *ctx.err << "sbatch: error: Slurm temporarily unable to accept job, sleeping and retrying\n";
    }
    std::this_thread::sleep_for(std::chrono::seconds(retry));
    reply = client->SubmitJob(request);
  }
  if (!reply.ok()) {
    // The controller may put Slurm's detail lines before the error text, one per line.
    const std::string message = reply.status().message();
    std::vector<std::string_view> lines = text::Split(message, '\n');
    for (size_t i = 0; i + 1 < lines.size(); ++i) {
      if (!lines[i].empty()) *ctx.err << "sbatch: error: " << lines[i] << "\n";
    }
    if (options.test_only) {
      *ctx.err << "allocation failure: " << lines.back() << "\n";
    } else {
      *ctx.err << "sbatch: error: Batch job submission failed: " << lines.back() << "\n";
    }
    return 1;
  }
  if (options.test_only) {
    if (!options.quiet) {
      std::vector<std::string> nodes(reply->nodes().begin(), reply->nodes().end());
      *ctx.err << "sbatch: Job " << reply->job_id() << " to start at "
               << text::FormatIsoTime(reply->start_time(), tz) << " using " << reply->num_cpus()
               << " processors on nodes " << text::CompressHostlist(nodes) << " in partition "
               << reply->partition() << "\n";
    }
    return 0;
  }
  if (!options.quiet) {
    for (const std::string& w : reply->warnings()) *ctx.err << "sbatch: warning: " << w << "\n";
    if (options.parsable) {
      *ctx.out << reply->job_id() << "\n";
    } else {
      *ctx.out << "Submitted batch job " << reply->job_id() << "\n";
    }
  }
  if (!options.wait) return 0;
  ctx.out->flush();
  return WaitForJob(*client, reply->job_id(), ctx);
}

}  // namespace gantry::slurm
