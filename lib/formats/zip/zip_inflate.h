// A deflated zip member (numpy.savez_compressed, a .keras zip) as a file: inflated with zlib,
// bounded as joblib's streams are (formats.md section 3), its size and CRC-32 checked against
// the central directory. Shared by the zip kinds that read compressed members.
#pragma once

#include <memory>

#include "lib/formats/zip/zip_reader.h"
#include "lib/io/artifact_source.h"
#include "lib/model/diagnostic.h"

namespace ckpt {

/// `stored` is the member's compressed bytes. Reports zip-structure (a bomb, truncated or
/// corrupt data, a size the directory does not record) and returns nullptr, or zip-crc-mismatch
/// and returns the file. The error is an I/O failure reading `stored`.
IoResult<std::unique_ptr<RandomAccessFile>> InflateZipMember(const RandomAccessFile& stored, const ZipMember& member,
                                                             const FileReporter& report);

}  // namespace ckpt
