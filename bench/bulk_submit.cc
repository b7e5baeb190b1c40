// bulk_submit: fills a running gantryd's queue quickly for memory measurements, without forking
// an sbatch per job. Each request is what `sbatch -H --wrap=true -o /dev/null` sends with
// --export=ALL (this process's environment), from T threads over the controller's unix socket.
//
// usage: bulk_submit SOCKET JOBS [THREADS] [--run]   (--run: not held, the jobs run)
// Prints "submitted N jobs in S s (R jobs/s)"; exit 1 on the first refused submission.
#include <grpcpp/grpcpp.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "gantry/v1/controller.grpc.pb.h"

extern char** environ;

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: bulk_submit SOCKET JOBS [THREADS] [--run]\n");
    return 2;
  }
  const std::string socket = argv[1];
  const long jobs = std::atol(argv[2]);
  const int threads = argc > 3 ? std::atoi(argv[3]) : 8;
  gantry::v1::SubmitJobRequest request;
  gantry::v1::JobRequest* r = request.mutable_request();
  r->set_name("wrap");
  r->set_hold(!(argc > 4 && std::string(argv[4]) == "--run"));
  r->set_std_out("/dev/null");
  char cwd[4096];
  if (getcwd(cwd, sizeof(cwd)) != nullptr) {
    r->set_work_dir(cwd);
    r->set_submit_dir(cwd);
  }
  r->set_wrap(true);
  r->set_export_env("ALL");
  request.mutable_payload()->set_script(
      "#!/bin/sh\n# This script was created by sbatch --wrap.\n\ntrue\n");
  for (char** e = environ; *e != nullptr; ++e) request.mutable_payload()->add_environment(*e);

  auto channel = grpc::CreateChannel("unix:" + socket, grpc::InsecureChannelCredentials());
  std::atomic<long> next{0};
  std::atomic<bool> failed{false};
  const auto start = std::chrono::steady_clock::now();
  std::vector<std::thread> pool;
  pool.reserve(static_cast<size_t>(threads));
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([&] {
      auto stub = gantry::v1::Controller::NewStub(channel);
      while (!failed && next.fetch_add(1) < jobs) {
        grpc::ClientContext context;
        gantry::v1::SubmitJobReply reply;
        grpc::Status status = stub->SubmitJob(&context, request, &reply);
        if (!status.ok()) {
          std::fprintf(stderr, "bulk_submit: %s\n", status.error_message().c_str());
          failed = true;
        }
      }
    });
  }
  for (std::thread& t : pool) t.join();
  const double secs =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (failed) return 1;  // no figure for a run that did not submit them all
  std::printf("submitted %ld jobs in %.1f s (%.0f jobs/s)\n", jobs, secs, jobs / secs);
  return 0;
}
