// What ckpt-convert writes for a passing torch.save checkpoint (conversion.md), decided
// before a byte is copied: the tensors in the reference serializer's order (safetensors
// `prepare`: dtype descending in the Dtype enum's order, then UTF-8 name), exact aliases kept
// once under the first name, the JSON header byte for byte, and the refusals (each a
// diagnostic naming its tensor): non-contiguous, conj/neg bit, big-endian, overlapping views,
// a dtype safetensors cannot name, no stored bytes; for a Lensemble artifact also a dtype or
// group it cannot carry, or an action head.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "lib/model/artifact.h"
#include "lib/model/diagnostic.h"

namespace ckpt::convert {

struct PlannedTensor {
  std::string name;
  std::string dtype;  ///< safetensors token
  std::vector<std::uint64_t> shape;
  std::uint64_t size = 0;           ///< bytes
  std::uint64_t input_offset = 0;   ///< absolute offset of the first byte in the checkpoint
  std::string record;               ///< the source record as derivation records name it
  std::uint64_t record_offset = 0;  ///< offset_bytes as derivation records give it
  std::uint64_t output_offset = 0;  ///< in the output's data buffer
};

struct Plan {
  std::vector<PlannedTensor> tensors;                        ///< output order
  std::vector<std::pair<std::string, std::string>> aliases;  ///< name -> kept name, by name bytes
  std::vector<std::string> not_carried;                      ///< values that are not tensors
  std::string header;                                        ///< JSON, padded to a multiple of 8
  std::uint64_t data_size = 0;
  /// The whole output file's size: 8 + header + data.
  [[nodiscard]] std::uint64_t file_size() const { return 8 + header.size() + data_size; }
};

/// A Lensemble artifact's constraints (conversion.md): shared groups, its dtypes, no action heads.
struct LensembleRules {
  std::vector<std::string> groups;
  std::vector<std::string> action_head_patterns;
};

/// The plan for `file` (read by ReadPickleFamily), or nothing after reporting each refusal.
/// With `select` (ckpt-convert --select PREFIX), only the tensors whose name starts with it
/// are converted, named without it (the `model.` sub-dict of a training checkpoint becomes
/// the output's root); the others are listed in not_carried, and judged not at all.
/// With `copy_aliases` (a model folder's conversion), each exact alias is written as a copy
/// under its own name rather than once: a loader that ties weights by its own rule (Hugging
/// Face's ties the output embedding to the input one) then finds every name it expects.
std::optional<Plan> PlanConversion(const WeightFile& file, DiagnosticSink& sink,
                                   const LensembleRules* lensemble = nullptr, const std::string* select = nullptr,
                                   bool copy_aliases = false);

/// The reference serializer's header for `tensors` (already in output order, offsets set)
/// with `metadata` entries in the order given: compact JSON, padded with spaces to 8.
std::string SafetensorsHeader(const std::vector<PlannedTensor>& tensors,
                              const std::vector<std::pair<std::string, std::string>>& metadata);

}  // namespace ckpt::convert
