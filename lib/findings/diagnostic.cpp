#include "lib/findings/diagnostic.h"

#include <array>

namespace ckpt {

std::string_view DiagName(Diag kind) {
  static constexpr std::array<std::string_view, static_cast<std::size_t>(Diag::kCount)> kNames = {
#define CKPT_DIAG_NAME(name) #name,
      CKPT_READER_DIAGNOSTICS(CKPT_DIAG_NAME)
#undef CKPT_DIAG_NAME
  };
  const auto i = static_cast<std::size_t>(kind);
  return i < kNames.size() ? kNames[i] : "Unknown";
}

}  // namespace ckpt
