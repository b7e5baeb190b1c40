// Test helper (header only): an in-process gantry.v1.Controller serving the reference cluster's
// jobs, nodes and partitions in a temp dir, with Slurm's error texts for the usual refusals, on
// the command socket (wire/frame.h) and on a gRPC unix socket. Commands reach it through a
// gantry.conf naming the command socket (or, for Transport::kGrpc, only the gRPC one), i.e. the
// same path (GANTRY_CONF -> CommandSocket / ControllerSocket) the real commands take.
//
// The caller's uid is set by the test (`caller_uid`), since every test client shares the process.
// Thread-safety: handlers run on gRPC threads; state is guarded by a mutex.
#ifndef GANTRY_SLURM_FAKE_CONTROLLER_TEST_UTIL_H_
#define GANTRY_SLURM_FAKE_CONTROLLER_TEST_UTIL_H_

#include <grpcpp/grpcpp.h>
#include <stdlib.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "gantry/v1/controller.grpc.pb.h"
#include "model/job_state.h"
#include "model/node_state.h"
#include "rpc/grpc_status.h"
#include "slurm_view/anchor_records_test_util.h"
#include "slurm_view/squeue_listing.h"
#include "text/duration.h"
#include "text/hostlist.h"
#include "wire/frame_server.h"

namespace gantry::slurm::testing {

class FakeController final : public v1::Controller::Service {
 public:
  enum class Transport { kCommandSocket, kGrpc };

  explicit FakeController(Transport transport = Transport::kCommandSocket) {
    char tmpl[] = "/tmp/gantry-slurm-test-XXXXXX";
    dir_ = mkdtemp(tmpl);
    socket_ = dir_ + "/gantryd.sock";
    conf_ = dir_ + "/gantry.conf";
    std::ofstream conf(conf_);
    conf << "ClusterName=anchor\nStateDir=" << dir_ << "\n";
    if (transport == Transport::kCommandSocket)
      conf << "CommandSocket=" << dir_ << "/commands.sock\n";
    conf << "ControllerSocket=" << socket_ << "\n";
    conf.close();
    frames_ = std::move(
        wire::FrameServer::Listen(dir_ + "/commands.sock", [this](const wire::PeerIdentity&,
                                                                  wire::Method method,
                                                                  std::string_view body) {
          Result<std::string> reply = HandleFrame(method, body);
          if (!reply.ok()) return Result<wire::Slices>(reply.status());
          return Result<wire::Slices>(wire::Slices::Of(std::move(reply).value()));
        }).value());
    frames_->Start();
    for (const v1::Job& j : AnchorQueue()) jobs_.push_back(j);
    nodes_ = AnchorNodes();
    partitions_ = AnchorPartitions();
    grpc::ServerBuilder builder;
    builder.AddListeningPort("unix:" + socket_, grpc::InsecureServerCredentials());
    builder.RegisterService(this);
    server_ = builder.BuildAndStart();
  }
  ~FakeController() override {
    frames_->Stop();
    server_->Shutdown();
    std::filesystem::remove_all(dir_);
  }

  const std::string& conf_path() const { return conf_; }
  const std::string& dir() const { return dir_; }

  std::atomic<uint32_t> caller_uid = 0;
  std::atomic<UnixTime> now = AnchorQueueNow();

  v1::SubmitJobRequest last_submit() {
    std::lock_guard<std::mutex> lock(mu_);
    return last_submit_;
  }
  v1::SignalJobRequest last_signal() {
    std::lock_guard<std::mutex> lock(mu_);
    return last_signal_;
  }
  std::vector<v1::UpdateJobRequest> update_jobs() {
    std::lock_guard<std::mutex> lock(mu_);
    return update_jobs_;
  }
  v1::UpdateNodeRequest last_update_node() {
    std::lock_guard<std::mutex> lock(mu_);
    return last_update_node_;
  }
  v1::GetJobsRequest last_get_jobs() {
    std::lock_guard<std::mutex> lock(mu_);
    return last_get_jobs_;
  }
  // Jobs only the store's archive still holds: history requests (sacct) see them besides the
  // live ones; nothing else does.
  void AddHistoryJob(const v1::Job& job) {
    std::lock_guard<std::mutex> lock(mu_);
    history_jobs_.push_back(job);
  }
  // Forgets the live jobs (AnchorQueue()) the fake starts with.
  void ClearJobs() {
    std::lock_guard<std::mutex> lock(mu_);
    jobs_.clear();
  }
  // The accounting database GetAccounting answers with (sreport); none by default.
  void SetAccounting(const v1::AccountingDb& db) {
    std::lock_guard<std::mutex> lock(mu_);
    accounting_ = db;
  }
  // GetConfig's boot_time (the controller's start); 0, unset, by default.
  std::atomic<UnixTime> boot_time = 0;

  grpc::Status Ping(grpc::ServerContext*, const v1::PingRequest*, v1::PingReply* reply) override {
    reply->set_cluster_name("anchor");
    reply->set_caller_uid(caller_uid);
    return grpc::Status::OK;
  }

  grpc::Status SubmitJob(grpc::ServerContext*, const v1::SubmitJobRequest* request,
                         v1::SubmitJobReply* reply) override {
    std::lock_guard<std::mutex> lock(mu_);
    last_submit_ = *request;
    for (const std::string& p : request->request().partitions()) {
      const bool known = std::any_of(partitions_.begin(), partitions_.end(),
                                     [&](const v1::Partition& x) { return x.name() == p; });
      if (!known) {
        return {grpc::StatusCode::INVALID_ARGUMENT,
                "invalid partition specified: " + p + "\nInvalid partition name specified"};
      }
    }
    if (request->request().account() == "nosuchacct") {
      return {grpc::StatusCode::INVALID_ARGUMENT,
              "Invalid account or account/partition combination specified"};
    }
    v1::Job job;
    job.set_job_id(next_id_++);
    *job.mutable_request() = request->request();
    job.set_user_id(caller_uid);
    jobs_.push_back(job);
    reply->set_job_id(job.job_id());
    return grpc::Status::OK;
  }

  grpc::Status SignalJob(grpc::ServerContext*, const v1::SignalJobRequest* request,
                         v1::SignalJobReply* reply) override {
    std::lock_guard<std::mutex> lock(mu_);
    last_signal_ = *request;
    for (const std::string& id : request->job_ids()) {
      const v1::Job* job = Find(static_cast<uint32_t>(std::strtoul(id.c_str(), nullptr, 10)));
      if (job == nullptr) {
        AddError(reply->add_errors(), id, "Invalid job id specified", grpc::NOT_FOUND);
      } else if (caller_uid != 0 && job->user_id() != caller_uid) {
        AddError(reply->add_errors(), id, "Access/permission denied", grpc::PERMISSION_DENIED);
      } else {
        reply->add_signalled(job->job_id());
      }
    }
    return grpc::Status::OK;
  }

  grpc::Status UpdateJob(grpc::ServerContext*, const v1::UpdateJobRequest* request,
                         v1::UpdateJobReply* reply) override {
    std::lock_guard<std::mutex> lock(mu_);
    update_jobs_.push_back(*request);
    if (request->action() == "suspend" || request->action() == "resume") {
      SuspendJobs(*request, reply);
      return grpc::Status::OK;
    }
    for (const std::string& id : request->job_ids()) {
      const v1::Job* job = Find(static_cast<uint32_t>(std::strtoul(id.c_str(), nullptr, 10)));
      if (job == nullptr) {
        AddError(reply->add_errors(), id, "Invalid job id specified", grpc::NOT_FOUND);
      } else if (caller_uid != 0 && job->user_id() != caller_uid) {
        AddError(reply->add_errors(), id, "Invalid user id", grpc::PERMISSION_DENIED);
      }
    }
    return grpc::Status::OK;
  }

  grpc::Status GetJobs(grpc::ServerContext*, const v1::GetJobsRequest* request,
                       v1::GetJobsReply* reply) override {
    std::lock_guard<std::mutex> lock(mu_);
    last_get_jobs_ = *request;
    if (request->history()) return GetHistory(*request, reply);
    if (request->has_squeue()) return ListSqueue(request->squeue(), reply);
    for (const v1::Job& job : jobs_) {
      if (request->job_ids_size() > 0 &&
          std::find(request->job_ids().begin(), request->job_ids().end(), job.job_id()) ==
              request->job_ids().end()) {
        continue;
      }
      *reply->add_jobs() = job;
    }
    if (request->job_ids_size() > 0 && reply->jobs_size() == 0) {
      return {grpc::StatusCode::NOT_FOUND, "Invalid job id specified"};
    }
    reply->set_now(now);
    return grpc::Status::OK;
  }

  grpc::Status GetNodes(grpc::ServerContext*, const v1::GetNodesRequest*,
                        v1::GetNodesReply* reply) override {
    std::lock_guard<std::mutex> lock(mu_);
    for (const v1::Node& n : nodes_) *reply->add_nodes() = n;
    for (const v1::Partition& p : partitions_) *reply->add_partitions() = p;
    reply->set_now(now);
    return grpc::Status::OK;
  }

  grpc::Status UpdateNode(grpc::ServerContext*, const v1::UpdateNodeRequest* request,
                          v1::UpdateNodeReply*) override {
    std::lock_guard<std::mutex> lock(mu_);
    last_update_node_ = *request;
    Result<std::vector<std::string>> names = text::ExpandHostlist(request->names());
    if (!names.ok()) return {grpc::StatusCode::INVALID_ARGUMENT, "Invalid node name specified"};
    for (const std::string& name : *names) {
      auto it = std::find_if(nodes_.begin(), nodes_.end(),
                             [&](const v1::Node& n) { return n.name() == name; });
      if (it == nodes_.end()) {
        return {grpc::StatusCode::INVALID_ARGUMENT, "Invalid node name specified"};
      }
      model::NodeState state{static_cast<model::NodeBaseState>(it->state()), it->state_flags()};
      if (request->state() == "DRAIN") state.Set(model::NodeFlag::kDrain);
      if (request->state() == "RESUME" || request->state() == "UNDRAIN") {
        state.Clear(model::NodeFlag::kDrain);
      }
      it->set_state_flags(state.flags);
      it->set_reason(request->reason());
      it->set_reason_uid(caller_uid);
      it->set_reason_time(now);
    }
    return grpc::Status::OK;
  }

  // The controller's texts (ctld/controller_suspend.cc) for the same refusals.
  grpc::Status UpdatePartition(grpc::ServerContext*, const v1::UpdatePartitionRequest* request,
                               v1::UpdatePartitionReply*) override {
    std::lock_guard<std::mutex> lock(mu_);
    if (caller_uid != 0) return {grpc::StatusCode::PERMISSION_DENIED, "Invalid user id"};
    auto it = std::find_if(partitions_.begin(), partitions_.end(),
                           [&](const v1::Partition& p) { return p.name() == request->name(); });
    if (it == partitions_.end()) {
      return {grpc::StatusCode::NOT_FOUND, "Invalid partition name specified"};
    }
    // What the anchor tests change; gantryd applies every key (state/partition_settings.h).
    for (const auto& [key, value] : request->settings()) {
      Result<int64_t> minutes = text::ParseDurationMinutes(value);
      const uint32_t limit = !minutes.ok() || *minutes == text::kInfiniteDuration
                                 ? 0xFFFFFFFFu
                                 : static_cast<uint32_t>(*minutes);
      if (key == "State") it->set_state(value);
      if (key == "MaxTime") it->set_max_time_min(limit);
      if (key == "DefaultTime") it->set_default_time_min(limit);
    }
    return grpc::Status::OK;
  }

  grpc::Status GetConfig(grpc::ServerContext*, const v1::GetConfigRequest*,
                         v1::GetConfigReply* reply) override {
    reply->set_cluster_name("anchor");
    for (auto [k, v] : std::vector<std::pair<const char*, const char*>>{
             {"AccountingStorageBackupHost", "(null)"},
             {"AccountingStorageEnforce", "associations,limits,qos"},
             {"ClusterName", "anchor"},
             {"DefMemPerCPU", "2000"},
             {"SLURM_VERSION", "22.05.8"}}) {
      v1::ConfigEntry* e = reply->add_entries();
      e->set_key(k);
      e->set_value(v);
    }
    reply->set_now(At("2026-12-02T11:46:49"));
    if (boot_time != 0) reply->set_boot_time(boot_time);
    return grpc::Status::OK;
  }

  grpc::Status GetAccounting(grpc::ServerContext*, const v1::GetAccountingRequest*,
                             v1::AccountingDb* reply) override {
    std::lock_guard<std::mutex> lock(mu_);
    *reply = accounting_;
    return grpc::Status::OK;
  }
  grpc::Status GetPriorities(grpc::ServerContext*, const v1::GetPrioritiesRequest*,
                             v1::GetPrioritiesReply* reply) override {
    std::lock_guard<std::mutex> lock(mu_);
    *reply = priorities_;
    return grpc::Status::OK;
  }
  // What GetPriorities answers.
  void SetPriorities(const v1::GetPrioritiesReply& reply) {
    std::lock_guard<std::mutex> lock(mu_);
    priorities_ = reply;
  }
  grpc::Status GetStats(grpc::ServerContext*, const v1::GetStatsRequest* request,
                        v1::GetStatsReply* reply) override {
    std::lock_guard<std::mutex> lock(mu_);
    if (request->reset()) {
      if (caller_uid != 0) {
        return {grpc::StatusCode::PERMISSION_DENIED, "Access/permission denied"};
      }
      stats_resets_++;
      return grpc::Status::OK;
    }
    *reply = stats_;
    return grpc::Status::OK;
  }
  // What GetStats answers; a reset is refused unless caller_uid is root's.
  void SetStats(const v1::GetStatsReply& reply) {
    std::lock_guard<std::mutex> lock(mu_);
    stats_ = reply;
  }
  int stats_resets() {
    std::lock_guard<std::mutex> lock(mu_);
    return stats_resets_;
  }

 private:
  // The command socket's requests go to the same handlers as gRPC's.
  Result<std::string> HandleFrame(wire::Method method, std::string_view body) {
    using Self = FakeController;
    // Methods the fake does not override answer as the generated service does: UNIMPLEMENTED
    // (srun steps; sacctmgr and job scripts are tested against a real gantryd).
    switch (method) {
#define GANTRY_INVOKE(Name, Tag, Req, Rep, Type) \
  case wire::Method::k##Name:                    \
    return Invoke<v1::Req, v1::Rep>(body, &Self::Name);
      GANTRY_CONTROLLER_METHODS(GANTRY_INVOKE)
#undef GANTRY_INVOKE
      case wire::Method::kAsUser:
        break;
    }
    return InvalidArgument("unknown method");
  }
  template <typename Request, typename Reply, typename Method>
  Result<std::string> Invoke(std::string_view body, Method method) {
    Request request;
    if (!request.ParseFromArray(body.data(), static_cast<int>(body.size()))) {
      return InvalidArgument("bad request");
    }
    Reply reply;
    grpc::ServerContext context;
    GANTRY_RETURN_IF_ERROR(rpc::FromGrpcCode((this->*method)(&context, &request, &reply)));
    return reply.SerializeAsString();
  }

  // The controller's history query: live and archived jobs submitted at or before window_end
  // and not ended before window_start, of the given users and ids, sorted by id.
  // gantryd's listing (ctld/listing_cache.h) in one piece, made with the same functions.
  grpc::Status ListSqueue(const v1::SqueueView& view, v1::GetJobsReply* reply) {
    Result<SqueueQuery> query = QueryOf(view);
    if (!query.ok()) return {grpc::StatusCode::INVALID_ARGUMENT, query.status().message()};
    ListingPiece piece = NewPiece(*query, jobs_.size());
    for (const v1::Job& job : jobs_) {
      AddRecord(*query, job, JobPrintContext{now, &TimeZone::Utc(), "anchor"}, &piece);
    }
    const ListingPiece* pieces[] = {&piece};
    reply->add_lines(OrderedText(pieces));
    reply->set_jobs_at_most(static_cast<uint32_t>(piece.rows.size()));
    reply->set_now(now);
    return grpc::Status::OK;
  }

  grpc::Status GetHistory(const v1::GetJobsRequest& request, v1::GetJobsReply* reply) {
    std::vector<v1::Job> all = jobs_;
    all.insert(all.end(), history_jobs_.begin(), history_jobs_.end());
    std::sort(all.begin(), all.end(),
              [](const v1::Job& a, const v1::Job& b) { return a.job_id() < b.job_id(); });
    auto listed = [](const auto& list, uint32_t value) {
      return list.empty() || std::find(list.begin(), list.end(), value) != list.end();
    };
    for (const v1::Job& job : all) {
      const bool ended = model::IsFinished(static_cast<model::JobBaseState>(job.state()));
      if (!listed(request.job_ids(), job.job_id()) || !listed(request.user_ids(), job.user_id()))
        continue;
      if (request.window_end() != 0 && job.submit_time() > request.window_end()) continue;
      if (ended && job.end_time() < request.window_start()) continue;
      *reply->add_jobs() = job;
    }
    reply->set_now(now);
    return grpc::Status::OK;
  }

  const v1::Job* Find(uint32_t id) const {
    for (const v1::Job& j : jobs_) {
      if (j.job_id() == id) return &j;
    }
    return nullptr;
  }
  // scontrol suspend/resume with the controller's checks, in its order. Under mu_.
  void SuspendJobs(const v1::UpdateJobRequest& request, v1::UpdateJobReply* reply) {
    const bool suspend = request.action() == "suspend";
    for (const std::string& id : request.job_ids()) {
      v1::Job* job = nullptr;
      for (v1::Job& j : jobs_) {
        if (std::to_string(j.job_id()) == id) job = &j;
      }
      if (job == nullptr) {
        AddError(reply->add_errors(), id,
                 id.find('_') != std::string::npos ? "Invalid job id specified"
                                                   : "Unexpected message received",
                 grpc::NOT_FOUND);
        continue;
      }
      const auto base = static_cast<model::JobBaseState>(job->state());
      if (caller_uid != 0) {
        AddError(reply->add_errors(), id, "Access/permission denied", grpc::PERMISSION_DENIED);
      } else if (base == model::JobBaseState::kPending) {
        AddError(reply->add_errors(), id, "Job is pending execution", grpc::FAILED_PRECONDITION);
      } else if (model::IsFinished(base)) {
        AddError(reply->add_errors(), id, "Job/step already completing or completed",
                 grpc::FAILED_PRECONDITION);
      } else if (!suspend && base != model::JobBaseState::kSuspended) {
        AddError(reply->add_errors(), id, "Job is not suspended", grpc::FAILED_PRECONDITION);
      } else {
        job->set_state(static_cast<uint32_t>(suspend ? model::JobBaseState::kSuspended
                                                     : model::JobBaseState::kRunning));
      }
    }
  }
  static void AddError(v1::JobError* e, const std::string& id, const std::string& message,
                       grpc::StatusCode code) {
    e->set_job_id(id);
    e->set_message(message);
    e->set_code(static_cast<int32_t>(code));
  }

  std::string dir_;
  std::string socket_;
  std::string conf_;
  std::unique_ptr<grpc::Server> server_;
  std::unique_ptr<wire::FrameServer> frames_;
  std::mutex mu_;
  std::vector<v1::Job> jobs_;
  std::vector<v1::Node> nodes_;
  std::vector<v1::Partition> partitions_;
  uint32_t next_id_ = 21452;
  v1::SubmitJobRequest last_submit_;
  v1::SignalJobRequest last_signal_;
  std::vector<v1::UpdateJobRequest> update_jobs_;
  v1::UpdateNodeRequest last_update_node_;
  v1::GetJobsRequest last_get_jobs_;
  std::vector<v1::Job> history_jobs_;
  v1::GetPrioritiesReply priorities_;
  v1::GetStatsReply stats_;
  int stats_resets_ = 0;
  v1::AccountingDb accounting_;
};

}  // namespace gantry::slurm::testing

#endif  // GANTRY_SLURM_FAKE_CONTROLLER_TEST_UTIL_H_
