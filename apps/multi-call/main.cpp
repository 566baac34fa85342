// The portable archive's one binary: installed as ckpt-audit, with ckpt-chain, ckpt-convert and
// ckpt-diff as symbolic links to it, it runs the tool it is named as. The tools share almost
// all their code (the library, Boost, Crypto++, ICU's data), so four static binaries held it
// four times.
#include <array>
#include <iostream>
#include <string_view>

#include "apps/common/tool_mains.h"
#include "engine/verdict.h"

namespace {

struct Tool {
  std::string_view name;
  int (*run)(int, char**);
};

constexpr std::array<Tool, 4> kTools{{{"ckpt-audit", ckpt::apps::AuditMain},
                                      {"ckpt-chain", ckpt::apps::ChainMain},
                                      {"ckpt-convert", ckpt::apps::ConvertMain},
                                      {"ckpt-diff", ckpt::apps::DiffMain}}};

std::string_view BaseName(std::string_view path) {
  const auto slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

}  // namespace

int main(int argc, char** argv) {
  const std::string_view name = argc > 0 && argv[0] != nullptr ? BaseName(argv[0]) : std::string_view();
  for (const Tool& tool : kTools) {
    if (name == tool.name) return tool.run(argc, argv);
  }
  // A copy under another name: say which names it answers to rather than guess a tool.
  std::cerr << "ckpt-audit: this binary runs the tool it is named as: ckpt-audit, ckpt-chain, ckpt-convert or "
               "ckpt-diff (a link of that name to it)\n";
  return ckpt::kExitToolError;
}
