// ckpt-convert's job (conversion.md): a torch.save checkpoint whose analysis passes, rebuilt
// as safetensors from its storage records without running it. The input is read once: its
// SHA-256 on one core while the other checks its zip CRCs, copies each tensor's bytes to its
// place in the output and hashes them. The output is written beside the destination under a
// temporary name, read back and checked (the strict reader, every tensor's hash), and only
// then renamed into place; any refusal leaves nothing at the destination.
#pragma once

#include <optional>
#include <string>

#include "engine/attestation.h"
#include "lib/model/audit_result.h"

namespace ckpt {

/// ckpt-convert --lensemble: the artifact to write (artifact-format.md) and its header fields.
struct LensembleOutput {
  std::string dir;  ///< a new directory
  std::uint64_t round_index = 0;
  std::optional<std::string> parent_hash;  ///< nullopt: null (genesis)
  std::string wmcp_version;
  std::string config_hash;
  std::vector<std::string> groups{"encoder", "predictor"};
  std::optional<std::uint64_t> shard_size;  ///< bytes of tensor data per shard at most (a larger tensor gets its own)
  std::optional<std::string> created_at;    ///< default: the input's modification time, UTC, to the second
};

struct ConvertOptions {
  std::string output;                          ///< the safetensors file to write (or the artifact's directory)
  std::optional<LensembleOutput> lensemble;    ///< write a Lensemble artifact instead
  std::optional<attest::PrivateKey> key;       ///< sign a derivation record with it
  std::optional<std::string> record;           ///< where the record goes
  AuditOptions policy;                         ///< the input's audit policy
  FailThreshold threshold = Severity::kError;  ///< what fails the input's analysis
  std::optional<std::string> select;           ///< --select PREFIX: convert one sub-dict, renamed to its root
  bool copy_aliases = false;                   ///< exact aliases written as copies (a model folder's conversion)
};

struct ConvertResult {
  AuditResult input;  ///< the checkpoint's analysis and every refusal, as findings
  bool written = false;
  std::string output_sha256;
  std::string content_hash;  ///< a Lensemble artifact's
  std::size_t tensors = 0;
  std::size_t aliases = 0;
  /// Each alias written once: name -> the kept name (the output's __metadata__ holds them).
  std::vector<std::pair<std::string, std::string>> alias_names;
  std::size_t not_carried = 0;  ///< values left out (not tensors, or not under --select)
  /// A model folder's conversion: each .bin file's own analysis, in name order (the last one
  /// is the one that stopped it, when one did), and the safetensors files written.
  std::vector<AuditResult> shard_inputs;
  std::vector<std::string> files_written;
};

/// Converts a Hugging Face model folder whose weights are torch .bin files (pytorch_model.bin,
/// or the shards pytorch_model.bin.index.json names) into a new folder `options.output` holding
/// the safetensors files as the Hub's conversion names them (model.safetensors, or
/// model-0000K-of-0000N.safetensors with model.safetensors.index.json), each .bin converted as
/// ConvertCheckpoint converts a file, except that tied weights are written under each of
/// their names (transformers ties the output embedding to the input one, so the name kept
/// must be the one it loads: every name is); with a key, one derivation record per file in the new
/// folder `options.record`. The folder's audit must pass first (its structure: each file's
/// bytes are read once, by its conversion), and the folder written must pass ckpt-audit before
/// it is moved into place; a refusal leaves nothing at either destination.
ConvertResult ConvertModelFolder(const std::string& input, const ConvertOptions& options);

/// Converts the checkpoint at `input` (a torch zip, legacy file or pickle).
ConvertResult ConvertCheckpoint(const std::string& input, const ConvertOptions& options);
/// Converts the checkpoint of kind `kind` that `source` holds (its one file), named `input`
/// in messages: tests replace it while it is read (MemorySource::ReplaceOnOpen).
ConvertResult ConvertCheckpoint(const std::string& input, const ArtifactSource& source, InputKind kind,
                                const ConvertOptions& options);

}  // namespace ckpt
