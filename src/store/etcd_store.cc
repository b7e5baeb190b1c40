#include "store/etcd_store.h"

#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <optional>
#include <utility>

#include "etcd/etcd_client.h"
#include "store/batched_store.h"

namespace gantry::store {
namespace {

std::string Padded(uint64_t n, int width) {
  char text[32];
  std::snprintf(text, sizeof(text), "%0*" PRIu64, width, n);
  return text;
}

std::string EncodeRecord(const std::string& kind, const std::string& payload) {
  return std::to_string(kind.size()) + ":" + kind + payload;
}

std::optional<Record> DecodeRecord(uint64_t seq, const std::string& value) {
  const size_t colon = value.find(':');
  if (colon == std::string::npos) return std::nullopt;
  const size_t length = std::strtoull(value.substr(0, colon).c_str(), nullptr, 10);
  if (colon + 1 + length > value.size()) return std::nullopt;
  return Record{seq, value.substr(colon + 1, length), value.substr(colon + 1 + length)};
}

std::string EncodeJob(const ArchivedJob& job) {
  return std::to_string(job.job_id) + " " + std::to_string(job.submit_time) + " " +
         std::to_string(job.end_time) + " " + std::to_string(job.user_id) + " " +
         std::to_string(job.array_job_id) + "\n" + job.record;
}

std::optional<ArchivedJob> DecodeJob(const std::string& value) {
  const size_t newline = value.find('\n');
  if (newline == std::string::npos) return std::nullopt;
  ArchivedJob job;
  long long submit = 0;  // NOLINT(google-runtime-int): sscanf's %lld
  long long end = 0;     // NOLINT(google-runtime-int)
  unsigned id = 0;
  unsigned user = 0;
  unsigned array = 0;
  if (std::sscanf(value.substr(0, newline).c_str(), "%u %lld %lld %u %u", &id, &submit, &end, &user,
                  &array) != 5) {
    return std::nullopt;
  }
  job.job_id = id;
  job.submit_time = submit;
  job.end_time = end;
  job.user_id = user;
  job.array_job_id = array;
  job.record = value.substr(newline + 1);
  return job;
}

class EtcdStore final : public BatchedStore {
 public:
  explicit EtcdStore(EtcdStoreOptions options)
      : BatchedStore("store etcd " + options.prefix + ": ",
                     BatchOptions{options.max_batch_calls, options.max_batch_bytes,
                                  options.before_batch_for_testing}),
        options_(std::move(options)),
        etcd_(options_.endpoints, options_.call_timeout) {}
  ~EtcdStore() override { Stop(); }

  Status Open() {
    Result<std::optional<etcd::KeyValue>> last = etcd_.GetLast(Key("log/"));
    if (!last.ok()) return Unavailable(Prefix() + last.status().message());
    const uint64_t last_seq =
        *last ? std::strtoull((*last)->key.substr(Key("log/").size()).c_str(), nullptr, 10) : 0;
    std::optional<Snapshot> snapshot;
    GANTRY_RETURN_IF_ERROR(SelectSnapshot(&snapshot));
    return Start(last_seq, snapshot ? std::optional<uint64_t>(snapshot->seq) : std::nullopt);
  }

 protected:
  Status Begin() override {
    writes_.clear();
    compacted_below_.reset();
    return Status::Ok();
  }
  Status Commit() override {
    std::vector<etcd::Op> ops;
    if (compacted_below_) ops.push_back(etcd::Op{Key("log/"), std::nullopt, 0, *compacted_below_});
    for (auto& [key, value] : writes_) ops.push_back(etcd::Op{key, std::move(value), 0, ""});
    writes_.clear();
    std::vector<etcd::Compare> fence;
    if (!options_.fence_key.empty()) {
      fence.push_back(etcd::CreatedAt(options_.fence_key, options_.fence_revision));
    }
    Result<etcd::TxnResult> done = etcd_.Txn(fence, ops);
    if (!done.ok()) return {done.status().code(), Prefix() + done.status().message()};
    if (!done->succeeded) {
      return FailedPrecondition(Prefix() + "the lead passed to another controller (" +
                                options_.fence_key + " no longer holds term " +
                                std::to_string(options_.fence_revision) + "): nothing written");
    }
    return Status::Ok();
  }
  bool Rollback() override {
    writes_.clear();
    compacted_below_.reset();
    return true;
  }
  Status InsertRecord(uint64_t seq, const std::string& kind, const std::string& payload) override {
    writes_[LogKey(seq)] = EncodeRecord(kind, payload);
    return Status::Ok();
  }
  Status UpsertKv(const std::string& key, const std::string& value) override {
    writes_[Key("kv/" + key)] = value;
    return Status::Ok();
  }
  Status DeleteKv(const std::string& key) override {
    writes_[Key("kv/" + key)] = std::nullopt;
    return Status::Ok();
  }
  Status UpsertArchive(const ArchivedJob& job) override {
    writes_[Key("archive/" + Padded(job.job_id, 10))] = EncodeJob(job);
    if (job.array_job_id != 0) {
      writes_[Key("archive-array/" + Padded(job.array_job_id, 10) + "/" + Padded(job.job_id, 10))] =
          "";
    }
    return Status::Ok();
  }
  Status WriteSnapshotRows(const Snapshot& snapshot) override {
    writes_[Key("snapshot")] = std::to_string(snapshot.seq) + ":" + snapshot.payload;
    // The records it stands for go: those written before this batch in one range delete (etcd
    // refuses a key both written and deleted in one transaction), this batch's own unwritten.
    const std::string end = LogKey(snapshot.seq + 1);
    writes_.erase(writes_.lower_bound(Key("log/")), writes_.lower_bound(end));
    if (!compacted_below_ || *compacted_below_ < end) compacted_below_ = end;
    return Status::Ok();
  }
  Status SelectRecords(uint64_t after, int limit, std::vector<Record>* out) override {
    Result<std::vector<etcd::KeyValue>> kvs =
        etcd_.GetPrefix(Key("log/"), limit, LogKey(after + 1));
    if (!kvs.ok()) return Unavailable(Prefix() + kvs.status().message());
    const size_t skip = Key("log/").size();
    for (const etcd::KeyValue& kv : *kvs) {
      const uint64_t seq = std::strtoull(kv.key.substr(skip).c_str(), nullptr, 10);
      std::optional<Record> record = DecodeRecord(seq, kv.value);
      if (!record) return Internal(Prefix() + kv.key + " does not decode");
      out->push_back(std::move(*record));
    }
    return Status::Ok();
  }
  Status SelectSnapshot(std::optional<Snapshot>* out) override {
    Result<std::optional<etcd::KeyValue>> kv = etcd_.Get(Key("snapshot"));
    if (!kv.ok()) return Unavailable(Prefix() + kv.status().message());
    if (!*kv) {
      *out = std::nullopt;
      return Status::Ok();
    }
    const std::string& value = (*kv)->value;
    const size_t colon = value.find(':');
    if (colon == std::string::npos) return Internal(Prefix() + "the snapshot does not decode");
    *out = Snapshot{std::strtoull(value.substr(0, colon).c_str(), nullptr, 10),
                    value.substr(colon + 1)};
    return Status::Ok();
  }
  Status SelectKv(const std::string& key, std::optional<std::string>* out) override {
    Result<std::optional<etcd::KeyValue>> kv = etcd_.Get(Key("kv/" + key));
    if (!kv.ok()) return Unavailable(Prefix() + kv.status().message());
    *out = *kv ? std::optional<std::string>((*kv)->value) : std::nullopt;
    return Status::Ok();
  }
  Status SelectArchivedJob(uint32_t id, std::vector<ArchivedJob>* out) override {
    std::vector<std::string> keys = {Key("archive/" + Padded(id, 10))};
    const std::string tasks = Key("archive-array/" + Padded(id, 10) + "/");
    Result<std::vector<etcd::KeyValue>> index = etcd_.GetPrefix(tasks);
    if (!index.ok()) return Unavailable(Prefix() + index.status().message());
    for (const etcd::KeyValue& kv : *index) {
      const std::string job = kv.key.substr(tasks.size());
      if (job != Padded(id, 10)) keys.push_back(Key("archive/" + job));
    }
    for (const std::string& key : keys) {
      Result<std::optional<etcd::KeyValue>> kv = etcd_.Get(key);
      if (!kv.ok()) return Unavailable(Prefix() + kv.status().message());
      if (!*kv) continue;
      std::optional<ArchivedJob> job = DecodeJob((*kv)->value);
      if (!job) return Internal(Prefix() + key + " does not decode");
      out->push_back(std::move(*job));
    }
    return Status::Ok();
  }
  Status SelectArchiveChunk(int64_t cursor, int64_t ended, int64_t submitted, int limit,
                            std::vector<ArchivedJob>* out) override {
    std::string from = Key("archive/" + Padded(cursor < 0 ? 0 : cursor + 1, 10));
    while (static_cast<int>(out->size()) < limit) {
      Result<std::vector<etcd::KeyValue>> kvs = etcd_.GetPrefix(Key("archive/"), 512, from);
      if (!kvs.ok()) return Unavailable(Prefix() + kvs.status().message());
      for (const etcd::KeyValue& kv : *kvs) {
        std::optional<ArchivedJob> job = DecodeJob(kv.value);
        if (!job) return Internal(Prefix() + kv.key + " does not decode");
        if (job->end_time >= ended && job->submit_time <= submitted) out->push_back(*job);
        if (static_cast<int>(out->size()) >= limit) return Status::Ok();
      }
      if (kvs->size() < 512) break;
      from = kvs->back().key + std::string(1, '\0');
    }
    return Status::Ok();
  }

 private:
  std::string Key(const std::string& rest) const { return options_.prefix + rest; }
  std::string LogKey(uint64_t seq) const { return Key("log/" + Padded(seq, 20)); }

  const EtcdStoreOptions options_;
  etcd::EtcdClient etcd_;
  // The open transaction: key -> value (nullopt: delete), and the end of the log range a
  // snapshot compacts.
  std::map<std::string, std::optional<std::string>> writes_;
  std::optional<std::string> compacted_below_;
};

}  // namespace

Result<std::unique_ptr<Store>> OpenEtcdStore(EtcdStoreOptions options) {
  if (options.endpoints.empty()) return InvalidArgument("etcd store: no endpoint");
  auto store = std::make_unique<EtcdStore>(std::move(options));
  GANTRY_RETURN_IF_ERROR(store->Open());
  return std::unique_ptr<Store>(std::move(store));
}

}  // namespace gantry::store
