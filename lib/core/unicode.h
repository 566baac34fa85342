// Unicode identity of names, for matching that hostile spellings cannot dodge
// (artifact-format.md section 2, residency): NFKC_Casefold and UTS #39 confusable
// skeletons, both from ICU. Pure-ASCII text takes exact fast paths (no ICU call), so
// checking 10^6 ordinary tensor names costs little.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace ckpt {

/// NFKC_Casefold of UTF-8 `text`: NFKC normalization, full case folding, default-ignorable
/// code points (U+200B, U+00AD, ...) removed. nullopt when `text` is not valid UTF-8.
std::optional<std::string> NfkcCasefold(std::string_view text);

/// The UTS #39 confusable skeleton of UTF-8 `text` ("аction" with a Cyrillic а and
/// "actıon" with a dotless ı both give "action"). nullopt when `text` is not valid UTF-8.
std::optional<std::string> ConfusableSkeleton(std::string_view text);

}  // namespace ckpt
