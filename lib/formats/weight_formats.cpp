#include "lib/formats/weight_formats.h"

#include <algorithm>
#include <array>
#include <cctype>

#include "lib/core/byte_reader.h"
#include "lib/formats/safetensors/safetensors_reader.h"

namespace ckpt {
namespace {

std::string_view Head(std::span<const std::byte> head) {
  return AsStringView(head.first(std::min(head.size(), kSniffLength)));
}

bool StartsWith(std::string_view text, std::string_view prefix) { return text.substr(0, prefix.size()) == prefix; }

bool StartsWithIgnoreCase(std::string_view text, std::string_view prefix) {
  if (text.size() < prefix.size()) return false;
  return std::equal(prefix.begin(), prefix.end(), text.begin(), [](char a, char b) {
    return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b));
  });
}

std::optional<std::string> Empty(std::span<const std::byte>, std::uint64_t size) {
  if (size == 0) return "an empty file";
  return std::nullopt;
}

std::optional<std::string> Pickle(std::span<const std::byte> head, std::uint64_t) {
  const std::string_view text = Head(head);
  if (text.size() < 2 || static_cast<unsigned char>(text[0]) != 0x80) return std::nullopt;
  const auto protocol = static_cast<unsigned char>(text[1]);
  if (protocol < 2 || protocol > 5) return std::nullopt;
  return "a Python pickle (protocol " + std::to_string(protocol) + ")";
}

std::optional<std::string> Zip(std::span<const std::byte> head, std::uint64_t) {
  if (!StartsWith(Head(head), std::string_view("PK\x03\x04", 4))) return std::nullopt;
  return "a zip archive (torch.save format)";
}

std::optional<std::string> Numpy(std::span<const std::byte> head, std::uint64_t) {
  if (!StartsWith(Head(head), "\x93NUMPY")) return std::nullopt;
  return "a NumPy .npy array";
}

std::optional<std::string> Gguf(std::span<const std::byte> head, std::uint64_t) {
  if (!StartsWith(Head(head), "GGUF")) return std::nullopt;
  return "a GGUF model file";
}

std::optional<std::string> GitLfsPointer(std::span<const std::byte> head, std::uint64_t) {
  if (!StartsWith(Head(head), "version https://git-lfs")) return std::nullopt;
  return std::string(kGitLfsPointerDescription);
}

std::optional<std::string> Html(std::span<const std::byte> head, std::uint64_t) {
  std::string_view text = Head(head);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) text.remove_prefix(1);
  if (!StartsWithIgnoreCase(text, "<!doctype html") && !StartsWithIgnoreCase(text, "<html")) return std::nullopt;
  return "an HTML page";
}

const std::array<WeightFormat, 8> kFormats{{
    // Accepted: read into the model.
    {"safetensors", nullptr, &ReadSafetensors, Diag::kCount},
    // Recognised, not accepted: named when a weight file fails to parse.
    {"empty", &Empty, nullptr, Diag::kWeightsFileEmpty},
    {"pickle", &Pickle, nullptr, Diag::kWeightsFormatPickle},
    {"zip", &Zip, nullptr, Diag::kWeightsFormatZip},
    {"numpy", &Numpy, nullptr, Diag::kWeightsFormatNumpy},
    {"gguf", &Gguf, nullptr, Diag::kWeightsFormatGguf},
    {"git-lfs-pointer", &GitLfsPointer, nullptr, Diag::kWeightsFormatGitLfsPointer},
    {"html", &Html, nullptr, Diag::kWeightsFormatHtml},
}};

}  // namespace

std::span<const WeightFormat> WeightFormats() { return kFormats; }

const WeightFormat& AcceptedWeightFormat() { return kFormats.front(); }

std::optional<Recognised> RecogniseRefusedFormat(std::span<const std::byte> head, std::uint64_t size) {
  for (const WeightFormat& format : kFormats) {
    if (format.read != nullptr || format.recognise == nullptr) continue;
    if (auto description = format.recognise(head, size)) return Recognised{&format, std::move(*description)};
  }
  return std::nullopt;
}

}  // namespace ckpt
