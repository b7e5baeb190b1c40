#include "rest/job_desc.h"

#include <set>

#include "slurm/command_context.h"
#include "slurm/sbatch.h"
#include "slurm/sbatch_options.h"

namespace gantry::rest {
namespace {

using nlohmann::json;
using namespace slurm;  // NOLINT(google-build-using-namespace): sbatch's option ids

// Members that change nothing on a Gantry cluster: accepted with a warning.
const std::set<std::string>& Ignored() {
  static const auto* ignored = new std::set<std::string>{"account_gather_frequency",
                                                         "admin_comment",
                                                         "allocation_node_list",
                                                         "allocation_node_port",
                                                         "cpu_binding",
                                                         "cpu_binding_flags",
                                                         "cpu_frequency",
                                                         "clusters",
                                                         "profile",
                                                         "power_flags",
                                                         "reserve_ports",
                                                         "selinux_context",
                                                         "spank_environment",
                                                         "rlimits",
                                                         "wait_all_nodes",
                                                         "kill_on_node_fail",
                                                         "memory_binding",
                                                         "memory_binding_type",
                                                         "distribution",
                                                         "distribution_plane_size",
                                                         "site_factor",
                                                         "oom_kill_step",
                                                         "batch_features",
                                                         "flags",
                                                         "group_id",
                                                         "user_id",
                                                         "immediate",
                                                         "overcommit"};
  return *ignored;
}

// Reads members into option texts and applies them with sbatch's code.
class Translator {
 public:
  Translator(const json& job, std::string source, const SubmitterContext& ctx,
             JobDescResult* result)
      : job_(job), source_(std::move(source)), ctx_(ctx), result_(result) {}

  void Run() {
    for (const auto& [name, value] : job_.items()) {
      if (!Known(name)) {
        if (Ignored().contains(name)) {
          Warn(name, "not used by Gantry: ignored");
        } else {
          Error(name, "is not supported by Gantry");
        }
        continue;
      }
      if (value.is_null()) continue;
      Member(name, value);
    }
    if (!result_->errors.empty()) return;
    if (!job_.contains("current_working_directory")) {
      Error("current_working_directory", "is required (the job's working directory)");
    }
    if (!ctx_.allocation && !job_.contains("environment")) {
      Error("environment", "is required (the job's environment, \"NAME=value\" strings)");
    }
    if (!ctx_.allocation && script_.text.empty()) {
      Error("script", "is required (the batch script)");
    }
    if (!result_->errors.empty()) return;
    const OptionResult verified = VerifySbatchOptions(options_);
    if (!verified.ok) {
      Error("", verified.message);
      return;
    }
    ResolveGpuOptions(&options_);
    CommandContext command;
    command.cwd = cwd_;
    command.hostname = ctx_.hostname;
    command.environment = environment_;
    command.now = ctx_.now;
    options_.export_env = "ALL";
    result_->request = BuildSubmitRequest(options_, script_, command);
    // slurmrestd adds nothing to the environment it is given but what Slurm sets for any job.
    result_->request.mutable_request()->set_export_env("ALL");
    if (ctx_.allocation) {
      result_->request.mutable_request()->set_allocation_only(true);
      result_->request.mutable_payload()->clear_script();
    }
  }

 private:
  static bool Known(const std::string& name) {
    static const std::set<std::string> kKnown = {"script",
                                                 "name",
                                                 "account",
                                                 "partition",
                                                 "qos",
                                                 "comment",
                                                 "argv",
                                                 "environment",
                                                 "current_working_directory",
                                                 "standard_output",
                                                 "standard_error",
                                                 "standard_input",
                                                 "open_mode",
                                                 "nodes",
                                                 "minimum_nodes",
                                                 "maximum_nodes",
                                                 "tasks",
                                                 "tasks_per_node",
                                                 "cpus_per_task",
                                                 "memory_per_node",
                                                 "memory_per_cpu",
                                                 "time_limit",
                                                 "time_minimum",
                                                 "begin_time",
                                                 "nice",
                                                 "hold",
                                                 "dependency",
                                                 "array",
                                                 "constraints",
                                                 "required_nodes",
                                                 "excluded_nodes",
                                                 "shared",
                                                 "requeue",
                                                 "mail_type",
                                                 "mail_user",
                                                 "tres_per_node",
                                                 "tres_per_task",
                                                 "tres_per_job",
                                                 "cpus_per_tres",
                                                 "memory_per_tres",
                                                 "kill_warning_signal",
                                                 "kill_warning_delay",
                                                 "kill_warning_flags",
                                                 "priority"};
    return kKnown.contains(name);
  }

  std::string Where(const std::string& name) const {
    return name.empty() ? source_ : source_ + "/" + name;
  }
  void Error(const std::string& name, const std::string& rule) {
    result_->errors.push_back({name.empty() ? rule : name + ": " + rule,
                               9201 /* ESLURM_REST_INVALID_JOBS_DESC */, "Invalid job description",
                               Where(name)});
  }
  void Warn(const std::string& name, const std::string& what) {
    result_->warnings.push_back({name + ": " + what, Where(name)});
  }

  // The value as option text: strings as they are, integers in decimal, no-value structs by
  // their number ("" when unset, "UNLIMITED" when infinite), lists joined by commas.
  std::optional<std::string> Text(const std::string& name, const json& value) {
    if (value.is_string()) return value.get<std::string>();
    if (value.is_number_integer()) return std::to_string(value.get<int64_t>());
    if (value.is_boolean()) return value.get<bool>() ? "true" : "false";
    if (value.is_object() && value.contains("number")) {
      if (value.value("infinite", false)) return "UNLIMITED";
      if (!value.value("set", true)) return "";
      return Text(name, value["number"]);
    }
    if (value.is_array()) {
      std::string joined;
      for (const json& item : value) {
        if (!item.is_string() && !item.is_number_integer()) {
          Error(name, "expected an array of strings");
          return std::nullopt;
        }
        if (!joined.empty()) joined += ',';
        joined += item.is_string() ? item.get<std::string>() : std::to_string(item.get<int64_t>());
      }
      return joined;
    }
    Error(name, std::string("expected a string or a number, got ") + value.type_name());
    return std::nullopt;
  }

  // Applies option `id` with `text`, reporting sbatch's error under the member's name.
  void Apply(const std::string& name, int id, const std::optional<std::string>& text) {
    if (!text || text->empty()) return;  // an unset number: as if not given
    const OptionResult applied =
        ApplySbatchOption(&options_, id, *text, ctx_.now,
                          ctx_.time_zone != nullptr ? *ctx_.time_zone : TimeZone::Utc());
    if (!applied.ok) Error(name, applied.message);
  }

  std::optional<std::vector<std::string>> Strings(const std::string& name, const json& value) {
    if (!value.is_array()) {
      Error(name, std::string("expected an array of strings, got ") + value.type_name());
      return std::nullopt;
    }
    std::vector<std::string> out;
    for (const json& item : value) {
      if (!item.is_string()) {
        Error(name, "expected an array of strings");
        return std::nullopt;
      }
      out.push_back(item.get<std::string>());
    }
    return out;
  }

  void Member(const std::string& name, const json& value) {
    if (name == "script") {
      if (ctx_.allocation) return;  // an allocation runs no script
      if (!value.is_string()) return Error(name, "expected a string");
      script_.text = value.get<std::string>();
    } else if (name == "argv") {
      if (auto argv = Strings(name, value)) script_.args = *argv;
    } else if (name == "environment") {
      if (auto env = Strings(name, value)) environment_ = *env;
    } else if (name == "current_working_directory") {
      if (!value.is_string() || value.get<std::string>().empty() ||
          value.get<std::string>()[0] != '/') {
        return Error(name, "expected an absolute path");
      }
      cwd_ = value.get<std::string>();
    } else if (name == "hold") {
      if (!value.is_boolean()) return Error(name, "expected true or false");
      options_.hold = value.get<bool>();
    } else if (name == "requeue") {
      if (!value.is_boolean()) return Error(name, "expected true or false");
      options_.requeue = value.get<bool>() ? 1 : 2;
    } else if (name == "shared") {
      const std::optional<std::string> text = Text(name, value);
      if (!text) return;
      if (*text == "none") {
        options_.exclusive = true;
      } else if (!text->empty()) {
        Error(name, R"(only "none" (--exclusive) is supported, not ")" + *text + "\"");
      }
    } else if (name == "priority") {
      const std::optional<std::string> text = Text(name, value);
      if (text && !text->empty()) {
        Error(name, "setting a priority at submission is for operators: use scontrol update");
      }
    } else if (name == "nodes") {
      Apply(name, 'N', Text(name, value));
    } else if (name == "minimum_nodes" || name == "maximum_nodes") {
      const std::optional<std::string> text = Text(name, value);
      if (!text) return;
      if (name == "minimum_nodes") minimum_nodes_ = *text;
      if (name == "maximum_nodes") maximum_nodes_ = *text;
      const std::string range = minimum_nodes_.empty()   ? maximum_nodes_
                                : maximum_nodes_.empty() ? minimum_nodes_
                                                         : minimum_nodes_ + "-" + maximum_nodes_;
      Apply(name, 'N', range);
    } else if (name == "time_limit" || name == "time_minimum") {
      // Minutes, as slurmrestd reads them (sbatch's -t reads a bare number as minutes too).
      Apply(name, name == "time_limit" ? int{'t'} : int{kOptTimeMin}, Text(name, value));
    } else if (name == "begin_time") {
      // Unix seconds.
      std::optional<std::string> text = Text(name, value);
      if (text && !text->empty()) {
        const int64_t t = std::strtoll(text->c_str(), nullptr, 10);
        if (t <= 0) return Error(name, "expected Unix seconds");
        options_.begin = t;
      }
    } else if (name == "memory_per_node" || name == "memory_per_cpu") {
      Apply(name, name == "memory_per_node" ? int{kOptMem} : int{kOptMemPerCpu}, Text(name, value));
    } else if (name == "tres_per_node" || name == "tres_per_task" || name == "tres_per_job") {
      std::optional<std::string> text = Text(name, value);
      if (!text || text->empty()) return;
      // "gres/gpu:4" as sbatch's gpu options read it.
      std::string gres = *text;
      if (gres.starts_with("gres/")) gres = gres.substr(5);
      if (gres.starts_with("gpu")) {
        std::string count = gres.substr(3);
        if (count.starts_with(":")) count = count.substr(1);
        if (name == "tres_per_node") Apply(name, kOptGpusPerNode, count);
        if (name == "tres_per_task") Apply(name, kOptGpusPerTask, count);
        if (name == "tres_per_job") Apply(name, 'G', count);
      } else if (name == "tres_per_node") {
        Apply(name, kOptGres, gres);
      } else {
        Error(name, "only GPUs (\"gres/gpu:N\") are supported here");
      }
    } else if (name == "cpus_per_tres" || name == "memory_per_tres") {
      std::optional<std::string> text = Text(name, value);
      if (!text || text->empty()) return;
      std::string per = *text;
      for (const char* prefix : {"gres/gpu:", "gres:gpu:", "gpu:"}) {
        if (per.starts_with(prefix)) per = per.substr(std::string(prefix).size());
      }
      Apply(name, name == "cpus_per_tres" ? int{kOptCpusPerGpu} : int{kOptMemPerGpu}, per);
    } else if (name == "kill_warning_signal" || name == "kill_warning_delay" ||
               name == "kill_warning_flags") {
      std::optional<std::string> text = Text(name, value);
      if (!text) return;
      if (name == "kill_warning_signal") warn_signal_ = *text;
      if (name == "kill_warning_delay") warn_delay_ = *text;
      if (name == "kill_warning_flags") warn_batch_ = text->find("BATCH_JOB") != std::string::npos;
      if (warn_signal_.empty()) return;
      Apply(name, kOptSignal,
            (warn_batch_ ? "B:" : "") + warn_signal_ +
                (warn_delay_.empty() ? "" : "@" + warn_delay_));
    } else {
      static const std::map<std::string, int> kOptionOf = {{"name", 'J'},
                                                           {"account", 'A'},
                                                           {"partition", 'p'},
                                                           {"qos", 'q'},
                                                           {"comment", kOptComment},
                                                           {"standard_output", 'o'},
                                                           {"standard_error", 'e'},
                                                           {"standard_input", 'i'},
                                                           {"open_mode", kOptOpenMode},
                                                           {"tasks", 'n'},
                                                           {"tasks_per_node", kOptNtasksPerNode},
                                                           {"cpus_per_task", 'c'},
                                                           {"nice", kOptNice},
                                                           {"dependency", 'd'},
                                                           {"array", 'a'},
                                                           {"constraints", 'C'},
                                                           {"required_nodes", 'w'},
                                                           {"excluded_nodes", 'x'},
                                                           {"mail_type", kOptMailType},
                                                           {"mail_user", kOptMailUser}};
      std::optional<std::string> text = Text(name, value);
      if (name == "open_mode" && text) {
        for (char& c : *text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      }
      Apply(name, kOptionOf.at(name), text);
    }
  }

  const json& job_;
  std::string source_;
  const SubmitterContext& ctx_;
  JobDescResult* result_;
  SbatchOptions options_;
  BatchScript script_;
  std::vector<std::string> environment_;
  std::string cwd_;
  std::string minimum_nodes_, maximum_nodes_;
  std::string warn_signal_, warn_delay_;
  bool warn_batch_ = false;
};

}  // namespace

JobDescResult SubmissionFromJobDesc(const json& job, const std::string& source,
                                    const SubmitterContext& ctx) {
  JobDescResult result;
  if (!job.is_object()) {
    result.errors.push_back(
        {std::string("expected a job description object, got ") + job.type_name(), 9201,
         "Invalid job description", source});
    return result;
  }
  Translator(job, source, ctx, &result).Run();
  return result;
}

}  // namespace gantry::rest
