#include "lib/core/unicode.h"

#include <unicode/normalizer2.h>
#include <unicode/unistr.h>
#include <unicode/uspoof.h>

#include <array>
#include <memory>

#include "lib/core/text.h"

namespace ckpt {
namespace {

bool IsAscii(std::string_view text) {
  for (char c : text) {
    if (static_cast<unsigned char>(c) >= 0x80) return false;
  }
  return true;
}

struct SpoofCloser {
  void operator()(USpoofChecker* checker) const { uspoof_close(checker); }
};

// One checker per thread: ICU documents checking calls on a shared checker as safe, but a
// private one costs a few kilobytes and removes the question.
USpoofChecker* ThreadChecker() {
  thread_local std::unique_ptr<USpoofChecker, SpoofCloser> checker = [] {
    UErrorCode status = U_ZERO_ERROR;
    std::unique_ptr<USpoofChecker, SpoofCloser> opened(uspoof_open(&status));
    if (U_FAILURE(status)) opened.reset();
    return opened;
  }();
  return checker.get();
}

std::optional<std::string> IcuSkeleton(std::string_view text) {
  USpoofChecker* checker = ThreadChecker();
  if (checker == nullptr) return std::nullopt;
  std::string out(text.size() * 4 + 16, '\0');
  for (int attempt = 0; attempt < 2; ++attempt) {
    UErrorCode status = U_ZERO_ERROR;
    const int32_t length = uspoof_getSkeletonUTF8(checker, 0, text.data(), static_cast<int32_t>(text.size()),
                                                  out.data(), static_cast<int32_t>(out.size()), &status);
    if (status == U_BUFFER_OVERFLOW_ERROR) {
      out.assign(static_cast<std::size_t>(length) + 1, '\0');
      continue;
    }
    if (U_FAILURE(status)) return std::nullopt;
    out.resize(static_cast<std::size_t>(length));
    return out;
  }
  return std::nullopt;
}

// The skeleton maps each code point on its own (UTS #39 section 4), so an ASCII string's
// skeleton is the concatenation of its characters' skeletons when those are ASCII too.
struct AsciiSkeletons {
  std::array<std::string, 128> of{};
  std::array<bool, 128> exact{};  // the character's skeleton is ASCII: composition is exact
  AsciiSkeletons() {
    for (int c = 0; c < 128; ++c) {
      const char ch = static_cast<char>(c);
      auto skeleton = IcuSkeleton(std::string_view(&ch, 1));
      exact[static_cast<std::size_t>(c)] = skeleton && IsAscii(*skeleton);
      if (skeleton) of[static_cast<std::size_t>(c)] = *skeleton;
    }
  }
};

}  // namespace

std::optional<std::string> NfkcCasefold(std::string_view text) {
  if (FindInvalidUtf8(text)) return std::nullopt;
  if (IsAscii(text)) {
    // ASCII has no compatibility forms and no default-ignorable code points.
    std::string out(text);
    for (char& c : out) {
      if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    }
    return out;
  }
  UErrorCode status = U_ZERO_ERROR;
  const icu::Normalizer2* normalizer = icu::Normalizer2::getNFKCCasefoldInstance(status);
  if (U_FAILURE(status)) return std::nullopt;
  const icu::UnicodeString folded = normalizer->normalize(
      icu::UnicodeString::fromUTF8(icu::StringPiece(text.data(), static_cast<int32_t>(text.size()))), status);
  if (U_FAILURE(status)) return std::nullopt;
  std::string out;
  folded.toUTF8String(out);
  return out;
}

std::optional<std::string> ConfusableSkeleton(std::string_view text) {
  if (FindInvalidUtf8(text)) return std::nullopt;
  if (IsAscii(text)) {
    static const AsciiSkeletons table;
    std::string out;
    out.reserve(text.size());
    bool exact = true;
    for (char c : text) {
      const auto i = static_cast<std::size_t>(static_cast<unsigned char>(c));
      exact = exact && table.exact[i];
      out += table.of[i];
    }
    if (exact) return out;
  }
  return IcuSkeleton(text);
}

}  // namespace ckpt
