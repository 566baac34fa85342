#include "lib/formats/content_sniffer.h"

#include <algorithm>
#include <cctype>
#include <string_view>

#include "lib/core/byte_reader.h"
#include "lib/findings/diagnostic.h"

namespace ckpt {
namespace {

bool StartsWith(std::string_view text, std::string_view prefix) {
  return text.substr(0, prefix.size()) == prefix;
}

bool StartsWithIgnoreCase(std::string_view text, std::string_view prefix) {
  if (text.size() < prefix.size()) return false;
  return std::equal(prefix.begin(), prefix.end(), text.begin(), [](char a, char b) {
    return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b));
  });
}

}  // namespace

SniffResult SniffContent(std::span<const std::byte> head, std::uint64_t file_size) {
  if (file_size == 0) return {ContentKind::kEmpty, "an empty file"};
  std::string_view text = AsStringView(head.first(std::min(head.size(), kSniffLength)));
  if (text.size() >= 2 && static_cast<unsigned char>(text[0]) == 0x80) {
    auto protocol = static_cast<unsigned char>(text[1]);
    if (protocol >= 2 && protocol <= 5) {
      return {ContentKind::kPickle, "a Python pickle (protocol " + std::to_string(protocol) + ")"};
    }
  }
  if (StartsWith(text, std::string_view("PK\x03\x04", 4))) {
    return {ContentKind::kZip, "a zip archive (torch.save format)"};
  }
  if (StartsWith(text, "\x93NUMPY")) return {ContentKind::kNumpy, "a NumPy .npy array"};
  if (StartsWith(text, "GGUF")) return {ContentKind::kGguf, "a GGUF model file"};
  if (StartsWith(text, "version https://git-lfs")) {
    return {ContentKind::kGitLfsPointer, "a Git LFS pointer (the weights were never downloaded)"};
  }
  std::string_view trimmed = text;
  while (!trimmed.empty() && std::isspace(static_cast<unsigned char>(trimmed.front()))) trimmed.remove_prefix(1);
  if (StartsWithIgnoreCase(trimmed, "<!doctype html") || StartsWithIgnoreCase(trimmed, "<html")) {
    return {ContentKind::kHtml, "an HTML page"};
  }
  return {};
}

std::optional<Diag> DiagForContentKind(ContentKind kind) {
  switch (kind) {
    case ContentKind::kEmpty: return Diag::kWeightsFileEmpty;
    case ContentKind::kPickle: return Diag::kWeightsFormatPickle;
    case ContentKind::kZip: return Diag::kWeightsFormatZip;
    case ContentKind::kNumpy: return Diag::kWeightsFormatNumpy;
    case ContentKind::kGguf: return Diag::kWeightsFormatGguf;
    case ContentKind::kGitLfsPointer: return Diag::kWeightsFormatGitLfsPointer;
    case ContentKind::kHtml: return Diag::kWeightsFormatHtml;
    case ContentKind::kUnknown: return std::nullopt;
  }
  return std::nullopt;
}

}  // namespace ckpt
