#include "lib/hashing/sha256.h"

#include <cryptopp/cpu.h>
#include <cryptopp/sha.h>

#include <algorithm>
#include <atomic>
#include <cstring>

#include "lib/core/text.h"

namespace ckpt {
namespace {

// Crypto++'s SHA-256 compression function, reached directly: its Update copies every block
// of an input that is not word aligned before compressing it (block by block, 12% slower on
// this project's machines), while the SHA extensions load unaligned words themselves. Buffering and padding
// are done here (FIPS 180-4 section 5.1.1), so any input compresses in place.
class Compressor : public CryptoPP::SHA256 {
 public:
  // Whole blocks only (a multiple of 64 bytes).
  void Compress(const std::byte* blocks, std::size_t length) {
    HashMultipleBlocks(reinterpret_cast<const CryptoPP::word32*>(blocks), length);
  }
  [[nodiscard]] const CryptoPP::word32* State() { return StateBuf(); }
};

std::atomic<bool> copy_unaligned_for_testing{false};

// Whether the compression reads unaligned input as it is. Only the SHA extensions' path is
// known to (unaligned vector loads); other paths read 32-bit words and get aligned copies.
bool CompressesUnalignedInput() {
#if defined(__x86_64__) || defined(__i386__)
  static const bool hardware = CryptoPP::HasSHA();
  return hardware && !copy_unaligned_for_testing.load(std::memory_order_relaxed);
#else
  return false;
#endif
}

}  // namespace

struct Sha256::Impl {
  Compressor compressor;
  alignas(64) std::array<std::byte, 64> block{};  // the pending partial block
  std::size_t pending = 0;
};

Sha256::Sha256() : impl_(std::make_unique<Impl>()) {}
Sha256::~Sha256() = default;

void Sha256::Update(std::span<const std::byte> bytes) {
  if (bytes.empty()) return;  // (an empty span's data() may be null, which memcpy may not get)
  Impl& s = *impl_;
  bytes_hashed_ += bytes.size();
  if (s.pending > 0) {
    const std::size_t n = std::min(bytes.size(), s.block.size() - s.pending);
    std::memcpy(s.block.data() + s.pending, bytes.data(), n);
    s.pending += n;
    bytes = bytes.subspan(n);
    if (s.pending < s.block.size()) return;
    s.compressor.Compress(s.block.data(), s.block.size());
    s.pending = 0;
  }
  const std::size_t whole = bytes.size() - bytes.size() % 64;
  if (whole > 0) {
    if (CompressesUnalignedInput() || reinterpret_cast<std::uintptr_t>(bytes.data()) % 4 == 0) {
      s.compressor.Compress(bytes.data(), whole);
    } else {
      alignas(64) std::array<std::byte, 4096> aligned;  // a multiple of 64
      for (std::size_t done = 0; done < whole; done += aligned.size()) {
        const std::size_t n = std::min(aligned.size(), whole - done);
        std::memcpy(aligned.data(), bytes.data() + done, n);
        s.compressor.Compress(aligned.data(), n);
      }
    }
    bytes = bytes.subspan(whole);
  }
  if (!bytes.empty()) std::memcpy(s.block.data(), bytes.data(), bytes.size());
  s.pending = bytes.size();
}

std::string Sha256::FinalHex() {
  Impl& s = *impl_;
  const std::uint64_t bits = bytes_hashed_ * 8;  // the length field is the bit count mod 2^64
  s.block[s.pending++] = std::byte{0x80};
  if (s.pending > 56) {
    std::fill(s.block.begin() + static_cast<std::ptrdiff_t>(s.pending), s.block.end(), std::byte{0});
    s.compressor.Compress(s.block.data(), s.block.size());
    s.pending = 0;
  }
  std::fill(s.block.begin() + static_cast<std::ptrdiff_t>(s.pending), s.block.begin() + 56, std::byte{0});
  for (std::size_t i = 0; i < 8; ++i) s.block[56 + i] = static_cast<std::byte>((bits >> (56 - 8 * i)) & 0xFF);
  s.compressor.Compress(s.block.data(), s.block.size());
  std::array<std::uint8_t, CryptoPP::SHA256::DIGESTSIZE> digest{};
  const CryptoPP::word32* state = s.compressor.State();
  for (std::size_t i = 0; i < digest.size(); ++i) {
    digest[i] = static_cast<std::uint8_t>((state[i / 4] >> (24 - 8 * (i % 4))) & 0xFF);
  }
  s.compressor.Restart();
  s.pending = 0;
  bytes_hashed_ = 0;
  return ToHex(digest);
}
void Sha256::CopyUnalignedInputForTesting(bool copy) { copy_unaligned_for_testing = copy; }

bool Sha256::UsesHardware() {
#if defined(__x86_64__) || defined(__i386__)
  return CryptoPP::HasSHA();
#elif defined(__aarch64__)
  return CryptoPP::HasSHA2();
#else
  return false;
#endif
}

struct Sha1::Impl {
  CryptoPP::SHA1 hash;
};

Sha1::Sha1() : impl_(std::make_unique<Impl>()) {}
Sha1::~Sha1() = default;

void Sha1::Update(std::span<const std::byte> bytes) {
  impl_->hash.Update(reinterpret_cast<const CryptoPP::byte*>(bytes.data()), bytes.size());
}

std::string Sha256Digest(std::string_view bytes) {
  Sha256 sha;
  sha.Update(bytes);
  return *FromHex(sha.FinalHex());
}

std::string Sha1::FinalHex() {
  std::array<std::uint8_t, CryptoPP::SHA1::DIGESTSIZE> digest{};
  impl_->hash.Final(digest.data());
  return ToHex(digest);
}

}  // namespace ckpt
