#include "ctld/standby.h"

#include <grpcpp/generic/async_generic_service.h>
#include <unistd.h>

#include <utility>

#include "model/standby.h"

namespace gantry::ctld {

// Answers every method of every service: Ping with the standby's reply, the rest refused.
class StandbyServer::Service final : public grpc::CallbackGenericService {
 public:
  explicit Service(const StandbyServer* standby) : standby_(standby) {}

  grpc::ServerGenericBidiReactor* CreateReactor(grpc::GenericCallbackServerContext* context) final {
    return new Reactor(standby_, context->method() == "/gantry.v1.Controller/Ping");
  }

 private:
  class Reactor final : public grpc::ServerGenericBidiReactor {
   public:
    Reactor(const StandbyServer* standby, bool ping) : standby_(standby) {
      if (ping) {
        StartRead(&request_);
      } else {
        Finish(grpc::Status(grpc::StatusCode::UNAVAILABLE, standby_->Refusal()));
      }
    }
    void OnReadDone(bool ok) final {
      if (!ok) {
        Finish(grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, "no request"));
        return;
      }
      const std::string bytes = standby_->Ping().SerializeAsString();
      grpc::Slice slice(bytes);
      reply_ = grpc::ByteBuffer(&slice, 1);
      StartWriteAndFinish(&reply_, grpc::WriteOptions(), grpc::Status::OK);
    }
    void OnDone() final { delete this; }

   private:
    const StandbyServer* standby_;
    grpc::ByteBuffer request_;
    grpc::ByteBuffer reply_;
  };

  const StandbyServer* standby_;
};

StandbyServer::StandbyServer(StandbyOptions options) : options_(std::move(options)) {}

StandbyServer::~StandbyServer() { Stop(); }

Result<std::unique_ptr<StandbyServer>> StandbyServer::Start(StandbyOptions options) {
  std::unique_ptr<StandbyServer> standby(new StandbyServer(std::move(options)));
  standby->service_ = std::make_unique<Service>(standby.get());
  grpc::ServerBuilder builder;
  int port = 0;
  builder.AddListeningPort(standby->options_.listen, standby->options_.credentials, &port);
  builder.RegisterCallbackGenericService(standby->service_.get());
  standby->server_ = builder.BuildAndStart();
  if (!standby->server_ || port == 0) {
    return Unavailable("standby: cannot listen on " + standby->options_.listen);
  }
  GANTRY_ASSIGN_OR_RETURN(standby->grpc_listener_,
                          rpc::UnixListener::Listen(standby->options_.grpc_socket));
  standby->grpc_listener_->Start(standby->server_.get());
  StandbyServer* self = standby.get();
  GANTRY_ASSIGN_OR_RETURN(
      standby->commands_,
      wire::FrameServer::Listen(standby->options_.command_socket,
                                [self](const wire::PeerIdentity& peer, wire::Method method,
                                       std::string_view /*body*/) -> Result<wire::Slices> {
                                  if (method != wire::Method::kPing)
                                    return Unavailable(self->Refusal());
                                  v1::PingReply reply = self->Ping();
                                  reply.set_caller_uid(peer.uid);
                                  reply.set_caller_gid(peer.gid);
                                  return wire::Slices::Of(reply.SerializeAsString());
                                }));
  standby->commands_->Start();
  return standby;
}

void StandbyServer::set_leader(const std::string& leader) {
  std::lock_guard lock(mu_);
  leader_ = leader;
}

v1::PingReply StandbyServer::Ping() const {
  v1::PingReply reply;
  reply.set_cluster_name(options_.cluster);
  reply.set_version(options_.version);
  reply.set_controller_name(options_.name);
  reply.set_role("standby");
  std::lock_guard lock(mu_);
  reply.set_leader(leader_);
  return reply;
}

std::string StandbyServer::Refusal() const {
  std::lock_guard lock(mu_);
  return model::StandbyRefusal(options_.name, leader_);
}

void StandbyServer::Stop() {
  // The socket paths go first: a command connecting from now on finds none (a call not sent,
  // which it makes again) rather than a standby closing its connection under it (a call that
  // may have been done, which it must not make again).
  if (commands_) unlink(options_.command_socket.c_str());
  if (grpc_listener_) unlink(options_.grpc_socket.c_str());
  if (commands_) commands_->Stop();
  if (grpc_listener_) grpc_listener_->Stop();
  if (server_) server_->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(1));
  commands_.reset();
  grpc_listener_.reset();
  server_.reset();
}

}  // namespace gantry::ctld
