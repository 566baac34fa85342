// Verify, then load (verify-then-load.md): OpenVerified audits an input exactly as ckpt-audit
// does and, on a passing verdict, holds the very bytes the audit judged, so the loader that
// reads them next reads what passed, whatever happens to the path afterwards. The RFC's
// verify() and load_checkpoint() are the Python module's, over this (apps/python).
#pragma once

#include <boost/json/object.hpp>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "engine/attestation.h"
#include "engine/audit.h"
#include "engine/model_signature.h"
#include "engine/verdict.h"
#include "lib/io/held_copy.h"

namespace ckpt {

/// How a passing input's bytes are held (section 1).
enum class HoldMode {
  kNone,   ///< nothing held: verify() only
  kMemfd,  ///< each file read once into a sealed memfd while it is hashed (the default)
  kFd,     ///< the audited descriptors kept; every access re-checks the file's identity
  kLazy,   ///< structure audited up front; each file held and checked against a trusted digest on first access
};
/// "none", "memfd", "fd", "lazy"; false for any other text.
[[nodiscard]] bool ParseHoldMode(std::string_view text, HoldMode& out);
std::string_view HoldModeName(HoldMode mode);

struct VerifyOptions {
  AuditOptions audit;                        ///< every option ckpt-audit has (pins, policy, baseline, ...)
  FailThreshold fail_on = Severity::kError;  ///< the verdict's threshold (--fail-on)
  HoldMode hold = HoldMode::kMemfd;
  std::optional<std::uint64_t> max_hold_bytes;  ///< default DefaultMaxHoldBytes()
  /// lazy: the trusted SHA-256 (64 hex) of each file by its name in the input.
  std::map<std::string, std::string> expected_files;
  /// --verify-model-signature: the model's model.sig verified beside the audit (its findings
  /// are the audit's); with hold lazy, its signed file digests are the trusted ones.
  std::optional<VerifyModelSignatureOptions> model_signature;
  /// Hold lazy: our audit statement (--attest's envelope) and the key that must have signed it;
  /// its subjects' SHA-256 are trusted digests when it verifies and signs a pass.
  struct SignedStatement {
    std::string envelope;
    attest::PublicKey key;
  };
  std::optional<SignedStatement> statement;
};

/// Why an access was refused.
enum class AccessError {
  kClosed,          ///< Close() was called
  kNotHeld,         ///< no such file, or the audit did not read it whole, or the hold keeps no bytes for it
  kNoSuchTensor,    ///< no tensor of that name
  kNoRawView,       ///< the tensor's bytes need its format's loader: use FdPath
  kChanged,         ///< hold fd: the file is no longer the one audited
  kDigestMismatch,  ///< hold lazy: the file's bytes are not those of its trusted digest
  kIo,              ///< the tool could not read or map
};

template <class T>
struct Accessed {
  std::optional<T> value;
  AccessError error = AccessError::kIo;
  std::string message;  ///< set when `value` is not
  explicit operator bool() const { return value.has_value(); }
};

/// A sealed file mapped read-only; unmapped when the last holder lets go (a Python view
/// outlives Close() this way, never reading unmapped memory).
class MappedBytes {
 public:
  static IoResult<std::shared_ptr<const MappedBytes>> Map(int fd, std::uint64_t size);
  ~MappedBytes();
  MappedBytes(const MappedBytes&) = delete;
  MappedBytes& operator=(const MappedBytes&) = delete;
  [[nodiscard]] std::span<const std::byte> bytes() const { return {static_cast<const std::byte*>(address_), size_}; }

 private:
  MappedBytes(void* address, std::size_t size) : address_(address), size_(size) {}
  void* address_ = nullptr;
  std::size_t size_ = 0;
};

/// One tensor's bytes where they sit in a held file, for the kinds whose tensors are raw
/// little-endian bytes (safetensors, GGUF unquantised, Flax msgpack).
struct TensorView {
  std::string name;
  std::string dtype;  ///< the safetensors token ("F32", "BF16")
  std::vector<std::uint64_t> shape;
  std::string file;
  std::uint64_t offset = 0;  ///< in the file
  std::uint64_t length = 0;
};

/// What a held file is, for the report.
struct HeldFileInfo {
  std::string name;
  std::uint64_t size = 0;
  std::optional<std::string> sha256;  ///< of exactly the held bytes (lazy: once checked)
};

class VerifiedCheckpoint {
 public:
  [[nodiscard]] const AuditResult& result() const { return result_; }
  [[nodiscard]] Verdict verdict() const { return verdict_; }
  [[nodiscard]] HoldMode hold() const { return hold_; }
  /// Passed, and holds its bytes (a failing or unauditable input holds nothing).
  [[nodiscard]] bool holds() const { return holds_; }
  /// Why the input could not be audited or held (the tool errors), when it could not.
  [[nodiscard]] const std::vector<std::string>& tool_errors() const { return result_.tool_errors; }
  /// Each held file with the SHA-256 of its held bytes (computed from the copy when the audit did not).
  [[nodiscard]] std::vector<HeldFileInfo> Files();
  /// The Lensemble header migrated to the current schema, from the bytes the audit read.
  [[nodiscard]] const std::optional<boost::json::object>& header() const { return header_; }
  /// The tensors with a raw view, in report order.
  [[nodiscard]] const std::vector<TensorView>& tensors() const { return tensors_; }

  /// A read-only view of a held file's bytes (memfd, lazy: the sealed copy, mapped; the
  /// mapping lives while `keep` or this object does). Hold fd: a copy read now, between two
  /// identity checks.
  Accessed<std::shared_ptr<const MappedBytes>> Buffer(const std::string& file);
  /// A tensor's view (its bytes are Buffer(view.file) at [offset, offset + length)).
  Accessed<TensorView> Tensor(const std::string& name);
  /// /proc/self/fd/N of the held file's descriptor, for loaders that want a path.
  Accessed<std::string> FdPath(const std::string& file);
  /// Releases every descriptor and this object's mappings; later accesses are kClosed.
  void Close();
  [[nodiscard]] bool closed() const;

 private:
  friend std::unique_ptr<VerifiedCheckpoint> OpenVerified(const std::string& path, const VerifyOptions& options);
  struct Held {
    HeldFile file;
    int fd = -1;  ///< hold fd: the kept descriptor
    FileIdentity identity;
    std::optional<std::string> sha256;
    std::optional<std::string> expected_sha256;  ///< lazy
    std::optional<std::string> refusal;          ///< lazy: the digest check failed
    std::shared_ptr<const MappedBytes> mapping;
  };
  Accessed<Held*> Find(const std::string& file);
  Accessed<Held*> Ready(Held& held, const std::string& file);
  void ReleaseAll();

  AuditResult result_;
  Verdict verdict_ = Verdict::kError;
  HoldMode hold_ = HoldMode::kMemfd;
  bool holds_ = false;
  std::optional<boost::json::object> header_;
  std::vector<TensorView> tensors_;
  std::map<std::string, std::size_t> tensor_index_;
  mutable std::mutex mutex_;
  bool closed_ = false;
  std::map<std::string, Held> files_;
  std::shared_ptr<const ArtifactSource> source_;  ///< the originals' source (fd, lazy)
  std::string lone_name_;                         ///< a file given alone: its name (the audit calls its one file "")
};

/// Audits `path` and holds what passed (section 1). Never throws for bad input: a failing
/// input comes back with its findings and holds nothing; one that could not be audited (or
/// held: the bound, an unsupported hold) with its tool errors.
std::unique_ptr<VerifiedCheckpoint> OpenVerified(const std::string& path, const VerifyOptions& options);

}  // namespace ckpt
