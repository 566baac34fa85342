#include "lib/chain/discovery.h"

#include <algorithm>
#include <filesystem>
#include <set>
#include <system_error>

#include "lib/artifact/input.h"

namespace ckpt {
namespace fs = std::filesystem;
namespace {

bool HoldsHeader(const fs::path& dir) {
  std::error_code ec;
  return fs::symlink_status(dir / "header.json", ec).type() != fs::file_type::not_found && !ec;
}

}  // namespace

Discovery DiscoverArtifacts(const std::vector<std::string>& roots) {
  Discovery out;
  std::set<fs::path> seen;  // real directories, so one artifact reached twice is audited once
  auto add = [&](const fs::path& dir) {
    std::error_code ec;
    fs::path real = fs::weakly_canonical(dir, ec);
    if (seen.insert(ec ? dir : real).second) out.artifacts.push_back(dir.string());
  };
  for (const std::string& root : roots) {
    std::error_code ec;
    const fs::file_status status = fs::status(root, ec);  // a path given by the user may be a link
    if (ec || status.type() == fs::file_type::not_found) {
      out.errors.push_back(root + ": no such file or directory");
      continue;
    }
    if (status.type() == fs::file_type::regular && IsTarFile(root)) {
      add(root);
      continue;
    }
    if (status.type() != fs::file_type::directory) {
      out.errors.push_back(root + ": not an artifact directory, a tar or a folder of them");
      continue;
    }
    if (HoldsHeader(root)) {
      add(root);
      continue;
    }
    fs::recursive_directory_iterator it(root, fs::directory_options::none, ec);
    if (ec) {
      out.errors.push_back(root + ": " + ec.message());
      continue;
    }
    for (; it != fs::recursive_directory_iterator(); it.increment(ec)) {
      if (ec) {
        out.errors.push_back(it->path().string() + ": " + ec.message());
        ec.clear();
        continue;
      }
      std::error_code type_ec;
      if (it->is_symlink(type_ec)) continue;
      if (it->is_regular_file(type_ec)) {
        if (IsTarFile(it->path())) add(it->path());
        continue;
      }
      if (!it->is_directory(type_ec)) continue;
      if (HoldsHeader(it->path())) {
        add(it->path());
        it.disable_recursion_pending();
      }
    }
    if (ec) out.errors.push_back(root + ": " + ec.message());
  }
  std::sort(out.artifacts.begin(), out.artifacts.end());
  return out;
}

}  // namespace ckpt
