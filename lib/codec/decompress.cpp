#include "lib/codec/decompress.h"

#include <bzlib.h>
#include <lzma.h>
#include <zlib.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <mutex>

#include "lib/core/byte_reader.h"
#include "lib/hashing/crc32.h"

namespace ckpt::codec {
namespace {

constexpr std::size_t kChunk = std::size_t{1} << 20;

IoResult<void> Invalid() { return boost::system::error_code(EINVAL, boost::system::generic_category()); }

class ZlibDecoder final : public Decoder {
 public:
  explicit ZlibDecoder(int window_bits) : window_bits_(window_bits) { Init(); }
  ~ZlibDecoder() override { inflateEnd(&z_); }
  ZlibDecoder(const ZlibDecoder&) = delete;
  ZlibDecoder& operator=(const ZlibDecoder&) = delete;
  Step Run(std::span<const std::byte> in, std::span<std::byte> out) override {
    if (!ready_) return {0, 0, false, "zlib could not start"};
    z_.next_in = reinterpret_cast<Bytef*>(const_cast<std::byte*>(in.data()));  // NOLINT: zlib never writes input
    z_.avail_in = static_cast<uInt>(in.size());
    z_.next_out = reinterpret_cast<Bytef*>(out.data());
    z_.avail_out = static_cast<uInt>(out.size());
    const int status = inflate(&z_, Z_NO_FLUSH);
    Step step{in.size() - z_.avail_in, out.size() - z_.avail_out, status == Z_STREAM_END, ""};
    if (status != Z_OK && status != Z_STREAM_END && status != Z_BUF_ERROR) {
      step.error = z_.msg != nullptr ? std::string(z_.msg) : "zlib error " + std::to_string(status);
    }
    return step;
  }
  void Restart() override { inflateReset(&z_); }

 private:
  void Init() { ready_ = inflateInit2(&z_, window_bits_) == Z_OK; }
  int window_bits_;
  z_stream z_{};
  bool ready_ = false;
};

class Bz2Decoder final : public Decoder {
 public:
  Bz2Decoder() { Init(); }
  ~Bz2Decoder() override { BZ2_bzDecompressEnd(&s_); }
  Bz2Decoder(const Bz2Decoder&) = delete;
  Bz2Decoder& operator=(const Bz2Decoder&) = delete;
  Step Run(std::span<const std::byte> in, std::span<std::byte> out) override {
    if (!ready_) return {0, 0, false, "libbz2 could not start"};
    s_.next_in = reinterpret_cast<char*>(const_cast<std::byte*>(in.data()));  // NOLINT: libbz2 never writes input
    s_.avail_in = static_cast<unsigned>(in.size());
    s_.next_out = reinterpret_cast<char*>(out.data());
    s_.avail_out = static_cast<unsigned>(out.size());
    const int status = BZ2_bzDecompress(&s_);
    Step step{in.size() - s_.avail_in, out.size() - s_.avail_out, status == BZ_STREAM_END, ""};
    if (status != BZ_OK && status != BZ_STREAM_END) {
      step.error = status == BZ_DATA_ERROR_MAGIC ? "not a bzip2 stream"
                   : status == BZ_MEM_ERROR      ? "libbz2 ran out of memory"
                                                 : "bzip2 data error (" + std::to_string(status) + ")";
    }
    return step;
  }
  void Restart() override {
    BZ2_bzDecompressEnd(&s_);
    s_ = bz_stream{};
    Init();
  }

 private:
  void Init() { ready_ = BZ2_bzDecompressInit(&s_, 0, 0) == BZ_OK; }
  bz_stream s_{};
  bool ready_ = false;
};

class LzmaDecoder final : public Decoder {
 public:
  explicit LzmaDecoder(bool xz) : xz_(xz) { Init(); }
  ~LzmaDecoder() override { lzma_end(&s_); }
  LzmaDecoder(const LzmaDecoder&) = delete;
  LzmaDecoder& operator=(const LzmaDecoder&) = delete;
  Step Run(std::span<const std::byte> in, std::span<std::byte> out) override {
    if (!ready_) return {0, 0, false, "liblzma could not start"};
    s_.next_in = reinterpret_cast<const std::uint8_t*>(in.data());
    s_.avail_in = in.size();
    s_.next_out = reinterpret_cast<std::uint8_t*>(out.data());
    s_.avail_out = out.size();
    const lzma_ret status = lzma_code(&s_, LZMA_RUN);
    Step step{in.size() - s_.avail_in, out.size() - s_.avail_out, status == LZMA_STREAM_END, ""};
    switch (status) {
      case LZMA_OK:
      case LZMA_STREAM_END:
      case LZMA_BUF_ERROR:
        break;
      case LZMA_MEMLIMIT_ERROR:
        step.error = "decoding needs more than " + std::to_string(kDecoderMemory >> 20) + " MiB of memory";
        break;
      case LZMA_FORMAT_ERROR:
        step.error = xz_ ? "not an xz stream" : "not an lzma-alone stream";
        break;
      default:
        step.error = "liblzma data error (" + std::to_string(static_cast<int>(status)) + ")";
        break;
    }
    return step;
  }
  void Restart() override {
    lzma_end(&s_);
    s_ = LZMA_STREAM_INIT;
    Init();
  }

 private:
  void Init() {
    ready_ = (xz_ ? lzma_stream_decoder(&s_, kDecoderMemory, 0) : lzma_alone_decoder(&s_, kDecoderMemory)) == LZMA_OK;
  }
  bool xz_;
  lzma_stream s_ = LZMA_STREAM_INIT;
  bool ready_ = false;
};

// gzip, bzip2 and xz files may hold several streams one after another, which Python's modules
// read as one; zlib and lzma-alone hold one.
bool NextStreamStarts(Codec codec, std::span<const std::byte> bytes) {
  switch (codec) {
    case Codec::kGzip:
      return StartsWith(bytes, std::string_view("\x1f\x8b", 2));
    case Codec::kBz2:
      return StartsWith(bytes, "BZh");
    case Codec::kXz:
      return StartsWith(bytes, std::string_view("\xfd"
                                                "7zXZ\0",
                                                6));
    case Codec::kZlib:
    case Codec::kLzma:
    case Codec::kRawDeflate:
      return false;
  }
  return false;
}

// Reads `file` from `offset` in chunks and feeds a decoder, restarting it between streams.
class Feeder {
 public:
  Feeder(const RandomAccessFile& file, Codec codec) : file_(file), codec_(codec), decoder_(Decoder::Make(codec)) {}
  struct Result {
    std::size_t produced = 0;
    bool finished = false;  ///< the last stream ended and no further stream follows
    bool truncated = false;
    std::string error;
  };
  /// Decodes into `out` until it is full, the input ends or an error.
  IoResult<Result> Fill(std::span<std::byte> out) {
    Result r;
    while (r.produced < out.size() && !finished_) {
      if (pending_.empty()) {
        if (read_at_ == file_.size()) {
          r.truncated = true;
          break;
        }
        const auto n = static_cast<std::size_t>(std::min<std::uint64_t>(kChunk, file_.size() - read_at_));
        buffer_.resize(n);
        if (auto read = file_.ReadAt(read_at_, buffer_); !read) return read.error();
        read_at_ += n;
        pending_ = buffer_;
      }
      const Decoder::Step step = decoder_->Run(pending_, out.subspan(r.produced));
      pending_ = pending_.subspan(step.consumed);
      consumed_ += step.consumed;
      r.produced += step.produced;
      if (!step.error.empty()) {
        r.error = step.error;
        return r;
      }
      if (step.stream_end) {
        auto next = StartsAnother();
        if (!next) return next.error();
        if (*next) {
          decoder_->Restart();
        } else {
          finished_ = true;
        }
      } else if (step.consumed == 0 && step.produced == 0) {
        r.error = "the decoder stopped making progress";
        return r;
      }
    }
    r.finished = finished_;
    return r;
  }
  [[nodiscard]] std::uint64_t consumed() const { return consumed_; }

 private:
  IoResult<bool> StartsAnother() {
    std::array<std::byte, 6> peek{};
    const auto n = static_cast<std::size_t>(std::min<std::uint64_t>(peek.size(), file_.size() - consumed_));
    if (n == 0) return false;
    if (auto read = file_.ReadAt(consumed_, std::span(peek).first(n)); !read) {
      return IoResult<bool>(boost::system::in_place_error, read.error());
    }
    return NextStreamStarts(codec_, std::span(peek).first(n));
  }
  const RandomAccessFile& file_;
  Codec codec_;
  std::unique_ptr<Decoder> decoder_;
  std::vector<std::byte> buffer_;
  std::span<const std::byte> pending_;
  std::uint64_t read_at_ = 0;
  std::uint64_t consumed_ = 0;
  bool finished_ = false;
};

class KeptFile final : public RandomAccessFile {
 public:
  KeptFile(const RandomAccessFile& file, std::vector<std::byte> bytes) : file_(file), bytes_(std::move(bytes)) {}
  [[nodiscard]] std::uint64_t size() const override { return bytes_.size(); }
  [[nodiscard]] FileIdentity identity() const override { return file_.identity(); }
  [[nodiscard]] IoResult<void> ReadAt(std::uint64_t offset, std::span<std::byte> out) const override {
    if (offset > bytes_.size() || out.size() > bytes_.size() - offset) return Invalid();
    if (!out.empty()) std::memcpy(out.data(), bytes_.data() + offset, out.size());
    return {};
  }

 private:
  const RandomAccessFile& file_;
  std::vector<std::byte> bytes_;
};

class StreamedFile final : public RandomAccessFile {
 public:
  StreamedFile(const RandomAccessFile& file, Codec codec, std::uint64_t size)
      : file_(file), feeder_(file, codec), size_(size) {}
  [[nodiscard]] std::uint64_t size() const override { return size_; }
  [[nodiscard]] FileIdentity identity() const override { return file_.identity(); }
  [[nodiscard]] IoResult<void> ReadAt(std::uint64_t offset, std::span<std::byte> out) const override {
    const std::lock_guard lock(mutex_);
    if (offset > size_ || out.size() > size_ - offset || offset < window_at_) return Invalid();
    const std::uint64_t window_end = window_at_ + window_.size();  // == produced_
    std::size_t have = 0;
    if (offset < window_end) {
      have = static_cast<std::size_t>(std::min<std::uint64_t>(out.size(), window_end - offset));
      std::memcpy(out.data(), window_.data() + (offset - window_at_), have);
    }
    // Skip to `offset`, then decode the rest of the read in place.
    std::vector<std::byte> scratch;
    while (produced_ < offset) {
      scratch.resize(static_cast<std::size_t>(std::min<std::uint64_t>(kChunk, offset - produced_)));
      if (auto filled = Produce(scratch); !filled) return filled;
    }
    if (have < out.size()) {
      if (auto filled = Produce(out.subspan(have)); !filled) return filled;
    }
    window_.assign(out.begin(), out.end());
    window_at_ = offset;
    return {};
  }

 private:
  IoResult<void> Produce(std::span<std::byte> out) const {
    auto r = feeder_.Fill(out);
    if (!r) return r.error();
    // Measured before: the same bytes decode the same way unless the file changed.
    if (r->produced != out.size() || !r->error.empty()) {
      return boost::system::error_code(EIO, boost::system::generic_category());
    }
    produced_ += out.size();
    return {};
  }
  const RandomAccessFile& file_;
  mutable std::mutex mutex_;
  mutable Feeder feeder_;
  std::uint64_t size_;
  mutable std::uint64_t produced_ = 0;
  mutable std::vector<std::byte> window_;
  mutable std::uint64_t window_at_ = 0;
};

}  // namespace

std::unique_ptr<Decoder> Decoder::Make(Codec codec) {
  switch (codec) {
    case Codec::kZlib:
      return std::make_unique<ZlibDecoder>(MAX_WBITS);
    case Codec::kGzip:
      return std::make_unique<ZlibDecoder>(MAX_WBITS + 16);
    case Codec::kBz2:
      return std::make_unique<Bz2Decoder>();
    case Codec::kXz:
      return std::make_unique<LzmaDecoder>(true);
    case Codec::kLzma:
      return std::make_unique<LzmaDecoder>(false);
    case Codec::kRawDeflate:
      return std::make_unique<ZlibDecoder>(-MAX_WBITS);
  }
  return nullptr;
}

std::string_view CodecName(Codec codec) {
  switch (codec) {
    case Codec::kZlib:
      return "zlib";
    case Codec::kGzip:
      return "gzip";
    case Codec::kBz2:
      return "bz2";
    case Codec::kXz:
      return "xz";
    case Codec::kLzma:
      return "lzma";
    case Codec::kRawDeflate:
      return "deflate";
  }
  return "";
}

bool IsBzip2Signature(std::span<const std::byte> head) {
  // "BZh", the block size digit, then the first block's magic (pi's digits in BCD).
  constexpr std::string_view kBlockMagic("\x31\x41\x59\x26\x53\x59", 6);
  if (head.size() < 10 || !StartsWith(head, "BZh")) return false;
  const auto level = std::to_integer<char>(head[3]);
  return level >= '1' && level <= '9' && AsStringView(head.subspan(4, 6)) == kBlockMagic;
}

std::optional<Codec> CodecOf(std::span<const std::byte> head) {
  auto byte = [&](std::size_t i) { return i < head.size() ? std::to_integer<unsigned>(head[i]) : 0x100U; };
  if (byte(0) == 0x1f && byte(1) == 0x8b && byte(2) == 0x08) return Codec::kGzip;  // deflate: gzip's only method
  if (IsBzip2Signature(head)) return Codec::kBz2;
  if (StartsWith(head, std::string_view("\xfd"
                                        "7zXZ\0",
                                        6))) {
    return Codec::kXz;
  }
  if (byte(0) == 0x78 && byte(1) <= 0xff && (0x78U * 256U + byte(1)) % 31U == 0) return Codec::kZlib;
  if (byte(0) == 0x5d && byte(1) == 0 && byte(2) == 0 && head.size() >= 5) {
    const std::uint64_t dictionary = byte(1) | (byte(2) << 8) | (byte(3) << 16) | (std::uint64_t{byte(4)} << 24);
    for (unsigned n = 0; n < 32; ++n) {
      const std::uint64_t power = std::uint64_t{1} << n;
      if (dictionary == power || (n > 0 && dictionary == power + (power >> 1))) return Codec::kLzma;
    }
  }
  return std::nullopt;
}

std::uint64_t OutputBound(std::uint64_t compressed_size) {
  const std::uint64_t ratio_bound = compressed_size > kMaxOutput / kMaxRatio ? kMaxOutput : compressed_size * kMaxRatio;
  return std::min(kMaxOutput, std::max(kKeptOutput, ratio_bound));
}

IoResult<std::string> DecompressedPrefix(const RandomAccessFile& file, Codec codec, std::size_t n) {
  Feeder feeder(file, codec);
  std::string out(n, '\0');
  auto r = feeder.Fill(std::as_writable_bytes(std::span(out)));
  if (!r) return r.error();
  out.resize(r->produced);
  return out;
}

IoResult<StreamFacts> Measure(const RandomAccessFile& file, Codec codec) {
  StreamFacts facts;
  facts.bound = OutputBound(file.size());
  Feeder feeder(file, codec);
  std::vector<std::byte> out(kChunk);
  bool keeping = true;
  Crc32 crc;
  while (true) {
    auto r = feeder.Fill(out);
    if (!r) return r.error();
    crc.Update(std::span(out).first(r->produced));
    facts.crc32 = crc.value();
    facts.produced += r->produced;
    facts.consumed = feeder.consumed();
    if (facts.produced > facts.bound) {
      facts.status = StreamFacts::Status::kBomb;
      facts.kept.clear();
      return facts;
    }
    if (keeping && facts.produced <= kKeptOutput) {
      facts.kept.insert(facts.kept.end(), out.begin(), out.begin() + static_cast<std::ptrdiff_t>(r->produced));
    } else if (keeping) {
      keeping = false;
      facts.kept = {};
    }
    if (!r->error.empty()) {
      facts.status = StreamFacts::Status::kCorrupt;
      facts.error = r->error;
      facts.kept.clear();
      return facts;
    }
    if (r->finished) break;
    if (r->truncated) {
      facts.status = StreamFacts::Status::kTruncated;
      facts.kept.clear();
      return facts;
    }
  }
  if (facts.consumed < file.size()) facts.trailing_at = facts.consumed;
  if (!keeping) facts.kept.clear();
  return facts;
}

std::unique_ptr<RandomAccessFile> DecompressedFile(const RandomAccessFile& file, Codec codec, StreamFacts facts) {
  if (facts.produced <= kKeptOutput && facts.kept.size() == facts.produced) {
    return std::make_unique<KeptFile>(file, std::move(facts.kept));
  }
  return std::make_unique<StreamedFile>(file, codec, facts.produced);
}

}  // namespace ckpt::codec
