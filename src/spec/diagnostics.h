// Problems found in a cluster spec, each tied to the JSON path of the offending value.
//
// Validation reports every problem at once rather than stopping at the first, so a user fixes a
// spec in one round. A path looks like
// `orchestrator_spec.slurm_spec.partitions[1].node_pool_ids[0]` (always the snake_case spelling,
// whatever the input used).
#ifndef GANTRY_SPEC_DIAGNOSTICS_H_
#define GANTRY_SPEC_DIAGNOSTICS_H_

#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace gantry::spec {

struct Diagnostic {
  std::string path;  // empty for whole-document problems (JSON syntax)
  std::string message;

  // "path: message", or just the message when there is no path.
  std::string ToString() const;
  friend bool operator==(const Diagnostic&, const Diagnostic&) = default;
};

class Diagnostics {
 public:
  void Add(std::string path, std::string message) {
    items_.push_back({std::move(path), std::move(message)});
  }
  void Append(const Diagnostics& other) {
    items_.insert(items_.end(), other.items_.begin(), other.items_.end());
  }
  bool empty() const { return items_.empty(); }
  size_t size() const { return items_.size(); }
  const std::vector<Diagnostic>& items() const { return items_; }

  // OK when empty, else InvalidArgument with one problem per line.
  Status ToStatus() const;

 private:
  std::vector<Diagnostic> items_;
};

// Quotes a value for a message: text::Quote(value, 80), i.e. "abc" with embedded quotes,
// backslashes and control characters escaped (a newline shows as \x0a), and values longer than
// 80 bytes shortened so one bad field cannot flood the terminal.
std::string Quote(std::string_view value);

// Joins words as "a, b, c" for "(known: ...)" hints.
std::string JoinWords(const std::vector<std::string>& words);

}  // namespace gantry::spec

#endif  // GANTRY_SPEC_DIAGNOSTICS_H_
