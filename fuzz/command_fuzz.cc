// Fuzzes gantryd's command handler, the code every local user reaches through commands.sock:
// the input's first byte is the method (wire/frame.h), its second the caller (even: root, odd:
// an ordinary uid), the rest the request message as the socket would carry it. The controller
// runs over a SQLite store in a temporary folder with fake agents; after each request it runs
// one scheduling pass. The handler must answer (a reply or an error Status) and never throw or
// crash; the state must stay consistent enough that the next listing works.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "base/status.h"
#include "ctld/agent_link.h"
#include "ctld/command_socket.h"
#include "ctld/controller.h"
#include "state/testing.h"
#include "store/sqlite_store.h"

namespace {

using namespace gantry;  // NOLINT(google-build-using-namespace): a fuzz target's glue

void Check(bool ok) {
  if (!ok) __builtin_trap();
}

class StillClock final : public Clock {
 public:
  UnixTime Now() const override { return state::testing::kNow; }
};

class NoAgents final : public ctld::AgentLink {
 public:
  void PrepareJob(const std::string&, const std::string&, v1::PrepareJobRequest) override {}
  void LaunchBatch(const std::string&, const std::string&, v1::LaunchBatchRequest) override {}
  void SignalJob(const std::string&, const std::string&, v1::SignalJobOnNodeRequest) override {}
  void TerminateJob(const std::string&, const std::string&, v1::TerminateJobRequest) override {}
  void LaunchTasks(const std::string&, const std::string&, v1::LaunchTasksRequest) override {}
};

struct World {
  std::string dir;
  StillClock clock;
  NoAgents agents;
  std::unique_ptr<store::Store> store;
  std::unique_ptr<ctld::Controller> controller;
};

World* MakeWorld() {
  auto* w = new World;
  char pattern[] = "/tmp/gantry-command-fuzz-XXXXXX";
  Check(mkdtemp(pattern) != nullptr);
  w->dir = pattern;
  auto opened = store::OpenSqliteStore(w->dir + "/state.db");
  Check(opened.ok());
  w->store = std::move(opened).value();
  ctld::ControllerConfig config;
  config.cluster_name = "fuzz";
  config.admit.max_job_count = 2000;
  w->controller = std::make_unique<ctld::Controller>(config, w->store.get(), &w->clock, &w->agents);
  v1::ConfigLoaded loaded;
  for (const char* n : {"n0", "n1"}) {
    *loaded.add_nodes() = state::testing::MakeNode(n, 8, 32000, "gpu:2");
  }
  *loaded.add_partitions() = state::testing::MakePartition("batch", {"n0", "n1"}, true);
  Check(w->controller->Recover(loaded).ok());
  static const std::string dir = w->dir;  // removed when the fuzzer exits
  std::atexit([] { std::filesystem::remove_all(dir); });
  for (const char* n : {"n0", "n1"}) {
    v1::RegisterRequest r;
    r.set_node(n);
    r.set_address("127.0.0.1:1");
    (void)w->controller->Register(ctld::Caller{0, 0}, r);
  }
  return w;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static World* world = MakeWorld();
  if (size < 2) return 0;
  const std::optional<wire::Method> method = wire::MethodFromTag(data[0]);
  if (!method) return 0;
  const ctld::Caller caller = data[1] % 2 == 0 ? ctld::Caller{0, 0} : ctld::Caller{1001, 1001};
  const std::string_view body(reinterpret_cast<const char*>(data) + 2, size - 2);
  Result<wire::Slices> reply =
      ctld::HandleCommand(world->controller.get(), "fuzz", caller, *method, body);
  if (!reply.ok()) Check(!reply.status().message().empty());
  if (std::getenv("GANTRY_FUZZ_VERBOSE") != nullptr) {
    std::fprintf(stderr, "method %d: %s\n", data[0],
                 reply.ok() ? "ok" : reply.status().ToString().c_str());
  }
  world->controller->RunOnce();
  // The queue still lists.
  wire::Slices listing;
  Check(world->controller->GetJobsSerialized(v1::GetJobsRequest(), &listing).ok());
  return 0;
}
