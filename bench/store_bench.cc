// Durable appends per second into the SQLite store, as the controller does them: one ~300-byte
// record (a job submit) per Append, from 1, 4 and 16 threads (group commit shares each fsync).
//
// The store lives in a fresh directory under $GANTRY_BENCH_DIR (default: the system temp dir),
// removed at exit. Put it on the file system the controller will use: on tmpfs an fsync costs
// nothing and the numbers mean little.
//   build-rel/bin/store_bench --benchmark_min_time=2
#include <stdlib.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "benchmark/benchmark.h"
#include "store/sqlite_store.h"

namespace gantry::store {
namespace {

Store* g_store = nullptr;

// About 300 bytes, like a serialized job submit.
std::string JobSubmitPayload() {
  std::string payload =
      "{\"job_id\":123456,\"user\":\"alice\",\"account\":\"physics\",\"partition\":\"gpu\","
      "\"nodes\":\"1-4\",\"ntasks\":32,\"time_limit\":\"2-00:00:00\",\"gres\":\"gpu:a100:4\","
      "\"script\":\"";
  payload.append(300 - payload.size() - 2, 's');
  payload += "\"}";
  return payload;
}

void ReportGrouping(benchmark::State& state, const StoreStats& before) {
  if (state.thread_index() != 0) return;
  StoreStats after = g_store->Stats();
  double calls = static_cast<double>(after.write_calls - before.write_calls);
  double transactions = static_cast<double>(after.transactions - before.transactions);
  if (transactions > 0) state.counters["calls_per_commit"] = calls / transactions;
}

void BM_DurableAppend(benchmark::State& state) {
  const std::string payload = JobSubmitPayload();
  const int records_per_call = static_cast<int>(state.range(0));
  StoreStats before;
  if (state.thread_index() == 0) before = g_store->Stats();
  for (auto _ : state) {
    std::vector<std::pair<std::string, std::string>> records;
    for (int i = 0; i < records_per_call; ++i) records.emplace_back("job.submit", payload);
    auto seqs = g_store->Append(std::move(records));
    if (!seqs.ok()) {
      state.SkipWithError(seqs.status().ToString().c_str());
      break;
    }
  }
  state.SetItemsProcessed(state.iterations() * records_per_call);
  state.SetBytesProcessed(state.iterations() * records_per_call *
                          static_cast<int64_t>(payload.size()));
  ReportGrouping(state, before);
}
// Arg: records per Append call. Real time: the threads mostly wait for fsync.
BENCHMARK(BM_DurableAppend)->Arg(1)->Threads(1)->Threads(4)->Threads(16)->UseRealTime();
BENCHMARK(BM_DurableAppend)->Arg(16)->Threads(1)->UseRealTime();

}  // namespace
}  // namespace gantry::store

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;

  const char* base = getenv("GANTRY_BENCH_DIR");
  std::string pattern =
      (base != nullptr ? std::string(base) : std::filesystem::temp_directory_path().string()) +
      "/gantry_store_bench_XXXXXX";
  std::vector<char> buf(pattern.begin(), pattern.end());
  buf.push_back('\0');
  if (mkdtemp(buf.data()) == nullptr) {
    std::fprintf(stderr, "store_bench: mkdtemp %s: %s\n", pattern.c_str(), std::strerror(errno));
    return 1;
  }
  std::string dir = buf.data();
  int rc = 0;
  {
    auto store = gantry::store::OpenSqliteStore(dir + "/state.db");
    if (!store.ok()) {
      std::fprintf(stderr, "store_bench: %s\n", store.status().ToString().c_str());
      rc = 1;
    } else {
      std::fprintf(stderr, "store_bench: store in %s\n", dir.c_str());
      gantry::store::g_store = store->get();
      benchmark::RunSpecifiedBenchmarks();
      gantry::store::g_store = nullptr;
    }
  }
  benchmark::Shutdown();
  std::error_code ignored;
  std::filesystem::remove_all(dir, ignored);
  return rc;
}
