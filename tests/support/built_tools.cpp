#include "tests/support/built_tools.h"

#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>

namespace ckpt::testing {
namespace {

std::filesystem::path BinaryFolder() {
  static const std::filesystem::path folder = std::filesystem::read_symlink("/proc/self/exe").parent_path();
  return folder;
}

}  // namespace

std::string BuiltTool(const char* name) { return (BinaryFolder() / name).string(); }

std::filesystem::path BuildDir() { return BinaryFolder().parent_path(); }

std::string SourceDir() {
  static const std::string source = [] {
    const std::filesystem::path file = BinaryFolder().parent_path() / "ckpt-source-dir";
    std::ifstream in(file);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (!in.good() && !in.eof()) throw std::runtime_error("cannot read " + file.string());
    while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
    if (text.empty()) throw std::runtime_error(file.string() + " names no source tree: configure the build again");
    return text;
  }();
  return source;
}

}  // namespace ckpt::testing
