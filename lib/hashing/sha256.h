// SHA-256 through Crypto++'s compression function (which uses the CPU's SHA extensions when
// present), with the buffering and padding here so input of any alignment is hashed in place.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <string>

namespace ckpt {

class Sha256 {
 public:
  Sha256();
  ~Sha256();
  Sha256(const Sha256&) = delete;
  Sha256& operator=(const Sha256&) = delete;

  void Update(std::span<const std::byte> bytes);
  void Update(std::string_view text) { Update(std::as_bytes(std::span(text.data(), text.size()))); }
  /// Bytes fed since construction or the last FinalHex().
  [[nodiscard]] std::uint64_t bytes_hashed() const { return bytes_hashed_; }
  /// Finishes and returns the lowercase hex digest; the object is reset for reuse.
  std::string FinalHex();

  /// True when the CPU's SHA extensions are used (reported by benchmarks).
  static bool UsesHardware();
  /// Makes every unaligned input go through aligned copies, as on CPUs without the SHA
  /// extensions, so tests cover that path on any machine.
  static void CopyUnalignedInputForTesting(bool copy);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  std::uint64_t bytes_hashed_ = 0;
};

/// The 32-byte SHA-256 digest of `bytes` (for the small messages of signatures and logs).
std::string Sha256Digest(std::string_view bytes);

/// SHA-1, for git blob names in a Hugging Face hub cache (40 hex digits: the git object id
/// of a small file). Not used for anything that must resist collisions.
class Sha1 {
 public:
  Sha1();
  ~Sha1();
  Sha1(const Sha1&) = delete;
  Sha1& operator=(const Sha1&) = delete;
  void Update(std::span<const std::byte> bytes);
  void Update(std::string_view text) { Update(std::as_bytes(std::span(text.data(), text.size()))); }
  std::string FinalHex();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace ckpt
