// Helpers for tests that audit generated artifacts from memory and assert findings.
#pragma once

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/audit.h"
#include "lib/io/memory_source.h"
#include "tests/support/artifact_builder.h"

namespace ckpt::testing {

/// Audits `files` (plus non-regular `entries`) from memory.
AuditResult AuditFiles(const Files& files, const AuditOptions& policy = {},
                       const std::vector<std::pair<std::string, EntryKind>>& entries = {},
                       const std::vector<std::string>& replaced_on_open = {});

/// Writes a test input under `dir`: for kMemory and kFolder, `files` (and `entries`) in
/// dir/input_name; for kFile, the one file `files` holds. Returns the path to audit. An entry
/// of kind kRegular names a file of `files` that gets a second hard link outside the folder.
std::filesystem::path WriteInput(const Files& files, InputForm form, const std::string& input_name,
                                 const std::vector<std::pair<std::string, EntryKind>>& entries,
                                 const std::filesystem::path& dir);

/// Audits a test input in any form (kMemory: AuditFiles; else written to a temporary folder).
AuditResult AuditInput(const Files& files, InputForm form, const std::string& input_name,
                       const AuditOptions& policy = {},
                       const std::vector<std::pair<std::string, EntryKind>>& entries = {},
                       const std::vector<std::string>& replaced_on_open = {});

/// Sets environment variables for its lifetime and restores what they were.
class ScopedEnvironment {
 public:
  explicit ScopedEnvironment(const std::vector<std::pair<std::string, std::string>>& values);
  ~ScopedEnvironment();
  ScopedEnvironment(const ScopedEnvironment&) = delete;
  ScopedEnvironment& operator=(const ScopedEnvironment&) = delete;

 private:
  std::vector<std::pair<std::string, std::optional<std::string>>> saved_;
};

/// The findings of `rule_id`.
std::vector<const Finding*> FindingsOf(const AuditResult& result, std::string_view rule_id);

/// The error-severity findings.
std::size_t ErrorCount(const AuditResult& result);

/// Success when a finding of `rule_id` has `text` in its message; else says what was found.
::testing::AssertionResult HasFinding(const AuditResult& result, std::string_view rule_id, std::string_view text);

/// "rule-id CODE: message" for every finding, one per line (for failure messages).
std::string Describe(const AuditResult& result);

}  // namespace ckpt::testing
