#include "cli/suggest.h"

#include <algorithm>
#include <cctype>

namespace ftb::cli {
namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

}  // namespace

std::size_t editDistance(std::string_view a, std::string_view b) {
  // Optimal string alignment distance: Levenshtein plus adjacent transpositions,
  // the commonest typo ("stauts").
  const std::size_t n = a.size(), m = b.size();
  std::vector<std::vector<std::size_t>> d(n + 1, std::vector<std::size_t>(m + 1));
  for (std::size_t i = 0; i <= n; ++i) d[i][0] = i;
  for (std::size_t j = 0; j <= m; ++j) d[0][j] = j;
  for (std::size_t i = 1; i <= n; ++i) {
    for (std::size_t j = 1; j <= m; ++j) {
      const std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
      }
    }
  }
  return d[n][m];
}

std::string closestMatch(std::string_view typed, const std::vector<std::string>& candidates) {
  const std::string t = lower(typed);
  const std::size_t allowed = std::max<std::size_t>(1, t.size() / 3);
  std::string best;
  std::size_t best_distance = allowed + 1;
  for (const std::string& candidate : candidates) {
    const std::size_t distance = editDistance(t, lower(candidate));
    if (distance < best_distance) {
      best = candidate;
      best_distance = distance;
    }
  }
  if (!best.empty()) return best;
  if (t.find_first_not_of('-') != std::string::npos &&
      t.size() - t.find_first_not_of('-') >= 2) {  // an abbreviation: "hist" for history
    for (const std::string& candidate : candidates) {
      if (lower(candidate).rfind(t, 0) == 0) return candidate;
    }
  }
  return {};
}

}  // namespace ftb::cli
