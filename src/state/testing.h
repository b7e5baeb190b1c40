// Builders for tests of src/state and src/sched (and gantryd's): node, partition and job
// records and the events that change them, with small fixed defaults, and MustApply. Test-only;
// header-only.
#ifndef GANTRY_STATE_TESTING_H_
#define GANTRY_STATE_TESTING_H_

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "gantry/v1/events.pb.h"
#include "model/job_state.h"
#include "state/cluster_state.h"
#include "state/priority.h"
#include "state/records.h"

namespace gantry::state::testing {

// 2026-12-02T11:46:21Z, the anchor cluster's submit time.
inline constexpr int64_t kNow = 1796211981;

inline v1::Node MakeNode(const std::string& name, uint32_t cpus = 64, uint64_t mem_mb = 256000,
                         const std::string& gres = "gpu:8", const std::string& features = "") {
  v1::Node node;
  node.set_name(name);
  node.set_pool("gpu");
  node.set_cpus(cpus);
  node.set_real_memory_mb(mem_mb);
  node.set_gres(gres);
  node.set_features(features);
  return node;
}

inline v1::Partition MakePartition(const std::string& name, const std::vector<std::string>& nodes,
                                   bool is_default = false) {
  v1::Partition p;
  p.set_name(name);
  for (const std::string& node : nodes) p.add_nodes(node);
  p.set_is_default(is_default);
  p.set_state("UP");
  p.set_max_time_min(kUnlimited);
  p.set_priority_tier(1);
  p.set_priority_job_factor(1);
  p.set_max_nodes(kUnlimited);
  p.set_oversubscribe("NO");
  return p;
}

inline v1::Event ConfigEvent(const std::vector<v1::Node>& nodes,
                             const std::vector<v1::Partition>& partitions, int64_t time = kNow) {
  v1::Event e;
  e.set_time(time);
  for (const v1::Node& n : nodes) *e.mutable_config_loaded()->add_nodes() = n;
  for (const v1::Partition& p : partitions) *e.mutable_config_loaded()->add_partitions() = p;
  return e;
}

inline v1::Event RegisterEvent(const std::string& node, int64_t time = kNow) {
  v1::Event e;
  e.set_time(time);
  v1::NodeRegistered& r = *e.mutable_node_registered();
  r.set_node(node);
  r.set_address("127.0.0.1:7000");
  r.set_hostname("localhost");
  r.set_boot_time(time - 5);
  r.set_version("0.1.0");
  r.set_os("Linux");
  return e;
}

// A PENDING job record as AdmitJob makes it, for partition `partition`, -N nodes.
inline v1::Job PendingJob(uint32_t id, const std::string& partition = "batch", uint32_t nodes = 1,
                          int64_t submit_time = kNow) {
  v1::Job job;
  job.set_job_id(id);
  v1::JobRequest& r = *job.mutable_request();
  r.set_name("job" + std::to_string(id));
  r.add_partitions(partition);
  r.set_min_nodes(nodes);
  r.set_work_dir("/home/alice");
  job.set_user_id(1001);
  job.set_group_id(1001);
  job.set_user_name("alice");
  job.set_group_name("alice");
  SetJobState(&job, model::JobState{});
  job.set_reason("None");
  job.set_priority(kBasePriority);
  job.set_batch_flag(true);
  job.set_exit_status(-1);
  job.set_submit_time(submit_time);
  job.set_eligible_time(submit_time);
  job.set_accrue_time(submit_time);
  job.set_partition(partition);
  job.set_num_cpus(nodes);
  job.set_time_limit_min(60);
  job.set_requeue(true);
  return job;
}

// An array's record as gantryd stores it: PendingJob(id) with its pending tasks and throttle.
inline v1::Job PendingArray(uint32_t id, const std::vector<uint32_t>& tasks, uint32_t throttle = 0,
                            const std::string& partition = "batch", uint32_t nodes = 1) {
  v1::Job job = PendingJob(id, partition, nodes);
  job.set_array_job_id(id);
  for (uint32_t t : tasks) job.add_array_pending_tasks(t);
  job.set_array_task_throttle(throttle);
  return job;
}

inline v1::Event SplitEvent(uint32_t array_id, uint32_t task, uint32_t new_id,
                            int64_t time = kNow) {
  v1::Event e;
  e.set_time(time);
  e.mutable_job_array_split()->set_job_id(array_id);
  e.mutable_job_array_split()->set_task_id(task);
  e.mutable_job_array_split()->set_new_job_id(new_id);
  return e;
}

inline v1::Event SubmitEvent(const v1::Job& job, int64_t time = kNow) {
  v1::Event e;
  e.set_time(time);
  *e.mutable_job_submitted()->mutable_job() = job;
  return e;
}

inline v1::Event StartEvent(uint32_t id, const std::vector<std::string>& nodes, int64_t time = kNow,
                            uint32_t num_cpus = 0, uint64_t mem_mb = 0, uint32_t limit = 60,
                            const std::string& partition = "batch") {
  v1::Event e;
  e.set_time(time);
  v1::JobStarted& s = *e.mutable_job_started();
  s.set_job_id(id);
  s.set_partition(partition);
  for (const std::string& n : nodes) s.add_nodes(n);
  s.set_num_cpus(num_cpus);
  s.set_alloc_mem_mb(mem_mb);
  s.set_epoch(7);
  s.set_time_limit_min(limit);
  return e;
}

inline v1::Event EndEvent(uint32_t id, model::JobBaseState state, int64_t time = kNow,
                          int32_t exit_status = 0, const std::string& reason = "") {
  v1::Event e;
  e.set_time(time);
  v1::JobEnded& d = *e.mutable_job_ended();
  d.set_job_id(id);
  d.set_state(static_cast<uint32_t>(state));
  d.set_exit_status(exit_status);
  d.set_reason(reason);
  return e;
}

inline v1::Event ReleaseEvent(uint32_t id, const std::string& node, int64_t time = kNow,
                              bool epilog_failed = false, const std::string& message = "") {
  v1::Event e;
  e.set_time(time);
  v1::JobNodeReleased& r = *e.mutable_job_node_released();
  r.set_job_id(id);
  r.set_node(node);
  r.set_epilog_failed(epilog_failed);
  r.set_message(message);
  return e;
}

inline v1::Event RequeueEvent(uint32_t id, bool hold = false, const std::string& reason = "",
                              int64_t time = kNow) {
  v1::Event e;
  e.set_time(time);
  v1::JobRequeued& r = *e.mutable_job_requeued();
  r.set_job_id(id);
  r.set_hold(hold);
  r.set_reason(reason);
  return e;
}

inline v1::Event HoldEvent(uint32_t id, bool held, bool by_admin = false, int64_t time = kNow) {
  v1::Event e;
  e.set_time(time);
  v1::JobHoldChanged& h = *e.mutable_job_hold_changed();
  h.set_job_id(id);
  h.set_held(held);
  h.set_by_admin(by_admin);
  return e;
}

inline v1::Event UpdateEvent(const v1::Job& job, int64_t time = kNow) {
  v1::Event e;
  e.set_time(time);
  e.mutable_job_updated()->set_job_id(job.job_id());
  *e.mutable_job_updated()->mutable_job() = job;
  return e;
}

inline v1::Event PriorityEvent(uint32_t id, uint32_t priority, const std::string& reason = "",
                               int64_t time = kNow) {
  v1::Event e;
  e.set_time(time);
  e.mutable_job_priority_changed()->set_job_id(id);
  e.mutable_job_priority_changed()->set_priority(priority);
  e.mutable_job_priority_changed()->set_reason(reason);
  return e;
}

inline v1::Event NodeOpEvent(const std::vector<std::string>& nodes, const std::string& op,
                             const std::string& reason = "", int64_t time = kNow,
                             uint32_t uid = 0) {
  v1::Event e;
  e.set_time(time);
  v1::NodeStateChanged& c = *e.mutable_node_state_changed();
  for (const std::string& n : nodes) c.add_nodes(n);
  c.set_op(op);
  c.set_reason(reason);
  c.set_reason_uid(uid);
  return e;
}

inline v1::Event LostEvent(const std::string& node, int64_t time = kNow) {
  v1::Event e;
  e.set_time(time);
  e.mutable_node_lost()->set_node(node);
  return e;
}

// Node names "n1".."n<count>".
inline std::vector<std::string> NodeNames(int count, const std::string& prefix = "n") {
  std::vector<std::string> names;
  for (int i = 1; i <= count; ++i) names.push_back(prefix + std::to_string(i));
  return names;
}

// A cluster of `count` registered, IDLE nodes n1..n<count> (64 CPUs, 256000 MiB, gpu:8) in one
// default partition "batch", built through Apply.
// Applies `e`, failing the test (with the event) when Apply refuses it.
inline void MustApply(ClusterState* s, const v1::Event& e) {
  const Status status = Apply(s, e);
  ASSERT_TRUE(status.ok()) << status.ToString() << "\n" << e.DebugString();
}

// Associations of LabTeamAlice().
inline constexpr uint32_t kLabAssociation = 11;
inline constexpr uint32_t kTeamAssociation = 12;
inline constexpr uint32_t kAliceAssociation = 13;

// On top of DefaultAccounting(): accounts lab (under root) and team (under lab), user alice
// (default account team), and their associations (all with QOS normal).
inline v1::AccountingChange LabTeamAlice() {
  v1::AccountingChange change;
  for (const auto& [name, parent] :
       std::vector<std::pair<std::string, std::string>>{{"lab", "root"}, {"team", "lab"}}) {
    v1::Account* a = change.add_accounts();
    a->set_name(name);
    a->set_parent(parent);
  }
  v1::AccountingUser* alice = change.add_users();
  alice->set_name("alice");
  alice->set_default_account("team");
  for (const auto& [id, account, user] :
       std::vector<std::tuple<uint32_t, std::string, std::string>>{
           {kLabAssociation, "lab", ""},
           {kTeamAssociation, "team", ""},
           {kAliceAssociation, "team", "alice"}}) {
    v1::Association* a = change.add_associations();
    a->set_id(id);
    a->set_account(account);
    a->set_user(user);
    a->add_qos("normal");
  }
  return change;
}

inline ClusterState MakeCluster(int count = 4, int32_t return_to_service = 2) {
  ClusterState s;
  s.return_to_service = return_to_service;
  std::vector<v1::Node> nodes;
  for (const std::string& name : NodeNames(count)) nodes.push_back(MakeNode(name));
  const Status config =
      Apply(&s, ConfigEvent(nodes, {MakePartition("batch", NodeNames(count), true)}));
  (void)config;
  for (const std::string& name : NodeNames(count)) {
    const Status registered = Apply(&s, RegisterEvent(name));
    (void)registered;
  }
  return s;
}

}  // namespace gantry::state::testing

#endif  // GANTRY_STATE_TESTING_H_
