// Long-running operations (google.longrunning.Operation) of `gantry serve`: each create, update,
// delete and fault report runs on a thread of its own, and the caller polls
// .../operations/ID until `done`. At most one operation runs per cluster; a second is refused
// (FailedPrecondition naming the running one). Every change of an operation is written to
// DIR/ID.json before it is visible, so that a restarted `gantry serve` still answers for the
// operations it ran; one that was running when the server stopped is done with an error saying so.
// Thread-safe.
#ifndef GANTRY_SERVE_OPERATIONS_H_
#define GANTRY_SERVE_OPERATIONS_H_

#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "base/status.h"
#include "serve/resources.h"

namespace gantry::serve {

// What a running operation may say while it works.
class Progress {
 public:
  explicit Progress(std::function<void(const std::string&)> say) : say_(std::move(say)) {}
  void Say(const std::string& message) const { say_(message); }

 private:
  std::function<void(const std::string&)> say_;
};

// The work of an operation: its response (a resource, or {} for Empty), or an error with the
// HTTP status it maps to.
struct OperationError {
  int http_status = 500;
  std::string message;
};
struct OperationOutcome {
  std::optional<Json> response;
  std::optional<OperationError> error;
};
using OperationWork = std::function<OperationOutcome(const Progress&)>;

class OperationStore {
 public:
  // Loads the operations kept in `dir` (made if missing).
  static Result<std::unique_ptr<OperationStore>> Open(const std::string& dir);
  ~OperationStore();  // waits for the running operations (their threads are detached)

  // Starts `work` for `cluster_id` under `parent`; the Operation as it stands. FailedPrecondition
  // when an operation on that cluster still runs.
  Result<Json> Start(const Parent& parent, const std::string& cluster_id,
                     const std::string& metadata_type, const std::string& first_message,
                     OperationWork work);

  // The operation `id` of `parent`, if any.
  std::optional<Json> Get(const Parent& parent, const std::string& id) const;

  // Whether an operation on `cluster_id` runs now, and which kind ("Create...").
  std::optional<std::string> RunningOn(const std::string& cluster_id) const;

  // Waits until no operation runs (tests, shutdown).
  void WaitIdle();

 private:
  explicit OperationStore(std::string dir) : dir_(std::move(dir)) {}
  void Save(const Json& operation) const;  // mu_ held

  const std::string dir_;
  mutable std::mutex mu_;
  std::condition_variable idle_;
  std::map<std::string, Json> operations_;      // by id
  std::map<std::string, std::string> running_;  // cluster id -> metadata type
};

}  // namespace gantry::serve

#endif  // GANTRY_SERVE_OPERATIONS_H_
