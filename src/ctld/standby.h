// What a replicated gantryd serves while another controller leads (decision 0017): on its TCP
// address, its gRPC unix socket and its command socket, Controller.Ping answers with its name,
// "standby" and the leader; every other call (commands' and agents' alike) is refused with
// model::StandbyRefusal, which sends the caller to the next controller. Nothing of the cluster
// is read or written here.
//
// Thread-safety: set_leader from any thread; Stop (or the destructor) once, after which the
// address and the sockets are free for the leader's servers.
#ifndef GANTRY_CTLD_STANDBY_H_
#define GANTRY_CTLD_STANDBY_H_

#include <grpcpp/grpcpp.h>

#include <memory>
#include <mutex>
#include <string>

#include "base/status.h"
#include "gantry/v1/controller.pb.h"
#include "rpc/unix_listener.h"
#include "wire/frame_server.h"

namespace gantry::ctld {

struct StandbyOptions {
  std::string name;     // this controller's
  std::string cluster;  // the cluster's name
  std::string version;
  std::string listen;  // host:port
  std::shared_ptr<grpc::ServerCredentials> credentials;
  std::string grpc_socket;     // DIR/run/gantryd.sock
  std::string command_socket;  // DIR/run/commands.sock
};

class StandbyServer {
 public:
  static Result<std::unique_ptr<StandbyServer>> Start(StandbyOptions options);
  ~StandbyServer();
  StandbyServer(const StandbyServer&) = delete;
  StandbyServer& operator=(const StandbyServer&) = delete;

  // Who leads ("NAME HOST:PORT"; "" = nobody known).
  void set_leader(const std::string& leader);
  void Stop();

  // The reply to Ping, and the refusal of everything else.
  v1::PingReply Ping() const;
  std::string Refusal() const;

 private:
  class Service;
  explicit StandbyServer(StandbyOptions options);

  const StandbyOptions options_;
  mutable std::mutex mu_;
  std::string leader_;
  std::unique_ptr<Service> service_;
  std::unique_ptr<grpc::Server> server_;
  std::unique_ptr<rpc::UnixListener> grpc_listener_;
  std::unique_ptr<wire::FrameServer> commands_;
};

}  // namespace gantry::ctld

#endif  // GANTRY_CTLD_STANDBY_H_
