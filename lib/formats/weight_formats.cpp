#include "lib/formats/weight_formats.h"

#include <algorithm>
#include <array>
#include <cctype>

#include "lib/core/byte_reader.h"
#include "lib/formats/format_table.h"
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

const std::array<WeightFormat, 4> kFormats{{
    // Accepted: read into the model.
    {"safetensors", nullptr, &ReadSafetensors, Diag::kCount},
    // Recognised, not accepted, and no input kind: named when a weight file fails to parse
    // (the input kinds that are named there are the format table's refused_as_weights).
    {"empty", &Empty, nullptr, Diag::kWeightsFileEmpty},
    {"git-lfs-pointer", &GitLfsPointer, nullptr, Diag::kWeightsFormatGitLfsPointer},
    {"html", &Html, nullptr, Diag::kWeightsFormatHtml},
}};

}  // namespace

std::span<const WeightFormat> WeightFormats() { return kFormats; }

const WeightFormat& AcceptedWeightFormat() { return kFormats.front(); }

std::optional<Recognised> RecogniseRefusedFormat(std::span<const std::byte> head, std::uint64_t size) {
  for (const WeightFormat& format : kFormats) {
    if (format.read != nullptr || format.recognise == nullptr) continue;
    if (auto description = format.recognise(head, size)) {
      return Recognised{format.refused, format.name, std::move(*description)};
    }
  }
  const FileHead file_head{head.first(std::min(head.size(), kSniffLength)), size, std::nullopt, nullptr};
  for (const InputFormat* format : InputFormats()) {
    if (!format->refused_as_weights || format->sniff == nullptr) continue;
    if (auto description = format->sniff(file_head)) {
      return Recognised{*format->refused_as_weights, InputKindName(format->kind), std::move(*description)};
    }
  }
  return std::nullopt;
}

}  // namespace ckpt
