#include "lib/oms/model_files.h"

#include <cryptopp/blake2.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <set>

#include "lib/core/parallel.h"
#include "lib/core/text.h"
#include "lib/hashing/sha256.h"

namespace ckpt::oms {
namespace {

namespace fs = std::filesystem;

// One listing holds a model's files: a large one has thousands, never millions.
constexpr std::size_t kMaxEntries = 1000000;
constexpr std::size_t kReadBytes = std::size_t{1} << 20;

bool Ignored(std::string_view name, const std::vector<std::string>& ignore) {
  return std::any_of(ignore.begin(), ignore.end(), [&](const std::string& entry) {
    return name == entry || (name.size() > entry.size() && name.starts_with(entry) && name[entry.size()] == '/');
  });
}

// "a FIFO", ...: what a special file is, for its finding.
std::string SpecialKind(const fs::file_status& s) {
  if (fs::is_fifo(s)) return "a FIFO";
  if (fs::is_socket(s)) return "a socket";
  if (fs::is_block_file(s) || fs::is_character_file(s)) return "a device";
  return "a special file";
}

bool Inside(const fs::path& root, const fs::path& target) {
  auto r = root.begin();
  auto t = target.begin();
  for (; r != root.end(); ++r, ++t) {
    if (t == target.end() || *r != *t) return false;
  }
  return t != target.end();
}

class Hasher {
 public:
  explicit Hasher(HashType hash) : hash_(hash) {}
  void Update(std::string_view bytes) {
    if (hash_ == HashType::kSha256) {
      sha_.Update(bytes);
    } else {
      blake_.Update(reinterpret_cast<const CryptoPP::byte*>(bytes.data()), bytes.size());
    }
  }
  std::string FinalRaw() {
    if (hash_ == HashType::kBlake2b) {
      std::string out(blake_.DigestSize(), '\0');
      blake_.Final(reinterpret_cast<CryptoPP::byte*>(out.data()));
      return out;
    }
    return *FromHex(sha_.FinalHex());
  }

 private:
  HashType hash_;
  Sha256 sha_;
  CryptoPP::BLAKE2b blake_;  // 64-byte digest, unkeyed: hashlib.blake2b's defaults
};

// A whole file's digest: the audit's SHA-256 of it when the file still has the identity the
// audit read (no second read), else read now.
std::optional<std::string> WholeFileDigest(const ModelFile& file, bool single_file, HashType hash,
                                           const std::map<std::string, KnownDigest>& known, std::string& error) {
  auto k = known.find(single_file ? std::string() : file.name);
  if (hash == HashType::kSha256 && k != known.end() && k->second.sha256_hex.size() == 64) {
    const int fd = ::open(file.path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd >= 0) {
      const FileIdentity identity = IdentityOf(fd);
      ::close(fd);
      if (identity == k->second.identity) {
        std::string raw;
        for (std::size_t j = 0; j < 64; j += 2) {
          raw.push_back(
              static_cast<char>(HexDigit(k->second.sha256_hex[j]) * 16 + HexDigit(k->second.sha256_hex[j + 1])));
        }
        return raw;
      }
    }
  }
  FileIdentity identity;
  return HashFileRange(file.path, hash, 0, std::nullopt, identity, error);
}

}  // namespace

std::optional<std::string> NormalizeIgnorePath(std::string_view entry) {
  if (entry.empty() || entry.front() == '/') return std::nullopt;
  std::string out;
  std::size_t at = 0;
  while (at <= entry.size()) {
    std::size_t slash = entry.find('/', at);
    if (slash == std::string_view::npos) slash = entry.size();
    const std::string_view component = entry.substr(at, slash - at);
    at = slash + 1;
    if (component.empty() || component == ".") continue;
    if (component == "..") return std::nullopt;
    if (!out.empty()) out.push_back('/');
    out.append(component);
  }
  if (out.empty()) return std::nullopt;  // "." would ignore the whole model: model_signing ignores nothing then
  return out;
}

FileIdentity IdentityOf(int fd) {
  struct stat st {};
  FileIdentity id;
  if (::fstat(fd, &st) != 0) return id;
  id.device = st.st_dev;
  id.inode = st.st_ino;
  id.size = static_cast<std::uint64_t>(st.st_size);
  id.mtime_ns = static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
  id.ctime_ns = static_cast<std::int64_t>(st.st_ctim.tv_sec) * 1000000000 + st.st_ctim.tv_nsec;
  return id;
}

ModelListing ListModel(const fs::path& model, const std::vector<std::string>& ignore, bool allow_symlinks) {
  ModelListing out;
  std::error_code ec;
  const fs::file_status status = fs::status(model, ec);  // the path given may itself be a link
  if (ec) {
    out.error = "cannot read " + QuoteForMessage(model.string()) + ": " + ec.message();
    return out;
  }
  if (fs::is_regular_file(status)) {
    out.single_file = true;
    const std::string name = model.filename().string();
    out.files.push_back({name, model, !FindInvalidUtf8(name)});
    return out;
  }
  if (!fs::is_directory(status)) {
    out.error = QuoteForMessage(model.string()) + " is neither a file nor a directory";
    return out;
  }
  const fs::path root = fs::canonical(model, ec);
  if (ec) {
    out.error = "cannot resolve " + QuoteForMessage(model.string()) + ": " + ec.message();
    return out;
  }
  fs::recursive_directory_iterator it(model, fs::directory_options::none, ec);
  for (; !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (out.files.size() + out.symlinks.size() + out.special_files.size() >= kMaxEntries) {
      out.error = QuoteForMessage(model.string()) + " holds more than " + std::to_string(kMaxEntries) + " entries";
      return out;
    }
    const std::string name = it->path().lexically_relative(model).generic_string();
    const fs::file_status own = it->symlink_status(ec);
    if (ec) break;
    if (Ignored(name, ignore)) {
      if (fs::is_directory(own)) it.disable_recursion_pending();
      continue;
    }
    if (fs::is_symlink(own)) {
      std::error_code target_ec;
      const fs::path written = fs::read_symlink(it->path(), target_ec);
      if (allow_symlinks) {
        const fs::path target = fs::canonical(it->path(), target_ec);
        if (!target_ec && fs::is_regular_file(target, target_ec) && Inside(root, target)) {
          out.files.push_back({name, target, !FindInvalidUtf8(name)});
          continue;
        }
      }
      out.symlinks.emplace_back(name, "a symbolic link to " + QuoteForMessage(written.string()));
      continue;
    }
    if (fs::is_directory(own)) continue;
    if (!fs::is_regular_file(own)) {
      out.special_files.emplace_back(name, SpecialKind(own));
      continue;
    }
    out.files.push_back({name, it->path(), !FindInvalidUtf8(name)});
  }
  if (ec) {
    out.error = "cannot list " + QuoteForMessage(model.string()) + ": " + ec.message();
    return out;
  }
  std::sort(out.files.begin(), out.files.end(), [](const ModelFile& a, const ModelFile& b) { return a.name < b.name; });
  std::sort(out.symlinks.begin(), out.symlinks.end());
  std::sort(out.special_files.begin(), out.special_files.end());
  return out;
}

ModelListing ListSourceModel(const ArtifactSource& source, const std::vector<std::string>& ignore) {
  ModelListing out;
  auto entries = source.List();
  if (!entries) {
    out.error = "cannot list the model: " + entries.error().message();
    return out;
  }
  for (const DirectoryEntry& entry : *entries) {
    if (entry.kind != EntryKind::kRegular || Ignored(entry.name, ignore)) continue;
    if (out.files.size() >= kMaxEntries) {
      out.error = "the model holds more than " + std::to_string(kMaxEntries) + " files";
      return out;
    }
    out.files.push_back({entry.name, {}, !FindInvalidUtf8(entry.name)});
  }
  std::sort(out.files.begin(), out.files.end(), [](const ModelFile& a, const ModelFile& b) { return a.name < b.name; });
  return out;
}

std::optional<std::string> HashSourceFile(const ArtifactSource& source, const std::string& name, HashType hash,
                                          std::string& error) {
  auto file = source.Open(name);
  if (!file) {
    error = "cannot open " + QuoteForMessage(name) + ": " + file.error().message();
    return std::nullopt;
  }
  const std::uint64_t size = (*file)->size();
  (*file)->ExpectSequentialRead(0, size);
  Hasher hasher(hash);
  std::string buffer(kReadBytes, '\0');
  for (std::uint64_t at = 0; at < size;) {
    const std::size_t want = static_cast<std::size_t>(std::min<std::uint64_t>(buffer.size(), size - at));
    auto read = (*file)->ReadAt(at, std::as_writable_bytes(std::span(buffer.data(), want)));
    if (!read) {
      error = "cannot read " + QuoteForMessage(name) + ": " + read.error().message();
      return std::nullopt;
    }
    hasher.Update(std::string_view(buffer.data(), want));
    at += want;
  }
  return hasher.FinalRaw();
}

std::optional<std::string> HashFileRange(const fs::path& path, HashType hash, std::uint64_t start,
                                         std::optional<std::uint64_t> end, FileIdentity& identity, std::string& error) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    error = "cannot open " + QuoteForMessage(path.string()) + ": " + std::strerror(errno);
    return std::nullopt;
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    error = QuoteForMessage(path.string()) + " is not a regular file";
    return std::nullopt;
  }
  identity = IdentityOf(fd);
  const std::uint64_t stop = end.value_or(identity.size);
  Hasher hasher(hash);
  std::string buffer(kReadBytes, '\0');
  for (std::uint64_t at = start; at < stop;) {
    const std::size_t want = static_cast<std::size_t>(std::min<std::uint64_t>(buffer.size(), stop - at));
    const ssize_t n = ::pread(fd, buffer.data(), want, static_cast<off_t>(at));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      error = n == 0 ? QuoteForMessage(path.string()) + " became shorter while it was read"
                     : "cannot read " + QuoteForMessage(path.string()) + ": " + std::strerror(errno);
      ::close(fd);
      return std::nullopt;
    }
    hasher.Update(std::string_view(buffer.data(), static_cast<std::size_t>(n)));
    at += static_cast<std::uint64_t>(n);
  }
  const FileIdentity after = IdentityOf(fd);
  ::close(fd);
  if (!(after == identity)) {
    error =
        QuoteForMessage(path.string()) + " changed while it was read (" + DescribeIdentityChange(identity, after) + ")";
    return std::nullopt;
  }
  return hasher.FinalRaw();
}

bool ComponentOrderLess(std::string_view a, std::string_view b) {
  for (;;) {
    const std::size_t sa = a.find('/');
    const std::size_t sb = b.find('/');
    const std::string_view ca = a.substr(0, sa);
    const std::string_view cb = b.substr(0, sb);
    if (ca != cb) return ca < cb;
    if (sa == std::string_view::npos || sb == std::string_view::npos)
      return sa == std::string_view::npos && sb != std::string_view::npos;
    a.remove_prefix(sa + 1);
    b.remove_prefix(sb + 1);
  }
}

HashedFiles HashModelFiles(const ModelListing& listing, HashType hash, const std::map<std::string, KnownDigest>& known,
                           unsigned jobs) {
  HashedFiles out;
  out.digests.resize(listing.files.size());
  std::vector<std::optional<std::string>> errors(listing.files.size());
  ParallelFor(listing.files.size(), jobs, [&](std::size_t i) {
    std::string error;
    auto digest = WholeFileDigest(listing.files[i], listing.single_file, hash, known, error);
    if (digest) {
      out.digests[i] = std::move(*digest);
    } else {
      errors[i] = std::move(error);
    }
  });
  for (auto& e : errors) {
    if (e) {
      out.error = std::move(e);
      break;
    }
  }
  return out;
}

namespace {

// The comparison, each whole file's digest from `whole_file` (a shards manifest's ranges are
// hashed from the local files).
ComparisonResult Compare(const ModelListing& listing, const Manifest& manifest, const WholeFileDigester& whole_file,
                         unsigned jobs, DiagnosticSink& sink) {
  ComparisonResult result;
  auto at_file = [&](const std::string& name) {
    Location location;
    location.file = listing.single_file ? std::string() : name;
    return location;
  };
  for (const auto& [name, what] : listing.symlinks) {
    sink.Report(Diag::kOmsSymlink, at_file(name),
                QuoteForMessage(name) + " is " + what +
                    (manifest.allow_symlinks ? ", which leads outside the model, to a directory or nowhere."
                                             : "; the signature does not allow symbolic links."));
  }
  for (const auto& [name, what] : listing.special_files) {
    sink.Report(Diag::kOmsSpecialFile, at_file(name),
                QuoteForMessage(name) + " is " + what + ", not a file a signature covers.");
  }

  // The signed resources by file (a shard belongs to the file before its range).
  std::map<std::string, std::vector<const Resource*>> signed_files;
  for (const Resource& r : manifest.resources) {
    // A single-file model's one resource is named "." (model_signing) or by its basename (OMS).
    const std::string path =
        listing.single_file && r.path == "." && !listing.files.empty() ? listing.files.front().name : r.path;
    signed_files[path].push_back(&r);
  }
  struct Work {
    const ModelFile* file = nullptr;
    const std::vector<const Resource*>* resources = nullptr;
    bool mismatch = false;
    std::string detail;
    std::optional<std::string> error;
  };
  std::vector<Work> work;
  std::set<std::string> present;
  for (const ModelFile& f : listing.files) {
    auto it = f.valid_utf8 ? signed_files.find(f.name) : signed_files.end();
    std::error_code size_ec;
    if (it == signed_files.end() && manifest.method == SerializationMethod::kShards && !f.path.empty() &&
        fs::file_size(f.path, size_ec) == 0 && !size_ec) {
      continue;  // an empty file has no shard, so no shards manifest names it
    }
    if (it == signed_files.end()) {
      sink.Report(Diag::kOmsFileUnsigned, at_file(f.name),
                  QuoteForMessage(ToValidUtf8(f.name)) + " is in the model but no resource of the signature names it" +
                      (f.valid_utf8 ? "" : " (its name is not UTF-8)") + ": it was added after signing.");
      continue;
    }
    present.insert(f.name);
    Work w;
    w.file = &f;
    w.resources = &it->second;
    work.push_back(std::move(w));
  }
  for (const auto& [path, resources] : signed_files) {
    if (present.count(path) == 0) {
      sink.Report(Diag::kOmsFileMissing, at_file(path),
                  "The signature covers " + QuoteForMessage(path) +
                      ", which the model does not have: it was removed or renamed after signing.");
    }
  }

  const std::size_t digest_bytes = DigestBytes(manifest.hash);
  ParallelFor(work.size(), jobs, [&](std::size_t i) {
    Work& w = work[i];
    if (manifest.method == SerializationMethod::kFiles) {
      const Resource& r = *w.resources->front();
      std::string error;
      auto whole = whole_file(*w.file, error);
      if (!whole) {
        w.error = error;
        return;
      }
      const std::string& raw = *whole;
      if (raw.size() != digest_bytes || raw != r.digest) {
        w.mismatch = true;
        w.detail = "it hashes to " + std::string(HashTypeName(manifest.hash)) + ":" + ToHex(raw) + ", signed " +
                   ToHex(r.digest);
      }
      return;
    }
    // Shards: the signed ranges must be the file's ranges now, each with its digest.
    FileIdentity identity;
    std::string error;
    const int fd = ::open(w.file->path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
      w.error = "cannot open " + QuoteForMessage(w.file->path.string()) + ": " + std::strerror(errno);
      return;
    }
    identity = IdentityOf(fd);
    ::close(fd);
    std::vector<std::pair<std::uint64_t, std::uint64_t>> expected;
    for (std::uint64_t start = 0; start < identity.size; start += manifest.shard_size) {
      expected.emplace_back(start, std::min(identity.size, start + manifest.shard_size));
      if (expected.size() > kMaxEntries) break;
    }
    std::vector<const Resource*> shards = *w.resources;
    std::sort(shards.begin(), shards.end(), [](const Resource* a, const Resource* b) { return a->start < b->start; });
    bool same_ranges = shards.size() == expected.size();
    for (std::size_t s = 0; same_ranges && s < shards.size(); ++s) {
      same_ranges = shards[s]->start == expected[s].first && shards[s]->end == expected[s].second;
    }
    if (!same_ranges) {
      w.mismatch = true;
      w.detail = "its " + std::to_string(identity.size) + " bytes make " + std::to_string(expected.size()) +
                 " shards of " + std::to_string(manifest.shard_size) + ", not the " + std::to_string(shards.size()) +
                 " signed ranges";
      return;
    }
    for (const Resource* shard : shards) {
      FileIdentity shard_identity;
      auto digest = HashFileRange(w.file->path, manifest.hash, shard->start, shard->end, shard_identity, error);
      if (!digest) {
        w.error = error;
        return;
      }
      if (!(shard_identity == identity)) {
        w.error = QuoteForMessage(w.file->path.string()) + " changed while it was read";
        return;
      }
      if (*digest != shard->digest) {
        w.mismatch = true;
        w.detail = "its bytes " + std::to_string(shard->start) + " to " + std::to_string(shard->end) + " hash to " +
                   ToHex(*digest) + ", signed " + ToHex(shard->digest);
        return;
      }
    }
  });
  for (const Work& w : work) {
    if (w.error && !result.error) result.error = w.error;
    if (w.mismatch) {
      sink.Report(Diag::kOmsDigestMismatch, at_file(w.file->name),
                  QuoteForMessage(w.file->name) + " is not what was signed: " + w.detail + ".");
    }
  }
  result.files_compared = work.size();
  return result;
}

}  // namespace

ComparisonResult CompareWithManifest(const ModelListing& listing, const Manifest& manifest,
                                     const std::map<std::string, KnownDigest>& known, unsigned jobs,
                                     DiagnosticSink& sink) {
  const WholeFileDigester local = [&](const ModelFile& file, std::string& error) {
    return WholeFileDigest(file, listing.single_file, manifest.hash, known, error);
  };
  return Compare(listing, manifest, local, jobs, sink);
}

ComparisonResult CompareWithManifest(const ModelListing& listing, const Manifest& manifest,
                                     const WholeFileDigester& digest, unsigned jobs, DiagnosticSink& sink) {
  if (manifest.method == SerializationMethod::kShards) {
    ComparisonResult result;
    result.error =
        "the signature signs shards (byte ranges of each file), which are checked on a local copy of "
        "the model only: download it to verify this signature";
    return result;
  }
  return Compare(listing, manifest, digest, jobs, sink);
}

}  // namespace ckpt::oms
