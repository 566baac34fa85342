#include "lib/load/input.h"

#include <sys/stat.h>

#include <algorithm>
#include <array>
#include <ctime>
#include <filesystem>
#include <map>
#include <mutex>

#include "lib/core/text.h"
#include "lib/formats/format_table.h"
#include "lib/formats/gguf/gguf_reader.h"
#include "lib/formats/input_classifier.h"
#include "lib/formats/layout.h"
#include "lib/formats/model_folder/model_folder_reader.h"
#include "lib/formats/polyglot.h"
#include "lib/formats/tar/tar_reader.h"
#include "lib/formats/tar/tar_source.h"
#include "lib/formats/zip/zip_reader.h"
#include "lib/io/directory_source.h"
#include "lib/io/model_folder_source.h"

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

// The parts of a GGUF split set, under their file names, from the folder of the first.
class NamedFilesSource final : public ArtifactSource {
 public:
  NamedFilesSource(std::unique_ptr<ArtifactSource> folder, std::vector<DirectoryEntry> entries)
      : folder_(std::move(folder)), entries_(std::move(entries)) {}
  [[nodiscard]] IoResult<std::vector<DirectoryEntry>> List() const override { return entries_; }
  [[nodiscard]] IoResult<std::unique_ptr<RandomAccessFile>> Open(const std::string& name) const override {
    if (!Has(name)) return boost::system::error_code(ENOENT, boost::system::system_category());
    return folder_->Open(name);
  }
  [[nodiscard]] IoResult<FileIdentity> Stat(const std::string& name) const override {
    if (!Has(name)) return boost::system::error_code(ENOENT, boost::system::system_category());
    return folder_->Stat(name);
  }

 private:
  [[nodiscard]] bool Has(const std::string& name) const {
    return std::any_of(entries_.begin(), entries_.end(), [&](const DirectoryEntry& e) { return e.name == name; });
  }
  std::unique_ptr<ArtifactSource> folder_;
  std::vector<DirectoryEntry> entries_;
};

// A lone file's folder, as far as its context goes: whether the Lensemble header.json is in it
// and which shard indexes are, and for each index read, how many tensors it maps to each file.
// Kept for the process, so that N files of one folder given alone cost one listing and one read
// of each index, not N (issue 50: 10,000 files of one folder through --inputs-from made 10^8
// stats). A listing or an index is reused only while its identity (times included) is the same
// and those times were already 100 ms in the past when it was read, as git treats a racily clean
// entry: a change in the clock tick of the read is never hidden.
class LoneFileContexts {
 public:
  struct Folder {
    bool lensemble_header = false;
    std::vector<std::string> indexes;  ///< sorted
  };
  using MappedCounts = std::map<std::string, std::size_t, std::less<>>;

  static LoneFileContexts& Instance() {
    static LoneFileContexts contexts;
    return contexts;
  }

  IoResult<Folder> FolderOf(const DirectorySource& folder) {
    auto identity = folder.Identity();
    if (!identity) return identity.error();
    if (auto kept = Find(folders_, *identity)) return *kept;
    const std::int64_t read_at = NowNs();
    auto names = folder.RegularFileNames();
    if (!names) return names.error();
    Folder facts;
    for (std::string& name : *names) {
      facts.lensemble_header |= name == kHeaderFileName;
      if (name.ends_with(".index.json")) facts.indexes.push_back(std::move(name));
    }
    Keep(folders_, *identity, read_at, facts);
    return facts;
  }

  /// The counts of `index` in `folder`; nullopt when it cannot be read or maps nothing.
  IoResult<std::optional<MappedCounts>> IndexOf(const DirectorySource& folder, const std::string& index) {
    constexpr std::uint64_t kMaxIndexBytes = 100'000'000;
    auto file = folder.Open(index);
    if (!file) return std::optional<MappedCounts>();  // unreadable: not this file's context to judge
    const FileIdentity identity = (*file)->identity();
    if (auto kept = Find(indexes_, identity)) return *kept;
    const std::int64_t read_at = NowNs();
    std::optional<MappedCounts> counts;
    if ((*file)->size() <= kMaxIndexBytes) {
      DiagnosticList ignored;  // an index's own faults are its folder's to report
      auto read = ReadModelIndex(index, **file, ignored);
      if (!read) return read.error();
      if (read->weight_map) {
        counts.emplace();
        const WeightMap& map = *read->weight_map;
        const std::vector<WeightMap::FileUse> uses = map.FileUses();
        for (std::size_t f = 0; f < uses.size(); ++f) counts->emplace(map.files()[f], uses[f].entries);
      }
    }
    Keep(indexes_, identity, read_at, counts);
    return counts;
  }

 private:
  // A handful of folders per input at most; a long-lived process (the Python module) starts
  // over rather than grow without bound.
  static constexpr std::size_t kMaxKept = 4096;
  // Kernel file times come from a coarse clock that lags the real one by up to a tick (1 to 10
  // ms); 100 ms is ten ticks. Until then each file given alone reads its folder again, which
  // bounds what an audit started right after its files were written pays for it.
  static constexpr std::int64_t kSettledNs = 100'000'000;

  template <typename T>
  struct Kept {
    FileIdentity identity;
    T value;
  };
  template <typename T>
  using Table = std::map<std::pair<std::uint64_t, std::uint64_t>, Kept<T>>;

  static std::int64_t NowNs() {
    timespec now{};
    ::clock_gettime(CLOCK_REALTIME, &now);
    return std::int64_t{now.tv_sec} * 1'000'000'000 + now.tv_nsec;
  }

  template <typename T>
  std::optional<T> Find(const Table<T>& table, const FileIdentity& identity) {
    std::lock_guard lock(mutex_);
    auto it = table.find({identity.device, identity.inode});
    if (it == table.end() || !(it->second.identity == identity)) return std::nullopt;
    return it->second.value;
  }

  template <typename T>
  void Keep(Table<T>& table, const FileIdentity& identity, std::int64_t read_at, const T& value) {
    const bool settled = identity.mtime_ns <= read_at - kSettledNs && identity.ctime_ns <= read_at - kSettledNs;
    std::lock_guard lock(mutex_);
    if (table.size() >= kMaxKept) table.clear();
    if (settled) {
      table.insert_or_assign({identity.device, identity.inode}, Kept<T>{identity, value});
    } else {
      table.erase({identity.device, identity.inode});
    }
  }

  std::mutex mutex_;
  Table<Folder> folders_;
  Table<std::optional<MappedCounts>> indexes_;
};

// A file given alone that its folder's context makes one part of a larger whole: a shard an
// index beside it names, or a weight file of the Lensemble artifact whose header.json is
// beside it (inputs.md section 4; issue 46: `paths: models/**/*.safetensors` passed a model
// with a shard missing). Alone, the rest is never checked: an error saying which folder to
// audit. Indexes are read for their weight_map only; their own faults are the folder's to report.
IoResult<void> CheckShardAlone(const DirectorySource& folder, const std::string& name, const std::string& path,
                               DiagnosticSink& sink) {
  LoneFileContexts& contexts = LoneFileContexts::Instance();
  auto facts = contexts.FolderOf(folder);
  if (!facts) return facts.error();
  std::string parent = std::filesystem::path(path).parent_path().string();
  if (parent.empty()) parent = ".";
  auto report = [&](const std::string& why) {
    Location at;
    at.byte_offset = 0;
    sink.Report(Diag::kInputShardAlone, std::move(at),
                QuoteForMessage(name) + " is " + why + ": audited alone, the rest of it is never checked (a missing " +
                    "or replaced shard, a header that does not match). Audit the folder " + QuoteForMessage(parent) +
                    " instead.");
  };
  for (const std::string& index : facts->indexes) {
    auto counts = contexts.IndexOf(folder, index);
    if (!counts) return counts.error();
    if (!*counts) continue;
    auto mapped = (*counts)->find(name);
    if (mapped != (*counts)->end()) {
      report("a shard of the model in " + QuoteForMessage(parent) + " (" + QuoteForMessage(index) + " maps " +
             std::to_string(mapped->second) + (mapped->second == 1 ? " tensor" : " tensors") + " to it)");
      return {};
    }
  }
  if (facts->lensemble_header && IsWeightFileName(name)) {
    report("a weight file of the Lensemble artifact in " + QuoteForMessage(parent) + " (its header.json is beside it)");
  }
  return {};
}

}  // namespace

OpenedInput OpenFileInput(const std::string& path, std::unique_ptr<ArtifactSource> folder_source,
                          const std::string& name, OpenedInput in, DiagnosticSink& sink);

// A remote argument: its form says what it is (remote.md section 1); a single file is then
// recognised by content exactly as a local one.
OpenedInput OpenRemoteInput(const std::string& argument, DiagnosticSink& sink, const remote::RemoteOptions& options) {
  OpenedInput in;
  remote::OpenedRemote opened = remote::OpenRemote(argument, options);
  if (!opened.usage_error.empty() || !opened.tool_error.empty()) {
    in.tool_error = opened.usage_error.empty() ? opened.tool_error : opened.usage_error;
    in.display_path = remote::RedactUrl(argument);
    return in;
  }
  in.remote = opened.source.get();
  in.remote_facts = opened.source->facts();  // its counters outlive the source
  in.display_path = opened.source->facts().path;
  switch (opened.form) {
    case remote::OpenedRemote::Form::kDirectory:
    case remote::OpenedRemote::Form::kRepository:
      in.kind = opened.lensemble ? InputKind::kLensemble : InputKind::kModelFolder;
      in.description = opened.lensemble ? "a Lensemble artifact directory" : "a model folder";
      in.source = std::move(opened.source);
      return in;
    case remote::OpenedRemote::Form::kFile:
      break;
  }
  const std::string display = in.display_path;
  OpenedInput file = OpenFileInput(display, std::move(opened.source), opened.file_name, std::move(in), sink);
  if (!file.source) file.remote = nullptr;  // refused by content: its source is gone
  return file;
}

namespace fs = std::filesystem;

std::vector<std::string> OutputsInside(const std::string& dir, std::span<const std::string> outputs) {
  std::vector<std::string> inside;
  if (outputs.empty()) return inside;
  std::error_code ec;
  const fs::path root = fs::weakly_canonical(fs::absolute(dir, ec), ec);
  if (ec) return inside;
  for (const std::string& output : outputs) {
    const fs::path relative = fs::path(output).lexically_relative(root);
    if (relative.empty() || relative == "." || *relative.begin() == "..") continue;
    inside.push_back(relative.generic_string());
  }
  std::sort(inside.begin(), inside.end());
  inside.erase(std::unique(inside.begin(), inside.end()), inside.end());
  return inside;
}

OpenedInput OpenInputPath(const std::string& path, DiagnosticSink& sink, const remote::RemoteOptions& remote,
                          std::span<const std::string> outputs) {
  if (remote::IsRemoteArgument(path)) return OpenRemoteInput(path, sink, remote);
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
    in.excluded = OutputsInside(path, outputs);
    // A Lensemble directory is flat: only its own entries can be left out.
    std::vector<std::string> top_level;
    for (const std::string& name : in.excluded) {
      if (name.find('/') == std::string::npos) top_level.push_back(name);
    }
    (*dir)->Hide(std::move(top_level));
    auto entries = (*dir)->List();
    if (!entries) {
      in.tool_error = Describe("cannot list " + path, entries.error());
      return in;
    }
    bool has_header = false;
    for (const DirectoryEntry& e : *entries) has_header |= e.name == kHeaderFileName;
    // A folder of Lensemble names alone is a Lensemble artifact that lost its header.json,
    // not a model folder that passes without one (inputs.md section 1b).
    const bool lensemble_names =
        !entries->empty() && std::all_of(entries->begin(), entries->end(), [](const DirectoryEntry& e) {
          return e.kind == EntryKind::kRegular && (e.name == kShardIndexFileName || IsWeightFileName(e.name));
        });
    if (has_header || lensemble_names) {
      in.kind = InputKind::kLensemble;
      in.description = "a Lensemble artifact directory";
      in.source = std::move(*dir);
      return in;
    }
    auto folder = ModelFolderSource::OpenFolder(path, in.excluded);
    if (!folder) {
      in.tool_error = Describe("cannot open directory " + path, folder.error());
      return in;
    }
    in.kind = InputKind::kModelFolder;
    in.description = "a model folder";
    in.source = std::move(*folder);
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
  if (auto checked = CheckShardAlone(**folder, name, path, sink); !checked) {
    in.tool_error = Describe("cannot read the folder of " + path, checked.error());
    return in;
  }
  return OpenFileInput(path, std::move(*folder), name, std::move(in), sink);
}

OpenedInput OpenFileInput(const std::string& path, std::unique_ptr<ArtifactSource> folder_source,
                          const std::string& name, OpenedInput in, DiagnosticSink& sink) {
  auto folder = std::optional<std::unique_ptr<ArtifactSource>>(std::move(folder_source));
  auto file = (*folder)->Open(name);
  if (!file) {
    in.tool_error = Describe("cannot open " + path, file.error());
    return in;
  }
  auto classified_or = ClassifyFile(**file);
  if (!classified_or) {
    in.tool_error = Describe("cannot read " + path, classified_or.error());
    return in;
  }
  const ClassifiedFile& classified = *classified_or;
  in.kind = classified.kind;
  in.description = classified.description;
  const InputFormat& format = FormatOf(classified.kind);
  // A refused input's refusal says what it is (a Git LFS pointer, a gzip stream): that its
  // name claims another format is the same cause, told once.
  if (format.opening != InputOpening::kRefused) CheckNameClaim(name, classified.kind, classified.description, "", sink);
  switch (format.opening) {
    case InputOpening::kTar: {
      std::shared_ptr<RandomAccessFile> tar(std::move(*file));
      if (auto checked = CheckPolyglot(*tar, classified.kind, "", std::nullopt, sink); !checked) {
        in.tool_error = Describe("cannot read " + path, checked.error());
        return in;
      }
      auto index = ReadTar(*tar, sink);
      if (!index) {
        in.tool_error = Describe("cannot read " + path, index.error());
        return in;
      }
      in.container = ContainerFile{path, tar->size()};
      in.source = std::make_unique<TarSource>(std::move(*folder), name, std::move(tar), std::move(*index));
      return in;
    }
    case InputOpening::kSingleFile:
      in.source = std::make_unique<SingleFileSource>(std::move(*folder), name, (*file)->size());
      return in;
    case InputOpening::kGgufSet: {
      // The first part of a split set stands for the set: every regular file of the folder
      // named as one of its parts is read with it (inputs.md section 5).
      auto split = ParseGgufSplitName(name);
      if (split && split->index == 1) {
        auto entries = (*folder)->List();
        if (!entries) {
          in.tool_error = Describe("cannot list the folder of " + path, entries.error());
          return in;
        }
        std::vector<DirectoryEntry> parts;
        for (const DirectoryEntry& e : *entries) {
          auto part = ParseGgufSplitName(e.name);
          if (e.kind == EntryKind::kRegular && part && part->prefix == split->prefix) parts.push_back(e);
        }
        in.source = std::make_unique<NamedFilesSource>(std::move(*folder), std::move(parts));
        return in;
      }
      in.source = std::make_unique<SingleFileSource>(std::move(*folder), name, (*file)->size());
      return in;
    }
    case InputOpening::kRefused:
      // An unknown input is called by its refused-format label only (what else it may be, the
      // weights diagnostics say).
      format.refusal(
          name,
          classified.kind == InputKind::kUnknown && !classified.refused_as ? std::string() : classified.description,
          sink);
      return in;
    case InputOpening::kDirectory:
      break;
  }
  return in;
}

namespace {

bool IsDirectory(const fs::path& p) {
  std::error_code ec;
  return fs::is_directory(fs::symlink_status(p, ec)) && !ec;
}

std::vector<std::string> Snapshots(const fs::path& repo) {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(repo / "snapshots", ec)) {
    if (IsDirectory(e.path())) out.push_back(e.path().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

// Whether the folder holds files a loader opens by name besides its rounds: then it is a
// model of its own too, and audited as one.
bool HoldsWeightsOutside(const fs::path& folder, const std::vector<std::string>& rounds) {
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(folder, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    const std::string p = it->path().string();
    if (std::find(rounds.begin(), rounds.end(), p) != rounds.end()) {
      if (it->is_directory()) it.disable_recursion_pending();
      continue;
    }
    if (LoaderOpensByName(it->path().filename().string())) return true;
  }
  return false;
}

}  // namespace

namespace {

// IsLensembleTarFile for an entry of a folder already open.
bool IsLensembleTarFile(const DirectorySource& folder, const std::string& name) {
  auto opened = folder.Open(name);
  if (!opened) return false;
  std::array<std::byte, kClassifyLength> head{};
  const auto length = static_cast<std::size_t>(std::min<std::uint64_t>((*opened)->size(), head.size()));
  if (!(*opened)->ReadAt(0, std::span(head).first(length)) || !HasTarMagic(std::span(head).first(length))) {
    return false;
  }
  auto classified = ClassifyFile(**opened);
  return classified && classified->kind == InputKind::kLensembleTar;
}

}  // namespace

std::optional<std::string> JudgedFileReason(const std::filesystem::path& file) {
  const std::string base = file.filename().string();
  if (base == kHeaderFileName || base == kShardIndexFileName || IsWeightFileName(base)) {
    return "a Lensemble artifact's file is named so";
  }
  if (IsModelIndexName(base) || IsPickleIndexName(base)) return "a shard index is named so";
  if (IsLoaderConfigName(base)) return "loaders read a configuration file so named";
  if (base.ends_with(".py")) return "Python source is judged as remote code";
  if (base.ends_with(".dsse.json")) return "signed statements are found by that name";
  if (auto named = FormatNamedBy(base)) return "its extension names a format the audit reads";
  struct stat st {};
  if (::lstat(file.c_str(), &st) != 0) return std::nullopt;  // not there: nothing to judge yet
  if (!S_ISREG(st.st_mode)) return "it exists and is not a regular file";
  auto folder = DirectorySource::OpenDirectory(file.parent_path().empty() ? "." : file.parent_path().string());
  if (!folder) return std::nullopt;  // the report cannot be written there either: said when writing
  auto opened = (*folder)->Open(base);
  if (!opened) return std::nullopt;
  auto classified = ClassifyFile(**opened);
  if (classified && classified->kind != InputKind::kUnknown) {
    return "it holds " +
           (classified->description.empty() ? std::string("a file the audit reads") : classified->description);
  }
  return std::nullopt;
}

bool IsLensembleTarFile(const std::filesystem::path& file) {
  auto folder = DirectorySource::OpenDirectory(file.parent_path().empty() ? "." : file.parent_path().string());
  return folder && IsLensembleTarFile(**folder, file.filename().string());
}

std::vector<std::string> ExpandInputPath(const std::string& path) {
  std::error_code ec;
  if (!fs::is_directory(path, ec) || fs::exists(fs::path(path) / "header.json", ec)) return {path};
  const fs::path dir(path);
  const std::string name = fs::weakly_canonical(dir, ec).filename().string();
  if (name.starts_with("models--") && IsDirectory(dir / "snapshots")) {
    auto snapshots = Snapshots(dir);
    return snapshots.empty() ? std::vector<std::string>{path} : snapshots;
  }
  std::vector<std::string> repos;
  std::vector<std::string> rounds;
  auto folder = DirectorySource::OpenDirectory(path);  // opened once for every entry's tar check
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    // The entry's own type comes with the listing: a regular file or a directory costs no
    // stat (a folder of 10,000 shards made three each); links are not followed here.
    std::error_code type_error;
    if (e.is_symlink(type_error) || type_error) continue;
    const std::string entry = e.path().filename().string();
    if (e.is_directory(type_error)) {
      if (entry.starts_with("models--") && IsDirectory(e.path() / "snapshots")) {
        for (std::string& s : Snapshots(e.path())) repos.push_back(std::move(s));
      } else if (fs::exists(e.path() / "header.json", ec)) {
        rounds.push_back(e.path().string());  // a Lensemble round: a directory
      }
    } else if (e.is_regular_file(type_error) && folder && IsLensembleTarFile(**folder, entry)) {
      rounds.push_back(e.path().string());  // a Lensemble round: a tar
    }
  }
  std::sort(repos.begin(), repos.end());
  std::sort(rounds.begin(), rounds.end());
  if (!repos.empty()) return repos;
  if (rounds.empty()) return {path};
  std::vector<std::string> out;
  if (HoldsWeightsOutside(dir, rounds)) out.push_back(path);
  out.insert(out.end(), rounds.begin(), rounds.end());
  return out;
}

}  // namespace ckpt
