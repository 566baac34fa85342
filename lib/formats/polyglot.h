// One meaning, or refuse (inputs.md section 1a): a file that is one container by its first
// bytes and also holds a second, complete container where another reader looks for one. The
// readers answered for are those loaders use: zipfile and miniz find a zip from its end,
// torch.load and numpy.load take a zip by its first bytes, and in a model folder a file's
// name selects its loader. Reports Diag::kInputPolyglot; a stray signature without a
// directory behind it (tensor bytes are random) is not a second container.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "lib/core/input_kind.h"
#include "lib/formats/format_table.h"
#include "lib/io/artifact_source.h"
#include "lib/model/diagnostic.h"

namespace ckpt {

/// What the check reads of each file beyond its first 512 bytes: the final 65,557 bytes, where
/// miniz and zipfile look for an end record (22 bytes and a comment of up to 65,535).
inline constexpr std::uint64_t kZipSearchWindow = 65'557;

/// The loader a model folder's file named `name` goes to (the format table's name columns:
/// `*.bin` and `*.pt` to torch.load, `*.npz` to numpy.load, ...); nothing for other names.
std::optional<NamedLoader> LoaderForName(std::string_view name);

/// Whether a loader opens a file by its name: every extension a format owns.
bool LoaderOpensByName(std::string_view name);

/// Checks `file` (shown as `display`; "" for the input file itself), whose kind by content
/// (ClassifyFile) is `content`, for a second reading; with `loader`, also reads it as that
/// loader would. An I/O failure is the error.
IoResult<void> CheckPolyglot(const RandomAccessFile& file, InputKind content, const std::string& display,
                             std::optional<NamedLoader> loader, DiagnosticSink& sink);
/// The same for a file not classified yet.
IoResult<void> CheckPolyglot(const RandomAccessFile& file, const std::string& display,
                             std::optional<NamedLoader> loader, DiagnosticSink& sink);

/// A file named `name` whose extension claims a kind (FormatNamedBy) and whose content is
/// another (`content`, called `description` by recognition): input-name-mismatch, located at
/// `display` ("" for the input file itself). Tools that trust the extension are fooled.
void CheckNameClaim(std::string_view name, InputKind content, const std::string& description,
                    const std::string& display, DiagnosticSink& sink);

/// What a structure-only read of a remote file can check (`--no-hash`, remote.md section 7:
/// nothing past the first read and the header is transferred): a zip local header at byte 0.
/// The end-record search of the last 65,557 bytes is not made; the audit says so.
IoResult<void> CheckPolyglotHead(const RandomAccessFile& file, const std::string& display, DiagnosticSink& sink);

}  // namespace ckpt
