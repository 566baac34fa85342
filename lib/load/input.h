// Opening an input path as the tools meet it (inputs.md section 1): what kind it is, by
// content, and the ArtifactSource its files are read through: the directory itself, the
// members of a tar read in place, or the one file of a plain safetensors input.
#pragma once

#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "lib/core/input_kind.h"
#include "lib/formats/input_classifier.h"
#include "lib/io/artifact_source.h"
#include "lib/model/diagnostic.h"
#include "lib/remote/remote_source.h"

namespace ckpt {

/// The file an input's files live in, when it is one (a tar): SARIF lists it as the parent
/// of its members.
struct ContainerFile {
  std::string name;  ///< its name as given
  std::uint64_t size = 0;
};

struct OpenedInput {
  InputKind kind = InputKind::kUnknown;
  std::string description;  ///< what the classifier saw ("a tar archive", "a gzip stream")
  /// The input's files: set for every kind its format table entry opens (not the refused).
  std::unique_ptr<ArtifactSource> source;
  std::optional<ContainerFile> container;
  std::optional<std::string> tool_error;  ///< the path could not be opened or read
  /// A remote input: its source (owned by `source`, or by the wrapper `source` is), and the
  /// name reports call it by (the redacted URL, hf://ORG/NAME@COMMIT).
  const remote::RemoteSource* remote = nullptr;
  std::optional<remote::RemoteFacts> remote_facts;  ///< set for every remote input that was opened
  std::string display_path;
  /// Paths inside a directory input left out of the audit (the run's own reports), sorted.
  std::vector<std::string> excluded;
};

/// Opens `path` (following a symlink given on the command line, as a user expects).
/// Structural diagnostics of a tar go to `sink`; so do the refusals of a file that is no
/// input the audit reads (its format table entry's opening is kRefused: compressed, unknown).
/// A remote argument (https://, http:// to loopback, hf://) is opened over HTTP with `remote`.
/// Of `outputs` (absolute paths a run writes), those inside a directory input are left out of it.
OpenedInput OpenInputPath(const std::string& path, DiagnosticSink& sink, const remote::RemoteOptions& remote = {},
                          std::span<const std::string> outputs = {});

/// The paths of `outputs` (absolute, normalised) that lie inside the directory `dir`, relative
/// to it, sorted: what an audit of `dir` leaves out.
std::vector<std::string> OutputsInside(const std::string& dir, std::span<const std::string> outputs);

/// Why the audit of a folder holding `file` judges it: by its name (weights, an index, a
/// loader's configuration, code, a name a format claims) or, when it exists, by what it is
/// (not a regular file, or content a format recognises). nullopt: the audit would only list
/// it, so a report may be written there and left out of the audit (OpenInputPath's `outputs`).
std::optional<std::string> JudgedFileReason(const std::filesystem::path& file);

/// True when the regular file at `file` is a Lensemble artifact tar by content (the format
/// table's recognition: a tar that is not a NeMo archive; never its name). Opened like any
/// input file: without following a final symlink, never blocking on a FIFO.
bool IsLensembleTarFile(const std::filesystem::path& file);

/// The audits one command-line path stands for (inputs.md section 4): a hub root or a
/// `models--ORG--NAME` folder stands for each of its `snapshots/REV`; a folder of Lensemble
/// rounds (sub-folders holding header.json, artifact tars) for each round, plus the folder
/// itself when it also holds files a loader opens by name (weights of its own); anything
/// else for itself (a folder holding a .nemo archive is a model folder).
std::vector<std::string> ExpandInputPath(const std::string& path);

}  // namespace ckpt
