// The one table from reader diagnostics (lib/model/diagnostic.h) to catalog rules,
// generated from rules/rule_list.h: every rule of kind Read, ReadChecked, Attest or Convert,
// in the list's order. The diagnostic list lives in lib (which may not include rules/), so
// it is checked against the rule list name by name at compile time: the N-th diagnostic must
// be the N-th such rule's id in CamelCase (header-not-utf8 -> HeaderNotUtf8).
#include "rules/reader_rules.h"

#include <array>
#include <string_view>

#include "rules/catalog.h"
#include "rules/rule_list.h"

namespace ckpt::rules {
namespace {

#define CKPT_READER_Read(ns, id) {&ns::kRule, id},
#define CKPT_READER_ReadChecked(ns, id) {&ns::kRule, id},
#define CKPT_READER_Attest(ns, id) {&ns::kRule, id},
#define CKPT_READER_Convert(ns, id) {&ns::kRule, id},
#define CKPT_READER_Checked(ns, id)
#define CKPT_READER_Gate(ns, id)
#define CKPT_READER_Chain(ns, id)
#define CKPT_READER_Diff(ns, id)
#define CKPT_READER_ENTRY(family, ns, id, kind) CKPT_READER_##kind(ns, id)

struct ReaderRule {
  const RuleInfo* rule;
  std::string_view id;
};
constexpr ReaderRule kReaderRules[] = {CKPT_RULES(CKPT_READER_ENTRY)};

#define CKPT_DIAG_NAME(Name) std::string_view(#Name),
constexpr std::string_view kDiagnosticNames[] = {CKPT_READER_DIAGNOSTICS(CKPT_DIAG_NAME)};
#undef CKPT_DIAG_NAME

constexpr char Upper(char c) { return c >= 'a' && c <= 'z' ? static_cast<char>(c - 'a' + 'A') : c; }

// Whether `camel` is `kebab` in CamelCase.
constexpr bool IsCamelOf(std::string_view camel, std::string_view kebab) {
  std::size_t k = 0;
  bool word_start = true;
  for (char c : kebab) {
    if (c == '-') {
      word_start = true;
      continue;
    }
    if (k == camel.size() || camel[k] != (word_start ? Upper(c) : c)) return false;
    ++k;
    word_start = false;
  }
  return k == camel.size();
}

constexpr bool ListsAgree() {
  if (std::size(kReaderRules) != std::size(kDiagnosticNames)) return false;
  for (std::size_t i = 0; i < std::size(kReaderRules); ++i) {
    if (!IsCamelOf(kDiagnosticNames[i], kReaderRules[i].id)) return false;
  }
  return true;
}
static_assert(std::size(kReaderRules) == static_cast<std::size_t>(Diag::kCount),
              "every reader diagnostic maps to exactly one rule");
static_assert(ListsAgree(),
              "lib/model/diagnostic.h and the Read/ReadChecked/Attest/Convert rules of rules/rule_list.h "
              "differ: the N-th diagnostic must be the N-th such rule's id in CamelCase (scripts/new-rule adds both)");
static_assert(IsCamelOf("HeaderNotUtf8", "header-not-utf8") && !IsCamelOf("HeaderNotUtf", "header-not-utf8"));

}  // namespace

const RuleInfo& RuleForDiagnostic(Diag kind) { return *kReaderRules[static_cast<std::size_t>(kind)].rule; }

}  // namespace ckpt::rules
