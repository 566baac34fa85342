// header-created-at-invalid: created_at is not an RFC 3339 UTC date-time.
// Checked here, after the artifact is read.
#include <cctype>

#include "rules/catalog.h"
#include "rules/rule_helpers.h"

namespace ckpt::rules::header_created_at_invalid {

const RuleInfo kRule{
    .id = "header-created-at-invalid",
    .name = "HeaderCreatedAtInvalid",
    .code = Code::kArtifactInvalid,
    .severity = Severity::kError,
    .title = "created_at is not an RFC 3339 UTC date-time",
    .explanation =
        "created_at must be an RFC 3339 date-time with offset Z, z or +00:00 (fractional "
        "seconds allowed). It is informational and not hashed, but must stay in its "
        "domain.",
    .remediation = "Write the UTC time, e.g. 2026-06-02T00:00:00Z.",
    .security = false,
};

namespace {

bool Digits(std::string_view s, std::size_t pos, std::size_t count, int& value) {
  if (s.size() < pos + count) return false;
  value = 0;
  for (std::size_t i = pos; i < pos + count; ++i) {
    if (s[i] < '0' || s[i] > '9') return false;
    value = value * 10 + (s[i] - '0');
  }
  return true;
}

// RFC 3339 section 5.6 date-time restricted to UTC offsets (Z, z, +00:00).
bool IsRfc3339Utc(std::string_view s) {
  int year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0;
  if (!Digits(s, 0, 4, year) || s.size() < 19 || s[4] != '-' || !Digits(s, 5, 2, month) || s[7] != '-' ||
      !Digits(s, 8, 2, day) || (s[10] != 'T' && s[10] != 't') || !Digits(s, 11, 2, hour) || s[13] != ':' ||
      !Digits(s, 14, 2, minute) || s[16] != ':' || !Digits(s, 17, 2, second)) {
    return false;
  }
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  if (month < 1 || month > 12) return false;
  const bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
  const int max_day = kDays[month - 1] + ((month == 2 && leap) ? 1 : 0);
  if (day < 1 || day > max_day || hour > 23 || minute > 59 || second > 60) return false;
  if (second == 60 && (hour != 23 || minute != 59)) return false;  // leap seconds end a UTC day
  std::string_view rest = s.substr(19);
  if (!rest.empty() && rest.front() == '.') {
    std::size_t n = 1;
    while (n < rest.size() && rest[n] >= '0' && rest[n] <= '9') ++n;
    if (n == 1) return false;
    rest.remove_prefix(n);
  }
  return rest == "Z" || rest == "z" || rest == "+00:00";
}

}  // namespace

void Check(const Artifact& artifact, FindingSink& sink) {
  const Header* h = ReadableHeader(artifact);
  if (h && h->created_at && !IsRfc3339Utc(*h->created_at)) {
    sink.Report(kRule, h->FieldLocation("created_at"),
                "created_at is " + QuoteForMessage(*h->created_at, 80) +
                    ", not an RFC 3339 date-time with offset Z, z or +00:00.");
  }
}

}  // namespace ckpt::rules::header_created_at_invalid
