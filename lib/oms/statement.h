// The in-toto statement a model signature signs (docs/model-signing.md): predicate v1.0
// (one subject, the root digest over every resource's digest; a serialization; resources)
// or model_signing 0.2's legacy `Digests/v0.1` (one subject per file). Read strictly, only
// after the signature verified; every defect is an oms-* diagnostic and stops the reading.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lib/model/diagnostic.h"

namespace ckpt::oms {

inline constexpr std::string_view kStatementType = "https://in-toto.io/Statement/v1";
inline constexpr std::string_view kPredicateV1 = "https://model_signing/signature/v1.0";
inline constexpr std::string_view kPredicateLegacy = "https://model_signing/Digests/v0.1";
/// model_signing's default ignore paths (top level of the model only).
inline constexpr std::string_view kDefaultIgnorePaths[] = {".git", ".gitattributes", ".github", ".gitignore"};

enum class SerializationMethod : std::uint8_t { kFiles, kShards };
enum class HashType : std::uint8_t { kSha256, kBlake2b };

std::string_view HashTypeName(HashType hash);
std::size_t DigestBytes(HashType hash);

struct Resource {
  std::string name;  ///< as the statement writes it
  std::string path;  ///< the file it belongs to (a shard's name without its range)
  std::uint64_t start = 0;
  std::uint64_t end = 0;  ///< shards: [start, end)
  std::string digest;     ///< raw bytes
};

struct Manifest {
  std::string predicate_type;
  bool legacy = false;
  SerializationMethod method = SerializationMethod::kFiles;
  HashType hash = HashType::kSha256;
  bool allow_symlinks = false;
  std::uint64_t shard_size = 0;            ///< shards only
  std::vector<std::string> ignore_paths;   ///< as recorded (v1.0)
  std::vector<Resource> resources;         ///< in the order written
  std::optional<std::string> root_digest;  ///< lowercase hex (v1.0); verified against the resources
};

/// Reads a verified payload. `report(kind, message)` is called for the first defect (oms-
/// statement-invalid, -predicate-unknown, -subject-invalid, -root-mismatch, -hash-unsupported).
std::optional<Manifest> ParseManifest(std::string_view payload, const std::function<void(Diag, std::string)>& report);

/// The SHA-256 root over `resources`' digests in their order (lowercase hex).
std::string RootDigest(const std::vector<Resource>& resources);

}  // namespace ckpt::oms
