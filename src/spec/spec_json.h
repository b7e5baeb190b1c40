// ClusterSpec -> canonical JSON text: snake_case names, fields in schema order, unset fields
// omitted. Parsing the output gives back an equal ClusterSpec. Used by `gantry spec render
// --format json` and by the update rules, which compare canonical forms. Pure; thread-safe.
#ifndef GANTRY_SPEC_SPEC_JSON_H_
#define GANTRY_SPEC_SPEC_JSON_H_

#include <nlohmann/json.hpp>
#include <string>

#include "spec/cluster_spec.h"

namespace gantry::spec {

nlohmann::ordered_json SpecToJson(const ClusterSpec& spec);

// Pretty-printed with two-space indents and a final newline.
std::string SpecToJsonText(const ClusterSpec& spec);

}  // namespace gantry::spec

#endif  // GANTRY_SPEC_SPEC_JSON_H_
