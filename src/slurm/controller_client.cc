#include "slurm/controller_client.h"

#include <sys/mman.h>
#include <unistd.h>

#include <memory>
#include <new>

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
  ~SocketTransport() override {
    if (fd_ >= 0) close(fd_);
  }

  Result<std::string> Call(wire::Method method, const std::string& request,
                           int timeout_seconds) override {
    if (fd_ < 0) {
      Result<int> fd = wire::ConnectUnix(path_);
      if (!fd.ok()) return Unavailable(kConnectFailure);
      fd_ = *fd;
    }
    wire::SetTimeouts(fd_, timeout_seconds);
    Status sent = wire::WriteFrame(fd_, static_cast<uint8_t>(method), request);
    Result<wire::Frame> reply =
        sent.ok() ? wire::ReadFrame(fd_, wire::kMaxReplyBytes) : Result<wire::Frame>(sent);
    if (!reply.ok()) {
      close(fd_);
      fd_ = -1;
      return Unavailable(wire::IsTimeout(reply.status()) ? kSocketTimeout : kConnectFailure);
    }
    const StatusCode code = wire::ReplyCode(reply->tag);
    if (code == StatusCode::kOk) return std::move(reply->body);
    std::string& message = reply->body;
    if (message.empty()) {
      message = code == StatusCode::kPermissionDenied ? kAccessDenied : kUnexpectedMessage;
    }
    return Status(code, std::move(message));
  }

 private:
  std::string path_;
  int fd_ = -1;
};

}  // namespace

void SetRemoteConnector(RemoteConnector connector) { Remote() = std::move(connector); }
bool HasRemoteConnector() { return static_cast<bool>(Remote()); }

std::unique_ptr<ControllerTransport> CommandSocketTransport(std::string path) {
  return std::make_unique<SocketTransport>(std::move(path));
}

Result<std::unique_ptr<ControllerClient>> ControllerClient::Connect(const ClientConfig& config) {
  Result<Endpoint> endpoint = ResolveEndpoint(config);
  if (!endpoint.ok()) return Unavailable(kConnectFailure);
  std::unique_ptr<ControllerTransport> transport;
  if (endpoint->frames) {
    transport = CommandSocketTransport(endpoint->target);
  } else if (Remote()) {
    GANTRY_ASSIGN_OR_RETURN(transport, Remote()(config, *endpoint));
  } else {
    return Unavailable(kConnectFailure);
  }
  return std::make_unique<ControllerClient>(std::move(transport), endpoint->host);
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
namespace {

constexpr size_t kHugePage = 2u << 20;

void* HugeBlock(size_t size) {
  const size_t rounded = (size + kHugePage - 1) / kHugePage * kHugePage;
  void* p = mmap(nullptr, rounded, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) throw std::bad_alloc();
  madvise(p, rounded, MADV_HUGEPAGE);  // advice only: without THP the pages stay small
  return p;
}

void FreeHugeBlock(void* p, size_t size) {
  munmap(p, (size + kHugePage - 1) / kHugePage * kHugePage);
}

}  // namespace

google::protobuf::Arena* ControllerClient::ListingArena() {
  static std::unique_ptr<google::protobuf::Arena> arena;
  google::protobuf::ArenaOptions options;
  options.start_block_size = kHugePage;
  options.max_block_size = 16 * kHugePage;
  options.block_alloc = HugeBlock;
  options.block_dealloc = FreeHugeBlock;
  arena = std::make_unique<google::protobuf::Arena>(options);
  return arena.get();
}

Result<v1::GetJobsReply*> ControllerClient::GetJobs(const v1::GetJobsRequest& request,
                                                    google::protobuf::Arena* arena) {
  GANTRY_ASSIGN_OR_RETURN(
      std::string bytes,
      transport_->Call(wire::Method::kGetJobs, request.SerializeAsString(), timeout_seconds));
  auto* reply = google::protobuf::Arena::CreateMessage<v1::GetJobsReply>(arena);
  if (!reply->ParseFromString(bytes)) return Internal(kUnexpectedMessage);
  return reply;
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
Result<v1::GetConfigReply> ControllerClient::GetConfig(const v1::GetConfigRequest& request) {
  return Call<v1::GetConfigReply>(wire::Method::kGetConfig, request);
}

}  // namespace gantry::slurm
