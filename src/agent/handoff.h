// What the agent hands its helper processes on a pipe (keeper.h's SpawnSpec, step_keeper.h's
// StepPlan): length-prefixed fields, "<name> <length>\n<bytes>\n" each, so values may hold any
// byte (a list repeats its name); and whole writes and reads of a pipe.
//
// Thread-safety: the functions share no state.
#ifndef GANTRY_AGENT_HANDOFF_H_
#define GANTRY_AGENT_HANDOFF_H_

#include <charconv>
#include <functional>
#include <string>
#include <string_view>

#include "base/status.h"

namespace gantry::agent {

// A whole decimal number in `text` (no sign for unsigned types, no spaces); false otherwise.
template <typename T>
bool ParseInt(std::string_view text, T* out) {
  if (text.empty()) return false;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), *out);
  return ec == std::errc() && ptr == text.data() + text.size();
}

// Appends one field to `out`.
void PutField(std::string* out, std::string_view name, std::string_view value);

// Calls `fn` with each field of `bytes` in order and returns its first error; a malformed field
// (no header, a bad length, a missing closing newline) is InvalidArgument naming `what` and the
// field.
Status ForEachField(std::string_view bytes, std::string_view what,
                    const std::function<Status(const std::string& name, std::string value)>& fn);

// Writes all of `data` to `fd` (Unavailable with errno's text on failure).
Status WriteAll(int fd, std::string_view data);

// Reads `fd` to EOF into `out`; false on a read error or past `limit` bytes.
bool ReadAll(int fd, size_t limit, std::string* out);

}  // namespace gantry::agent

#endif  // GANTRY_AGENT_HANDOFF_H_
