#include "lib/formats/format_table.h"

#include <array>
#include <stdexcept>
#include <string>

#include "lib/core/text.h"

namespace ckpt {
namespace {

constexpr std::array<const InputFormat*, kAllInputKinds.size()> kFormats = {
#define CKPT_INPUT_FORMAT_ENTRY(Name, json) &formats::k##Name##Format,
    CKPT_INPUT_KINDS(CKPT_INPUT_FORMAT_ENTRY)
#undef CKPT_INPUT_FORMAT_ENTRY
};

}  // namespace

const InputFormat& FormatOf(InputKind kind) {
  const InputFormat& format = *kFormats.at(static_cast<std::size_t>(kind));
  if (format.kind != kind) throw std::logic_error("format table entry out of its list's order");
  return format;
}

std::span<const InputFormat* const> InputFormats() { return kFormats; }

std::optional<NamedFormat> FormatNamedBy(std::string_view name) {
  const std::string base = AsciiLower(name.substr(name.rfind('/') + 1));
  for (const InputFormat* format : kFormats) {
    for (const NameSuffix& suffix : format->names) {
      if (base.size() > suffix.suffix.size() && base.ends_with(suffix.suffix)) return NamedFormat{&suffix, format};
    }
  }
  return std::nullopt;
}

bool NameFits(const NamedFormat& named, InputKind content) {
  const NameSuffix& suffix = *named.suffix;
  if (suffix.claim.empty() || content == named.format->kind || suffix.also_fits.Has(content)) return true;
  const InputFormat& actual = FormatOf(content);
  if (suffix.also_fits_container != PolyglotContainer::kNone && actual.container == suffix.also_fits_container) {
    return true;
  }
  return suffix.fits_refused && actual.opening == InputOpening::kRefused;
}

}  // namespace ckpt
