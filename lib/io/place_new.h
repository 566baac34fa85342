// Moving a finished file or folder into place without ever replacing anything there
// (conversion.md): atomic, and failing with EEXIST when the destination exists by then,
// however late it appeared. The one tool that writes (ckpt-convert) places its outputs so.
#pragma once

#include <string>

namespace ckpt {

/// Renames `from` to `to` unless `to` exists: renameat2(RENAME_NOREPLACE), or where the file
/// system lacks it, link(2) then unlink(2) for a file and an empty placeholder directory
/// replaced by rename(2) for a folder. Returns 0, or the errno (EEXIST: `to` was there).
int PlaceNew(const std::string& from, const std::string& to);

}  // namespace ckpt
