#include "core/pass_log.h"

#include <cstdio>

namespace gantry::core {

std::string PassLogKey(uint32_t chunk) {
  char key[32];
  std::snprintf(key, sizeof key, "pass_log/%08u", chunk);
  return key;
}

namespace {

// Calls fn with each chunk in order; stops at the first missing one.
Status ForEachChunk(const SideTableGet& get,
                    const std::function<void(uint32_t, v1::PassMarks)>& fn) {
  for (uint32_t chunk = 0;; ++chunk) {
    GANTRY_ASSIGN_OR_RETURN(std::optional<std::string> bytes, get(PassLogKey(chunk)));
    if (!bytes) return Status::Ok();
    v1::PassMarks marks;
    if (!marks.ParseFromString(*bytes)) {
      return Internal("the pass log's chunk \"" + PassLogKey(chunk) + "\" does not parse");
    }
    fn(chunk, std::move(marks));
  }
}

}  // namespace

Result<std::vector<v1::PassMark>> ReadPassLog(const SideTableGet& get) {
  std::vector<v1::PassMark> out;
  GANTRY_RETURN_IF_ERROR(ForEachChunk(get, [&out](uint32_t, v1::PassMarks marks) {
    for (v1::PassMark& mark : *marks.mutable_marks()) out.push_back(std::move(mark));
  }));
  return out;
}

std::pair<std::string, std::string> PassLogWriter::Add(const v1::PassMark& mark) {
  if (current_.marks_size() >= kPassMarksPerChunk) {
    ++chunk_;
    current_.Clear();
  }
  *current_.add_marks() = mark;
  return {PassLogKey(chunk_), current_.SerializeAsString()};
}

Result<PassLogWriter> PassLogWriter::Resume(const SideTableGet& get) {
  PassLogWriter writer;
  GANTRY_RETURN_IF_ERROR(ForEachChunk(get, [&writer](uint32_t chunk, v1::PassMarks marks) {
    writer.chunk_ = chunk;
    writer.current_ = std::move(marks);
  }));
  return writer;
}

}  // namespace gantry::core
