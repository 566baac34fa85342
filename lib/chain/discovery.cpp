#include "lib/chain/discovery.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <system_error>

#include "lib/attest/dsse.h"
#include "lib/load/input.h"
#include "lib/remote/url.h"

namespace ckpt {
namespace fs = std::filesystem;
namespace {

bool HoldsHeader(const fs::path& dir) {
  std::error_code ec;
  return fs::symlink_status(dir / "header.json", ec).type() != fs::file_type::not_found && !ec;
}

// A regular file whose first bytes are a DSSE envelope's.
bool IsEnvelope(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::string head(4096, '\0');
  in.read(head.data(), static_cast<std::streamsize>(head.size()));
  head.resize(static_cast<std::size_t>(in.gcount()));
  return attest::LooksLikeEnvelope(head);
}

bool NamedLikeEnvelope(const fs::path& file) {
  const std::string name = file.filename().string();
  return name.size() > 10 && name.ends_with(".dsse.json");
}

}  // namespace

Discovery DiscoverArtifacts(const std::vector<std::string>& roots, bool find_envelopes) {
  Discovery out;
  std::set<fs::path> seen;  // real directories, so one artifact reached twice is audited once
  auto add = [&](const fs::path& dir) {
    std::error_code ec;
    fs::path real = fs::weakly_canonical(dir, ec);
    if (seen.insert(ec ? dir : real).second) out.artifacts.push_back(dir.string());
  };
  auto add_envelope = [&](const fs::path& file) {
    std::error_code ec;
    fs::path real = fs::weakly_canonical(file, ec);
    if (seen.insert(ec ? file : real).second) out.envelopes.push_back(file.string());
  };
  for (const std::string& root : roots) {
    // A remote round is named, never searched for (remote.md section 10): audited as given.
    if (remote::IsRemoteArgument(root)) {
      if (std::find(out.artifacts.begin(), out.artifacts.end(), root) == out.artifacts.end()) {
        out.artifacts.push_back(root);
      }
      continue;
    }
    std::error_code ec;
    const fs::file_status status = fs::status(root, ec);  // a path given by the user may be a link
    if (ec || status.type() == fs::file_type::not_found) {
      out.errors.push_back(root + ": no such file or directory");
      continue;
    }
    if (find_envelopes && status.type() == fs::file_type::regular && (NamedLikeEnvelope(root) || IsEnvelope(root))) {
      add_envelope(root);
      continue;
    }
    if (status.type() == fs::file_type::regular && IsLensembleTarFile(root)) {
      add(root);
      continue;
    }
    if (status.type() == fs::file_type::regular && IsEnvelope(root)) {
      out.errors.push_back(root +
                           ": a signed statement (DSSE envelope); ckpt-chain verifies it with --trusted-key PUB");
      continue;
    }
    if (status.type() != fs::file_type::directory) {
      out.errors.push_back(root + ": not an artifact directory, a tar or a folder of them");
      continue;
    }
    if (HoldsHeader(root)) {  // named on the command line: audited, also with find_envelopes
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
        if (find_envelopes) {
          if (NamedLikeEnvelope(it->path())) add_envelope(it->path());
        } else if (IsLensembleTarFile(it->path())) {
          add(it->path());
        }
        continue;
      }
      if (!it->is_directory(type_ec) || find_envelopes) continue;
      if (HoldsHeader(it->path())) {
        add(it->path());
        it.disable_recursion_pending();
      }
    }
    if (ec) out.errors.push_back(root + ": " + ec.message());
  }
  std::sort(out.artifacts.begin(), out.artifacts.end());
  std::sort(out.envelopes.begin(), out.envelopes.end());
  return out;
}

}  // namespace ckpt
