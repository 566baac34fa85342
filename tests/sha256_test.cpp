// Sha256 buffers and pads itself and hands whole blocks to Crypto++'s compression at any
// alignment: checked against FIPS 180-4's examples and against Crypto++'s own SHA256 at
// every length around the padding boundaries, every misalignment and many ways of splitting,
// both in place and through the aligned copies made where the compression wants them.
#include "lib/hashing/sha256.h"

#include <cryptopp/hex.h>
#include <cryptopp/sha.h>
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

namespace ckpt {
namespace {

std::string Oracle(std::span<const std::byte> bytes) {
  CryptoPP::SHA256 hash;
  hash.Update(reinterpret_cast<const CryptoPP::byte*>(bytes.data()), bytes.size());
  std::array<CryptoPP::byte, CryptoPP::SHA256::DIGESTSIZE> digest{};
  hash.Final(digest.data());
  std::string hex;
  CryptoPP::HexEncoder encoder(new CryptoPP::StringSink(hex), false);
  encoder.Put(digest.data(), digest.size());
  encoder.MessageEnd();
  return hex;
}

std::string Hex(std::string_view text) {
  Sha256 hash;
  hash.Update(text);
  return hash.FinalHex();
}

TEST(Sha256, FipsExamples) {
  EXPECT_EQ(Hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  Sha256 empty_updates;  // an empty span (null data) is no input at all, before and after bytes
  empty_updates.Update(std::span<const std::byte>());
  empty_updates.Update("ab");
  empty_updates.Update(std::span<const std::byte>());
  empty_updates.Update("c");
  EXPECT_EQ(empty_updates.FinalHex(), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(Hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(Hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(
      Hex("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopq"
          "rstu"),
      "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1");
  Sha256 million;
  const std::string a(1000, 'a');
  for (int i = 0; i < 1000; ++i) million.Update(a);
  EXPECT_EQ(million.bytes_hashed(), 1000000U);
  EXPECT_EQ(million.FinalHex(), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

// Every length from 0 to 300 (the padding's one- and two-block cases, 55/56/63/64/119/120...),
// fed from each of 8 misalignments, whole and in random pieces, matches Crypto++'s SHA256.
void ExpectCryptoppAtEveryLengthAlignmentAndSplit() {
  std::mt19937 random(20261130);
  std::vector<std::byte> storage(300 + 8 + 64);
  for (std::byte& b : storage) b = static_cast<std::byte>(random() & 0xFF);
  for (std::size_t length = 0; length <= 300; ++length) {
    for (std::size_t shift = 0; shift < 8; ++shift) {
      const std::span<const std::byte> input(storage.data() + shift, length);
      const std::string expected = Oracle(input);
      Sha256 whole;
      whole.Update(input);
      ASSERT_EQ(whole.FinalHex(), expected) << "length " << length << ", shift " << shift;
      Sha256 pieces;
      for (std::size_t done = 0; done < length;) {
        const std::size_t n = std::min<std::size_t>(length - done, random() % 150);
        pieces.Update(input.subspan(done, n));
        done += n;
      }
      ASSERT_EQ(pieces.bytes_hashed(), length);
      ASSERT_EQ(pieces.FinalHex(), expected) << "length " << length << ", shift " << shift << ", in pieces";
    }
  }
}

TEST(Sha256, MatchesCryptoppAtEveryLengthAlignmentAndSplit) { ExpectCryptoppAtEveryLengthAlignmentAndSplit(); }

// As on a CPU without the SHA extensions, for the length of a test.
struct AlignedCopies {
  AlignedCopies() { Sha256::CopyUnalignedInputForTesting(true); }
  ~AlignedCopies() { Sha256::CopyUnalignedInputForTesting(false); }
  AlignedCopies(const AlignedCopies&) = delete;
  AlignedCopies& operator=(const AlignedCopies&) = delete;
};

TEST(Sha256, MatchesCryptoppThroughAlignedCopies) {
  const AlignedCopies copies;
  ExpectCryptoppAtEveryLengthAlignmentAndSplit();
}

// Long unaligned inputs go to the compression in place or through aligned copies, by CPU;
// either way the digest is Crypto++'s, and the object starts afresh after FinalHex.
void ExpectLongUnalignedInputsAndReuse() {
  std::vector<std::byte> storage((1 << 20) + 3);
  std::mt19937 random(7);
  for (std::byte& b : storage) b = static_cast<std::byte>(random() & 0xFF);
  Sha256 hash;
  for (std::size_t shift = 0; shift < 4; ++shift) {
    const std::span<const std::byte> input(storage.data() + shift, 1 << 20);
    hash.Update(input.first(5));  // leaves the rest at another alignment than its own
    hash.Update(input.subspan(5));
    EXPECT_EQ(hash.FinalHex(), Oracle(input)) << "shift " << shift;
    EXPECT_EQ(hash.bytes_hashed(), 0U);
  }
}

TEST(Sha256, LongUnalignedInputsAndReuse) { ExpectLongUnalignedInputsAndReuse(); }

TEST(Sha256, LongUnalignedInputsThroughAlignedCopies) {
  const AlignedCopies copies;
  ExpectLongUnalignedInputsAndReuse();
}

}  // namespace
}  // namespace ckpt
