// Finds artifacts: each path is an artifact (a directory holding header.json, or a file
// that is a tar, by content) or a folder searched recursively for them. Symlinks are never followed while searching,
// and an artifact directory is not searched further (its sub-folders are its own findings).
#pragma once

#include <string>
#include <vector>

namespace ckpt {

struct Discovery {
  std::vector<std::string> artifacts;  ///< sorted, each real directory once
  std::vector<std::string> envelopes;  ///< signed statements (with find_envelopes), sorted, each real file once
  std::vector<std::string> errors;     ///< paths that do not exist or cannot be read: exit 2
};

/// With `find_envelopes` (ckpt-chain --trusted-key), a file given that is a DSSE envelope by
/// content is a signed statement, and folders are searched for `*.dsse.json` files instead of
/// artifacts (a folder keeping both the rounds and their statements would count each twice).
Discovery DiscoverArtifacts(const std::vector<std::string>& roots, bool find_envelopes = false);

}  // namespace ckpt
