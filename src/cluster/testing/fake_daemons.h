// Test doubles for the lifecycle tests (src/cluster and src/cli): shell scripts named gantryd and
// gantry-agent that behave like the real daemons as far as `gantry up/down/status` can tell, and
// an in-process Controller serving Ping and GetNodes on DIR/run/gantryd.sock.
//
// Fake gantryd (`--state-dir DIR --listen ADDR`): writes DIR/run/gantryd.addr (ADDR, or a made-up
// port for ":0"), then waits for SIGTERM. It exits at once with an error on stderr when
// DIR/fake-gantryd-fails exists, or when DIR/fake-gantryd-no-fixed-port exists and ADDR is not
// ":0" (a port it cannot bind).
// Fake agent (`--node N --controller ADDR ... --spool DIR/spool/N`): writes the start
// time (unix seconds) to its spool's "registered" file, then waits for SIGTERM. It exits at once
// when DIR/fake-agent-N-fails exists.
// Fake gantry-restd (`--conf ... --url-file F ...`): writes F (a made-up https URL), then
// waits for SIGTERM.
// FakeController::GetNodes lists each node with a "registered" file as registered at that time.
#ifndef GANTRY_CLUSTER_TESTING_FAKE_DAEMONS_H_
#define GANTRY_CLUSTER_TESTING_FAKE_DAEMONS_H_

#include <fcntl.h>
#include <grpcpp/grpcpp.h>
#include <sys/stat.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>

#include "gantry/v1/controller.grpc.pb.h"

namespace gantry::cluster::testing {

inline constexpr char kFakeGantryd[] = R"SH(#!/bin/sh
dir="$2"; listen="$4"
echo "fake gantryd starting: $*"
if [ -e "$dir/fake-gantryd-fails" ]; then echo "fatal: cannot open $dir/state.db" >&2; exit 1; fi
case "$listen" in
  *:0) listen="127.0.0.1:$(( $$ % 20000 + 20000 ))" ;;
  *) if [ -e "$dir/fake-gantryd-no-fixed-port" ]; then
       echo "fatal: cannot listen on $listen: address in use" >&2; exit 1
     fi ;;
esac
trap 'echo "fake gantryd: SIGTERM"; kill $child 2>/dev/null; exit 0' TERM
echo "$listen" > "$dir/run/gantryd.addr.tmp" && mv "$dir/run/gantryd.addr.tmp" "$dir/run/gantryd.addr"
while :; do sleep 1 & child=$!; wait $child; done
)SH";

inline constexpr char kFakeAgent[] = R"SH(#!/bin/sh
echo "fake agent starting: $*"
node="$2"; spool=""
while [ $# -gt 0 ]; do [ "$1" = --spool ] && spool="$2"; shift; done
if [ -e "$spool/../../fake-agent-$node-fails" ]; then echo "fatal: cannot register $node" >&2; exit 1; fi
trap 'echo "fake agent $node: SIGTERM"; kill $child 2>/dev/null; exit 0' TERM
date +%s > "$spool/registered"
while :; do sleep 1 & child=$!; wait $child; done
)SH";

inline constexpr char kFakeRestd[] = R"SH(#!/bin/sh
echo "fake gantry-restd starting: $*"
url_file=""
while [ $# -gt 0 ]; do [ "$1" = --url-file ] && url_file="$2"; shift; done
trap 'echo "fake gantry-restd: SIGTERM"; kill $child 2>/dev/null; exit 0' TERM
echo "https://localhost:$(( $$ % 20000 + 40000 ))" > "$url_file"
while :; do sleep 1 & child=$!; wait $child; done
)SH";

// Writes the fake daemons into `bin_dir` (created), executable.
inline void WriteFakeDaemons(const std::string& bin_dir) {
  std::filesystem::create_directories(bin_dir);
  for (const auto& [name, text] :
       {std::pair{"gantryd", kFakeGantryd}, std::pair{"gantry-agent", kFakeAgent},
        std::pair{"gantry-restd", kFakeRestd}}) {
    const std::string path = bin_dir + "/" + name;
    std::ofstream(path) << text;
    chmod(path.c_str(), 0755);
  }
}

// Safety net for test teardown: SIGKILLs every process whose command line mentions `root` (a
// test's temporary folder), so that a failed test leaves no fake daemon behind.
inline void KillProcessesMentioning(const std::string& root) {
  std::error_code ec;
  for (std::filesystem::directory_iterator it("/proc", ec), end; !ec && it != end;
       it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    // read(2), not a stream: a process that exits meanwhile makes the read fail (ESRCH), which
    // libstdc++'s filebuf turns into an exception.
    std::string cmdline;
    const int fd = open((it->path() / "cmdline").c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) continue;
    char buf[4096];
    for (ssize_t n; (n = read(fd, buf, sizeof(buf))) > 0;) cmdline.append(buf, n);
    close(fd);
    const auto pid = static_cast<pid_t>(std::stol(name));
    if (pid != getpid() && cmdline.find(root) != std::string::npos) kill(pid, SIGKILL);
  }
}

class FakeControllerService final : public gantry::v1::Controller::Service {
 public:
  FakeControllerService(std::string dir, bool nodes_unimplemented)
      : dir_(std::move(dir)), nodes_unimplemented_(nodes_unimplemented) {}

  grpc::Status Ping(grpc::ServerContext* /*context*/, const gantry::v1::PingRequest* /*request*/,
                    gantry::v1::PingReply* reply) override {
    reply->set_cluster_name("fake");
    return grpc::Status::OK;
  }

  grpc::Status GetNodes(grpc::ServerContext* /*context*/,
                        const gantry::v1::GetNodesRequest* /*request*/,
                        gantry::v1::GetNodesReply* reply) override {
    if (nodes_unimplemented_) return {grpc::StatusCode::UNIMPLEMENTED, "not yet"};
    std::error_code ec;
    for (std::filesystem::directory_iterator it(dir_ + "/spool", ec), end; !ec && it != end;
         it.increment(ec)) {
      std::ifstream in(it->path() / "registered");
      int64_t time = 0;
      if (!(in >> time)) continue;
      gantry::v1::Node* n = reply->add_nodes();
      n->set_name(it->path().filename().string());
      n->set_address("127.0.0.1:1");
      n->set_boot_time(time);
      n->set_state(2);  // IDLE
    }
    return grpc::Status::OK;
  }

 private:
  std::string dir_;
  bool nodes_unimplemented_;
};

// Serves FakeControllerService on DIR/run/gantryd.sock (run/ made) for its lifetime.
class FakeController {
 public:
  explicit FakeController(const std::string& dir, bool nodes_unimplemented = false)
      : service_(dir, nodes_unimplemented) {
    grpc::ServerBuilder builder;
    std::filesystem::create_directories(dir + "/run");
    builder.AddListeningPort("unix:" + dir + "/run/gantryd.sock",
                             grpc::InsecureServerCredentials());
    builder.RegisterService(&service_);
    server_ = builder.BuildAndStart();
  }
  ~FakeController() {
    if (server_) server_->Shutdown();
  }
  FakeController(const FakeController&) = delete;
  FakeController& operator=(const FakeController&) = delete;

  bool ok() const { return server_ != nullptr; }

 private:
  FakeControllerService service_;
  std::unique_ptr<grpc::Server> server_;
};

}  // namespace gantry::cluster::testing

#endif  // GANTRY_CLUSTER_TESTING_FAKE_DAEMONS_H_
