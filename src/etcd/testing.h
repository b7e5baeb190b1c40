// For tests: one etcd member (Debian's etcd-server) on loopback ports in a temp dir, started on
// first use and stopped at exit; none (and the tests skip) where etcd is not installed.
// Header-only.
#ifndef GANTRY_ETCD_TESTING_H_
#define GANTRY_ETCD_TESTING_H_

#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>
#include <thread>

#include "etcd/etcd_client.h"

namespace gantry::etcd::testing {

inline constexpr char kEtcdBinary[] = "/usr/bin/etcd";

inline int FreePort() {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
  socklen_t length = sizeof(addr);
  getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &length);
  close(fd);
  return ntohs(addr.sin_port);
}

class TestMember {
 public:
  // The member's client address (host:port), nullopt without etcd or when it did not start.
  static std::optional<std::string> Endpoint() {
    static TestMember member;
    return member.endpoint_;
  }

 private:
  TestMember() {
    if (access(kEtcdBinary, X_OK) != 0) return;
    char tmpl[] = "/tmp/gantry-etcd-XXXXXX";
    dir_ = mkdtemp(tmpl);
    const std::string client = "http://127.0.0.1:" + std::to_string(FreePort());
    const std::string peer = "http://127.0.0.1:" + std::to_string(FreePort());
    std::fflush(stdout);  // the child must not write the parent's buffered lines again
    pid_ = fork();
    if (pid_ == 0) {
      const std::string log = dir_ + "/etcd.log";
      if (std::freopen(log.c_str(), "w", stdout) == nullptr) _exit(127);
      if (std::freopen(log.c_str(), "a", stderr) == nullptr) _exit(127);
      // Transactions as large as a store's batches (store/etcd_store.h).
      execl(kEtcdBinary, kEtcdBinary, "--name", "m0", "--data-dir", (dir_ + "/data").c_str(),
            "--listen-client-urls", client.c_str(), "--advertise-client-urls", client.c_str(),
            "--listen-peer-urls", peer.c_str(), "--initial-advertise-peer-urls", peer.c_str(),
            "--initial-cluster", ("m0=" + peer).c_str(), "--max-txn-ops", "100000",
            "--max-request-bytes", "33554432", nullptr);
      _exit(127);
    }
    const std::string endpoint = client.substr(7);
    for (int i = 0; i < 100; ++i) {  // up to about 20 s: etcd starts in a second or two
      // A new client each time: a channel that met the port closed recovers slowly.
      EtcdClient probe({endpoint}, std::chrono::seconds(1));
      if (probe.Put("probe", "1").ok()) {
        endpoint_ = endpoint;
        return;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
  }
  ~TestMember() {
    if (pid_ > 0) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
    if (!dir_.empty()) std::filesystem::remove_all(dir_);
  }

  std::string dir_;
  pid_t pid_ = 0;
  std::optional<std::string> endpoint_;
};

}  // namespace gantry::etcd::testing

#endif  // GANTRY_ETCD_TESTING_H_
