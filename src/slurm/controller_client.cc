#include "slurm/controller_client.h"

#include <unistd.h>

#include <memory>
#include <thread>

#include "model/standby.h"
#include "slurm/failover_transport.h"
#include "slurm/slurm_errors.h"
#include "wire/unix_socket.h"

namespace gantry::slurm {
namespace {

RemoteConnector& Remote() {
  static RemoteConnector connector;
  return connector;
}

// The command socket. The connection is made on the first call and kept for the next ones.
class SocketTransport final : public ControllerTransport {
 public:
  explicit SocketTransport(std::string path) : path_(std::move(path)) {}
  std::unique_ptr<ControllerTransport> Another() const override {
    return std::make_unique<SocketTransport>(path_);
  }
  ~SocketTransport() override {
    if (fd_ >= 0) close(fd_);
  }

  Result<std::string> Call(wire::Method method, const std::string& request,
                           int timeout_seconds) override {
    GANTRY_RETURN_IF_ERROR(Send(method, request, timeout_seconds));
    Result<wire::Frame> reply = wire::ReadFrame(fd_, wire::kMaxReplyBytes);
    if (!reply.ok()) return Broken(reply.status());
    const StatusCode code = wire::ReplyCode(reply->tag);
    if (code == StatusCode::kOk) return std::move(reply->body);
    return Refusal(code, std::move(reply->body));
  }

  Status CallInPieces(wire::Method method, const std::string& request, int timeout_seconds,
                      const std::function<Status(std::string_view piece)>& on_piece) override {
    constexpr size_t kPieceBytes = 1u << 20;
    GANTRY_RETURN_IF_ERROR(Send(method, request, timeout_seconds));
    std::string refusal;  // an error reply's text, which comes whole
    Status caller;        // on_piece's error
    Result<uint8_t> tag = wire::ReadFrameInPieces(fd_, wire::kMaxReplyBytes, kPieceBytes,
                                                  [&](uint8_t code, std::string_view piece) {
                                                    if (code != 0) {
                                                      refusal.append(piece);
                                                      return Status::Ok();
                                                    }
                                                    caller = on_piece(piece);
                                                    return caller;
                                                  });
    if (!caller.ok()) {  // the rest of the reply is still on the way: the connection is done
      Disconnect();
      return caller;
    }
    if (!tag.ok()) return Broken(tag.status());
    const StatusCode code = wire::ReplyCode(*tag);
    return code == StatusCode::kOk ? Status::Ok() : Refusal(code, std::move(refusal));
  }

 private:
  // Connects on the first call and sends the request. A request that could not be written
  // was not taken (unsent_): on a connection the controller closed since the last call, it is
  // sent once more on a new one.
  Status Send(wire::Method method, const std::string& request, int timeout_seconds) {
    for (int attempt = 0;; ++attempt) {
      const bool reused = fd_ >= 0;
      unsent_ = true;
      if (!reused) {
        Result<int> fd = wire::ConnectUnix(path_);
        if (!fd.ok()) return Unavailable(kConnectFailure);
        fd_ = *fd;
      }
      wire::SetTimeouts(fd_, timeout_seconds);
      Status sent = wire::WriteFrame(fd_, static_cast<uint8_t>(method), request);
      if (sent.ok()) {
        unsent_ = false;
        return sent;
      }
      Status broken = Broken(sent);
      if (!reused || attempt > 0) return broken;
    }
  }

  void Disconnect() {
    close(fd_);
    fd_ = -1;
    standby_ = false;
  }

  // A failed exchange: the connection goes, the error in Slurm's client-side terms.
  Status Broken(const Status& status) {
    if (standby_) unsent_ = true;
    Disconnect();
    return Unavailable(wire::IsTimeout(status) ? kSocketTimeout : kConnectFailure);
  }

  // The controller's refusal; an empty text gets the client's.
  // The controller's refusal; an empty text gets the client's. A standby's refusal marks the
  // connection: a standby does nothing but Ping on it, so a call lost on it was never done (the
  // replica that takes the lead serves on new connections).
  Status Refusal(StatusCode code, std::string message) {
    if (message.empty()) {
      message = code == StatusCode::kPermissionDenied ? kAccessDenied : kUnexpectedMessage;
    }
    if (code == StatusCode::kUnavailable && model::IsStandbyRefusal(message)) standby_ = true;
    return {code, std::move(message)};
  }

  std::string path_;
  int fd_ = -1;
  bool unsent_ = false;
  bool standby_ = false;  // the connection's peer refused a call as a standby

 public:
  bool last_call_unsent() const override { return unsent_; }
};

// Every call wrapped in the AsUser envelope, carrying a token (gantry-restd's calls).
class AsUserTransport final : public ControllerTransport {
 public:
  AsUserTransport(std::unique_ptr<ControllerTransport> inner, std::string token,
                  std::string user_name)
      : inner_(std::move(inner)), token_(std::move(token)), user_name_(std::move(user_name)) {}
  std::unique_ptr<ControllerTransport> Another() const override {
    std::unique_ptr<ControllerTransport> inner = inner_->Another();
    if (inner == nullptr) return nullptr;
    return std::make_unique<AsUserTransport>(std::move(inner), token_, user_name_);
  }
  bool last_call_unsent() const override { return inner_->last_call_unsent(); }
  Result<std::string> Call(wire::Method method, const std::string& request,
                           int timeout_seconds) override {
    return inner_->Call(wire::Method::kAsUser, Wrap(method, request), timeout_seconds);
  }
  Status CallInPieces(wire::Method method, const std::string& request, int timeout_seconds,
                      const std::function<Status(std::string_view piece)>& on_piece) override {
    return inner_->CallInPieces(wire::Method::kAsUser, Wrap(method, request), timeout_seconds,
                                on_piece);
  }

 private:
  std::string Wrap(wire::Method method, const std::string& request) const {
    v1::AsUserRequest envelope;
    envelope.set_token(token_);
    envelope.set_user_name(user_name_);
    envelope.set_method(static_cast<uint32_t>(method));
    envelope.set_request(request);
    return envelope.SerializeAsString();
  }

  std::unique_ptr<ControllerTransport> inner_;
  std::string token_;
  std::string user_name_;
};

}  // namespace

std::unique_ptr<ControllerTransport> WithUserToken(std::unique_ptr<ControllerTransport> inner,
                                                   std::string token, std::string user_name) {
  return std::make_unique<AsUserTransport>(std::move(inner), std::move(token),
                                           std::move(user_name));
}

Status ControllerTransport::CallInPieces(
    wire::Method method, const std::string& request, int timeout_seconds,
    const std::function<Status(std::string_view piece)>& on_piece) {
  GANTRY_ASSIGN_OR_RETURN(const std::string reply, Call(method, request, timeout_seconds));
  return on_piece(reply);
}

void SetRemoteConnector(RemoteConnector connector) { Remote() = std::move(connector); }
bool HasRemoteConnector() { return static_cast<bool>(Remote()); }

std::unique_ptr<ControllerTransport> CommandSocketTransport(std::string path) {
  return std::make_unique<SocketTransport>(std::move(path));
}

Result<std::unique_ptr<ControllerTransport>> ConnectEndpoint(const ClientConfig& config,
                                                             const Endpoint& endpoint) {
  if (endpoint.frames) return CommandSocketTransport(endpoint.target);
  if (Remote()) return Remote()(config, endpoint);
  return Unavailable(kConnectFailure);
}

Result<std::unique_ptr<ControllerClient>> ControllerClient::Connect(const ClientConfig& config) {
  const std::vector<Endpoint> endpoints = ResolveEndpoints(config);
  if (endpoints.empty()) return Unavailable(kConnectFailure);
  if (endpoints.size() == 1) {
    GANTRY_ASSIGN_OR_RETURN(std::unique_ptr<ControllerTransport> transport,
                            ConnectEndpoint(config, endpoints[0]));
    return std::make_unique<ControllerClient>(std::move(transport), endpoints[0].host);
  }
  // Replicated controllers: follow the leader among them.
  std::vector<std::string> targets;  // TCP addresses, as standbys name the leader
  for (const Endpoint& e : endpoints) targets.push_back(e.frames || e.local ? "" : e.target);
  auto transport = std::make_unique<FailoverTransport>(
      endpoints.size(),
      [config, endpoints](size_t i) { return ConnectEndpoint(config, endpoints[i]); },
      std::move(targets));
  return std::make_unique<ControllerClient>(std::move(transport), endpoints[0].host);
}

ControllerClient::ControllerClient(std::unique_ptr<ControllerTransport> transport,
                                   std::string controller_host)
    : transport_(std::move(transport)), controller_host_(std::move(controller_host)) {}

template <typename Reply, typename Request>
Result<Reply> ControllerClient::Call(wire::Method method, const Request& request) {
  GANTRY_ASSIGN_OR_RETURN(std::string bytes,
                          transport_->Call(method, request.SerializeAsString(), timeout_seconds));
  Reply reply;
  if (!reply.ParseFromString(bytes)) return Internal(kUnexpectedMessage);
  return reply;
}

Result<v1::PingReply> ControllerClient::Ping() {
  return Call<v1::PingReply>(wire::Method::kPing, v1::PingRequest());
}
Result<v1::SubmitJobReply> ControllerClient::SubmitJob(const v1::SubmitJobRequest& request) {
  return Call<v1::SubmitJobReply>(wire::Method::kSubmitJob, request);
}
Result<v1::SignalJobReply> ControllerClient::SignalJob(const v1::SignalJobRequest& request) {
  return Call<v1::SignalJobReply>(wire::Method::kSignalJob, request);
}
Result<v1::UpdateJobReply> ControllerClient::UpdateJob(const v1::UpdateJobRequest& request) {
  return Call<v1::UpdateJobReply>(wire::Method::kUpdateJob, request);
}
Result<v1::GetJobsReply> ControllerClient::GetJobs(const v1::GetJobsRequest& request) {
  return Call<v1::GetJobsReply>(wire::Method::kGetJobs, request);
}
Result<JobsReplyHead> ControllerClient::ListJobs(const v1::GetJobsRequest& request,
                                                 const JobsReplyVisitor& visitor) {
  JobsReplyReader reader(visitor, request.slim());
  Status read_error;  // the reader's, told apart from the transport's
  Status called = transport_->CallInPieces(wire::Method::kGetJobs, request.SerializeAsString(),
                                           timeout_seconds, [&](std::string_view piece) {
                                             read_error = reader.Feed(piece);
                                             return read_error;
                                           });
  if (!read_error.ok()) return read_error;
  GANTRY_RETURN_IF_ERROR(called);
  return reader.Finish();
}
Result<JobsReplyHead> ControllerClient::ListJobsInParts(
    const v1::GetJobsRequest& request, const std::vector<JobsReplyVisitor>& visitors) {
  std::vector<std::unique_ptr<ControllerClient>> others;
  for (size_t i = 1; i < visitors.size(); ++i) {
    std::unique_ptr<ControllerTransport> transport = transport_->Another();
    if (transport == nullptr) break;
    others.push_back(std::make_unique<ControllerClient>(std::move(transport), controller_host_));
    others.back()->timeout_seconds = timeout_seconds;
  }
  const auto parts = static_cast<uint32_t>(others.size() + 1);
  if (parts == 1) {
    Result<JobsReplyHead> head = ListJobs(request, visitors.at(0));
    if (head.ok()) head->shards = 1;
    return head;
  }
  std::vector<Result<JobsReplyHead>> results(parts, Result<JobsReplyHead>(JobsReplyHead()));
  auto part = [&](ControllerClient* client, uint32_t i) {
    v1::GetJobsRequest mine = request;
    mine.set_shard(i);
    mine.set_shards(parts);
    results[i] = client->ListJobs(mine, visitors[i]);
  };
  std::vector<std::thread> threads;
  for (uint32_t i = 1; i < parts; ++i) threads.emplace_back(part, others[i - 1].get(), i);
  part(this, 0);
  for (std::thread& t : threads) t.join();
  bool split = true;
  for (const Result<JobsReplyHead>& r : results) {
    GANTRY_RETURN_IF_ERROR(r.status());
    split = split && r->shards == parts;
  }
  JobsReplyHead head = *results[0];
  head.shards = split ? parts : 1;
  return head;
}
Result<v1::JobStepReply> ControllerClient::JobStep(const v1::JobStepRequest& request) {
  return Call<v1::JobStepReply>(wire::Method::kJobStep, request);
}
Result<v1::GetNodesReply> ControllerClient::GetNodes(const v1::GetNodesRequest& request) {
  return Call<v1::GetNodesReply>(wire::Method::kGetNodes, request);
}
Result<v1::UpdateNodeReply> ControllerClient::UpdateNode(const v1::UpdateNodeRequest& request) {
  return Call<v1::UpdateNodeReply>(wire::Method::kUpdateNode, request);
}
Result<v1::UpdatePartitionReply> ControllerClient::UpdatePartition(
    const v1::UpdatePartitionRequest& request) {
  return Call<v1::UpdatePartitionReply>(wire::Method::kUpdatePartition, request);
}
Result<v1::AccountingDb> ControllerClient::GetAccounting() {
  return Call<v1::AccountingDb>(wire::Method::kGetAccounting, v1::GetAccountingRequest());
}
Result<v1::UpdateAccountingReply> ControllerClient::UpdateAccounting(
    const v1::UpdateAccountingRequest& request) {
  return Call<v1::UpdateAccountingReply>(wire::Method::kUpdateAccounting, request);
}
Result<v1::GetPrioritiesReply> ControllerClient::GetPriorities(
    const v1::GetPrioritiesRequest& request) {
  return Call<v1::GetPrioritiesReply>(wire::Method::kGetPriorities, request);
}
Result<v1::GetStatsReply> ControllerClient::GetStats(const v1::GetStatsRequest& request) {
  return Call<v1::GetStatsReply>(wire::Method::kGetStats, request);
}

Result<v1::GetJobScriptReply> ControllerClient::GetJobScript(
    const v1::GetJobScriptRequest& request) {
  return Call<v1::GetJobScriptReply>(wire::Method::kGetJobScript, request);
}
Result<v1::IssueTokenReply> ControllerClient::IssueToken(const v1::IssueTokenRequest& request) {
  return Call<v1::IssueTokenReply>(wire::Method::kIssueToken, request);
}
Result<v1::TakeoverReply> ControllerClient::Takeover(const v1::TakeoverRequest& request) {
  return Call<v1::TakeoverReply>(wire::Method::kTakeover, request);
}
Result<v1::GetConfigReply> ControllerClient::GetConfig(const v1::GetConfigRequest& request) {
  return Call<v1::GetConfigReply>(wire::Method::kGetConfig, request);
}

}  // namespace gantry::slurm
