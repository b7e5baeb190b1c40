// Fuzz target for GRES lists in both syntaxes: any input parses or fails cleanly; what parses
// has sane counts and no duplicates, and formats into text that parses back to the same list
// (both the Gres= form and, for job requests, the TresPerNode= form).
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "text/gres.h"

namespace {

using gantry::Result;
using gantry::text::FormatGres;
using gantry::text::FormatGresTresPerNode;
using gantry::text::GresSpec;
using gantry::text::GresSyntax;
using gantry::text::GresTresName;
using gantry::text::ParseGres;

void Check(bool condition) {
  if (!condition) __builtin_trap();
}

void CheckSyntax(std::string_view text, GresSyntax syntax) {
  Result<std::vector<GresSpec>> parsed = ParseGres(text, syntax);
  if (!parsed.ok()) {
    Check(!parsed.status().message().empty());
    return;
  }
  for (size_t i = 0; i < parsed->size(); ++i) {
    const GresSpec& spec = (*parsed)[i];
    Check(!spec.name.empty());
    Check(spec.count >= 0);
    if (syntax == GresSyntax::kJobRequest) {
      Check(spec.count > 0);  // zero counts are dropped
      Check(!spec.no_consume);
    }
    for (size_t j = 0; j < i; ++j) Check(GresTresName((*parsed)[j]) != GresTresName(spec));
  }

  Result<std::vector<GresSpec>> again = ParseGres(FormatGres(*parsed), syntax);
  Check(again.ok());
  Check(*again == *parsed);

  if (syntax == GresSyntax::kJobRequest) {
    Result<std::vector<GresSpec>> tres = ParseGres(FormatGresTresPerNode(*parsed), syntax);
    Check(tres.ok());
    Check(*tres == *parsed);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  CheckSyntax(text, GresSyntax::kJobRequest);
  CheckSyntax(text, GresSyntax::kNodeConfig);
  return 0;
}
