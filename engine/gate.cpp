#include "engine/gate.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <tuple>

#include "lib/core/text.h"
#include "lib/hashing/sha256.h"
#include "lib/io/small_file.h"
#include "rules/catalog.h"

namespace ckpt {
namespace {

constexpr std::size_t kMaxGateFileBytes = std::size_t{16} << 20;

// A policy or baseline file's text, or the usage error saying why it cannot be read.
std::variant<std::string, std::string> ReadGateFile(const std::string& path, const char* option) {
  SmallFile file = ReadSmallFile(path, kMaxGateFileBytes);
  if (!file.ok())
    return std::variant<std::string, std::string>(std::in_place_index<1>,
                                                  std::string(option) + " '" + path + "' " + file.error);
  return std::variant<std::string, std::string>(std::in_place_index<0>, std::move(file.text));
}

// "; did you mean 'pickle-global-unsafe'?" for an id close to a rule's, else "".
std::string RuleSuggestion(std::string_view id) {
  std::vector<std::string> ids;
  for (const rules::RuleEntry& rule : rules::AllRules()) ids.emplace_back(rule.info->id);
  return DidYouMean(id, ids);
}

std::string EntryName(const Suppression& s) {
  if (s.acceptance()) {
    return "acceptance " + std::to_string(s.index + 1) + " (path " + QuoteForMessage(s.path.value_or("")) +
           ", sha256 " + s.sha256.substr(0, 12) + "...)";
  }
  return "entry " + std::to_string(s.index + 1) + " (rule " + QuoteForMessage(s.rule) +
         (s.path ? ", path " + QuoteForMessage(*s.path) : std::string()) +
         (s.path_glob ? ", path_glob " + QuoteForMessage(*s.path_glob) : std::string()) + ")";
}

// Checks one file's reviewed acceptances against the catalog and sorts them into those in
// force and those expired. The error is a usage error's message.
std::optional<std::string> ResolveAcceptances(std::vector<Suppression> entries, const std::string& source,
                                              const char* option, ResolvedGate& out) {
  for (Suppression& a : entries) {
    a.source = source;
    for (const std::string& id : a.rules) {
      const RuleInfo* rule = rules::FindRule(id);
      std::string at = std::string(option) + " '" + source + "': " + EntryName(a);
      if (rule == nullptr) {
        return at.append(" names the unknown rule ").append(QuoteForMessage(id)).append(RuleSuggestion(id));
      }
      // A pickle's findings are accepted by what they import and call, never by rule alone.
      if (id.starts_with("pickle-")) {
        return at.append(" lists the rule ")
            .append(id)
            .append(
                ": a pickle's findings are accepted by the globals and calls they name (list those in globals "
                "and calls)");
      }
    }
    if (const std::string& path = *a.path; path.find_first_of("*?[") != std::string::npos) {
      return std::string(option) + " '" + source + "': " + EntryName(a) +
             " gives a pattern as its path: an acceptance names one file, by its path and SHA-256";
    }
    out.acceptances.push_back(a);
    if (a.expires < out.today) {
      out.expired.push_back(std::move(a));
    } else {
      out.gate.acceptances.push_back(std::make_shared<const Suppression>(std::move(a)));
    }
  }
  return std::nullopt;
}

}  // namespace

std::variant<ResolvedGate, std::string> LoadGate(const GateFiles& files) {
  ResolvedGate out;
  out.today = TodayUtc();
  if (files.policy) {
    auto text = ReadGateFile(*files.policy, "--policy");
    if (text.index() == 1) return std::get<1>(text);
    auto parsed = ParsePolicy(std::get<0>(text));
    if (auto* error = std::get_if<std::string>(&parsed)) return "--policy '" + *files.policy + "': " + *error;
    out.policy = std::move(std::get<PolicyFile>(parsed));
    out.policy_path = files.policy;
    for (const auto& [id, level] : out.policy.severity) {
      const RuleInfo* rule = rules::FindRule(id);
      if (rule == nullptr)
        return "--policy '" + *files.policy + "': severity names unknown rule " + QuoteForMessage(id) +
               RuleSuggestion(id);
      std::optional<Severity> wanted;
      if (level != "off") {
        wanted = ParseSeverity(level);
        if (!wanted) {
          return "--policy '" + *files.policy + "': the severity of " + id + " is " + QuoteForMessage(level) +
                 ", not error, warning, note or off";
        }
      }
      // Anything may be raised; only non-security rules may be lowered or turned off.
      const bool weaker = !wanted || *wanted < rule->severity;
      if (weaker && rule->security) {
        return "--policy '" + *files.policy + "': " + id + " is a security rule; it can be raised, not " +
               (wanted ? "lowered to " + level : std::string("turned off"));
      }
      if (wanted && *wanted == rule->severity) continue;
      out.gate.severity[rule] = wanted;
    }
    if (auto error = ResolveAcceptances(std::move(out.policy.acceptances), *files.policy, "--policy", out)) {
      return *error;
    }
    out.policy.acceptances.clear();
  }
  if (files.baseline) {
    auto text = ReadGateFile(*files.baseline, "--baseline");
    if (text.index() == 1) return std::get<1>(text);
    auto parsed = ParseBaseline(std::get<0>(text));
    if (auto* error = std::get_if<std::string>(&parsed)) return "--baseline '" + *files.baseline + "': " + *error;
    out.baseline_path = files.baseline;
    out.entries = std::move(std::get<BaselineFile>(parsed).entries);
    if (auto error = ResolveAcceptances(std::move(std::get<BaselineFile>(parsed).acceptances), *files.baseline,
                                        "--baseline", out)) {
      return *error;
    }
    for (Suppression& s : out.entries) {
      s.source = *files.baseline;
      const RuleInfo* rule = rules::FindRule(s.rule);
      if (rule == nullptr) {
        return "--baseline '" + *files.baseline + "': " + EntryName(s) + " names an unknown rule" +
               RuleSuggestion(s.rule);
      }
      if (rule->security) {
        return "--baseline '" + *files.baseline + "': " + EntryName(s) +
               " names a security rule; security findings cannot be suppressed, only fixed or accepted for "
               "reviewed bytes (an accept entry naming the file's path, SHA-256 and globals)";
      }
      if (s.expires < out.today) {
        out.expired.push_back(s);
      } else {
        out.gate.suppressions.push_back(std::make_shared<const Suppression>(s));
      }
    }
  }
  // Paths in either file are relative to one root: the repository holding the file (or
  // --source-root), so an entry written on a laptop matches the same file audited in CI.
  if (files.baseline || files.policy)
    out.gate.path_root = BaselineRoot(files.source_root, files.baseline ? *files.baseline : *files.policy);
  return out;
}

std::optional<std::string> ApplyPolicyFile(const ResolvedGate& gate, AuditOptions& policy, FailThreshold& threshold,
                                           bool fail_on_given) {
  const PolicyFile& p = gate.policy;
  if (p.fail_on && !fail_on_given && !ParseFailThreshold(*p.fail_on, threshold)) {
    return "--policy: fail_on is " + QuoteForMessage(*p.fail_on) + ", not error, warning, note or none";
  }
  if (p.allowed_groups) {
    // The groups in force are the file's; those beyond the spec's two are reported as widened.
    const std::vector<std::string> defaults = AuditOptions{}.allowed_groups;
    policy.allowed_groups.clear();
    for (const std::string& g : *p.allowed_groups) {
      if (std::find(defaults.begin(), defaults.end(), g) != defaults.end()) {
        policy.allowed_groups.push_back(g);
      } else if (std::find(policy.extra_allowed_groups.begin(), policy.extra_allowed_groups.end(), g) ==
                 policy.extra_allowed_groups.end()) {
        policy.extra_allowed_groups.push_back(g);
      }
    }
  }
  if (p.expect_kinds && policy.expected_kinds.empty()) {  // --expect-kind replaces the file's list
    for (const std::string& name : *p.expect_kinds) {
      if (auto kind = InputKindFromName(name)) policy.expected_kinds.push_back(*kind);
    }
  }
  if (p.action_head_patterns) {
    // Patterns only add: an organisation can name more action heads, never fewer.
    for (const std::string& pattern : *p.action_head_patterns) {
      if (std::find(policy.action_head_patterns.begin(), policy.action_head_patterns.end(), pattern) ==
          policy.action_head_patterns.end()) {
        policy.action_head_patterns.push_back(pattern);
      }
    }
  }
  return std::nullopt;
}

std::vector<Finding> ExpiredEntryFindings(const ResolvedGate& gate) {
  std::vector<Finding> out;
  for (const Suppression& s : gate.expired) {
    const std::filesystem::path path(s.source);
    Location at;
    at.artifact = path.has_parent_path() ? path.parent_path().string() : std::string(".");
    at.file = path.filename().string();
    const std::string what = s.acceptance() ? "Reviewed " + EntryName(s) : "Baseline " + EntryName(s);
    out.push_back(Finding{&rules::baseline_entry_expired::kRule, std::move(at),
                          what + " expired on " + s.expires + " (today is " + gate.today + "): it " +
                              (s.acceptance() ? "accepts" : "suppresses") +
                              " nothing now. Its reason was: " + QuoteForMessage(s.reason, 200) + "."});
  }
  return out;
}

namespace {

// The files that have findings, as an entry's path names them (relative to the root): what a
// mistyped path most likely meant. Bounded, as a "did you mean" needs only a few.
std::vector<std::string> PathsWithFindings(const ResolvedGate& gate, const std::vector<AuditResult>& results) {
  constexpr std::size_t kMaxCandidates = 256;
  std::set<std::string> paths;
  for (const AuditResult& r : results) {
    for (const Finding& f : r.findings) {
      if (f.location.file.empty() || f.location.file.size() > 512 || paths.size() >= kMaxCandidates) continue;
      Location at;
      at.file = f.location.file;
      const std::string path = ReportedPath(r.artifact.path, at);
      paths.insert(gate.gate.path_root.empty() ? path : RootRelativePath(gate.gate.path_root, path));
    }
  }
  return {paths.begin(), paths.end()};
}

}  // namespace

AcceptanceUse JudgeAcceptanceUse(const ResolvedGate& gate, const std::vector<AuditResult>& results) {
  AcceptanceUse use;
  const auto& entries = gate.gate.acceptances;
  use.accepted.assign(entries.size(), 0);
  for (const AuditResult& r : results) {
    for (const Finding& f : r.findings) {
      for (std::size_t i = 0; i < entries.size(); ++i) use.accepted[i] += f.suppression == entries[i] ? 1U : 0U;
    }
    for (const DroppedFindings& d : r.dropped) {
      for (std::size_t i = 0; i < entries.size(); ++i) use.accepted[i] += d.suppression == entries[i] ? d.count : 0;
    }
  }
  std::optional<std::vector<std::string>> with_findings;  // what a mistyped entry path may have meant
  for (std::size_t i = 0; i < entries.size(); ++i) {
    if (use.accepted[i] > 0) continue;
    const Suppression& a = *entries[i];
    // The first audited file the entry names; a file whose acceptance was found void is said so
    // already (baseline-acceptance-void names the entry), never twice.
    std::optional<std::string> named;
    bool void_there = false;
    for (const AuditResult& r : results) {
      for (const AdmittedFile& f : r.artifact.files) {
        if (named || !AcceptanceNamesFile(gate.gate, a, r.artifact.path, f.name)) continue;
        Location at;
        at.file = f.name;
        named = ReportedPath(r.artifact.path, at);
        for (const Finding& finding : r.findings) {
          void_there |= finding.rule == &rules::baseline_acceptance_void::kRule && finding.location.file == f.name;
        }
      }
    }
    if (void_there) continue;
    const std::filesystem::path source(a.source);
    Location at;
    at.artifact = source.has_parent_path() ? source.parent_path().string() : std::string(".");
    at.file = source.filename().string();
    const std::string root =
        gate.gate.path_root.empty() ? std::string("the working directory") : QuoteForMessage(gate.gate.path_root);
    // A suggestion only for a path of a usual length (the edit distance costs the product of
    // the lengths), quoted as any file name in a message.
    std::optional<std::string> near;
    if (!named && a.path && a.path->size() <= 512) {
      if (!with_findings) with_findings = PathsWithFindings(gate, results);  // once a run, when some entry needs it
      near = NearestName(*a.path, *with_findings);
    }
    use.unmatched.push_back(Finding{
        &rules::baseline_acceptance_unmatched::kRule, std::move(at),
        named ? "Reviewed " + EntryName(a) + " of " + QuoteForMessage(a.source) + " names " + QuoteForMessage(*named) +
                    ", which has no finding the entry could accept: it accepts nothing in this run."
              : "Reviewed " + EntryName(a) + " of " + QuoteForMessage(a.source) +
                    " names no file this run audited: its path is read relative to " + root +
                    " or to the audited input (a finding's location.path or location.file in the JSON report), so it "
                    "accepts nothing" +
                    (near ? "; did you mean " + QuoteForMessage(*near) + "?" : std::string("."))});
  }
  return use;
}

void ApplyGateToAudit(const Gate& gate, const Artifact& artifact, std::vector<Finding>& findings,
                      std::vector<DroppedFindings>& dropped, const std::string& root) {
  const FileDigestLookup digest_of = [&artifact](const std::string& file) -> std::optional<std::string> {
    for (const AdmittedFile& f : artifact.files) {
      if (f.name == file) return f.sha256;
    }
    return std::nullopt;
  };
  for (Finding& f : AcceptanceMissFindings(ApplyGate(gate, findings, dropped, root, digest_of)))
    findings.push_back(std::move(f));
}

std::vector<Finding> AcceptanceMissFindings(const std::vector<AcceptanceMiss>& misses) {
  std::vector<Finding> out;
  auto listed = [](const std::vector<std::string>& items) {
    std::string text;
    for (std::size_t i = 0; i < items.size() && i < 8; ++i) text += (i ? ", " : "") + QuoteForMessage(items[i], 120);
    if (items.size() > 8) text += " and " + std::to_string(items.size() - 8) + " more";
    return text;
  };
  for (const AcceptanceMiss& m : misses) {
    const Suppression& a = *m.entry;
    std::vector<std::string> why;
    if (m.digest_differs) {
      why.push_back("the file's SHA-256 is " + *m.sha256 + ", not the reviewed " + a.sha256 + " (its bytes changed)");
    } else if (!m.sha256) {
      why.push_back(
          "the file's SHA-256 was not computed (--no-hash, or a file not read whole), so its bytes cannot "
          "be compared with the reviewed " +
          a.sha256);
    }
    if (!m.globals.empty())
      why.push_back("it imports " + listed(m.globals) + ", which the entry's globals do not list");
    if (!m.calls.empty()) why.push_back("it calls " + listed(m.calls) + ", which the entry's calls do not list");
    if (!m.rules.empty()) why.push_back("it has findings of " + listed(m.rules) + ", which the entry does not accept");
    if (m.unchecked > 0) {
      why.push_back(std::to_string(m.unchecked) + " findings past the report's cap name no global to compare");
    }
    std::string reasons;
    for (std::size_t i = 0; i < why.size(); ++i)
      reasons += (i == 0 ? "" : i + 1 == why.size() ? "; and " : "; ") + why[i];
    Location at;
    at.file = m.file;
    out.push_back(Finding{&rules::baseline_acceptance_void::kRule, std::move(at),
                          "Reviewed " + EntryName(a) + " of " + QuoteForMessage(a.source) + " does not hold for " +
                              QuoteForMessage(m.path) + ": " + reasons + ". The findings it would accept count."});
  }
  return out;
}

namespace {

RuleSetFingerprint FingerprintRules(const Gate* gate) {
  RuleSetFingerprint out;
  // One line per rule in force, hashed at once: a statement is signed per input, and a
  // thousand of them must not each feed SHA-256 a thousand fragments.
  std::string lines;
  for (const rules::RuleEntry& rule : rules::AllRules()) {
    std::optional<Severity> severity = rule.info->severity;
    if (gate != nullptr) {
      if (auto it = gate->severity.find(rule.info); it != gate->severity.end()) severity = it->second;
    }
    if (!severity) continue;  // turned off
    lines.append(rule.info->id).append("\t").append(CodeName(rule.info->code)).append("\t");
    lines.append(SeverityName(*severity)).append("\n");
    ++out.count;
  }
  Sha256 sha;
  sha.Update(lines);
  out.sha256 = sha.FinalHex();
  return out;
}

}  // namespace

RuleSetFingerprint RulesInForce(const Gate* gate) {
  if (gate != nullptr && !gate->severity.empty()) return FingerprintRules(gate);
  static const RuleSetFingerprint kCatalogDefaults = FingerprintRules(nullptr);  // the usual case, once a process
  return kCatalogDefaults;
}

boost::json::array Utf8Strings(const std::vector<std::string>& items) {
  boost::json::array out;
  for (const std::string& s : items) out.push_back(boost::json::value(ToValidUtf8(s)));
  return out;
}

boost::json::object EffectivePolicyJson(const AuditOptions& policy, FailThreshold threshold, const ResolvedGate* gate) {
  std::vector<std::string> groups = policy.allowed_groups;
  groups.insert(groups.end(), policy.extra_allowed_groups.begin(), policy.extra_allowed_groups.end());
  boost::json::object out{
      {"fail_on", FailThresholdName(threshold)},
      {"content_hash", policy.compute_hash},
      {"allowed_groups", Utf8Strings(groups)},
      {"action_head_patterns", Utf8Strings(policy.action_head_patterns)},
      {"expected_hash", policy.expected_hash ? boost::json::value(*policy.expected_hash) : boost::json::value(nullptr)},
      {"allow_wmcp_change", gate != nullptr && gate->policy.allow_wmcp_change.value_or(false)}};
  boost::json::object severity;
  if (gate != nullptr) {
    for (const auto& [rule, level] : gate->gate.severity) {
      severity[rule->id] = level ? SeverityName(*level) : std::string_view("off");
    }
  }
  out["severity"] = std::move(severity);
  if (!policy.expected_kinds.empty()) {
    boost::json::array kinds;
    for (InputKind k : policy.expected_kinds) kinds.push_back(boost::json::value(InputKindName(k)));
    out["expected_kinds"] = std::move(kinds);
  }
  out["policy_file"] = gate != nullptr && gate->policy_path ? boost::json::value(ToValidUtf8(*gate->policy_path))
                                                            : boost::json::value(nullptr);
  if (gate != nullptr && gate->baseline_path) {
    out["baseline"] = {{"file", ToValidUtf8(*gate->baseline_path)},
                       {"entries", gate->entries.size()},
                       {"expired", gate->expired.size()},
                       {"judged_on", gate->today}};
  } else {
    out["baseline"] = nullptr;
  }
  if (gate != nullptr && !gate->acceptances.empty()) {
    // What was accepted after review, and for which bytes: signed with the verdict it allowed.
    boost::json::array accepted;
    for (const Suppression& a : gate->acceptances) {
      accepted.push_back({{"source", ToValidUtf8(a.source)},
                          {"entry", a.index + 1},
                          {"path", ToValidUtf8(a.path.value_or(""))},
                          {"sha256", a.sha256},
                          {"globals", Utf8Strings(a.globals)},
                          {"calls", Utf8Strings(a.calls)},
                          {"rules", Utf8Strings(a.rules)},
                          {"expires", a.expires},
                          {"expired", a.expires < gate->today}});
    }
    out["acceptances"] = std::move(accepted);
  }
  const RuleSetFingerprint rules = RulesInForce(gate != nullptr ? &gate->gate : nullptr);
  out["rules"] = {{"count", rules.count}, {"fingerprint", rules.sha256}};
  return out;
}

std::vector<Suppression> BaselineEntries(const std::vector<std::pair<const Finding*, std::string>>& findings,
                                         const std::string& reason, const std::string& expires) {
  std::set<std::pair<std::string, std::string>> keys;  // rule, path: sorted, once each
  for (const auto& [f, path] : findings) {
    if (f->rule->security || !f->counts()) continue;
    keys.emplace(std::string(f->rule->id), path);
  }
  std::vector<Suppression> entries;
  entries.reserve(keys.size());
  for (const auto& [rule, path] : keys) {
    Suppression& s = entries.emplace_back();
    s.rule = rule;
    s.path = path;
    s.reason = reason;
    s.expires = expires;
    s.index = entries.size() - 1;
  }
  return entries;
}

namespace {

// A gate file the tools write: one entry a line under `key`, so a review sees each accepted
// finding (or file) on its own line of the diff.
std::string OneEntryALine(std::string_view key, const std::vector<boost::json::object>& entries) {
  std::string out = "{\n  \"" + std::string(key) + "\": [";
  const char* separator = "\n    ";
  for (const boost::json::object& entry : entries) {
    out += separator;
    out += boost::json::serialize(entry);
    separator = ",\n    ";
  }
  out += entries.empty() ? "]\n}\n" : "\n  ]\n}\n";
  return out;
}

}  // namespace

std::string BaselineText(const std::vector<Suppression>& entries) {
  std::vector<boost::json::object> objects;
  objects.reserve(entries.size());
  for (const Suppression& s : entries) {
    objects.push_back({{"rule", s.rule},
                       {"path", ToValidUtf8(s.path.value_or(""))},
                       {"reason", ToValidUtf8(s.reason)},
                       {"expires", s.expires}});
  }
  return OneEntryALine("suppressions", objects);
}

AcceptanceDraft DraftAcceptances(std::vector<AuditResult>& results, const std::string& root, const std::string& reason,
                                 const std::string& expires) {
  AcceptanceDraft draft;
  std::map<std::string, std::size_t> by_path;  // root-relative path -> entry
  auto add_once = [](std::vector<std::string>& into, const std::string& item) {
    if (std::find(into.begin(), into.end(), item) == into.end()) into.push_back(item);
  };
  for (AuditResult& r : results) {
    for (Finding& f : r.findings) {
      if (!f.rule->security || !f.counts()) continue;
      const AdmittedFile* file = nullptr;
      for (const AdmittedFile& admitted : r.artifact.files) {
        if (admitted.name == f.location.file) file = &admitted;
      }
      if (file == nullptr || !file->sha256 || file->change) {
        ++draft.left_out["its file's SHA-256 was not computed from the audit's reads"];
        continue;
      }
      const bool names_code = f.location.global || f.location.call;
      if (!names_code && f.rule->id.starts_with("pickle-")) {
        ++draft.left_out["a pickle finding that names no global or call"];
        continue;
      }
      const std::string path = RootRelativePath(root, ReportedPath(r.artifact.path, f.location));
      auto [it, fresh] = by_path.try_emplace(path, draft.entries.size());
      if (fresh) {
        Suppression& entry = draft.entries.emplace_back();
        entry.kind = Suppression::Kind::kAcceptance;
        entry.path = path;
        entry.sha256 = *file->sha256;
        entry.reason = reason;
        entry.expires = expires;
      } else if (draft.entries[it->second].sha256 != *file->sha256) {
        ++draft.left_out["two audited files share its path"];
        continue;
      }
      Suppression& entry = draft.entries[it->second];
      if (f.location.global) add_once(entry.globals, *f.location.global);
      if (f.location.call) add_once(entry.calls, *f.location.call);
      if (!names_code) add_once(entry.rules, std::string(f.rule->id));
      draft.covers.emplace_back(&f, it->second);
    }
    for (const DroppedFindings& d : r.dropped) {
      if (d.rule->security && d.counts()) draft.left_out["past the report's cap, naming nothing to accept"] += d.count;
    }
  }
  // Sorted by path, so the file reads (and diffs) the same whatever order the inputs came in.
  std::vector<std::size_t> order(draft.entries.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(),
            [&](std::size_t a, std::size_t b) { return *draft.entries[a].path < *draft.entries[b].path; });
  std::vector<std::size_t> rank(order.size());
  std::vector<Suppression> sorted;
  for (std::size_t i = 0; i < order.size(); ++i) {
    rank[order[i]] = i;
    sorted.push_back(std::move(draft.entries[order[i]]));
    sorted.back().index = i;
    std::sort(sorted.back().globals.begin(), sorted.back().globals.end());
    std::sort(sorted.back().calls.begin(), sorted.back().calls.end());
    std::sort(sorted.back().rules.begin(), sorted.back().rules.end());
  }
  draft.entries = std::move(sorted);
  for (auto& [finding, entry] : draft.covers) entry = rank[entry];
  return draft;
}

std::string AcceptanceText(const std::vector<Suppression>& entries) {
  std::vector<boost::json::object> objects;
  objects.reserve(entries.size());
  for (const Suppression& a : entries) {
    objects.push_back({{"path", ToValidUtf8(a.path.value_or(""))},
                       {"sha256", a.sha256},
                       {"globals", Utf8Strings(a.globals)},
                       {"calls", Utf8Strings(a.calls)},
                       {"rules", Utf8Strings(a.rules)},
                       {"reason", ToValidUtf8(a.reason)},
                       {"expires", a.expires}});
  }
  return OneEntryALine("accept", objects);
}

std::string BaselineFromFindings(const std::vector<std::pair<const Finding*, std::string>>& findings,
                                 const std::string& reason, const std::string& expires) {
  return BaselineText(BaselineEntries(findings, reason, expires));
}

}  // namespace ckpt
