// The parts of a model folder that are not weights (inputs.md section 4): Hugging Face
// shard indexes (`<prefix>.safetensors.index.json`), configuration files read for remote
// code, and what every other file is by content (the inventory). Cross-checks between
// indexes and shards are rules (rules/model/); this reader records facts.
#pragma once

#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "lib/formats/input_classifier.h"
#include "lib/io/artifact_source.h"
#include "lib/model/artifact.h"
#include "lib/model/diagnostic.h"

namespace ckpt {

/// The configuration files transformers, diffusers and sentence-transformers read for the keys
/// that fetch or run code (code-in-metadata.md section 2), by base name.
bool IsLoaderConfigName(std::string_view base);
/// True for `<prefix>.safetensors.index.json` (the file name, any folder).
bool IsModelIndexName(std::string_view path);
/// `<prefix>.bin.index.json`, `<prefix>.pt.index.json` (pytorch_model.bin.index.json): an
/// index of pickle-based shards, read as a safetensors index is (inputs.md section 4).
bool IsPickleIndexName(std::string_view path);

/// Reads a shard index: bounded, strict JSON (no duplicate keys), an object with an
/// optional `metadata` object (`total_size` a JSON integer when present) and a
/// `weight_map` of tensor name to file name. Other top-level keys are recorded, not refused.
[[nodiscard]] IoResult<ModelIndex> ReadModelIndex(const std::string& name, const RandomAccessFile& file,
                                                  DiagnosticSink& sink);

/// Called with a file's bytes when a reader below read it whole, so the audit digests the file
/// from that read instead of reading it again (DigestWholeText).
using WholeFileRead = std::function<void(std::string_view bytes)>;

/// What a file is, from its name (".py", configuration files) and its first bytes.
InventoryItem ClassifyInventoryFile(const std::string& name, std::span<const std::byte> head, std::uint64_t size,
                                    const ClassifiedFile& classified);

/// Reads a configuration file (config.json, tokenizer_config.json): records `auto_map`
/// (remote code) in `model`, or why it is not valid JSON; reports its import targets outside
/// the allowlist (code-in-metadata.md section 1).
[[nodiscard]] IoResult<void> ReadModelConfig(const std::string& name, const RandomAccessFile& file, ModelFolder& model,
                                             DiagnosticSink& sink, const WholeFileRead& read_whole = {});

/// Reads the YAML and JSON members of an archive of the folder (a zip or a tar; at most 256,
/// each at most 1 MB, 16 MB together) for import targets, as ReadConfigTargets reads the folder's files; each
/// is named ARCHIVE/MEMBER.
[[nodiscard]] IoResult<void> ReadArchiveConfigTargets(const std::string& name, const RandomAccessFile& file,
                                                      ModelFolder& model, DiagnosticSink& sink);

/// Reads a chat template file (chat_template.jinja, additional_chat_templates/NAME.jinja) and
/// reports what it reaches (code-in-metadata.md section 3).
[[nodiscard]] IoResult<void> ReadTemplateFile(const std::string& name, const RandomAccessFile& file, ModelFolder& model,
                                              DiagnosticSink& sink, const WholeFileRead& read_whole = {});

/// A YAML file, or a JSON file other than the indexes and the files ReadModelConfig reads.
bool IsConfigTextName(std::string_view path);
/// Reads such a file for import targets (code-in-metadata.md section 1) and reports those
/// outside the allowlist. A YAML file the strict reading refuses (formats.md section 9) is
/// recorded as an invalid configuration; a JSON file the strict parser refuses, and a file over
/// the configuration bound, are data and not searched.
[[nodiscard]] IoResult<void> ReadConfigTargets(const std::string& name, const RandomAccessFile& file,
                                               ModelFolder& model, DiagnosticSink& sink,
                                               const WholeFileRead& read_whole = {});

}  // namespace ckpt
