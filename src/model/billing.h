// Billable TRES: what a partition's TRESBillingWeights make of a job's TRES. Fair-share usage is
// charged by it, limits on "billing" count it and the commands print it (billing= in TRES lists).
//
//   no weights            billing = the CPUs
//   default               billing = sum over the weighted TRES of weight x count
//   PriorityFlags=MAX_TRES billing = the largest weight x count among the node TRES (cpu, mem,
//                         node, gres/...) + the sum over the other (global) TRES
// Counts are whole jobs' (mem in MiB; weights are per MiB, text/tres.h). Usage takes the exact
// value; TRES lists and limits take it truncated to an integer, as Slurm's billing count is.
// Pure; thread-safe.
#ifndef GANTRY_MODEL_BILLING_H_
#define GANTRY_MODEL_BILLING_H_

#include <functional>
#include <string_view>
#include <vector>

#include "text/tres.h"

namespace gantry::model {

// The count of one TRES ("cpu", "mem", "node", "gres/gpu", "license/x") the job holds; 0 if none.
using TresCountOf = std::function<double(std::string_view tres)>;

// `weights` applied to the counts; callers without weights use the CPUs themselves.
double WeightedTres(const std::vector<text::TresWeight>& weights, bool max_tres,
                    const TresCountOf& count);

// The weights a partition's TRESBillingWeights string gives; none for "" or a value that does
// not parse (the spec checks it before it gets here). Keeps the last string parsed, so callers
// that bill many jobs of one partition parse it once per thread.
const std::vector<text::TresWeight>& BillingWeightsOf(std::string_view tres_billing_weights);

}  // namespace gantry::model

#endif  // GANTRY_MODEL_BILLING_H_
