// Fills a controller store's job archive with N ended jobs, as gantryd archives them, for
// bench/archive_bench.sh (sacct against a large job history). Not a test.
//   archive_fill STATE_DIR/state.db N [FIRST_ID]
//   archive_fill postgresql:CONNINFO N [FIRST_ID]   (the PostgreSQL store)
#include <cstdio>
#include <cstdlib>
#include <string>

#include "gantry/v1/job.pb.h"
#include "store/postgres_store.h"
#include "store/sqlite_store.h"

int main(int argc, char** argv) {
  using namespace gantry;  // NOLINT(google-build-using-namespace): a short main
  if (argc < 3) {
    std::fprintf(stderr, "usage: archive_fill STATE_DB|postgresql:CONNINFO N [FIRST_ID]\n");
    return 2;
  }
  const uint32_t n = static_cast<uint32_t>(std::strtoul(argv[2], nullptr, 10));
  const uint32_t first = argc > 3 ? static_cast<uint32_t>(std::strtoul(argv[3], nullptr, 10)) : 1;
  const std::string where = argv[1];
  auto store = where.starts_with("postgresql:") ? store::OpenPostgresStore(where.substr(11))
                                                : store::OpenSqliteStore(where);
  if (!store.ok()) {
    std::fprintf(stderr, "archive_fill: %s\n", store.status().ToString().c_str());
    return 1;
  }
  constexpr uint32_t kBatch = 10000;
  const int64_t base = 1790000000;
  for (uint32_t done = 0; done < n;) {
    store::WriteBatch batch;
    for (uint32_t i = 0; i < kBatch && done < n; ++i, ++done) {
      const uint32_t id = first + done;
      v1::Job job;
      job.set_job_id(id);
      job.set_user_id(1000 + id % 50);
      job.set_user_name("user" + std::to_string(id % 50));
      job.set_group_id(1000);
      job.set_group_name("users");
      job.mutable_request()->set_name("train-" + std::to_string(id % 97));
      job.mutable_request()->add_partitions("cpu");
      job.mutable_request()->set_account("research");
      job.mutable_request()->set_qos("normal");
      job.mutable_request()->set_work_dir("/home/user" + std::to_string(id % 50));
      job.set_state(3);  // COMPLETED
      job.set_exit_status(0);
      job.set_submit_time(base + id);
      job.set_eligible_time(base + id);
      job.set_start_time(base + id + 5);
      job.set_end_time(base + id + 65);
      job.set_partition("cpu");
      job.add_nodes("node-" + std::to_string(id % 64));
      job.set_num_cpus(8);
      job.set_time_limit_min(60);
      job.mutable_batch_usage()->set_user_cpu_usec(55000000);
      job.mutable_batch_usage()->set_max_rss_kib(204800);
      batch.archive.push_back(store::ArchivedJob{id, job.submit_time(), job.end_time(),
                                                 job.user_id(), job.SerializeAsString(), 0});
    }
    auto written = (*store)->EnqueueWrite(std::move(batch))->Wait();
    if (!written.ok()) {
      std::fprintf(stderr, "archive_fill: %s\n", written.status().ToString().c_str());
      return 1;
    }
  }
  std::printf("archived %u jobs from id %u\n", n, first);
  return 0;
}
