#include "lib/formats/format_table.h"

#include <array>
#include <stdexcept>

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

}  // namespace ckpt
