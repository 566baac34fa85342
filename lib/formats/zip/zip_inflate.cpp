#include "lib/formats/zip/zip_inflate.h"

#include <string>

#include "lib/codec/decompress.h"
#include "lib/core/text.h"
#include "lib/hashing/crc32.h"

namespace ckpt {

IoResult<std::unique_ptr<RandomAccessFile>> InflateZipMember(const RandomAccessFile& member_bytes, const ZipMember& m,
                                                             const FileReporter& report) {
  auto facts = codec::Measure(member_bytes, codec::Codec::kRawDeflate);
  if (!facts) return facts.error();
  const std::string shown = QuoteForMessage(m.name);
  using Status = codec::StreamFacts::Status;
  if (facts->status != Status::kComplete) {
    report(Diag::kZipStructure, m.data_offset + facts->consumed,
           "Member " + shown + "'s deflate data " +
               (facts->status == Status::kBomb ? "inflates past its bound (more than " + std::to_string(facts->bound) +
                                                     " bytes from " + std::to_string(m.compressed_size) + ")"
                : facts->status == Status::kTruncated ? std::string("ends before its final block")
                                                      : "is corrupt (" + QuoteForMessage(facts->error, 80) + ")") +
               ": it is not read.");
    return std::unique_ptr<RandomAccessFile>();
  }
  if (facts->produced != m.size) {
    report(Diag::kZipStructure, m.central_offset,
           "Member " + shown + " inflates to " + std::to_string(facts->produced) + " bytes, not the " +
               std::to_string(m.size) + " its directory records.");
    return std::unique_ptr<RandomAccessFile>();
  }
  if (facts->crc32 != m.crc32) {
    report(Diag::kZipCrcMismatch, m.header_offset,
           "Member " + shown + " inflates to bytes with CRC-32 " + Crc32Hex(facts->crc32) + ", not the " +
               Crc32Hex(m.crc32) + " its directory records: its bytes were changed after it was written.");
  }
  return codec::DecompressedFile(member_bytes, codec::Codec::kRawDeflate, std::move(*facts));
}

}  // namespace ckpt
