#include "text/suggest.h"

#include <algorithm>

#include "text/ascii.h"

namespace gantry::text {

size_t EditDistance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t above = row[j];
      const size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + cost});
      diagonal = above;
    }
  }
  return row[b.size()];
}

std::vector<std::string> Suggest(std::string_view word, const std::vector<std::string>& candidates,
                                 size_t max) {
  const std::string w = AsciiToLower(word);
  struct Scored {
    size_t distance;
    size_t index;
  };
  std::vector<Scored> scored;
  for (size_t i = 0; i < candidates.size(); ++i) {
    const std::string c = AsciiToLower(candidates[i]);
    const size_t d = EditDistance(w, c);
    const size_t limit = std::max<size_t>(2, std::max(w.size(), c.size()) / 3);
    const bool prefix = !w.empty() && !c.empty() && (c.starts_with(w) || w.starts_with(c));
    if (d <= limit || prefix) scored.push_back({prefix ? std::min(d, limit) : d, i});
  }
  std::stable_sort(scored.begin(), scored.end(),
                   [](const Scored& x, const Scored& y) { return x.distance < y.distance; });
  std::vector<std::string> out;
  for (size_t i = 0; i < scored.size() && out.size() < max; ++i) {
    out.push_back(candidates[scored[i].index]);
  }
  return out;
}

std::string DidYouMean(const std::vector<std::string>& suggestions) {
  if (suggestions.empty()) return "";
  std::string out = " (did you mean ";
  for (size_t i = 0; i < suggestions.size(); ++i) {
    if (i > 0) out += i + 1 == suggestions.size() ? " or " : ", ";
    out += "\"" + suggestions[i] + "\"";
  }
  return out + "?)";
}

}  // namespace gantry::text
