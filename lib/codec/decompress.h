// The one bounded decompressor (lib/codec, below io): the compressed streams joblib writes
// (formats.md section 3: zlib, gzip, bz2, xz, lzma-alone) and zip's raw deflate members,
// decompressed with Debian's zlib, libbz2 and liblzma under hard bounds: the output may not
// pass 2^32 bytes nor max(64 MiB, 2,000 x the compressed size), a decoder may not take more
// than 128 MiB, and the read ends the moment a bound is crossed. Output is never held whole:
// a stream up to 64 MiB is kept from the measuring pass, a longer one is decompressed again,
// forward, for the analysis (DecompressedFile).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "lib/io/artifact_source.h"

namespace ckpt::codec {

/// kRawDeflate: a zip member's deflate data (method 8), never recognised on its own.
enum class Codec : std::uint8_t { kZlib, kGzip, kBz2, kXz, kLzma, kRawDeflate };

/// joblib's name of the codec ("zlib", "gzip", "bz2", "xz", "lzma"): the JSON `compression`.
std::string_view CodecName(Codec codec);

/// The codec `head` starts with, by joblib's prefixes and the checks of formats.md section 1
/// row 5 (zlib: CM 8 and a valid FCHECK; lzma-alone: a dictionary size of 2^n or 2^n+2^(n-1)).
std::optional<Codec> CodecOf(std::span<const std::byte> head);

/// A bzip2 stream's full signature: "BZh", a level 1-9 and the first block's magic.
bool IsBzip2Signature(std::span<const std::byte> head);

/// One codec's decoder: Run() turns input into output until either runs out or a stream ends.
class Decoder {
 public:
  Decoder() = default;
  Decoder(const Decoder&) = delete;
  Decoder& operator=(const Decoder&) = delete;
  virtual ~Decoder() = default;
  struct Step {
    std::size_t consumed = 0;
    std::size_t produced = 0;
    bool stream_end = false;  ///< a whole stream (gzip member, bz2 or xz stream) ended here
    std::string error;        ///< non-empty: the data is corrupt (the decoder's words)
  };
  virtual Step Run(std::span<const std::byte> in, std::span<std::byte> out) = 0;
  /// Starts another stream after stream_end (a multi-stream gzip, bz2 or xz file).
  virtual void Restart() = 0;
  static std::unique_ptr<Decoder> Make(Codec codec);
};

/// What the measuring pass found.
struct StreamFacts {
  enum class Status : std::uint8_t {
    kComplete,   ///< every stream ended; `trailing_at` says where unread input starts
    kBomb,       ///< the output crossed a bound: `produced` bytes when it stopped
    kCorrupt,    ///< the decoder refused the data at input byte `consumed`
    kTruncated,  ///< the input ended inside a stream
  };
  Status status = Status::kComplete;
  std::uint64_t consumed = 0;                ///< input bytes read
  std::uint64_t produced = 0;                ///< output bytes
  std::uint64_t bound = 0;                   ///< the output bound that applied
  std::optional<std::uint64_t> trailing_at;  ///< input after the last stream, not another stream
  std::string error;
  std::uint32_t crc32 = 0;      ///< of the output (a zip member's check), when complete
  std::vector<std::byte> kept;  ///< the whole output, when it is at most kKeptOutput bytes
};

inline constexpr std::uint64_t kKeptOutput = std::uint64_t{64} << 20;
inline constexpr std::uint64_t kMaxOutput = std::uint64_t{1} << 32;
inline constexpr std::uint64_t kMaxRatio = 2000;
inline constexpr std::uint64_t kDecoderMemory = std::uint64_t{128} << 20;

/// The output bound for `compressed_size` input bytes.
std::uint64_t OutputBound(std::uint64_t compressed_size);

/// The first `n` decompressed bytes of `file` (fewer when the stream is shorter or corrupt):
/// what recognition looks at.
IoResult<std::string> DecompressedPrefix(const RandomAccessFile& file, Codec codec, std::size_t n);

/// Decompresses `file` whole once, bounded, keeping the output when it is small.
IoResult<StreamFacts> Measure(const RandomAccessFile& file, Codec codec);

/// The decompressed bytes of `file` (measured: `facts.produced` bytes, complete), read
/// forward: a read may start anywhere at or after the previous read's start (the pickle
/// analyser reads so); earlier bytes are gone and such a read is an error.
std::unique_ptr<RandomAccessFile> DecompressedFile(const RandomAccessFile& file, Codec codec, StreamFacts facts);

}  // namespace ckpt::codec
