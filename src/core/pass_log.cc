#include "core/pass_log.h"

#include <charconv>
#include <cstdio>

namespace gantry::core {

std::string PassLogKey(uint32_t chunk) {
  char key[32];
  std::snprintf(key, sizeof key, "pass_log/%08u", chunk);
  return key;
}

Result<std::vector<v1::PassMark>> ReadPassLog(const SideTableGet& get) {
  std::vector<v1::PassMark> out;
  for (uint32_t chunk = 0;; ++chunk) {
    GANTRY_ASSIGN_OR_RETURN(std::optional<std::string> bytes, get(PassLogKey(chunk)));
    if (!bytes) return out;
    v1::PassMarks marks;
    if (!marks.ParseFromString(*bytes)) {
      return Internal("the pass log's chunk \"" + PassLogKey(chunk) + "\" does not parse");
    }
    for (v1::PassMark& mark : *marks.mutable_marks()) out.push_back(std::move(mark));
  }
}

std::vector<std::pair<std::string, std::string>> PassLogWriter::Add(const v1::PassMark& mark) {
  std::vector<std::pair<std::string, std::string>> puts;
  if (current_.marks_size() >= kPassMarksPerChunk) {
    ++chunk_;
    current_.Clear();
  }
  if (current_.marks_size() == 0) puts.emplace_back(kPassLogChunksKey, std::to_string(chunk_ + 1));
  *current_.add_marks() = mark;
  puts.emplace_back(PassLogKey(chunk_), current_.SerializeAsString());
  return puts;
}

Result<PassLogWriter> PassLogWriter::Resume(const SideTableGet& get) {
  PassLogWriter writer;
  GANTRY_ASSIGN_OR_RETURN(std::optional<std::string> count, get(kPassLogChunksKey));
  if (count) {
    uint32_t chunks = 0;
    const auto [end, error] = std::from_chars(count->data(), count->data() + count->size(), chunks);
    if (error != std::errc() || end != count->data() + count->size()) {
      return Internal(std::string("the pass log's \"") + kPassLogChunksKey +
                      "\" is not a count: \"" + *count + "\"");
    }
    writer.chunk_ = chunks;
  }
  return writer;
}

}  // namespace gantry::core
