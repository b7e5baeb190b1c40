// JSON text -> ClusterSpec.
//
// Accepts both proto3 JSON spellings of every field, snake_case and lowerCamelCase, at every
// level (`orchestratorSpec`/`orchestrator_spec`), like Google's APIs. Unknown fields are
// refused with a "did you mean" hint; a field given under both spellings is refused; types are
// checked (integers may also be written as decimal strings, as proto3 JSON allows for int64).
// JSON syntax errors report line and column. Only shape is checked here; rules that relate
// fields to each other are in validate.h. Pure; thread-safe.
#ifndef GANTRY_SPEC_SPEC_PARSER_H_
#define GANTRY_SPEC_SPEC_PARSER_H_

#include <optional>
#include <string_view>

#include "spec/cluster_spec.h"
#include "spec/diagnostics.h"

namespace gantry::spec {

struct ParsedSpec {
  // Set when the text was valid JSON of the right overall shape (even if some fields were
  // refused, so that validation can still report the remaining problems in one round).
  std::optional<ClusterSpec> spec;
  Diagnostics diagnostics;
};

// Documents larger than this are refused before parsing.
inline constexpr size_t kMaxSpecBytes = 4 << 20;

ParsedSpec ParseClusterSpec(std::string_view json_text);

// "orchestratorSpec" -> "orchestrator_spec"; "node_pools" -> "nodePools".
std::string CamelToSnake(std::string_view name);
std::string SnakeToCamel(std::string_view name);

}  // namespace gantry::spec

#endif  // GANTRY_SPEC_SPEC_PARSER_H_
