#include "slurm/openapi_json.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <vector>

#include "model/job_state.h"
#include "model/node_state.h"
#include "slurm/scontrol_show.h"
#include "slurm_view/job_view.h"
#include "text/array_spec.h"
#include "text/ascii.h"

namespace gantry::slurm {
namespace {

using Json = nlohmann::ordered_json;

void AppendString(std::string* out, const std::string& s) {
  *out += '"';
  for (const char c : s) {
    switch (c) {
      case '"':
        *out += "\\\"";
        break;
      case '\\':
        *out += "\\\\";
        break;
      case '/':
        *out += "\\/";
        break;
      case '\b':
        *out += "\\b";
        break;
      case '\f':
        *out += "\\f";
        break;
      case '\n':
        *out += "\\n";
        break;
      case '\r':
        *out += "\\r";
        break;
      case '\t':
        *out += "\\t";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof(buf), "\\u%04x", static_cast<unsigned>(c));
          *out += buf;
        } else {
          *out += c;
        }
    }
  }
  *out += '"';
}

void AppendValue(std::string* out, const Json& v, int indent) {
  const std::string pad(static_cast<size_t>(indent) + 2, ' ');
  switch (v.type()) {
    case Json::value_t::object: {
      *out += "{\n";
      bool first = true;
      for (const auto& [key, member] : v.items()) {
        if (!first) *out += ",\n";
        first = false;
        *out += pad;
        AppendString(out, key);
        *out += ": ";
        AppendValue(out, member, indent + 2);
      }
      *out += (first ? "" : "\n") + std::string(static_cast<size_t>(indent), ' ') + "}";
      break;
    }
    case Json::value_t::array: {
      *out += "[\n";
      bool first = true;
      for (const Json& element : v) {
        if (!first) *out += ",\n";
        first = false;
        *out += pad;
        AppendValue(out, element, indent + 2);
      }
      *out += (first ? "" : "\n") + std::string(static_cast<size_t>(indent), ' ') + "]";
      break;
    }
    case Json::value_t::string:
      AppendString(out, v.get<std::string>());
      break;
    case Json::value_t::boolean:
      *out += v.get<bool>() ? "true" : "false";
      break;
    case Json::value_t::number_integer:
      *out += std::to_string(v.get<int64_t>());
      break;
    case Json::value_t::number_unsigned:
      *out += std::to_string(v.get<uint64_t>());
      break;
    case Json::value_t::number_float: {
      char buf[64];
      std::snprintf(buf, sizeof(buf), "%.17g", v.get<double>());
      std::string text = buf;
      if (text.find_first_of(".eEn") == std::string::npos) text += ".0";
      *out += text;
      break;
    }
    default:
      *out += "null";
  }
}

// Slurm's null for an unset count, else the value.
Json OpenapiJsonOrNull(uint64_t value, bool set) { return set ? Json(value) : Json(nullptr); }

// "billing=N" of a TRES string; nullopt when absent.
std::optional<uint64_t> Billing(const std::string& tres) {
  size_t at = 0;
  while (at < tres.size()) {
    size_t end = tres.find(',', at);
    if (end == std::string::npos) end = tres.size();
    const std::string item = tres.substr(at, end - at);
    if (item.rfind("billing=", 0) == 0) {
      uint64_t n = 0;
      for (char c : item.substr(8)) {
        if (!text::IsAsciiDigit(c)) return std::nullopt;
        n = n * 10 + static_cast<uint64_t>(c - '0');
      }
      return n;
    }
    at = end + 1;
  }
  return std::nullopt;
}

const v1::Node* FindNode(const std::vector<const v1::Node*>& nodes, const std::string& name) {
  for (const v1::Node* n : nodes) {
    if (n->name() == name) return n;
  }
  return nullptr;
}

Json JobResources(const v1::Job& job, const OpenapiJobContext& ctx) {
  const uint32_t hosts = static_cast<uint32_t>(job.nodes_size());
  const uint32_t cpus = CpuCount(job);
  Json res = Json::object();
  res["nodes"] = NodeList(job);
  res["allocated_cores"] = cpus;
  res["allocated_hosts"] = hosts;
  Json nodes = Json::array();
  const uint32_t per_node = hosts > 0 ? cpus / hosts : 0;
  for (const std::string& name : job.nodes()) {
    NodeTopology t;
    if (const v1::Node* n = FindNode(ctx.nodes, name)) {
      t = TopologyOf(*n);
    } else {
      t.cores = std::max<uint32_t>(1, per_node);
    }
    const uint32_t threads = std::max<uint32_t>(1, t.threads);
    uint32_t cores_left = (per_node + threads - 1) / threads;
    Json sockets = Json::object();
    for (uint32_t s = 0; s < t.sockets && cores_left > 0; ++s) {
      Json cores = Json::object();
      for (uint32_t c = 0; c < t.cores && cores_left > 0; ++c, --cores_left) {
        cores[std::to_string(c)] = "allocated";
      }
      sockets[std::to_string(s)]["cores"] = std::move(cores);
    }
    Json node = Json::object();
    node["sockets"] = std::move(sockets);
    node["nodename"] = name;
    node["cpus_used"] = 0;
    node["memory_used"] = 0;
    node["memory_allocated"] = hosts > 0 ? job.alloc_mem_mb() / hosts : 0;
    nodes.push_back(std::move(node));
  }
  res["allocated_nodes"] = std::move(nodes);
  return res;
}

uint64_t RawExit(int32_t status) { return status < 0 ? 0 : static_cast<uint64_t>(status); }

}  // namespace

std::string DumpSlurmJson(const Json& value) {
  std::string out;
  AppendValue(&out, value, 0);
  return out;
}

Json OpenapiDocument() {
  Json doc = Json::object();
  Json& meta = doc["meta"];
  meta["plugin"]["type"] = "openapi/v0.0.38";
  meta["plugin"]["name"] = "Slurm OpenAPI v0.0.38";
  meta["Slurm"]["version"]["major"] = 22;
  meta["Slurm"]["version"]["micro"] = 8;
  meta["Slurm"]["version"]["minor"] = 5;
  meta["Slurm"]["release"] = "22.05.8";
  doc["errors"] = Json::array();
  return doc;
}

Json JobToOpenapi(const v1::Job& job, const OpenapiJobContext& ctx) {
  const v1::JobRequest& r = job.request();
  const bool pending = IsPendingJob(job);
  const bool started = !pending && job.start_time() != 0;
  const std::string tres = Tres(job);
  const uint32_t limit = job.time_limit_min();
  Json j = Json::object();
  j["account"] = r.account();
  j["accrue_time"] = job.accrue_time();
  j["admin_comment"] = "";
  // Job arrays: a task has its id; the array's record lists its pending tasks.
  j["array_job_id"] = job.array_job_id();
  if (job.has_array_task_id()) {
    j["array_task_id"] = job.array_task_id();
  } else {
    j["array_task_id"] = nullptr;
  }
  j["array_max_tasks"] = job.array_task_throttle();
  j["array_task_string"] =
      job.array_job_id() != 0 && !job.has_array_task_id()
          ? text::FormatTaskIds(std::vector<uint32_t>(job.array_pending_tasks().begin(),
                                                      job.array_pending_tasks().end()))
          : std::string();
  j["association_id"] = 0;
  j["batch_features"] = "";
  j["batch_flag"] = job.batch_flag();
  j["batch_host"] = started && job.nodes_size() > 0 ? job.nodes(0) : std::string();
  j["flags"] = started ? Json::array({"JOB_ACCRUE_OVER", "JOB_WAS_RUNNING"}) : Json::array();
  j["burst_buffer"] = "";
  j["burst_buffer_state"] = "";
  j["cluster"] = ctx.cluster;
  j["cluster_features"] = "";
  j["command"] = r.command();
  j["comment"] = r.comment();
  j["container"] = "";
  j["contiguous"] = false;
  j["core_spec"] = nullptr;
  j["thread_spec"] = nullptr;
  j["cores_per_socket"] = nullptr;
  const std::optional<uint64_t> billing = started ? Billing(tres) : std::nullopt;
  j["billable_tres"] = billing ? Json(static_cast<double>(*billing)) : Json(nullptr);
  j["cpus_per_task"] = OpenapiJsonOrNull(r.cpus_per_task(), r.cpus_per_task() > 0);
  j["cpu_frequency_minimum"] = nullptr;
  j["cpu_frequency_maximum"] = nullptr;
  j["cpu_frequency_governor"] = nullptr;
  j["cpus_per_tres"] = "";
  j["deadline"] = 0;
  j["delay_boot"] = 0;
  j["dependency"] = DependencyText(job) == "(null)" ? std::string() : DependencyText(job);
  j["derived_exit_code"] = RawExit(job.derived_exit_status());
  j["eligible_time"] = job.eligible_time();
  j["end_time"] = job.end_time();
  j["excluded_nodes"] = r.exc_nodes();
  j["exit_code"] = RawExit(job.exit_status());
  j["features"] = r.features();
  j["federation_origin"] = "";
  j["federation_siblings_active"] = "";
  j["federation_siblings_viable"] = "";
  j["gres_detail"] = Json::array();
  j["group_id"] = job.group_id();
  j["group_name"] = GroupLabel(job);
  j["job_id"] = job.job_id();
  if (started && job.nodes_size() > 0) j["job_resources"] = JobResources(job, ctx);
  j["job_state"] = std::string(model::JobStateName(StateOf(job)));
  j["last_sched_evaluation"] = job.last_sched_eval();
  j["licenses"] = "";
  j["max_cpus"] = 0;
  j["max_nodes"] = r.max_nodes();
  j["mcs_label"] = "";
  j["memory_per_tres"] = "";
  j["name"] = r.name();
  j["nodes"] = NodeList(job);
  j["nice"] = r.nice() != 0 ? Json(r.nice()) : Json(nullptr);
  j["tasks_per_core"] = nullptr;
  j["tasks_per_node"] = r.ntasks_per_node();
  j["tasks_per_socket"] = nullptr;
  j["tasks_per_board"] = 0;
  j["cpus"] = CpuCount(job);
  j["node_count"] = NodeCount(job);
  j["tasks"] = TaskCount(job);
  j["het_job_id"] = 0;
  j["het_job_id_set"] = "";
  j["het_job_offset"] = 0;
  j["partition"] = job.partition();
  j["prefer"] = "";
  j["memory_per_node"] = OpenapiJsonOrNull(r.mem_per_node_mb(), r.mem_per_node_mb() > 0);
  j["memory_per_cpu"] = OpenapiJsonOrNull(r.mem_per_cpu_mb(), r.mem_per_cpu_mb() > 0);
  j["minimum_cpus_per_node"] = std::max<uint32_t>(1, r.cpus_per_task());
  j["minimum_tmp_disk_per_node"] = 0;
  j["preempt_time"] = job.preempt_time();
  j["pre_sus_time"] = job.pre_suspend_secs();
  j["priority"] = job.priority();
  j["profile"] = nullptr;
  j["qos"] = r.qos();
  j["reboot"] = false;
  j["required_nodes"] = r.req_nodes();
  j["requeue"] = job.requeue();
  j["resize_time"] = 0;
  j["restart_cnt"] = job.restarts();
  j["resv_name"] = "";
  j["shared"] = nullptr;
  j["show_flags"] = Json::array({"SHOW_ALL", "SHOW_DETAIL", "SHOW_LOCAL"});
  j["sockets_per_board"] = 0;
  j["sockets_per_node"] = nullptr;
  j["start_time"] = job.start_time();
  j["state_description"] = job.state_desc();
  j["state_reason"] = job.reason().empty() ? std::string("None") : job.reason();
  j["standard_error"] = r.std_err();
  j["standard_input"] = r.std_in().empty() ? std::string("/dev/null") : r.std_in();
  j["standard_output"] = r.std_out();
  j["submit_time"] = job.submit_time();
  j["suspend_time"] = job.suspend_time();
  j["system_comment"] = "";
  j["time_limit"] = OpenapiJsonOrNull(limit, limit != 0 && limit != kInfiniteMinutes);
  j["time_minimum"] = r.time_min_min();
  j["threads_per_core"] = nullptr;
  j["tres_bind"] = "";
  j["tres_freq"] = "";
  j["tres_per_job"] = "";
  j["tres_per_node"] = r.gres();
  j["tres_per_socket"] = "";
  j["tres_per_task"] = "";
  j["tres_req_str"] = tres;
  j["tres_alloc_str"] = started ? tres : std::string();
  j["user_id"] = job.user_id();
  j["user_name"] = UserLabel(job);
  j["wckey"] = "";
  j["current_working_directory"] = r.work_dir();
  return j;
}

Json NodeToOpenapi(const v1::Node& node, const OpenapiNodeContext& ctx) {
  const NodeTopology t = TopologyOf(node);
  const model::NodeState state = NodeDisplayState(node);
  std::string address = node.address();
  uint64_t port = 0;
  if (const size_t colon = address.rfind(':'); colon != std::string::npos) {
    for (char c : address.substr(colon + 1)) {
      if (text::IsAsciiDigit(c)) port = port * 10 + static_cast<uint64_t>(c - '0');
    }
    address.resize(colon);
  }
  Json flags = Json::array();
  for (uint32_t bit = 1; bit != 0; bit <<= 1) {
    if ((state.flags & bit) != 0) {
      flags.push_back(std::string(model::NodeFlagName(static_cast<model::NodeFlag>(bit))));
    }
  }
  std::string gres_used;
  if (!node.gres().empty()) {
    const uint64_t used = GresCount(node.alloc_gres());
    gres_used = GresName(node.gres()) + ":" + std::to_string(used);
    if (used > 0) gres_used += "(IDX:" + (used == 1 ? "0" : "0-" + std::to_string(used - 1)) + ")";
  }
  Json n = Json::object();
  n["architecture"] = node.arch();
  n["burstbuffer_network_address"] = "";
  n["boards"] = 1;
  n["boot_time"] = node.host_boot_time();
  n["comment"] = "";
  n["cores"] = t.cores;
  n["cpu_binding"] = 0;
  n["cpu_load"] = node.has_cpu_load() ? node.cpu_load() : 0;
  n["extra"] = "";
  n["free_memory"] = node.has_free_mem_mb() ? node.free_mem_mb() : 0;
  n["cpus"] = node.cpus();
  n["last_busy"] = node.last_busy_time();
  n["features"] = node.features();
  n["active_features"] = node.features();
  n["gres"] = node.gres();
  n["gres_drained"] = "N/A";
  n["gres_used"] = gres_used;
  n["mcs_label"] = "";
  n["name"] = node.name();
  n["next_state_after_reboot"] = "invalid";
  n["address"] = address.empty() ? node.name() : address;
  n["hostname"] = node.hostname().empty() ? node.name() : node.hostname();
  n["state"] = text::AsciiToLower(model::NodeBaseStateName(state.base));
  n["state_flags"] = std::move(flags);
  n["next_state_after_reboot_flags"] = Json::array();
  n["operating_system"] = node.os();
  n["owner"] = nullptr;
  n["partitions"] = Json::array();
  for (const std::string& p : node.partitions()) n["partitions"].push_back(p);
  n["port"] = port;
  n["real_memory"] = node.real_memory_mb();
  n["reason"] = node.reason();
  n["reason_changed_at"] = node.reason().empty() ? 0 : node.reason_time();
  if (node.reason().empty()) {
    n["reason_set_by_user"] = nullptr;
  } else {
    std::optional<std::string> name =
        ctx.user_name ? ctx.user_name(node.reason_uid()) : std::nullopt;
    n["reason_set_by_user"] = name ? *name : std::to_string(node.reason_uid());
  }
  n["slurmd_start_time"] = node.boot_time();
  n["sockets"] = t.sockets;
  n["threads"] = t.threads;
  n["temporary_disk"] = 0;
  n["weight"] = 1;
  n["tres"] = NodeCfgTres(node);
  n["slurmd_version"] = node.version();
  n["alloc_memory"] = node.alloc_mem_mb();
  n["alloc_cpus"] = node.alloc_cpus();
  n["idle_cpus"] = node.cpus() > node.alloc_cpus() ? node.cpus() - node.alloc_cpus() : 0;
  const std::string used = NodeAllocTres(node);
  n["tres_used"] = used.empty() ? Json(nullptr) : Json(used);
  n["tres_weighted"] = static_cast<double>(node.alloc_cpus());
  return n;
}

}  // namespace gantry::slurm
