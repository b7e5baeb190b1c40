// The /slurm/v0.0.42/ job routes: list, state, one job, submit, allocate, update, signal.
#include <nlohmann/json.hpp>
#include <thread>

#include "rest/job_desc.h"
#include "rest/job_json.h"
#include "rest/routes.h"
#include "slurm/command_util.h"
#include "slurm/slurm_errors.h"
#include "slurm_view/job_view.h"
#include "sys/system_time.h"
#include "text/ascii.h"
#include "wire/frame.h"

namespace gantry::rest {
namespace {

// A listing's jobs written on up to `parts` connections at once (gantryd splits the listing by
// id ranges), each part into its own text, then joined in order.
// Returns how many jobs it wrote.
Result<size_t> WriteJobList(slurm::ControllerClient& controller, const v1::GetJobsRequest& request,
                            const std::string& cluster, bool state_only, JsonOut& out) {
  const size_t parts = request.job_ids_size() == 0
                           ? std::clamp<size_t>(std::thread::hardware_concurrency(), 1, 8)
                           : 1;
  std::vector<JsonOut> texts(parts);
  std::vector<size_t> counts(parts, 0);
  std::vector<slurm::JobsReplyVisitor> visitors(parts);
  for (size_t i = 0; i < parts; ++i) {
    texts[i].BeginList();
    // Room for the part's jobs up front (a full job_info is ~4.5 KB): growing a buffer of tens
    // of megabytes by doubling cost more than writing the jobs.
    visitors[i].start = [&text = texts[i], parts, state_only](const slurm::JobsReplyHead& head) {
      const size_t bytes = head.jobs_at_most / parts * (state_only ? 64 : 4800) + 4096;
      text.Reserve(bytes);
      wire::AdviseHugePages(text.text().data(), bytes);
    };
    visitors[i].job = [&text = texts[i], &count = counts[i], &cluster,
                       state_only](const v1::Job& job) {
      const auto write = [&](const v1::Job& one) {
        ++count;
        if (state_only) {
          text.BeginObject().MemberInt("job_id", one.job_id());
          WriteJobStateArray(one, text);
          text.EndObject();
        } else {
          WriteJobInfo(one, cluster, text);
        }
      };
      // Only a pending array's record stands for several jobs: any other is written as it is,
      // not copied (the visitor runs once for each of a listing's 100k records).
      if (job.array_job_id() == 0 || job.has_array_task_id()) {
        write(job);
      } else {
        for (const v1::Job& task : slurm::ExpandArrayTasks(job)) write(task);
      }
      return Status::Ok();
    };
  }
  Result<slurm::JobsReplyHead> head = parts == 1 ? controller.ListJobs(request, visitors[0])
                                                 : controller.ListJobsInParts(request, visitors);
  if (!head.ok()) return head.status();
  const size_t used = parts == 1 || head->shards <= 1 ? 1 : std::min<size_t>(head->shards, parts);
  // "[" part "," part ... "]": the parts go out as they are, not copied into one string.
  out.Key("jobs").RawValue() += '[';
  bool any = false;
  size_t total = 0;
  for (size_t i = 0; i < used; ++i) {
    total += counts[i];
    if (counts[i] == 0) continue;
    if (any) out.text() += ',';
    out.Splice(std::move(texts[i].text()));
    any = true;
  }
  out.text() += ']';
  return total;
}

// A member's value as scontrol update's text.
std::optional<std::string> UpdateText(const nlohmann::json& value) {
  if (value.is_string()) return value.get<std::string>();
  if (value.is_number_integer()) return std::to_string(value.get<int64_t>());
  if (value.is_boolean()) return value.get<bool>() ? "yes" : "no";
  if (value.is_object() && value.contains("number")) {
    if (value.value("infinite", false)) return "UNLIMITED";
    return UpdateText(value["number"]);
  }
  if (value.is_array()) {
    std::string joined;
    for (const auto& item : value) {
      std::optional<std::string> one = UpdateText(item);
      if (!one) return std::nullopt;
      joined += (joined.empty() ? "" : ",") + *one;
    }
    return joined;
  }
  return std::nullopt;
}

void KillStatus(JsonOut& out, uint32_t job_id, int code, const std::string& text,
                const std::string& message) {
  out.BeginObject();
  out.Key("error")
      .BeginObject()
      .Member("string", text)
      .MemberInt("code", code)
      .Member("message", message)
      .EndObject();
  out.Member("step_id", "");
  out.Key("job_id").NoValNumber(job_id);
  out.Key("federation").BeginObject().Member("sibling", "").EndObject();
  out.EndObject();
}

void WriteListTimes(JsonOut& out) {
  const int64_t now = sys::SystemClock::Get().Now();
  out.Key("last_backfill").NoValNumber(now);
  out.Key("last_update").NoValNumber(now);
}

// The body as JSON; a 400/415 refusal otherwise.
std::optional<nlohmann::json> Body(const Call& call, Reply& reply) {
  const std::string type = call.request.Header("content-type").value_or("application/json");
  if (!type.starts_with("application/json")) {
    reply.Fail(415, {"Only application/json bodies are accepted", 9000, "Unknown MIME type", type});
    return std::nullopt;
  }
  nlohmann::json body = nlohmann::json::parse(call.request.body, nullptr, false);
  if (body.is_discarded()) {
    reply.Fail(400,
               {"The request body is not valid JSON", 9202, "Failure parsing request body", "#"});
    return std::nullopt;
  }
  return body;
}

void Submit(Call& call, Reply& reply, bool allocation) {
  std::optional<nlohmann::json> body = Body(call, reply);
  if (body) {
    if (!body->is_object() || body->contains("jobs") ||
        (body->contains("job") && !(*body)["job"].is_object())) {
      reply.Fail(400, {"expected {\"job\": {...}} (heterogeneous jobs are not supported)", 9201,
                       "Invalid job description", "#"});
      body.reset();
    }
  }
  if (body) {
    nlohmann::json job = body->value("job", nlohmann::json::object());
    if (!allocation && !job.contains("script") && body->contains("script")) {
      job["script"] = (*body)["script"];
    }
    JobDescResult desc = SubmissionFromJobDesc(job, "#/job",
                                               {call.config.hostname, sys::SystemClock::Get().Now(),
                                                &sys::LocalTimeZone::Get(), allocation});
    for (ApiWarning& w : desc.warnings) reply.Warn(std::move(w.description), std::move(w.source));
    for (ApiError& e : desc.errors) reply.Fail(400, std::move(e));
    if (!reply.failed()) {
      Result<v1::SubmitJobReply> submitted = call.controller->SubmitJob(desc.request);
      if (!submitted.ok()) {
        reply.Fail(submitted.status(), "Batch job submission failed", "#/job");
      } else {
        for (const std::string& w : submitted->warnings()) reply.Warn(w, "#/job");
        reply.out().MemberInt("job_id", submitted->job_id());
        if (!allocation) reply.out().Member("step_id", "batch");
        reply.out().Member("job_submit_user_msg", "");
        return;
      }
    }
  }
  if (allocation) {
    reply.out().MemberInt("job_id", 0).Member("job_submit_user_msg", "");
  }
}

}  // namespace

std::optional<uint32_t> JobIdOf(const Call& call, Reply& reply) {
  const std::string& text = call.Param("job_id");
  const std::optional<uint32_t> id = ParseJobId(text);
  if (!id) {
    reply.Fail(400, {"job_id \"" + text + "\" is not a job id", 2017, "Invalid job id specified",
                     "#/job_id"});
  }
  return id;
}

void ListJobs(Call& call, Reply& reply) {
  v1::GetJobsRequest request;
  const Result<size_t> listed = WriteJobList(*call.controller, request, call.config.cluster_name,
                                             /*state_only=*/false, reply.out());
  if (!listed.ok()) {
    reply.out().Key("jobs").BeginArray().EndArray();
    reply.Fail(listed.status(), "Unable to query jobs", "slurm_load_jobs");
  }
  WriteListTimes(reply.out());
}

void ListJobStates(Call& call, Reply& reply) {
  v1::GetJobsRequest request;
  request.set_brief(true);
  if (const std::optional<std::string> ids = call.request.Query("job_id")) {
    for (std::string_view id : text::Split(*ids, ',')) {
      const std::string one(id);
      const std::optional<uint32_t> parsed = ParseJobId(one);
      if (!parsed) {
        reply.out().Key("jobs").BeginArray().EndArray();
        WriteListTimes(reply.out());
        return reply.Fail(422, {"job_id \"" + one + "\" is not a job id", 2017,
                                "Invalid job id specified", "#/job_id"});
      }
      request.add_job_ids(*parsed);
    }
    request.set_include_all(true);
  }
  const Result<size_t> listed = WriteJobList(*call.controller, request, call.config.cluster_name,
                                             /*state_only=*/true, reply.out());
  if (!listed.ok()) {
    reply.out().Key("jobs").BeginArray().EndArray();
    reply.Fail(listed.status(), "Unable to query job states", "slurm_load_jobs");
  }
  WriteListTimes(reply.out());
}

void GetJob(Call& call, Reply& reply) {
  const std::optional<uint32_t> id = JobIdOf(call, reply);
  if (!id) {
    reply.out().Key("jobs").BeginArray().EndArray();
    return WriteListTimes(reply.out());
  }
  v1::GetJobsRequest request;
  request.add_job_ids(*id);
  request.set_include_all(true);
  // Written to the side: a refusal writes an empty list instead.
  JsonOut jobs;
  jobs.BeginObject();
  Result<size_t> listed = WriteJobList(*call.controller, request, call.config.cluster_name,
                                       /*state_only=*/false, jobs);
  if (listed.ok() && *listed == 0) listed = NotFound(slurm::kInvalidJobId);
  if (listed.ok()) {
    reply.out().RawValue().append(jobs.Take(), 1, std::string::npos);  // past its "{"
  } else {
    reply.out().Key("jobs").BeginArray().EndArray();
    reply.Fail(listed.status(), "Unable to query JobId=" + std::to_string(*id), "slurm_load_job");
  }
  WriteListTimes(reply.out());
}

void SubmitJob(Call& call, Reply& reply) { Submit(call, reply, /*allocation=*/false); }
void AllocateJob(Call& call, Reply& reply) { Submit(call, reply, /*allocation=*/true); }

// DELETE /job/{id}?signal=&flags=: scancel.
void SignalJob(Call& call, Reply& reply) {
  v1::SignalJobRequest request;
  request.add_job_ids(call.Param("job_id"));
  const std::string signal = call.request.Query("signal").value_or("");
  const std::string flags = call.request.Query("flags").value_or("");
  if (!signal.empty()) {
    const std::optional<int> number = slurm::ParseSignal(signal);
    if (!number) {
      reply.out().Key("status").BeginArray().EndArray();
      return reply.Fail(422, {"signal \"" + signal + "\" is not a signal name or number", -1,
                              "Invalid query", "#/signal"});
    }
    request.set_signal(*number);
  }
  request.set_batch_only(flags.find("BATCH_JOB") != std::string::npos);
  request.set_full(flags.find("FULL_JOB") != std::string::npos);
  Result<v1::SignalJobReply> signalled = call.controller->SignalJob(request);
  reply.out().Key("status").BeginArray();
  if (!signalled.ok()) {
    reply.out().EndArray();
    return reply.Fail(signalled.status(), "Unable to signal JobId=" + call.Param("job_id"),
                      "slurm_kill_job");
  }
  for (const v1::JobError& error : signalled->errors()) {
    const Status refused = StatusOfJobError(error);
    const int number = slurm::SlurmErrno(refused.message(), refused.code());
    KillStatus(reply.out(),
               static_cast<uint32_t>(std::strtoul(error.job_id().c_str(), nullptr, 10)), number,
               refused.message(), error.message());
    reply.Fail(refused, "Unable to signal JobId=" + error.job_id(), "slurm_kill_job");
  }
  for (const uint32_t id : signalled->signalled()) KillStatus(reply.out(), id, 0, "", "");
  reply.out().EndArray();
}

// POST /job/{id} (job_desc_msg): scontrol update JobId= with the members as its keys, and
// hold: true/false as scontrol hold/release.
void UpdateJob(Call& call, Reply& reply) {
  static const std::map<std::string, std::string> kKeyOf = {{"time_limit", "TimeLimit"},
                                                            {"time_minimum", "TimeMin"},
                                                            {"partition", "Partition"},
                                                            {"nice", "Nice"},
                                                            {"name", "JobName"},
                                                            {"comment", "Comment"},
                                                            {"qos", "QOS"},
                                                            {"account", "Account"},
                                                            {"priority", "Priority"},
                                                            {"dependency", "Dependency"},
                                                            {"required_nodes", "ReqNodeList"},
                                                            {"excluded_nodes", "ExcNodeList"},
                                                            {"tasks", "NumTasks"},
                                                            {"minimum_nodes", "NumNodes"},
                                                            {"constraints", "Features"},
                                                            {"requeue", "Requeue"},
                                                            {"cpus_per_task", "CPUsPerTask"},
                                                            {"mail_user", "MailUser"},
                                                            {"mail_type", "MailType"},
                                                            {"tres_per_node", "TresPerNode"}};
  reply.out().Key("results").BeginArray();
  const std::optional<uint32_t> id = JobIdOf(call, reply);
  const nlohmann::json body = nlohmann::json::parse(call.request.body, nullptr, false);
  if (id && !body.is_object()) {
    reply.Fail(400, {"the body is not a job description object", 9202,
                     "Failure parsing request body", "#"});
  }
  if (!id || reply.failed()) {
    reply.out().EndArray();
    return;
  }
  v1::UpdateJobRequest update;
  update.add_job_ids(std::to_string(*id));
  update.set_action("update");
  std::optional<bool> hold;
  for (const auto& [name, value] : body.items()) {
    if (name == "hold") {
      if (!value.is_boolean()) {
        reply.Fail(400,
                   {"hold: expected true or false", 9201, "Invalid job description", "#/hold"});
        continue;
      }
      hold = value.get<bool>();
      continue;
    }
    const auto key = kKeyOf.find(name);
    const std::optional<std::string> text = UpdateText(value);
    if (key == kKeyOf.end() || !text) {
      reply.Fail(400, {name + ": " +
                           (key == kKeyOf.end() ? "changing it is not supported by Gantry"
                                                : "expected a string or a number"),
                       9201, "Invalid job description", "#/" + name});
      continue;
    }
    std::string value_text = *text;
    if (name == "tres_per_node" && value_text.starts_with("gres/")) {
      value_text = value_text.substr(5);
    }
    (*update.mutable_fields())[key->second] = value_text;
  }
  const auto apply = [&](const v1::UpdateJobRequest& request) -> bool {
    Result<v1::UpdateJobReply> done = call.controller->UpdateJob(request);
    Status refused = done.status();
    if (done.ok() && done->errors_size() > 0) refused = StatusOfJobError(done->errors(0));
    if (!refused.ok()) {
      reply.out()
          .BeginObject()
          .MemberInt("job_id", *id)
          .Member("step_id", "")
          .Member("error", refused.message())
          .MemberInt("error_code", slurm::SlurmErrno(refused.message(), refused.code()))
          .Member("why", refused.message())
          .EndObject();
      reply.Fail(refused, "Unable to update JobId=" + std::to_string(*id), "slurm_update_job");
      return false;
    }
    return true;
  };
  bool ok = !reply.failed();
  if (ok && update.fields_size() > 0) ok = apply(update);
  if (ok && hold) {
    v1::UpdateJobRequest action;
    action.add_job_ids(std::to_string(*id));
    action.set_action(*hold ? "hold" : "release");
    ok = apply(action);
  }
  if (ok) {
    reply.out()
        .BeginObject()
        .MemberInt("job_id", *id)
        .Member("step_id", "")
        .Member("error", "")
        .MemberInt("error_code", 0)
        .Member("why", "")
        .EndObject();
  }
  reply.out().EndArray();
}

// DELETE /jobs (kill_jobs_msg): scancel with filters.
void SignalJobs(Call& call, Reply& reply) {
  const nlohmann::json body = nlohmann::json::parse(call.request.body, nullptr, false);
  reply.out().Key("status").BeginArray();
  if (!body.is_object()) {
    reply.out().EndArray();
    return reply.Fail(
        400, {"the body is not a kill_jobs_msg object", 9202, "Failure parsing request body", "#"});
  }
  v1::SignalJobRequest request;
  for (const auto& [name, value] : body.items()) {
    const std::optional<std::string> text = UpdateText(value);
    if (!text) {
      reply.out().EndArray();
      return reply.Fail(400, {name + ": expected a string or a list of strings", 9202,
                              "Invalid request", "#/" + name});
    }
    if (name == "jobs") {
      for (std::string_view id : text::Split(*text, ',')) request.add_job_ids(std::string(id));
    } else if (name == "signal") {
      const std::optional<int> number = slurm::ParseSignal(*text);
      if (!number) {
        reply.out().EndArray();
        return reply.Fail(400, {"signal: \"" + *text + "\" is not a signal", 9202,
                                "Invalid request", "#/signal"});
      }
      request.set_signal(*number);
    } else if (name == "account") {
      request.set_account(*text);
    } else if (name == "job_name") {
      request.set_name(*text);
    } else if (name == "partition") {
      request.set_partition(*text);
    } else if (name == "qos") {
      request.set_qos(*text);
    } else if (name == "user_name" || name == "user_id") {
      request.set_user(*text);
    } else if (name == "job_state") {
      for (std::string_view s : text::Split(*text, ',')) request.add_states(std::string(s));
    } else if (name == "nodes") {
      for (std::string_view n : text::Split(*text, ',')) request.add_nodes(std::string(n));
    } else if (name == "flags") {
      request.set_batch_only(text->find("BATCH_JOB") != std::string::npos);
      request.set_full(text->find("FULL_JOB") != std::string::npos);
    } else {
      reply.out().EndArray();
      return reply.Fail(400,
                        {name + ": not supported by Gantry", 9202, "Invalid request", "#/" + name});
    }
  }
  Result<v1::SignalJobReply> signalled = call.controller->SignalJob(request);
  if (!signalled.ok()) {
    reply.out().EndArray();
    return reply.Fail(signalled.status(), "Unable to signal jobs", "slurm_kill_jobs");
  }
  for (const v1::JobError& error : signalled->errors()) {
    const Status refused = StatusOfJobError(error);
    KillStatus(
        reply.out(), static_cast<uint32_t>(std::strtoul(error.job_id().c_str(), nullptr, 10)),
        slurm::SlurmErrno(refused.message(), refused.code()), refused.message(), error.message());
  }
  for (const uint32_t id : signalled->signalled()) KillStatus(reply.out(), id, 0, "", "");
  reply.out().EndArray();
}

}  // namespace gantry::rest
