#include "lib/formats/polyglot.h"

#include <array>

#include "lib/core/byte_reader.h"
#include "lib/core/text.h"
#include "lib/formats/format_table.h"
#include "lib/formats/hdf5/hdf5.h"
#include "lib/formats/input_classifier.h"
#include "lib/formats/pickle/pickle_analyser.h"
#include "lib/formats/tar/tar_reader.h"
#include "lib/formats/zip/zip_reader.h"

namespace ckpt {
namespace {

constexpr std::string_view kZipLocalMagic("PK\x03\x04", 4);
constexpr std::string_view kNumpyMagic("\x93NUMPY", 6);
constexpr std::uint64_t kPickleWalkBound = std::uint64_t{64} << 20;

// The container a reading yields, compared across readers.
using Container = PolyglotContainer;

std::string_view ContainerName(Container c) {
  switch (c) {
    case Container::kSafetensors:
      return "a safetensors file";
    case Container::kZip:
      return "a zip archive";
    case Container::kPickle:
      return "a pickle";
    case Container::kNumpy:
      return "a NumPy array";
    case Container::kGguf:
      return "a GGUF file";
    case Container::kTar:
      return "a tar archive";
    case Container::kHdf5:
      return "an HDF5 file";
    case Container::kOnnx:
      return "an ONNX model";
    case Container::kMsgpack:
      return "a msgpack file";
    case Container::kNone:
      break;
  }
  return "nothing";
}

Container ContainerOf(InputKind kind) { return FormatOf(kind).container; }

std::string_view LoaderName(NamedLoader loader) {
  switch (loader) {
    case NamedLoader::kTorch:
      return "torch.load";
    case NamedLoader::kNumpy:
      return "numpy.load";
    case NamedLoader::kPickle:
      return "joblib/pickle.load";
    case NamedLoader::kSafetensors:
      return "the safetensors reader";
    case NamedLoader::kGguf:
      return "ggml's loader";
    case NamedLoader::kHdf5:
      return "h5py";
  }
  return "a loader";
}

// An opcode that CPython's unpickler can run first, on an empty stack: it pushes a value or
// a mark (every other opcode fails at once there).
bool CanStartPickle(std::byte first) {
  constexpr std::string_view kPushers = "(NIJKLMFGSTUVXBCcid]})\x80\x88\x89\x8a\x8b\x8c\x8d\x8e\x8f\x95\x96\x97\x98";
  return kPushers.find(std::to_integer<char>(first)) != std::string_view::npos;
}

IoResult<bool> ParsesAsPickle(const RandomAccessFile& file, std::span<const std::byte> head) {
  if (head.empty() || !CanStartPickle(head[0])) return false;
  return pickle::ParsesAsPickles(file, kPickleWalkBound);
}

// What the loader `loader` would read `file` as: kNone when it would fail.
IoResult<Container> ReadingOf(NamedLoader loader, const RandomAccessFile& file, std::span<const std::byte> head,
                              Container content) {
  auto zip = [&]() -> IoResult<Container> {
    auto dir = FindReadableZipDirectory(file);
    if (!dir) return dir.error();
    return dir->has_value() ? Container::kZip : Container::kNone;
  };
  auto pickled = [&]() -> IoResult<Container> {
    if (content == Container::kPickle) return Container::kPickle;
    auto parses = ParsesAsPickle(file, head);
    if (!parses) return parses.error();
    return *parses ? Container::kPickle : Container::kNone;
  };
  switch (loader) {
    case NamedLoader::kTorch:
      return StartsWith(head, kZipLocalMagic) ? zip() : pickled();
    case NamedLoader::kNumpy:
      if (StartsWith(head, kNumpyMagic)) return Container::kNumpy;
      return StartsWith(head, kZipLocalMagic) ? zip() : IoResult<Container>(Container::kNone);
    case NamedLoader::kPickle:
      return pickled();
    case NamedLoader::kSafetensors:
      return LooksLikeSafetensors(head, file.size()) ? Container::kSafetensors : Container::kNone;
    case NamedLoader::kGguf:
      return StartsWith(head, "GGUF") ? Container::kGguf : Container::kNone;
    case NamedLoader::kHdf5:  // libhdf5 looks for its signature at 0 and after a user block
      return content == Container::kHdf5 || hdf5::FindHdf5Signature(file) ? Container::kHdf5 : Container::kNone;
  }
  return Container::kNone;
}

}  // namespace

std::optional<NamedLoader> LoaderForName(std::string_view name) {
  const auto named = FormatNamedBy(name);
  return named ? named->suffix->loader : std::nullopt;
}

bool LoaderOpensByName(std::string_view name) { return FormatNamedBy(name).has_value(); }

IoResult<void> CheckPolyglot(const RandomAccessFile& file, const std::string& display,
                             std::optional<NamedLoader> loader, DiagnosticSink& sink) {
  auto classified = ClassifyFile(file);
  if (!classified) return classified.error();
  return CheckPolyglot(file, classified->kind, display, loader, sink);
}

void CheckNameClaim(std::string_view name, InputKind content, const std::string& description,
                    const std::string& display, DiagnosticSink& sink) {
  const auto named = FormatNamedBy(name);
  if (!named || NameFits(*named, content)) return;
  FileReporter(display, sink)(Diag::kInputNameMismatch, 0,
                              QuoteForMessage(name) + " is named as " + std::string(named->suffix->claim) + " but is " +
                                  (description.empty() ? std::string("no format the audit recognises") : description) +
                                  ": tools that trust the extension are fooled.");
}

IoResult<void> CheckPolyglotHead(const RandomAccessFile& file, const std::string& display, DiagnosticSink& sink) {
  std::array<std::byte, kClassifyLength> head_bytes{};
  const auto length = static_cast<std::size_t>(std::min<std::uint64_t>(file.size(), head_bytes.size()));
  if (auto read = file.ReadAt(0, std::span(head_bytes).first(length)); !read) return read.error();
  const std::span<const std::byte> head = std::span(head_bytes).first(length);
  const InputKind kind = ClassifyFileHead(head, file.size(), std::nullopt, nullptr).kind;
  const Container content = ContainerOf(kind);
  if (content == Container::kNone || content == Container::kZip || !StartsWith(head, kZipLocalMagic)) return {};
  const std::string shown = display.empty() ? "The file" : QuoteForMessage(display);
  const std::string what(ContainerName(content));
  FileReporter(display, sink)(Diag::kInputPolyglot, 0,
                              shown + " is " + what +
                                  " that starts with a zip local header (PK\\x03\\x04): torch.load and numpy.load "
                                  "read it as a zip archive, not as " +
                                  what + ".");
  return {};
}

IoResult<void> CheckPolyglot(const RandomAccessFile& file, InputKind kind, const std::string& display,
                             std::optional<NamedLoader> loader, DiagnosticSink& sink) {
  const Container content = ContainerOf(kind);
  if (content == Container::kNone) return {};  // refused for what it is already
  std::array<std::byte, kClassifyLength> head_bytes{};
  const auto length = static_cast<std::size_t>(std::min<std::uint64_t>(file.size(), head_bytes.size()));
  if (auto read = file.ReadAt(0, std::span(head_bytes).first(length)); !read) return read.error();
  const std::span<const std::byte> head = std::span(head_bytes).first(length);
  const FileReporter report(display, sink);
  const std::string shown = display.empty() ? "The file" : QuoteForMessage(display);
  const std::string what(ContainerName(content));
  // Every second reading is looked for whatever the file's kind and size (formats.md section
  // 14): the first found is reported.
  if (content != Container::kZip && StartsWith(head, kZipLocalMagic)) {
    report(Diag::kInputPolyglot, 0,
           shown + " is " + what +
               " that starts with a zip local header (PK\\x03\\x04): torch.load and numpy.load read it as a zip "
               "archive, not as " +
               what + ".");
    return {};
  }
  if (content != Container::kZip) {
    auto end = FindReadableZipDirectory(file);
    if (!end) return end.error();
    if (end->has_value()) {
      report(Diag::kInputPolyglot, **end,
             shown + " is " + what + " and also a zip archive: an end record at byte " + std::to_string(**end) +
                 " points at a central directory, which zipfile and miniz list.");
      return {};
    }
  }
  if (content != Container::kTar && IsTarHeader(head)) {
    report(Diag::kInputPolyglot, 0,
           shown + " is " + what +
               " and also a tar archive: its first 512 bytes are a tar header with a valid checksum, which GNU "
               "tar and tarfile extract.");
    return {};
  }
  if (content != Container::kSafetensors && LooksLikeSafetensors(head, file.size()) && SafetensorsHeaderParses(file)) {
    report(Diag::kInputPolyglot, 0,
           shown + " is " + what +
               " and also a safetensors file: its first 8 bytes are a header length whose header parses, which "
               "the safetensors reader loads.");
    return {};
  }
  // A zip is read as a zip by every loader that also reads HDF5 by content (Keras tries the
  // zip first; h5py opens a file by its name, checked below), so a zip's stored members may
  // hold the signature by chance.
  if (content != Container::kHdf5 && content != Container::kZip) {
    if (auto at = hdf5::FindHdf5Signature(file)) {
      report(Diag::kInputPolyglot, *at,
             shown + " is " + what + " and also an HDF5 file: the HDF5 signature at byte " + std::to_string(*at) +
                 " (a user block before it) is where h5py.is_hdf5 and Keras's legacy loader find one.");
      return {};
    }
  }
  if (loader) {
    auto reading = ReadingOf(*loader, file, head, content);
    if (!reading) return reading.error();
    if (*reading != Container::kNone && *reading != content) {
      report(Diag::kInputPolyglot, 0,
             shown + " is " + what + ", and " + std::string(LoaderName(*loader)) +
                 ", which its name selects, reads it as " + std::string(ContainerName(*reading)) + ".");
    }
  }
  return {};
}

}  // namespace ckpt
