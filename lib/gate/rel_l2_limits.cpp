#include "lib/gate/rel_l2_limits.h"

#include <fnmatch.h>

#include <charconv>
#include <cmath>

#include "lib/core/text.h"

namespace ckpt {

std::variant<RelL2Limit, std::string> ParseRelL2Limit(std::string_view text) {
  RelL2Limit out;
  std::string_view number = text;
  if (const std::size_t eq = text.rfind('='); eq != std::string_view::npos) {
    out.pattern = std::string(text.substr(0, eq));
    number = text.substr(eq + 1);
    if (out.pattern.empty()) return "the pattern before '=' is empty (write X alone for every tensor)";
    for (const char ch : out.pattern) {
      const auto c = static_cast<unsigned char>(ch);
      if (c < 0x20 || c == 0x7F) return "the pattern holds a control character";
    }
  }
  const char* end = number.data() + number.size();
  auto [ptr, ec] = std::from_chars(number.data(), end, out.limit);
  if (number.empty() || ec != std::errc() || ptr != end) {
    return "the limit " + QuoteForMessage(number) + " is not a number";
  }
  if (!std::isfinite(out.limit) || out.limit < 0) return "the limit must be a finite number >= 0";
  return out;
}

bool RelL2PatternMatches(std::string_view pattern, std::string_view name, std::string_view group) {
  if (pattern == group && !group.empty()) return true;
  if (name.starts_with(pattern) && (name.size() == pattern.size() || name[pattern.size()] == '.')) return true;
  const std::string p(pattern);
  const std::string n(name);
  return fnmatch(p.c_str(), n.c_str(), 0) == 0;
}

std::size_t RelL2PatternSpecificity(std::string_view pattern) {
  std::size_t literal = 0;
  for (std::size_t i = 0; i < pattern.size(); ++i) {
    const char c = pattern[i];
    if (c == '*' || c == '?') continue;
    if (c == '[') {  // a bracket expression is one wildcard
      const std::size_t close = pattern.find(']', i + 2);
      if (close != std::string_view::npos) {
        i = close;
        continue;
      }
    }
    if (c == '\\' && i + 1 < pattern.size()) ++i;  // an escaped character is literal
    ++literal;
  }
  return literal;
}

const RelL2Limit* RelL2LimitFor(const std::vector<RelL2Limit>& limits, std::string_view name,
                                const std::vector<std::string_view>& groups) {
  const RelL2Limit* best = nullptr;
  std::size_t best_rank = 0;
  for (const RelL2Limit& l : limits) {
    bool matches = false;
    for (std::string_view g : groups) matches = matches || RelL2PatternMatches(l.pattern, name, g);
    if (groups.empty()) matches = RelL2PatternMatches(l.pattern, name, "");
    if (!matches) continue;
    const std::size_t rank = RelL2PatternSpecificity(l.pattern);
    if (best == nullptr || rank > best_rank || (rank == best_rank && l.limit < best->limit)) {
      best = &l;
      best_rank = rank;
    }
  }
  return best;
}

std::vector<RelL2Limit> MergeRelL2Limits(std::vector<RelL2Limit> limits, const std::vector<RelL2Limit>& overrides) {
  for (const RelL2Limit& o : overrides) {
    bool replaced = false;
    for (RelL2Limit& l : limits) {
      if (l.pattern == o.pattern) {
        l.limit = o.limit;
        replaced = true;
      }
    }
    if (!replaced) limits.push_back(o);
  }
  return limits;
}

}  // namespace ckpt
