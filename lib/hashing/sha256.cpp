#include "lib/hashing/sha256.h"

#include <cryptopp/cpu.h>
#include <cryptopp/sha.h>

#include "lib/core/text.h"

namespace ckpt {

struct Sha256::Impl {
  CryptoPP::SHA256 hash;
};

Sha256::Sha256() : impl_(std::make_unique<Impl>()) {}
Sha256::~Sha256() = default;

void Sha256::Update(std::span<const std::byte> bytes) {
  impl_->hash.Update(reinterpret_cast<const CryptoPP::byte*>(bytes.data()), bytes.size());
  bytes_hashed_ += bytes.size();
}

std::string Sha256::FinalHex() {
  std::array<std::uint8_t, CryptoPP::SHA256::DIGESTSIZE> digest{};
  impl_->hash.Final(digest.data());
  bytes_hashed_ = 0;
  return ToHex(digest);
}

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

std::string Sha1::FinalHex() {
  std::array<std::uint8_t, CryptoPP::SHA1::DIGESTSIZE> digest{};
  impl_->hash.Final(digest.data());
  return ToHex(digest);
}

}  // namespace ckpt
