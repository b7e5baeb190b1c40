#include "model/billing.h"

#include <algorithm>
#include <string>

namespace gantry::model {
namespace {

// Node TRES compete under MAX_TRES; the others (licenses, burst buffers...) always add up.
bool IsNodeTres(std::string_view type) {
  return type == "cpu" || type == "mem" || type == "node" || type == "gres";
}

}  // namespace

double WeightedTres(const std::vector<text::TresWeight>& weights, bool max_tres,
                    const TresCountOf& count) {
  double node = 0;
  double global = 0;
  for (const text::TresWeight& w : weights) {
    if (w.key.type == "billing") continue;
    const std::string name = w.key.name.empty() ? w.key.type : w.key.type + "/" + w.key.name;
    const double value = w.weight * count(name);
    if (max_tres && IsNodeTres(w.key.type)) {
      node = std::max(node, value);
    } else {
      global += value;
    }
  }
  return node + global;
}

const std::vector<text::TresWeight>& BillingWeightsOf(std::string_view tres_billing_weights) {
  thread_local std::string last_text;
  thread_local std::vector<text::TresWeight> last_weights;
  if (tres_billing_weights != last_text) {
    last_text = std::string(tres_billing_weights);
    Result<std::vector<text::TresWeight>> parsed = text::ParseTresWeights(last_text);
    last_weights = parsed.ok() ? *std::move(parsed) : std::vector<text::TresWeight>();
  }
  return last_weights;
}

}  // namespace gantry::model
