// The files of an input as a signed statement's subjects name them (attestations.md
// section 2): a single file or a tar by its own file name; a directory by every regular
// file under it (recursively; a symlink counts as the file it points to, as a Hugging Face
// snapshot's do; symlinked directories are not entered), named relative to it with '/',
// sorted by name bytes. Attesting and verifying list an input the same way.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "lib/attest/statement.h"
#include "lib/io/artifact_source.h"

namespace ckpt::attest {

/// More files than this under one input is refused (a statement lists each).
inline constexpr std::size_t kMaxInputFiles = 100000;

struct InputFiles {
  std::vector<Subject> files;        ///< sorted by name, each with its SHA-256
  std::optional<std::string> error;  ///< the input could not be listed or read: a tool error
};

/// Lists and hashes the files of the input at `path`. `known(name)` may give a digest the
/// audit already computed from its own reads (so those files are not read again).
InputFiles DigestInputFiles(const std::string& path,
                            const std::function<std::optional<std::string>(const std::string&)>& known = {});

}  // namespace ckpt::attest
