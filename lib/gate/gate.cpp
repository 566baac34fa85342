#include "lib/gate/gate.h"

#include <fnmatch.h>

#include <algorithm>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <map>
#include <set>
#include <variant>

#include "lib/core/text.h"
#include "lib/hashing/sha256.h"
#include "lib/json/strict_parser.h"

namespace ckpt {
namespace {

using json::Type;
using json::Value;

std::variant<std::vector<std::string>, std::string> Strings(const json::Document& doc, const Value& value,
                                                            const std::string& key) {
  if (!value.is(Type::kArray))
    return key + " is " + value.Describe() + ", not an array of strings" + GateFileAt(doc, value.offset());
  std::vector<std::string> out;
  for (const Value item : value.Items()) {
    if (!item.is(Type::kString) || item.String().empty()) {
      return key + " holds " + item.Describe() + ", not a non-empty string" + GateFileAt(doc, item.offset());
    }
    out.push_back(item.String());
  }
  return out;
}

bool IsLowerHex64(std::string_view text) {
  return text.size() == 64 &&
         std::all_of(text.begin(), text.end(), [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

// The `accept` array of a policy or baseline file: each entry names one file by path and
// SHA-256, what was reviewed in it (globals, calls, whole-file rules), a reason and an expiry.
std::optional<std::string> ParseAcceptances(const json::Document& doc, const Value& value,
                                            std::vector<Suppression>& out) {
  if (!value.is(Type::kArray))
    return "accept is " + value.Describe() + ", not an array" + GateFileAt(doc, value.offset());
  for (const Value item : value.Items()) {
    const std::string where = "acceptance " + std::to_string(out.size() + 1);
    if (!item.is(Type::kObject))
      return where + " is " + item.Describe() + ", not an object" + GateFileAt(doc, item.offset());
    Suppression a;
    a.kind = Suppression::Kind::kAcceptance;
    a.index = out.size();
    std::set<std::string> seen;
    for (const json::Member& f : item.Members()) {
      seen.insert(f.key);
      if (f.key == "globals" || f.key == "calls" || f.key == "rules") {
        auto list = Strings(doc, f.value, where + ": " + f.key);
        if (auto* error = std::get_if<std::string>(&list)) return *error;
        auto& into = f.key == "globals" ? a.globals : f.key == "calls" ? a.calls : a.rules;
        into = std::move(std::get<std::vector<std::string>>(list));
        continue;
      }
      if (f.key != "path" && f.key != "sha256" && f.key != "reason" && f.key != "expires") {
        return where + " has the unknown key " + QuoteForMessage(f.key) +
               " (it takes path, sha256, globals, calls, rules, reason, expires)" + GateFileAt(doc, f.key_offset);
      }
      if (!f.value.is(Type::kString) || f.value.String().empty()) {
        return where + ": " + f.key + " is " + f.value.Describe() + ", not a non-empty string" +
               GateFileAt(doc, f.value.offset());
      }
      const std::string text = f.value.String();
      if (f.key == "path") a.path = text;
      if (f.key == "reason") a.reason = text;
      if (f.key == "sha256") {
        if (!IsLowerHex64(text)) {
          return where + ": sha256 is " + QuoteForMessage(text) + ", not 64 lowercase hex digits" +
                 GateFileAt(doc, f.value.offset());
        }
        a.sha256 = text;
      }
      if (f.key == "expires") {
        if (!IsCalendarDate(text)) {
          return where + ": expires is " + QuoteForMessage(text) + ", not a date YYYY-MM-DD" +
                 GateFileAt(doc, f.value.offset());
        }
        a.expires = text;
      }
    }
    for (const char* required : {"path", "sha256", "reason", "expires"}) {
      if (!seen.contains(required)) {
        return where + " has no " + required +
               " (an acceptance names one file by path and SHA-256, a reason and an "
               "expiry)" +
               GateFileAt(doc, item.offset());
      }
    }
    if (a.globals.empty() && a.calls.empty() && a.rules.empty()) {
      return where + " accepts nothing: list the globals, calls or rules reviewed in the file" +
             GateFileAt(doc, item.offset());
    }
    out.push_back(std::move(a));
  }
  return std::nullopt;
}

constexpr const char* kPolicyKeys[] = {"fail_on",      "allowed_groups", "action_head_patterns", "allow_wmcp_change",
                                       "expect_kinds", "severity",       "max_rel_l2",           "accept"};

// A policy key as written, or as the command-line flag is spelled, to the key it sets.
std::string PolicyKey(std::string key) {
  std::replace(key.begin(), key.end(), '-', '_');
  if (key == "expect_kind") return "expect_kinds";
  if (key == "allow_group" || key == "allowed_group" || key == "allow_groups") return "allowed_groups";
  if (key == "action_head_pattern") return "action_head_patterns";
  return key;
}

}  // namespace

std::string GateFileAt(const json::Document& doc, std::uint64_t offset) {
  const json::LineColumn lc = json::LocateOffset(doc.text(), offset);
  return " (line " + std::to_string(lc.line) + ", column " + std::to_string(lc.column) + ")";
}

std::variant<json::Document, std::string> ParseGateFile(std::string_view text) {
  json::Document doc{std::string(text)};
  if (auto error = json::Parse(doc)) return error->message + GateFileAt(doc, error->offset);
  if (!doc.duplicates.empty()) {
    return "the key " + QuoteForMessage(doc.duplicates.front().key) + " appears twice in one object" +
           GateFileAt(doc, doc.duplicates.front().second_offset);
  }
  if (!doc.root().is(Type::kObject)) return "the file is " + doc.root().Describe() + ", not a JSON object";
  return doc;
}

bool IsCalendarDate(std::string_view text) {
  if (text.size() != 10 || text[4] != '-' || text[7] != '-') return false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (i != 4 && i != 7 && (text[i] < '0' || text[i] > '9')) return false;
  }
  const int year = std::atoi(std::string(text.substr(0, 4)).c_str());
  const int month = std::atoi(std::string(text.substr(5, 2)).c_str());
  const int day = std::atoi(std::string(text.substr(8, 2)).c_str());
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  if (month < 1 || month > 12 || day < 1) return false;
  const bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
  return day <= kDays[month - 1] + (month == 2 && leap ? 1 : 0);
}

std::string TodayUtc() {
  // The clock alone: no environment variable may change a verdict.
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[16];
  std::strftime(text, sizeof text, "%Y-%m-%d", &utc);
  return text;
}

std::variant<BaselineFile, std::string> ParseBaseline(std::string_view text) {
  auto parsed = ParseGateFile(text);
  if (auto* error = std::get_if<std::string>(&parsed)) return *error;
  const json::Document& doc = std::get<json::Document>(parsed);
  BaselineFile out;
  bool found = false;
  for (const json::Member& m : doc.root().Members()) {
    if (m.key == "accept") {
      if (auto error = ParseAcceptances(doc, m.value, out.acceptances)) return *error;
      found = true;
      continue;
    }
    if (m.key != "suppressions") {
      return "unknown key " + QuoteForMessage(m.key) + GateFileAt(doc, m.key_offset);
    }
    found = true;
    if (!m.value.is(Type::kArray))
      return "suppressions is " + m.value.Describe() + ", not an array" + GateFileAt(doc, m.value.offset());
    for (const Value item : m.value.Items()) {
      const std::string where = "suppression " + std::to_string(out.entries.size() + 1);
      if (!item.is(Type::kObject))
        return where + " is " + item.Describe() + ", not an object" + GateFileAt(doc, item.offset());
      Suppression s;
      s.index = out.entries.size();
      std::set<std::string> seen;
      for (const json::Member& f : item.Members()) {
        seen.insert(f.key);
        if (f.key != "rule" && f.key != "path" && f.key != "path_glob" && f.key != "fingerprint" && f.key != "reason" &&
            f.key != "expires") {
          return where + " has the unknown key " + QuoteForMessage(f.key) + GateFileAt(doc, f.key_offset);
        }
        if (!f.value.is(Type::kString) || f.value.String().empty()) {
          return where + ": " + f.key + " is " + f.value.Describe() + ", not a non-empty string" +
                 GateFileAt(doc, f.value.offset());
        }
        const std::string value = f.value.String();
        if (f.key == "rule") s.rule = value;
        if (f.key == "path") s.path = value;
        if (f.key == "path_glob") s.path_glob = value;
        if (f.key == "fingerprint") {
          const bool hex = value.size() == 36 && value.starts_with("fp1:") &&
                           std::all_of(value.begin() + 4, value.end(),
                                       [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
          if (!hex) {
            return where + ": fingerprint is " + QuoteForMessage(value) +
                   ", not one a report prints (fp1: and 32 lowercase hex digits)" + GateFileAt(doc, f.value.offset());
          }
          s.fingerprint = value;
        }
        if (f.key == "reason") s.reason = value;
        if (f.key == "expires") {
          if (!IsCalendarDate(value)) {
            return where + ": expires is " + QuoteForMessage(value) + ", not a date YYYY-MM-DD" +
                   GateFileAt(doc, f.value.offset());
          }
          s.expires = value;
        }
      }
      if (s.path && s.path_glob) {
        return where + " has both path and path_glob: give the literal path or the pattern" +
               GateFileAt(doc, item.offset());
      }
      for (const char* required : {"rule", "reason", "expires"}) {
        if (!seen.contains(required))
          return where + " has no " + required + " (it is required)" + GateFileAt(doc, item.offset());
      }
      out.entries.push_back(std::move(s));
    }
  }
  if (!found) return "no suppressions array (nor an accept array)";
  return out;
}

std::variant<PolicyFile, std::string> ParsePolicy(std::string_view text) {
  auto parsed = ParseGateFile(text);
  if (auto* error = std::get_if<std::string>(&parsed)) return *error;
  const json::Document& doc = std::get<json::Document>(parsed);
  PolicyFile out;
  std::set<std::string> seen_keys;
  for (json::Member m : doc.root().Members()) {
    // The flag spellings are the keys too: "fail-on", "expect-kind", "allow-group", "max-rel-l2".
    const std::string written = m.key;
    m.key = PolicyKey(m.key);
    if (!seen_keys.insert(m.key).second) {
      return "the key " + QuoteForMessage(written) + " sets " + m.key + " a second time" +
             GateFileAt(doc, m.key_offset);
    }
    if (m.key == "fail_on") {
      if (!m.value.is(Type::kString))
        return "fail_on is " + m.value.Describe() + ", not a string" + GateFileAt(doc, m.value.offset());
      out.fail_on = m.value.String();
    } else if (m.key == "expect_kinds") {
      auto list = Strings(doc, m.value, m.key);
      if (auto* error = std::get_if<std::string>(&list)) return *error;
      for (const std::string& kind : std::get<std::vector<std::string>>(list)) {
        if (!InputKindFromName(kind)) {
          return "expect_kinds names " + QuoteForMessage(kind) + ", which is not an input kind" +
                 GateFileAt(doc, m.value.offset()) + InputKindSuggestion(kind);
        }
      }
      out.expect_kinds = std::move(std::get<std::vector<std::string>>(list));
    } else if (m.key == "allowed_groups" || m.key == "action_head_patterns") {
      auto list = Strings(doc, m.value, m.key);
      if (auto* error = std::get_if<std::string>(&list)) return *error;
      (m.key == "allowed_groups" ? out.allowed_groups : out.action_head_patterns) =
          std::move(std::get<std::vector<std::string>>(list));
    } else if (m.key == "allow_wmcp_change") {
      if (!m.value.is(Type::kBool))
        return "allow_wmcp_change is " + m.value.Describe() + ", not true or false" + GateFileAt(doc, m.value.offset());
      out.allow_wmcp_change = m.value.boolean();
    } else if (m.key == "max_rel_l2") {
      auto limit = [&](const Value& v, const std::string& pattern) -> std::optional<std::string> {
        // A JSON number token holds no '=': ParseRelL2Limit reads it as the limit alone.
        auto number = v.is(Type::kNumber) ? ParseRelL2Limit(v.Raw()) : std::variant<RelL2Limit, std::string>("");
        if (!std::holds_alternative<RelL2Limit>(number)) {
          return "max_rel_l2" + (pattern == "*" ? std::string() : " of " + QuoteForMessage(pattern)) + " is " +
                 v.Describe() + ", not a finite number >= 0" + GateFileAt(doc, v.offset());
        }
        out.max_rel_l2.push_back({pattern, std::get<RelL2Limit>(number).limit});
        return std::nullopt;
      };
      if (m.value.is(Type::kObject)) {
        for (const json::Member& r : m.value.Members()) {
          if (r.key.empty())
            return "max_rel_l2 has an empty pattern (use \"*\" for every tensor)" + GateFileAt(doc, r.key_offset);
          if (auto error = limit(r.value, r.key)) return *error;
        }
      } else if (auto error = limit(m.value, "*")) {
        return *error;
      }
    } else if (m.key == "accept") {
      if (auto error = ParseAcceptances(doc, m.value, out.acceptances)) return *error;
    } else if (m.key == "severity") {
      if (!m.value.is(Type::kObject))
        return "severity is " + m.value.Describe() + ", not an object of rule ids" + GateFileAt(doc, m.value.offset());
      for (const json::Member& r : m.value.Members()) {
        if (!r.value.is(Type::kString)) {
          return "severity of " + QuoteForMessage(r.key) + " is " + r.value.Describe() +
                 ", not error, warning, note or off" + GateFileAt(doc, r.value.offset());
        }
        out.severity.emplace_back(r.key, r.value.String());
      }
    } else {
      std::vector<std::string> keys(std::begin(kPolicyKeys), std::end(kPolicyKeys));
      const auto near = NearestName(written, keys);
      return "unknown key " + QuoteForMessage(written) + (near ? " (did you mean \"" + *near + "\"?)" : std::string()) +
             GateFileAt(doc, m.key_offset);
    }
  }
  return out;
}

std::string ReportedPath(const std::string& root, const Location& location) {
  const std::string& base = location.artifact.empty() ? root : location.artifact;
  if (location.file.empty()) return base;
  if (base.empty()) return location.file;
  return base.back() == '/' ? base + location.file : base + "/" + location.file;
}

namespace {

namespace fs = std::filesystem;

fs::path Resolved(const fs::path& path) {
  std::error_code ec;
  fs::path out = fs::weakly_canonical(fs::absolute(path, ec), ec);
  return ec ? fs::absolute(path, ec).lexically_normal() : out;
}

}  // namespace

std::string RootRelativePath(const std::string& root, const std::string& path) {
  if (root.empty() || path.empty() || path.find("://") != std::string::npos) return path;
  const fs::path relative = Resolved(path).lexically_relative(fs::path(root));
  if (relative.empty() || *relative.begin() == "..") return path;
  return relative == "." ? std::string(".") : relative.generic_string();
}

// A baseline entry's path, relative to the root it was written against (absolute ones made so).
std::string EntryRelativePath(const std::string& root, const std::string& written) {
  if (written.find("://") != std::string::npos) return written;
  const fs::path p(written);
  if (p.is_absolute()) return RootRelativePath(root, written);
  const std::string normal = p.lexically_normal().generic_string();
  return normal.empty() ? written : normal;
}

std::string BaselineRoot(const std::optional<std::string>& source_root, const std::string& baseline_file) {
  if (source_root) return Resolved(*source_root).string();
  const fs::path from =
      Resolved(fs::path(baseline_file).parent_path().empty() ? fs::path(".") : fs::path(baseline_file).parent_path());
  std::error_code ec;
  for (fs::path at = from; !at.empty(); at = at.parent_path()) {
    if (fs::exists(at / ".git", ec)) return at.string();
    if (at == at.root_path()) break;
  }
  return from.string();
}

// A written path names one file: "rounds/r[12]" is that folder, never a pattern.
bool PathMatches(const std::string& written, const std::string& path) {
  const std::string bare = path.starts_with("./") ? path.substr(2) : path;
  const std::string bare_written = written.starts_with("./") ? written.substr(2) : written;
  return bare == bare_written;
}

std::string FindingFingerprint(std::string_view rule, const std::string& root_relative_path, const Location& at) {
  const std::string path = root_relative_path.starts_with("./") ? root_relative_path.substr(2) : root_relative_path;
  const std::string none;
  Sha256 sha;
  sha.Update(rule);
  sha.Update(std::string_view("\0", 1));
  for (const std::string* part : {&path, &(at.json_pointer ? *at.json_pointer : none), &(at.tensor ? *at.tensor : none),
                                  &(at.global ? *at.global : none), &(at.call ? *at.call : none)}) {
    sha.Update(*part);
    sha.Update(std::string_view("\0", 1));
  }
  return "fp1:" + sha.FinalHex().substr(0, 32);
}

bool GlobMatches(const std::string& pattern, const std::string& path) {
  if (fnmatch(pattern.c_str(), path.c_str(), 0) == 0) return true;
  // "./rounds/r1" and "rounds/r1" are one path to a user.
  const std::string bare = path.starts_with("./") ? path.substr(2) : path;
  const std::string bare_pattern = pattern.starts_with("./") ? pattern.substr(2) : pattern;
  return fnmatch(bare_pattern.c_str(), bare.c_str(), 0) == 0;
}

bool AcceptanceNamesFile(const Gate& gate, const Suppression& entry, const std::string& root, const std::string& file) {
  if (!entry.path) return false;
  Location at;
  at.file = file;
  const std::string path = ReportedPath(root, at);
  if (PathMatches(*entry.path, path) || PathMatches(*entry.path, file)) return true;
  return !gate.path_root.empty() &&
         PathMatches(EntryRelativePath(gate.path_root, *entry.path), RootRelativePath(gate.path_root, path));
}

std::vector<AcceptanceMiss> ApplyGate(const Gate& gate, std::vector<Finding>& findings,
                                      std::vector<DroppedFindings>& dropped, const std::string& root,
                                      const FileDigestLookup& digest_of) {
  std::vector<AcceptanceMiss> misses;
  if (gate.empty()) return misses;
  // Each entry's path relative to the root, once per input (not once per finding).
  auto relative_paths = [&](const std::vector<std::shared_ptr<const Suppression>>& entries) {
    std::vector<std::string> out;
    out.reserve(entries.size());
    for (const auto& s : entries)
      out.push_back(s->path && !gate.path_root.empty() ? EntryRelativePath(gate.path_root, *s->path) : "");
    return out;
  };
  const std::vector<std::string> entry_paths = relative_paths(gate.suppressions);
  const std::vector<std::string> acceptance_paths = relative_paths(gate.acceptances);
  // As written, and relative to the baseline's root: a baseline written on a laptop from
  // one directory matches the same file audited in CI as ./x, $PWD/x or hf/x.
  auto names_path = [&](const Suppression& s, const std::string& root_relative, const std::string& path,
                        const std::string& relative) {
    if (s.path && !PathMatches(*s.path, path) && !(!gate.path_root.empty() && PathMatches(root_relative, relative))) {
      return false;
    }
    return !s.path_glob || GlobMatches(*s.path_glob, path) || GlobMatches(*s.path_glob, relative);
  };
  auto suppression_for = [&](const RuleInfo* rule, const Location* at, const std::string& path,
                             const std::string& relative) -> std::shared_ptr<const Suppression> {
    std::optional<std::string> fingerprint;  // computed once, when an entry asks for one
    for (std::size_t i = 0; i < gate.suppressions.size(); ++i) {
      const auto& s = gate.suppressions[i];
      if (s->rule != rule->id || !names_path(*s, entry_paths[i], path, relative)) continue;
      if (s->fingerprint) {
        if (at == nullptr) continue;  // findings past the cap have no location to fingerprint
        if (!fingerprint) fingerprint = FindingFingerprint(rule->id, relative, *at);
        if (*fingerprint != *s->fingerprint) continue;
      }
      return s;
    }
    return nullptr;
  };
  std::map<std::string, std::optional<std::string>> digests;  // per file, looked up once
  auto digest = [&](const std::string& file) -> const std::optional<std::string>& {
    auto [it, inserted] = digests.try_emplace(file);
    if (inserted && digest_of) it->second = digest_of(file);
    return it->second;
  };
  // One miss per entry and file, filled as findings are judged.
  auto miss_for = [&](const std::shared_ptr<const Suppression>& entry, const std::string& file,
                      const std::string& path) -> AcceptanceMiss& {
    for (AcceptanceMiss& m : misses) {
      if (m.entry == entry && m.file == file) return m;
    }
    AcceptanceMiss& m = misses.emplace_back();
    m.entry = entry;
    m.file = file;
    m.path = path;
    m.sha256 = digest(file);
    m.digest_differs = m.sha256 && *m.sha256 != entry->sha256;
    return m;
  };
  auto add_once = [](std::vector<std::string>& into, const std::string& item) {
    if (std::find(into.begin(), into.end(), item) == into.end()) into.push_back(item);
  };
  // The acceptance that holds for a finding: its path, its bytes and what it is about.
  auto acceptance_for = [&](const RuleInfo* rule, const Location* at, const std::string& file, const std::string& path,
                            const std::string& relative, std::uint64_t count) -> std::shared_ptr<const Suppression> {
    for (std::size_t i = 0; i < gate.acceptances.size(); ++i) {
      const auto& a = gate.acceptances[i];
      // The path as the policy's root names it, or as the report's location.file does (relative
      // to the input): both are what a user copies, and the SHA-256 binds either to its bytes.
      if (!names_path(*a, acceptance_paths[i], path, relative) && !(a->path && PathMatches(*a->path, file))) continue;
      const bool named_rule = std::find(a->rules.begin(), a->rules.end(), rule->id) != a->rules.end();
      const bool about_global = at != nullptr && (at->global || at->call);
      bool covered = true;
      if (about_global) {
        if (at->global && std::find(a->globals.begin(), a->globals.end(), *at->global) == a->globals.end()) {
          add_once(miss_for(a, file, path).globals, *at->global);
          covered = false;
        }
        if (at->call && std::find(a->calls.begin(), a->calls.end(), *at->call) == a->calls.end()) {
          add_once(miss_for(a, file, path).calls, *at->call);
          covered = false;
        }
      } else if (!named_rule) {
        // A finding the entry was not about stays a finding of its own; only a security finding
        // it cannot cover (it names no global) or one past the report's cap makes the entry void.
        if (at == nullptr && rule->security) {
          miss_for(a, file, path).unchecked += count;
        } else if (rule->security) {
          add_once(miss_for(a, file, path).rules, std::string(rule->id));
        }
        covered = false;
      }
      if (!covered) continue;
      const std::optional<std::string>& now = digest(file);
      if (!now || *now != a->sha256) {
        miss_for(a, file, path);  // says which: changed bytes, or bytes not hashed
        continue;
      }
      return a;
    }
    return nullptr;
  };
  auto apply = [&](auto& item, const Location* at, const std::string& file, const std::string& path,
                   std::uint64_t count) {
    if (auto it = gate.severity.find(item.rule); it != gate.severity.end()) item.severity_override = it->second;
    const std::string relative = RootRelativePath(gate.path_root, path);
    item.suppression = suppression_for(item.rule, at, path, relative);
    if (!item.suppression && !gate.acceptances.empty())
      item.suppression = acceptance_for(item.rule, at, file, path, relative, count);
  };
  std::erase_if(findings, [&](const Finding& f) {
    auto it = gate.severity.find(f.rule);
    return it != gate.severity.end() && !it->second;
  });
  std::erase_if(dropped, [&](const DroppedFindings& d) {
    auto it = gate.severity.find(d.rule);
    return it != gate.severity.end() && !it->second;
  });
  for (Finding& f : findings) apply(f, &f.location, f.location.file, ReportedPath(root, f.location), 1);
  for (DroppedFindings& d : dropped) {
    Location at;
    at.file = d.file;
    apply(d, nullptr, d.file, ReportedPath(root, at), d.count);
  }
  return misses;
}

}  // namespace ckpt
