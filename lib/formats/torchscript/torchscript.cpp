// TorchScript (torch.jit.save) and torch.export (.pt2) archives (formats.md section 4): zips
// whose loading compiles or runs the program they hold, not weights files. Recognised by
// their members (never by name), checked structurally as every zip is, and refused for what
// they are: one diagnostic per archive, native code named member by member, no tensors.
#include <algorithm>
#include <array>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lib/core/byte_reader.h"
#include "lib/core/text.h"
#include "lib/formats/format_table.h"
#include "lib/formats/zip/zip_reader.h"

namespace ckpt {
namespace {

// The folder every member sits in ("ts/"), as torch's writer puts an archive's members under
// one top folder; empty when the members do not share one.
std::string TopFolder(const ZipDirectory& dir) {
  if (dir.members.empty()) return {};
  const std::string& first = dir.members.front().name;
  const auto slash = first.find('/');
  if (slash == std::string::npos || slash == 0) return {};
  const std::string top = first.substr(0, slash + 1);
  const bool shared = std::all_of(dir.members.begin(), dir.members.end(), [&top](const ZipMember& m) {
    return m.name.size() > top.size() && m.name.starts_with(top);
  });
  return shared ? top : std::string();
}

bool StartsAsZip(const FileHead& head) {
  return head.file != nullptr && (StartsWith(head.bytes, std::string_view("PK\x03\x04", 4)) ||
                                  StartsWith(head.bytes, std::string_view("PK\x07\x08PK\x03\x04", 8)));
}

bool IsCodeMember(std::string_view relative) { return relative.starts_with("code/") && !relative.ends_with("/"); }

std::optional<std::string> SniffTorchscript(const FileHead& head) {
  if (!StartsAsZip(head)) return std::nullopt;
  auto dir = SniffZipDirectory(*head.file);
  if (dir == nullptr) return std::nullopt;
  const std::string top = TopFolder(*dir);
  if (top.empty()) return std::nullopt;
  const bool scripted = std::any_of(dir->members.begin(), dir->members.end(), [&top](const ZipMember& m) {
    const std::string_view relative = std::string_view(m.name).substr(top.size());
    return IsCodeMember(relative) || relative == "constants.pkl";
  });
  if (!scripted) return std::nullopt;
  return "a TorchScript archive (torch.jit.save)";
}

// The member marking a torch.export archive: <top>/archive_format holding "pt2" (torch 2.6
// on), or serialized_exported_program.json (torch 2.2-2.5).
IoResult<const ZipMember*> ExportMarker(const RandomAccessFile& file, const ZipDirectory& dir) {
  for (const ZipMember& m : dir.members) {
    const std::string_view name = m.name;
    const auto slash = name.find('/');
    const std::string_view last = name.substr(name.rfind('/') + 1);
    if (last == "serialized_exported_program.json") return &m;
    const bool at_top = slash == std::string_view::npos || slash == name.rfind('/');
    if (last != "archive_format" || !at_top) continue;
    auto prefix = ReadZipMemberPrefix(file, m, 16);
    if (!prefix) return prefix.error();
    std::string_view content = *prefix;
    while (!content.empty() && (content.back() == '\n' || content.back() == '\r')) content.remove_suffix(1);
    if (content == "pt2") return &m;
  }
  return nullptr;
}

std::optional<std::string> SniffTorchExport(const FileHead& head) {
  if (!StartsAsZip(head)) return std::nullopt;
  auto dir = SniffZipDirectory(*head.file);
  if (dir == nullptr) return std::nullopt;
  auto marker = ExportMarker(*head.file, *dir);
  if (!marker || *marker == nullptr) return std::nullopt;
  return "a torch.export program archive (.pt2)";
}

// "'a', 'b', 'c' and 4 more": the first few names of a list.
std::string FirstNames(const std::vector<const ZipMember*>& members) {
  constexpr std::size_t kShown = 3;
  std::string out;
  for (std::size_t i = 0; i < members.size() && i < kShown; ++i) {
    if (i > 0) out += ", ";
    out += QuoteForMessage(members[i]->name);
  }
  if (members.size() > kShown) out += " and " + std::to_string(members.size() - kShown) + " more";
  return out;
}

WeightFile Refused(std::string name, std::unique_ptr<RandomAccessFile> file) {
  WeightFile wf;
  wf.name = std::move(name);
  wf.size = file->size();
  wf.header_read = true;  // its member list is complete; it lists no tensor
  wf.valid = false;       // a program is never a weights file
  wf.file = std::move(file);
  return wf;
}

IoResult<WeightFile> ReadTorchscript(std::string name, std::unique_ptr<RandomAccessFile> file, DiagnosticSink& sink) {
  const FileReporter report(name, sink);
  auto dir = ReadZipDirectory(*file, name, sink, ZipMethods::kStoredOrDeflate);
  if (!dir) return dir.error();
  const std::string top = TopFolder(*dir);
  std::vector<const ZipMember*> code;
  for (const ZipMember& m : dir->members) {
    if (!top.empty() && IsCodeMember(std::string_view(m.name).substr(top.size()))) code.push_back(&m);
  }
  const std::uint64_t at = code.empty() ? 0 : code.front()->header_offset;
  report(Diag::kTorchscriptCode, at,
         "A TorchScript archive (torch.jit.save) with " + std::to_string(code.size()) + " code member" +
             (code.size() == 1 ? "" : "s") + (code.empty() ? std::string() : " (" + FirstNames(code) + ")") +
             ": loading this archive runs its TorchScript code; ship torch.save(model.state_dict()) or "
             "safetensors.");
  return Refused(std::move(name), std::move(file));
}

// What a member's first bytes say it is, when they are a native executable's.
std::optional<std::string_view> NativeCodeKind(std::string_view prefix) {
  if (prefix.starts_with("\x7f"
                         "ELF")) {
    return "an ELF shared object";
  }
  if (prefix.starts_with("MZ")) return "a PE (Windows) executable";
  constexpr std::array<std::string_view, 5> kMachO = {
      std::string_view("\xfe\xed\xfa\xce", 4), std::string_view("\xfe\xed\xfa\xcf", 4),
      std::string_view("\xce\xfa\xed\xfe", 4), std::string_view("\xcf\xfa\xed\xfe", 4),
      std::string_view("\xca\xfe\xba\xbe", 4)};
  for (std::string_view magic : kMachO) {
    if (prefix.starts_with(magic)) return "a Mach-O executable";
  }
  return std::nullopt;
}

IoResult<WeightFile> ReadTorchExport(std::string name, std::unique_ptr<RandomAccessFile> file, DiagnosticSink& sink) {
  const FileReporter report(name, sink);
  auto dir = ReadZipDirectory(*file, name, sink, ZipMethods::kStoredOrDeflate);
  if (!dir) return dir.error();
  auto marker = ExportMarker(*file, *dir);
  if (!marker) return marker.error();
  report(Diag::kTorchscriptExport, *marker != nullptr ? (*marker)->header_offset : 0,
         "A torch.export program archive" +
             (*marker != nullptr ? " (" + QuoteForMessage((*marker)->name) + ")" : std::string()) + " with " +
             std::to_string(dir->members.size()) +
             " members, not a weights file: running it runs its graph; ship the state dict as safetensors.");
  for (const ZipMember& m : dir->members) {
    auto prefix = ReadZipMemberPrefix(*file, m, 4);
    if (!prefix) return prefix.error();
    if (auto native = NativeCodeKind(*prefix)) {
      report(Diag::kTorchscriptNativeCode, m.header_offset,
             "Member " + QuoteForMessage(m.name) + " is " + std::string(*native) +
                 " (AOTInductor compiled code): loading the program loads and runs it.");
    }
  }
  return Refused(std::move(name), std::move(file));
}

// In a model folder both are code: they fail the folder (formats.md section 11).
void TorchscriptInInventory(std::span<const std::byte> /*head*/, const std::string& description, InventoryItem& item) {
  item.kind = InventoryClass::kProgram;
  item.description = description;
}

}  // namespace

const InputFormat formats::kTorchscriptFormat{
    .kind = InputKind::kTorchscript,
    .sniff = &SniffTorchscript,
    .read = &ReadTorchscript,
    .inventory = &TorchscriptInInventory,
    .container = PolyglotContainer::kZip,
    .program = true,
};

constexpr std::array<NameSuffix, 1> kTorchExportNames{{
    {".pt2", std::nullopt, "a torch.export archive"},
}};

const InputFormat formats::kTorchExportFormat{
    .kind = InputKind::kTorchExport,
    .sniff = &SniffTorchExport,
    .read = &ReadTorchExport,
    .inventory = &TorchscriptInInventory,
    .container = PolyglotContainer::kZip,
    .program = true,
    .names = kTorchExportNames,
};

}  // namespace ckpt
