// The files of an input as a signed statement's subjects name them (attestations.md
// section 2): a single file or a tar by its own file name; a directory by every regular
// file under it (recursively, never following a link), named relative to it with '/',
// sorted by name bytes. Every other entry (a link, a FIFO, a device, a socket, an empty
// directory) is listed as unaccounted: no statement can name it, so verifying reports it and
// attesting refuses the input. Attesting and verifying list an input the same way.
#pragma once

#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "lib/attest/statement.h"
#include "lib/io/artifact_source.h"

namespace ckpt::attest {

/// More files than this under one input is refused (a statement lists each).
inline constexpr std::size_t kMaxInputFiles = 100000;

struct InputFiles {
  std::vector<Subject> files;  ///< sorted by name, each with its SHA-256
  /// Entries that are not regular files (and empty directories): name, what it is. Sorted.
  std::vector<std::pair<std::string, std::string>> unaccounted;
  std::optional<std::string> error;  ///< the input could not be listed or read: a tool error
};

/// Lists and hashes the files of the input at `path`, on up to `jobs` threads (one file
/// each; the result does not depend on `jobs`). `known(name)` may give a digest the audit
/// already computed from its own reads (so those files are not read again). The paths in
/// `excluded` (sorted; a run's own reports inside the input) are left out, as the audit left them.
InputFiles DigestInputFiles(const std::string& path,
                            const std::function<std::optional<std::string>(const std::string&)>& known = {},
                            unsigned jobs = 1, std::span<const std::string> excluded = {});

}  // namespace ckpt::attest
