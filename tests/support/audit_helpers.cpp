#include "tests/support/audit_helpers.h"

#include <sys/stat.h>

#include <cstdlib>
#include <stdexcept>

namespace ckpt::testing {

AuditResult AuditFiles(const Files& files, const AuditOptions& policy,
                       const std::vector<std::pair<std::string, EntryKind>>& entries,
                       const std::vector<std::string>& replaced_on_open) {
  MemorySource source;
  for (const std::string& name : replaced_on_open) source.ReplaceOnOpen(name);
  for (const auto& [name, bytes] : files) source.AddFile(name, bytes);
  for (const auto& [name, kind] : entries) source.AddEntry(name, kind);
  return AuditArtifact("memory", source, policy);
}

std::filesystem::path WriteInput(const Files& files, InputForm form, const std::string& input_name,
                                 const std::vector<std::pair<std::string, EntryKind>>& entries,
                                 const std::filesystem::path& dir) {
  if (form == InputForm::kFile) {
    WriteFiles(files, dir);
    return dir / files.begin()->first;
  }
  std::filesystem::path root = dir / input_name;
  WriteFiles(files, root);
  for (const auto& [entry, kind] : entries) {
    if (kind == EntryKind::kDirectory) {
      std::filesystem::create_directory(root / entry);
    } else if (kind == EntryKind::kSymlink) {
      std::filesystem::create_symlink("/etc/hostname", root / entry);
    } else if (kind == EntryKind::kOther) {
      if (::mkfifo((root / entry).c_str(), 0600) != 0) throw std::runtime_error("mkfifo failed");
    } else if (kind == EntryKind::kRegular) {  // a second hard link, outside the folder, to a file written
      std::string elsewhere = input_name;
      elsewhere.append("-").append(entry).append(".elsewhere");
      std::filesystem::create_hard_link(root / entry, dir / elsewhere);
    }
  }
  return root;
}

AuditResult AuditInput(const Files& files, InputForm form, const std::string& input_name, const AuditOptions& policy,
                       const std::vector<std::pair<std::string, EntryKind>>& entries,
                       const std::vector<std::string>& replaced_on_open) {
  if (form == InputForm::kMemory) return AuditFiles(files, policy, entries, replaced_on_open);
  TempDir dir;
  return AuditPath(WriteInput(files, form, input_name, entries, dir.path()).string(), policy);
}

std::vector<const Finding*> FindingsOf(const AuditResult& result, std::string_view rule_id) {
  std::vector<const Finding*> out;
  for (const Finding& f : result.findings) {
    if (f.rule->id == rule_id) out.push_back(&f);
  }
  return out;
}

std::size_t ErrorCount(const AuditResult& result) {
  std::size_t n = 0;
  for (const Finding& f : result.findings) n += f.rule->severity == Severity::kError ? 1U : 0U;
  return n;
}

::testing::AssertionResult HasFinding(const AuditResult& result, std::string_view rule_id, std::string_view text) {
  for (const Finding* f : FindingsOf(result, rule_id)) {
    if (f->message.find(text) != std::string::npos) return ::testing::AssertionSuccess();
  }
  return ::testing::AssertionFailure() << "no " << rule_id << " finding saying \"" << text << "\" in:\n"
                                       << Describe(result);
}

std::string Describe(const AuditResult& result) {
  std::string out;
  for (const Finding& f : result.findings) {
    out += std::string(f.rule->id) + " " + std::string(CodeName(f.rule->code)) + ": " + f.message + "\n";
  }
  for (const std::string& e : result.tool_errors) out += "tool error: " + e + "\n";
  return out.empty() ? "(no findings)\n" : out;
}

ScopedEnvironment::ScopedEnvironment(const std::vector<std::pair<std::string, std::string>>& values) {
  for (const auto& [name, value] : values) {
    const char* old = std::getenv(name.c_str());
    saved_.emplace_back(name, old != nullptr ? std::optional<std::string>(old) : std::nullopt);
    ::setenv(name.c_str(), value.c_str(), 1);
  }
}

ScopedEnvironment::~ScopedEnvironment() {
  for (const auto& [name, value] : saved_) {
    if (value) {
      ::setenv(name.c_str(), value->c_str(), 1);
    } else {
      ::unsetenv(name.c_str());
    }
  }
}

}  // namespace ckpt::testing
