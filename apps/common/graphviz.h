// Rendering a DOT picture with Graphviz for the HTML report, when `dot` is installed. The
// tools never need it: without it (or when it fails, or takes too long) the page shows the
// table alone.
#pragma once

#include <chrono>
#include <optional>
#include <string>

namespace ckpt::cli {

/// `dot -Tsvg` over `dot_text` (found on PATH); nullopt when dot is missing, fails, writes more
/// than `max_bytes` or runs longer than `timeout`.
std::optional<std::string> RenderSvg(const std::string& dot_text,
                                     std::chrono::milliseconds timeout = std::chrono::seconds(30),
                                     std::size_t max_bytes = std::size_t{64} << 20);

}  // namespace ckpt::cli
