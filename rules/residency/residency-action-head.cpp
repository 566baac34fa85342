// residency-action-head: Action-head tensor in a shared artifact.
// Checked here, after the artifact is read.
#include <algorithm>
#include <set>

#include "lib/core/unicode.h"
#include "rules/catalog.h"
#include "rules/rule_helpers.h"

namespace ckpt::rules::residency_action_head {

const RuleInfo kRule{
    .id = "residency-action-head",
    .name = "ResidencyActionHead",
    .code = Code::kResidencyViolation,
    .severity = Severity::kError,
    .title = "Action-head tensor in a shared artifact",
    .explanation =
        "INV-ACTIONHEAD-LOCAL: a tensor whose name has a '.'-separated component equal to "
        "action_head, action_heads or act_head is a per-embodiment action head, which must never "
        "be published. Components are compared after NFKC_Casefold (so case, fullwidth forms, "
        "zero-width and soft-hyphen characters do not hide a match) and by their UTS #39 "
        "confusable skeleton (so Cyrillic or dotless-i look-alikes do not either).",
    .remediation = "Remove action-head tensors before export; they stay on the embodiment.",
    .security = true,
};

namespace {

enum class Match { kNone, kPlain, kFolded, kSkeleton };

// The patterns in each comparable form, computed once per audit.
struct Patterns {
  std::vector<std::string> plain;      // ASCII lower-case, as configured
  std::vector<std::string> folded;     // NFKC_Casefold
  std::vector<std::string> skeletons;  // skeleton of the folded form
  explicit Patterns(const std::vector<std::string>& patterns) {
    for (const std::string& p : patterns) {
      std::string lower = p;
      for (char& c : lower) {
        if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
      }
      plain.push_back(lower);
      std::string f = NfkcCasefold(p).value_or(lower);
      skeletons.push_back(ConfusableSkeleton(f).value_or(f));
      folded.push_back(std::move(f));
    }
  }
  static bool Has(const std::vector<std::string>& set, std::string_view s) {
    return std::find(set.begin(), set.end(), s) != set.end();
  }
};

template <class Fn>
void ForEachComponent(std::string_view name, Fn fn) {
  std::size_t start = 0;
  while (start <= name.size()) {
    std::size_t end = name.find('.', start);
    if (end == std::string_view::npos) end = name.size();
    fn(name.substr(start, end - start));
    start = end + 1;
  }
}

// The strongest way any component of `name` matches. Components are taken from the name
// as written and from its folded and skeleton forms, since folding can produce a '.'
// (a fullwidth full stop) that splits a component an attacker joined.
Match Classify(std::string_view name, const Patterns& patterns) {
  Match best = Match::kNone;
  auto better = [&](Match m) {
    if (best == Match::kNone || (m != Match::kNone && m < best)) best = m;
  };
  ForEachComponent(name, [&](std::string_view component) {
    std::string lower(component);
    for (char& c : lower) {
      if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    }
    if (Patterns::Has(patterns.plain, lower)) better(Match::kPlain);
  });
  if (best == Match::kPlain) return best;
  const std::optional<std::string> folded = NfkcCasefold(name);
  if (!folded) return best;  // invalid UTF-8 names are refused by other rules
  ForEachComponent(*folded, [&](std::string_view component) {
    if (Patterns::Has(patterns.folded, component)) better(Match::kFolded);
  });
  if (best != Match::kNone) return best;
  const std::optional<std::string> skeleton = ConfusableSkeleton(*folded);
  if (!skeleton) return best;
  ForEachComponent(*skeleton, [&](std::string_view component) {
    if (Patterns::Has(patterns.skeletons, component)) better(Match::kSkeleton);
  });
  return best;
}

std::string_view HowItMatched(Match match) {
  switch (match) {
    case Match::kFolded:
      return " (it matches after Unicode NFKC_Casefold folding)";
    case Match::kSkeleton:
      return " (it matches by its UTS #39 confusable skeleton: look-alike characters)";
    case Match::kPlain:
    case Match::kNone:
      break;
  }
  return "";
}

}  // namespace

void Check(const Artifact& artifact, FindingSink& sink) {
  const Patterns patterns(artifact.policy.action_head_patterns);
  std::set<std::string> reported;
  // `locate` runs only for a hit: computing every tensor's location up front is O(n^2).
  auto check = [&](std::string_view name, const auto& locate, const std::string& where) {
    const Match match = Classify(name, patterns);
    if (match == Match::kNone || !reported.emplace(name).second) return;
    Location loc = locate();
    loc.tensor = std::string(name);
    sink.Report(kRule, std::move(loc),
                "Tensor " + QuoteForMessage(name) + " (" + where + ") is an action head" +
                    std::string(HowItMatched(match)) +
                    "; per-embodiment action heads must never appear in a shared artifact.");
  };
  if (const Header* h = ReadableHeader(artifact); h && h->tensor_manifest) {
    for (const ManifestEntry& e : *h->tensor_manifest) {
      check(
          e.name, [&] { return ManifestLocation(*h, e, "name"); }, "tensor_manifest");
    }
  }
  for (const WeightFile& wf : artifact.weights) {
    for (const StoredTensor& t : wf.tensors) {
      check(
          t.name, [&] { return wf.TensorLocation(t); }, wf.name);
    }
  }
  if (artifact.index && artifact.index->weight_map) {
    for (const auto& m : *artifact.index->weight_map) {
      check(
          m.tensor,
          [&] { return artifact.index->json.At(m.offset, "/weight_map/" + json::EscapePointerToken(m.tensor)); },
          "weights.index.json");
    }
  }
}

}  // namespace ckpt::rules::residency_action_head
