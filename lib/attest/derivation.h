// Verifying a derivation record (attestations.md section 4) against the output it names
// and, when given, the pickle checkpoint it was made from. The signature was checked
// before (dsse.h); this compares bytes: the output's SHA-256 with its subject, the
// output's tensors with the record's (name, dtype, shape, and each one's bytes), and the
// input's SHA-256 and each tensor's source range with the record. Each file is read once.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "lib/attest/statement.h"
#include "lib/convert/conversion_plan.h"
#include "lib/io/artifact_source.h"
#include "lib/model/diagnostic.h"

namespace ckpt::attest {

struct DerivationFile {
  std::string name;  ///< how diagnostics name it (the file name)
  std::unique_ptr<RandomAccessFile> file;
};

/// What was read: each file's size and SHA-256 (for the report).
struct DerivationDigests {
  std::uint64_t output_size = 0;
  std::string output_sha256;
  std::uint64_t input_size = 0;
  std::string input_sha256;  ///< empty without an input, or when it was not read
};

/// Reports every mismatch (derivation-*, attest-subject-mismatch); the error is an I/O
/// failure of the tool. `input` may be empty (no --derived-from).
IoResult<DerivationDigests> VerifyDerivation(const DerivationStatement& record, DerivationFile output,
                                             DerivationFile* input, DiagnosticSink& sink);

/// The derivation record's in-toto statement (attestations.md section 4) that ckpt-convert
/// signs, written beside the verifier that reads it: `hashes` are the plan's tensors' SHA-256
/// in plan order, `subjects` the outputs (name, SHA-256), sorted by name.
std::string DerivationPayload(const convert::Plan& plan, const std::vector<std::string>& hashes,
                              const std::vector<std::pair<std::string, std::string>>& subjects,
                              const std::string& input_name, const std::string& input_sha256);

}  // namespace ckpt::attest
