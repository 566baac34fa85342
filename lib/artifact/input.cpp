#include "lib/artifact/input.h"

#include <sys/stat.h>

#include <array>
#include <filesystem>

#include "lib/core/text.h"
#include "lib/formats/layout.h"
#include "lib/formats/tar_reader.h"
#include "lib/io/directory_source.h"
#include "lib/io/tar_source.h"

namespace ckpt {
namespace {

std::string Describe(const std::string& context, const boost::system::error_code& error) {
  return context + ": " + error.message();
}

// The one file of a file input, exposed under the empty name: locations in it then render
// as the input path itself ("model.safetensors:1:9", not "model.safetensors/model.safetensors").
class SingleFileSource final : public ArtifactSource {
 public:
  SingleFileSource(std::unique_ptr<ArtifactSource> folder, std::string name, std::uint64_t size)
      : folder_(std::move(folder)), name_(std::move(name)), size_(size) {}
  [[nodiscard]] IoResult<std::vector<DirectoryEntry>> List() const override {
    return std::vector<DirectoryEntry>{{"", EntryKind::kRegular, size_}};
  }
  [[nodiscard]] IoResult<std::unique_ptr<RandomAccessFile>> Open(const std::string& name) const override {
    if (!name.empty()) return boost::system::error_code(ENOENT, boost::system::system_category());
    return folder_->Open(name_);
  }
  [[nodiscard]] IoResult<FileIdentity> Stat(const std::string& name) const override {
    if (!name.empty()) return boost::system::error_code(ENOENT, boost::system::system_category());
    return folder_->Stat(name_);
  }

 private:
  std::unique_ptr<ArtifactSource> folder_;
  std::string name_;
  std::uint64_t size_;
};

bool ClaimsSafetensors(std::string_view name) {
  return name.size() >= 12 && name.substr(name.size() - 12) == ".safetensors";
}

}  // namespace

OpenedInput OpenInputPath(const std::string& path, DiagnosticSink& sink) {
  OpenedInput in;
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    in.tool_error = Describe("cannot open " + path, {errno, boost::system::system_category()});
    return in;
  }
  if (S_ISDIR(st.st_mode)) {
    auto dir = DirectorySource::OpenDirectory(path);
    if (!dir) {
      in.tool_error = Describe("cannot open directory " + path, dir.error());
      return in;
    }
    auto entries = (*dir)->List();
    if (!entries) {
      in.tool_error = Describe("cannot list " + path, entries.error());
      return in;
    }
    bool has_header = false;
    for (const DirectoryEntry& e : *entries) has_header |= e.name == kHeaderFileName;
    in.kind = has_header ? InputKind::kLensemble : InputKind::kModelFolder;
    in.description = has_header ? "a Lensemble artifact directory" : "a model folder";
    in.source = std::move(*dir);
    return in;
  }
  if (!S_ISREG(st.st_mode)) {
    in.tool_error = "cannot audit " + path + ": not a regular file or a directory";
    return in;
  }
  // A file: opened from its folder (the command line's symlinks resolved first), so its
  // identity is checked by name after the last read like any artifact file.
  std::error_code fs_error;
  std::filesystem::path resolved = std::filesystem::canonical(path, fs_error);
  if (fs_error) {
    in.tool_error = "cannot open " + path + ": " + fs_error.message();
    return in;
  }
  const std::string name = resolved.filename().string();
  auto folder = DirectorySource::OpenDirectory(resolved.parent_path().string());
  if (!folder) {
    in.tool_error = Describe("cannot open the folder of " + path, folder.error());
    return in;
  }
  auto file = (*folder)->Open(name);
  if (!file) {
    in.tool_error = Describe("cannot open " + path, file.error());
    return in;
  }
  std::array<std::byte, kClassifyLength> head{};
  const auto length = static_cast<std::size_t>(std::min<std::uint64_t>((*file)->size(), head.size()));
  if (auto read = (*file)->ReadAt(0, std::span(head).first(length)); !read) {
    in.tool_error = Describe("cannot read " + path, read.error());
    return in;
  }
  const ClassifiedFile classified = ClassifyFileHead(std::span(head).first(length), (*file)->size());
  in.kind = classified.kind;
  in.description = classified.description;
  Location at_start;  // the input file itself: an empty name
  at_start.byte_offset = 0;
  switch (classified.kind) {
    case InputKind::kLensembleTar: {
      std::shared_ptr<RandomAccessFile> tar(std::move(*file));
      auto index = ReadTar(*tar, sink);
      if (!index) {
        in.tool_error = Describe("cannot read " + path, index.error());
        return in;
      }
      in.container = ContainerFile{path, tar->size()};
      in.source = std::make_unique<TarSource>(std::move(*folder), name, std::move(tar), std::move(*index));
      return in;
    }
    case InputKind::kSafetensors:
      in.source = std::make_unique<SingleFileSource>(std::move(*folder), name, (*file)->size());
      return in;
    case InputKind::kCompressed:
      sink.Report(Diag::kInputCompressed, at_start,
                  QuoteForMessage(name) + " is " + classified.description +
                      ", a compressed archive: decompress it first (the audit reads uncompressed tars only).");
      return in;
    case InputKind::kUnknown:
      sink.Report(Diag::kInputUnrecognised, at_start,
                  QuoteForMessage(name) + " is " +
                      (classified.refused_format != nullptr ? classified.description
                                                            : std::string("no format the audit recognises")) +
                      ": neither a Lensemble artifact (directory or tar), safetensors, GGUF nor a pickle-based "
                      "checkpoint.");
      return in;
    default:
      // The pickle family and GGUF: recognised; their analysers come with their own readers.
      sink.Report(classified.refused_format->refused, at_start,
                  QuoteForMessage(name) + " is " + classified.description +
                      (ClaimsSafetensors(name) ? ", although its name says safetensors" : "") +
                      "; this audit reads safetensors only and never loads a pickle: re-export with safetensors.");
      return in;
  }
}

}  // namespace ckpt
