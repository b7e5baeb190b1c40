// Fuzzes the cluster-spec pipeline: parse, validate, and for valid specs build the effective
// configuration and render it. Invariants: nothing crashes; a spec that validates can always be
// built and rendered; the canonical JSON of a parsed spec parses back to an equal spec.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "spec/effective_config.h"
#include "spec/render_slurm_conf.h"
#include "spec/spec_json.h"
#include "spec/spec_parser.h"
#include "spec/spec_update.h"
#include "spec/validate.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace gantry::spec;  // NOLINT(google-build-using-namespace)
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  ParsedSpec parsed = ParseClusterSpec(text);
  if (!parsed.spec) return 0;
  if (parsed.diagnostics.empty()) {
    ParsedSpec again = ParseClusterSpec(SpecToJsonText(*parsed.spec));
    if (!again.diagnostics.empty() || !again.spec || !(*again.spec == *parsed.spec)) {
      __builtin_trap();
    }
    if (!DiffSpecs(*parsed.spec, *again.spec).empty()) __builtin_trap();
  }
  const Diagnostics problems = ValidateClusterSpec(*parsed.spec);
  if (!problems.empty() || !parsed.diagnostics.empty()) return 0;
  gantry::Result<EffectiveConfig> config = BuildEffectiveConfig(*parsed.spec);
  if (!config.ok()) __builtin_trap();
  if (RenderSlurmConf(*config, SlurmConfOptions{}).empty()) __builtin_trap();
  (void)RenderGresConf(*config);
  (void)RenderShowConfigForCluster(*config, SlurmConfOptions{});
  return 0;
}
