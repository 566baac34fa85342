// joblib files (formats.md section 3): the facts the joblib reader records for reports.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "lib/model/artifact.h"

namespace ckpt::joblib {

struct JoblibFacts final : FormatFacts {
  std::string compression;              ///< "zlib", "gzip", "bz2", "xz", "lzma", "zf"; empty: none
  std::uint64_t decompressed_size = 0;  ///< bytes of pickle the stream held (compressed files)
  void Describe(boost::json::object& fields) const override;
};

}  // namespace ckpt::joblib
