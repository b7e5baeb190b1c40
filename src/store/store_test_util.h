// Helpers shared by the store tests (every backend's contract, and each backend's own).
#ifndef GANTRY_STORE_STORE_TEST_UTIL_H_
#define GANTRY_STORE_STORE_TEST_UTIL_H_

#include <stdlib.h>

#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "store/store.h"

namespace gantry::store::testing {

using KindPayloads = std::vector<std::pair<std::string, std::string>>;

// A fresh directory under the test temp dir, removed with everything in it.
class TempDir {
 public:
  TempDir() {
    std::string pattern = ::testing::TempDir() + "gantry_store_XXXXXX";
    std::vector<char> buf(pattern.begin(), pattern.end());
    buf.push_back('\0');
    char* made = mkdtemp(buf.data());
    EXPECT_NE(made, nullptr) << std::strerror(errno);
    path_ = made != nullptr ? made : "";
  }
  ~TempDir() {
    std::error_code ignored;
    if (!path_.empty()) std::filesystem::remove_all(path_, ignored);
  }
  std::string File(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

inline std::vector<Record> ReadAll(Store& store, uint64_t after = 0) {
  std::vector<Record> records;
  Status status = store.ReadFrom(after, [&records](const Record& record) {
    records.push_back(record);
    return Status::Ok();
  });
  EXPECT_TRUE(status.ok()) << status.ToString();
  return records;
}

inline std::vector<uint64_t> MustAppend(Store& store, KindPayloads kind_payloads) {
  auto seqs = store.Append(std::move(kind_payloads));
  EXPECT_TRUE(seqs.ok()) << seqs.status().ToString();
  return seqs.ok() ? *seqs : std::vector<uint64_t>{};
}

// A job-submit-like payload of about 300 bytes, different for each n.
inline std::string JobPayload(uint64_t n) {
  std::string payload = "{\"job_id\":" + std::to_string(n) +
                        ",\"user\":\"alice\",\"partition\":\"gpu\",\"script\":\"";
  payload.append(240, static_cast<char>('a' + n % 26));
  payload += "\"}";
  return payload;
}

// Blocks the writer's first batch until released, so the test controls what queues behind it.
class WriterGate {
 public:
  void Hook() {
    std::unique_lock<std::mutex> lock(mu_);
    if (entered_++ > 0) return;
    cv_.notify_all();
    cv_.wait(lock, [this] { return open_; });
  }
  // Waits until the writer holds its first batch at the gate.
  void WaitUntilHeld() {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [this] { return entered_ > 0; });
  }
  void Open() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      open_ = true;
    }
    cv_.notify_all();
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool open_ = false;
  int entered_ = 0;
};

// Waits (without any deadline the test asserts on) until `n` writes are queued.
inline void WaitForQueued(Store& store, uint64_t n) {
  while (store.Stats().queued < n) std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

inline ArchivedJob Archived(uint32_t id, int64_t submit, int64_t end, uint32_t uid) {
  return ArchivedJob{id, submit, end, uid, "job-" + std::to_string(id) + "-" + std::to_string(end),
                     0};
}

inline std::vector<uint32_t> ScanIds(Store& store, const ArchiveQuery& query) {
  std::vector<uint32_t> ids;
  Status status = store.ScanArchive(query, [&ids](const ArchivedJob& job) {
    ids.push_back(job.job_id);
    return Status::Ok();
  });
  EXPECT_TRUE(status.ok()) << status.ToString();
  return ids;
}

inline void MustArchive(Store& store, std::vector<ArchivedJob> jobs) {
  WriteBatch batch;
  batch.records = {{"job.ended", "x"}};
  batch.archive = std::move(jobs);
  auto written = store.EnqueueWrite(std::move(batch))->Wait();
  ASSERT_TRUE(written.ok()) << written.status().ToString();
}

}  // namespace gantry::store::testing

#endif  // GANTRY_STORE_STORE_TEST_UTIL_H_
