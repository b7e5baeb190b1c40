#include "serve/operations.h"

#include <chrono>
#include <filesystem>
#include <fstream>
#include <random>

#include "sys/files.h"

namespace gantry::serve {
namespace {

constexpr char kMetadataPrefix[] = "type.googleapis.com/google.cloud.aiplatform.v1beta1.";

// A new operation id: 19 decimal digits, as Google's.
std::string NewId() {
  std::random_device random;
  std::uniform_int_distribution<uint64_t> digits(1000000000000000000ULL, 9999999999999999999ULL);
  return std::to_string(digits(random));
}

}  // namespace

Result<std::unique_ptr<OperationStore>> OperationStore::Open(const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return Unavailable(dir + ": " + ec.message());
  std::filesystem::permissions(dir, std::filesystem::perms::owner_all, ec);
  std::unique_ptr<OperationStore> store(new OperationStore(dir));
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    if (entry.path().extension() != ".json") continue;
    std::ifstream in(entry.path());
    Json op = Json::parse(in, nullptr, false);
    if (op.is_discarded() || !op.is_object() || !op.contains("name")) continue;
    const std::string name = op["name"];
    const std::string id = name.substr(name.rfind('/') + 1);
    if (!op.value("done", false)) {
      // It was running when the server stopped: its work is not known to have finished.
      op["done"] = true;
      op["error"] = {{"code", 10},
                     {"message",
                      "gantry serve stopped while the operation ran; look at the "
                      "cluster (GET) to see where it stands"}};
      store->Save(op);
    }
    store->operations_[id] = std::move(op);
  }
  return store;
}

OperationStore::~OperationStore() { WaitIdle(); }

void OperationStore::Save(const Json& operation) const {
  const std::string name = operation["name"];
  const std::string path = dir_ + "/" + name.substr(name.rfind('/') + 1) + ".json";
  // An operation a client polls must outlive a crash of this process; not of the machine.
  (void)sys::WriteFileAtomically(path, operation.dump(2) + "\n", 0600, sys::Durability::kProcess);
}

Result<Json> OperationStore::Start(const Parent& parent, const std::string& cluster_id,
                                   const std::string& metadata_type,
                                   const std::string& first_message, OperationWork work) {
  std::unique_lock lock(mu_);
  if (const auto running = running_.find(cluster_id); running != running_.end()) {
    return FailedPrecondition("cluster " + cluster_id + " has an operation running (" +
                              running->second + "); wait until it is done");
  }
  const std::string id = NewId();
  const std::string now = Rfc3339(NowMs());
  Json op = {{"name", parent.Name() + "/operations/" + id},
             {"metadata",
              {{"@type", kMetadataPrefix + metadata_type},
               {"genericMetadata", {{"createTime", now}, {"updateTime", now}}},
               {"progressMessage", first_message},
               {"cluster", parent.Name() + "/modelDevelopmentClusters/" + cluster_id}}},
             {"done", false}};
  Save(op);
  operations_[id] = op;
  running_[cluster_id] = metadata_type;
  // Detached: a long-lived server must not keep one finished thread per operation. The thread's
  // last touch of this store is unlocking mu_ after saying it is done, which WaitIdle (and so
  // the destructor) waits for.
  std::thread([this, id, cluster_id, work = std::move(work)] {
    const Progress progress([this, &id](const std::string& message) {
      std::lock_guard guard(mu_);
      Json& current = operations_[id];
      current["metadata"]["progressMessage"] = message;
      current["metadata"]["genericMetadata"]["updateTime"] = Rfc3339(NowMs());
      Save(current);
    });
    OperationOutcome outcome;
    try {
      outcome = work(progress);
    } catch (const std::exception& e) {
      outcome.error = OperationError{500, std::string("internal error: ") + e.what()};
    }
    std::lock_guard guard(mu_);
    Json& finished = operations_[id];
    finished["done"] = true;
    finished["metadata"]["genericMetadata"]["updateTime"] = Rfc3339(NowMs());
    if (outcome.error) {
      finished["error"] = {{"code", RpcCodeNumber(outcome.error->http_status)},
                           {"message", outcome.error->message}};
    } else {
      finished["response"] = outcome.response.value_or(Json::object());
    }
    Save(finished);
    running_.erase(cluster_id);
    idle_.notify_all();
  }).detach();
  return op;
}

std::optional<Json> OperationStore::Get(const Parent& parent, const std::string& id) const {
  std::lock_guard lock(mu_);
  const auto it = operations_.find(id);
  if (it == operations_.end()) return std::nullopt;
  const std::string name = it->second["name"];
  if (!name.starts_with(parent.Name() + "/")) return std::nullopt;
  return it->second;
}

std::optional<std::string> OperationStore::RunningOn(const std::string& cluster_id) const {
  std::lock_guard lock(mu_);
  const auto it = running_.find(cluster_id);
  if (it == running_.end()) return std::nullopt;
  return it->second;
}

void OperationStore::WaitIdle() {
  std::unique_lock lock(mu_);
  idle_.wait(lock, [this] { return running_.empty(); });
}

}  // namespace gantry::serve
