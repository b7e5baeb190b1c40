// "Did you mean" hints for unknown names (spec fields, slurm.conf keys, options).
// Pure functions; thread-safe.
#ifndef GANTRY_TEXT_SUGGEST_H_
#define GANTRY_TEXT_SUGGEST_H_

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace gantry::text {

// Levenshtein distance between two byte strings.
size_t EditDistance(std::string_view a, std::string_view b);

// The candidates closest to `word` (case-insensitive), best first, at most `max`, keeping only
// plausible ones: distance at most a third of the longer length (min 2), or one is a prefix of
// the other. Ties keep the candidates' order.
std::vector<std::string> Suggest(std::string_view word, const std::vector<std::string>& candidates,
                                 size_t max = 1);

// " (did you mean \"x\"?)" / " (did you mean \"x\" or \"y\"?)", or "" without suggestions.
std::string DidYouMean(const std::vector<std::string>& suggestions);

}  // namespace gantry::text

#endif  // GANTRY_TEXT_SUGGEST_H_
