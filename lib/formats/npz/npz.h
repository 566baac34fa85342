// NumPy .npz (formats.md section 2): what numpy.savez writes, a zip whose members are all
// root-level `*.npy` arrays, recognised by its central directory (never by its name). Each
// stored member is read as a .npy array (ReadNpy) and listed as one tensor named by the member
// without `.npy`, as np.load(...)[key] names it. The zip structure checks of a torch zip apply.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "lib/io/artifact_source.h"
#include "lib/model/artifact.h"
#include "lib/model/diagnostic.h"

namespace ckpt::npz {

/// What the reader records for the npz rules.
struct NpzFacts final : FormatFacts {
  struct Duplicate {
    std::string name;            ///< the member name written twice
    std::uint64_t offset = 0;    ///< the later entry's central directory offset
    std::uint64_t first_at = 0;  ///< the first entry's
  };
  std::vector<Duplicate> duplicates;
};

/// Reads an .npz archive (its format table entry's reader; Keras reads its weights with it).
IoResult<WeightFile> ReadNpz(std::string name, std::unique_ptr<RandomAccessFile> file, DiagnosticSink& sink);

}  // namespace ckpt::npz
