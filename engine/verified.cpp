#include "engine/verified.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <boost/json/parse.hpp>
#include <filesystem>

#include "lib/core/checked_math.h"
#include "lib/hashing/sha256.h"
#include "lib/io/directory_source.h"
#include "lib/model/dtype.h"

namespace ckpt {
namespace {

template <class T>
Accessed<T> Refuse(AccessError error, const std::string& message) {
  Accessed<T> refused;
  refused.error = error;
  refused.message = message;
  return refused;
}

template <class T>
Accessed<T> Give(T value) {
  Accessed<T> given;
  given.value = std::move(value);
  return given;
}

bool IsSha256Hex(const std::string& text) {
  if (text.size() != 64) return false;
  for (const char c : text) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

// The held bytes' SHA-256, read back from the copy (for files the audit read whole without
// digesting them: header.json, an index).
std::optional<std::string> DigestOfCopy(HeldCopy& copy, const RandomAccessFile& origin) {
  Sha256 sha;
  if (!copy.Complete(origin, [&sha](std::span<const std::byte> bytes) { sha.Update(bytes); })) return std::nullopt;
  return sha.FinalHex();
}

// The header as the audit read it, migrated to the current schema (artifact-format.md: each
// migration step's additions; the version after the chain).
std::optional<boost::json::object> MigratedHeader(const Artifact& artifact) {
  if (!artifact.header || !artifact.header->json.parsed) return std::nullopt;
  boost::system::error_code error;
  boost::json::value parsed = boost::json::parse(artifact.header->json.text(), error);
  if (error || !parsed.is_object()) return std::nullopt;
  boost::json::object header = std::move(parsed.as_object());
  const Header& typed = *artifact.header;
  if (typed.migrated_version != 0) header["schema_version"] = typed.migrated_version;
  if (typed.hash_algorithm && !header.contains("hash_algorithm")) header["hash_algorithm"] = *typed.hash_algorithm;
  return header;
}

// Tensors whose bytes are the tensor's values as they sit in the file: not rebuilt by a
// pickle (torch views, strides, storages), not inside a container another loader unpacks
// (npz, ONNX, Keras, HDF5 record their own facts), with a dtype of whole bytes whose size
// times the shape is the located length, inside the file.
void ListRawTensors(const Artifact& artifact, std::vector<TensorView>& out) {
  for (const WeightFile& wf : artifact.weights) {
    if (wf.pickle || wf.format_facts || !wf.valid) continue;
    for (const StoredTensor& t : wf.tensors) {
      if (!t.complete || t.conj || t.neg || t.data_offset == 0) continue;
      const DtypeInfo* dtype = FindSafetensorsDtype(t.dtype);
      if (dtype == nullptr || dtype->bits % 8 != 0) continue;
      std::optional<std::uint64_t> bytes = dtype->bits / 8;
      for (const std::uint64_t d : t.shape) bytes = bytes ? CheckedMul(*bytes, d) : std::nullopt;
      const auto end = CheckedAdd(t.data_offset, t.data_length);
      if (!bytes || *bytes != t.data_length || !end || *end > wf.size) continue;
      out.push_back({t.name, t.dtype, t.shape, wf.name, t.data_offset, t.data_length});
    }
  }
}

}  // namespace

bool ParseHoldMode(std::string_view text, HoldMode& out) {
  for (const HoldMode mode : {HoldMode::kNone, HoldMode::kMemfd, HoldMode::kFd, HoldMode::kLazy}) {
    if (text == HoldModeName(mode)) {
      out = mode;
      return true;
    }
  }
  return false;
}

std::string_view HoldModeName(HoldMode mode) {
  switch (mode) {
    case HoldMode::kNone:
      return "none";
    case HoldMode::kMemfd:
      return "memfd";
    case HoldMode::kFd:
      return "fd";
    case HoldMode::kLazy:
      return "lazy";
  }
  return "memfd";
}

IoResult<std::shared_ptr<const MappedBytes>> MappedBytes::Map(int fd, std::uint64_t size) {
  if (size == 0) return std::shared_ptr<const MappedBytes>(new MappedBytes(nullptr, 0));
  if (size > SIZE_MAX) return boost::system::error_code(EFBIG, boost::system::system_category());
  void* address = ::mmap(nullptr, static_cast<std::size_t>(size), PROT_READ, MAP_SHARED, fd, 0);
  if (address == MAP_FAILED) return boost::system::error_code(errno, boost::system::system_category());
  return std::shared_ptr<const MappedBytes>(new MappedBytes(address, static_cast<std::size_t>(size)));
}

MappedBytes::~MappedBytes() {
  if (address_ != nullptr) ::munmap(address_, size_);
}

std::vector<HeldFileInfo> VerifiedCheckpoint::Files() {
  const std::scoped_lock lock(mutex_);
  std::vector<HeldFileInfo> files;
  for (auto& [name, held] : files_) {
    // The SHA-256 of a sealed copy the audit did not digest, read back from it when asked.
    if (!held.sha256 && held.file.copy && held.file.copy->sealed() && held.file.origin) {
      held.sha256 = DigestOfCopy(*held.file.copy, *held.file.origin);
    }
    files.push_back({name, held.identity.size, held.sha256});
  }
  return files;
}

bool VerifiedCheckpoint::closed() const {
  const std::scoped_lock lock(mutex_);
  return closed_;
}

void VerifiedCheckpoint::ReleaseAll() {
  for (auto& [name, held] : files_) {
    if (held.fd >= 0) ::close(held.fd);
  }
  files_.clear();
  source_.reset();
}

void VerifiedCheckpoint::Close() {
  const std::scoped_lock lock(mutex_);
  closed_ = true;
  ReleaseAll();
}

Accessed<VerifiedCheckpoint::Held*> VerifiedCheckpoint::Find(const std::string& file) {
  if (closed_) return Refuse<Held*>(AccessError::kClosed, "the verified checkpoint is closed");
  if (!holds_) return Refuse<Held*>(AccessError::kNotHeld, "nothing is held: the input did not pass");
  auto found = files_.find(file);
  if (found == files_.end()) {
    return Refuse<Held*>(AccessError::kNotHeld,
                         "'" + file + "' is not held: no file of that name was read whole by the audit");
  }
  return Ready(found->second, file);
}

// Makes a held file ready to hand out: lazy holds read and check it on its first access;
// fd holds check that the kept descriptor is still the audited file.
Accessed<VerifiedCheckpoint::Held*> VerifiedCheckpoint::Ready(Held& held, const std::string& file) {
  if (held.refusal) return Refuse<Held*>(AccessError::kDigestMismatch, *held.refusal);
  if (hold_ == HoldMode::kFd) {
    if (held.fd < 0) {
      return Refuse<Held*>(AccessError::kNotHeld, "hold 'fd' keeps descriptors of local files only: '" + file +
                                                      "' is not one (use hold 'memfd')");
    }
    // A kept descriptor is a local file's: its admitted identity is fstat's, with no validators.
    const std::optional<FileIdentity> now = IdentityOfDescriptor(held.fd);
    if (!now || *now != held.identity) {
      return Refuse<Held*>(AccessError::kChanged, "'" + file + "' changed after the audit (" +
                                                      (now ? DescribeIdentityChange(held.identity, *now)
                                                           : std::string("it can no longer be examined")) +
                                                      "): it is not the file that passed, and is not loaded");
    }
    return Give(&held);
  }
  if (hold_ == HoldMode::kLazy && !held.file.copy->sealed()) {
    Sha256 sha;
    auto completed =
        held.file.copy->Complete(*held.file.origin, [&sha](std::span<const std::byte> bytes) { sha.Update(bytes); });
    if (!completed) {
      return Refuse<Held*>(AccessError::kIo, "cannot read '" + file + "': " + completed.error().message());
    }
    const std::string digest = sha.FinalHex();
    if (held.expected_sha256 && digest != *held.expected_sha256) {
      held.refusal = "'" + file + "' does not match its trusted digest: its bytes hash to sha256:" + digest +
                     ", the digest given for it is sha256:" + *held.expected_sha256 + "; it is not loaded";
      held.file.copy.reset();
      return Refuse<Held*>(AccessError::kDigestMismatch, *held.refusal);
    }
    held.sha256 = digest;
    held.file.origin.reset();  // whole and checked: the original is never read again
    if (auto sealed = held.file.copy->Seal(); !sealed) {
      return Refuse<Held*>(AccessError::kIo, "cannot seal '" + file + "': " + sealed.error().message());
    }
  }
  return Give(&held);
}

Accessed<std::shared_ptr<const MappedBytes>> VerifiedCheckpoint::Buffer(const std::string& file) {
  using Result = std::shared_ptr<const MappedBytes>;
  const std::scoped_lock lock(mutex_);
  auto found = Find(file);
  if (!found) return Refuse<Result>(found.error, found.message);
  Held& held = **found.value;
  if (hold_ == HoldMode::kFd) {
    // No mapping of a file others can truncate (a later access would fault): a copy read
    // now through the admitted file, between two identity checks.
    auto copy = HeldCopy::Create(file, held.identity.size, held.identity);
    if (!copy) return Refuse<Result>(AccessError::kIo, "cannot read '" + file + "': " + copy.error().message());
    if (!(*copy)->Complete(*held.file.origin)) {
      return Refuse<Result>(AccessError::kChanged,
                            "'" + file + "' could not be read whole: it changed after the audit");
    }
    auto again = Ready(held, file);
    if (!again) return Refuse<Result>(again.error, again.message);
    auto mapped = MappedBytes::Map((*copy)->descriptor(), (*copy)->size());
    if (!mapped) return Refuse<Result>(AccessError::kIo, "cannot map '" + file + "': " + mapped.error().message());
    return Give(*mapped);
  }
  if (!held.mapping) {
    auto mapped = MappedBytes::Map(held.file.copy->descriptor(), held.file.copy->size());
    if (!mapped) return Refuse<Result>(AccessError::kIo, "cannot map '" + file + "': " + mapped.error().message());
    held.mapping = *mapped;
  }
  return Give(held.mapping);
}

Accessed<TensorView> VerifiedCheckpoint::Tensor(const std::string& name) {
  {
    const std::scoped_lock lock(mutex_);
    if (closed_) return Refuse<TensorView>(AccessError::kClosed, "the verified checkpoint is closed");
    auto found = tensor_index_.find(name);
    if (found == tensor_index_.end()) {
      const auto holder = std::ranges::find_if(
          result_.artifact.weights, [&name](const WeightFile& wf) { return wf.FindTensor(name) != nullptr; });
      if (holder == result_.artifact.weights.end()) {
        return Refuse<TensorView>(AccessError::kNoSuchTensor, "no tensor named '" + name + "'");
      }
      const std::string& file = holder->name.empty() ? lone_name_ : holder->name;
      return Refuse<TensorView>(AccessError::kNoRawView, "tensor '" + name + "' of '" + file +
                                                             "' is not stored as raw bytes: open the file with its "
                                                             "loader at fd_path('" +
                                                             file + "')");
    }
    const TensorView& view = tensors_[found->second];
    auto ready = Find(view.file);
    if (!ready) return Refuse<TensorView>(ready.error, ready.message);
    return Give(view);
  }
}

Accessed<std::string> VerifiedCheckpoint::FdPath(const std::string& file) {
  const std::scoped_lock lock(mutex_);
  auto found = Find(file);
  if (!found) return Refuse<std::string>(found.error, found.message);
  const Held& held = **found.value;
  const int fd = hold_ == HoldMode::kFd ? held.fd : held.file.copy->descriptor();
  return Give("/proc/self/fd/" + std::to_string(fd));
}

std::unique_ptr<VerifiedCheckpoint> OpenVerified(const std::string& path, const VerifyOptions& options) {
  std::unique_ptr<VerifiedCheckpoint> vc(new VerifiedCheckpoint);
  vc->hold_ = options.hold;
  auto cannot = [&vc, &path](std::string message) {
    vc->result_.artifact.path = path;
    vc->result_.tool_errors.push_back(std::move(message));
    vc->verdict_ = Verdict::kError;
    return std::move(vc);
  };
  const HoldMode hold = options.hold;
  const bool copies = hold == HoldMode::kMemfd || hold == HoldMode::kLazy;
  if (copies && !SealedMemoryAvailable()) {
    return cannot("hold '" + std::string(HoldModeName(hold)) +
                  "' needs sealed memfds (Linux 3.17 and later), which this system does not give");
  }
  if (hold == HoldMode::kLazy && options.expected_files.empty() && !options.model_signature && !options.statement) {
    return cannot(
        "hold 'lazy' needs a trusted SHA-256 for each file it reads on demand (expected_files, a verified model "
        "signature or a verified audit statement)");
  }
  for (const auto& [name, digest] : options.expected_files) {
    if (!IsSha256Hex(digest)) return cannot("the digest given for '" + name + "' is not 64 lowercase hex digits");
  }
  const std::uint64_t max_hold = options.max_hold_bytes.value_or(DefaultMaxHoldBytes());

  AuditOptions policy = options.audit;
  if (hold == HoldMode::kLazy) {
    policy.compute_hash = false;  // the structure only: each file is checked against its digest when read
  } else if (options.model_signature) {
    policy.digest_files = true;  // the signature's file digests come from the audit's own reads
  }
  // Not digest_files: a Lensemble round's content hash already reads every tensor byte (a
  // second SHA-256 stream would cost 1.2x), other kinds are hashed as files anyway; a file
  // the audit did not read whole is never handed out, and Files() digests the held bytes.
  std::shared_ptr<HoldingSource::Registry> registry;
  const SourceWrapper wrap = [&](std::unique_ptr<ArtifactSource> source, std::string& refusal) {
    std::shared_ptr<const ArtifactSource> inner(std::move(source));
    if (hold == HoldMode::kMemfd) {
      std::uint64_t listed = 0;
      if (auto entries = inner->List()) {
        for (const DirectoryEntry& e : *entries) {
          if (e.kind == EntryKind::kRegular) listed = CheckedAdd(listed, e.size).value_or(UINT64_MAX);
        }
      }
      if (listed > max_hold) {
        refusal = "holding '" + path + "' takes " + std::to_string(listed) +
                  " bytes of memory, more than max_hold_bytes (" + std::to_string(max_hold) +
                  "): nothing was read (hold 'fd' or 'lazy' hold less)";
      }
    }
    auto holding = std::make_unique<HoldingSource>(inner, copies, max_hold);
    registry = holding->registry();
    return std::unique_ptr<ArtifactSource>(std::move(holding));
  };
  vc->result_ = hold == HoldMode::kNone ? AuditPath(path, policy) : AuditPathThrough(path, policy, wrap);
  std::map<std::string, std::string> trusted = options.expected_files;
  auto trust = [&vc, &trusted](const std::string& name, const std::string& digest, const char* source) {
    auto given = trusted.emplace(name, digest);
    if (!given.second && given.first->second != digest) {
      vc->result_.tool_errors.push_back("the digest given for '" + name + "' is not the one its " + source + " signs");
    }
  };
  if (options.statement && hold == HoldMode::kLazy && vc->result_.tool_errors.empty()) {
    auto subjects = VerifiedSubjectDigests(options.statement->envelope, options.statement->key);
    if (auto* error = std::get_if<std::string>(&subjects)) {
      vc->result_.tool_errors.push_back(*error);
    } else {
      for (const auto& [name, digest] : std::get<std::map<std::string, std::string>>(subjects)) {
        trust(name, digest, "verified audit statement");
      }
    }
  }
  if (options.model_signature && vc->result_.tool_errors.empty()) {
    VerifyModelSignatureOptions signature = *options.model_signature;
    std::map<std::string, std::string> signed_digests;
    if (hold == HoldMode::kLazy) signature.signed_digests = &signed_digests;
    VerifyModelSignature(path, signature, policy, vc->result_);
    for (const auto& [name, digest] : signed_digests) trust(name, digest, "verified model signature");
  }
  vc->verdict_ = VerdictOf(vc->result_, options.fail_on);
  if (vc->verdict_ != Verdict::kPass) return vc;
  vc->header_ = MigratedHeader(vc->result_.artifact);
  if (hold == HoldMode::kNone || !registry) return vc;

  std::map<std::string, std::string> digests;
  for (const AdmittedFile& f : vc->result_.artifact.files) {
    if (f.sha256) digests[f.name] = *f.sha256;
  }
  vc->source_ = registry->inner;
  // A file given alone is its source's one file, named "": it is held by its own name.
  const std::string lone_name = std::filesystem::path(path).filename().string();
  vc->lone_name_ = lone_name;
  auto shown = [&lone_name](const std::string& name) { return name.empty() ? lone_name : name; };
  const std::scoped_lock lock(registry->mutex);
  for (auto& [name, file] : registry->files) {
    VerifiedCheckpoint::Held held;
    held.file = file;
    held.identity = file.origin->identity();
    if (auto digest = digests.find(name); digest != digests.end()) held.sha256 = digest->second;
    if (hold == HoldMode::kFd) {
      held.fd = file.origin->DuplicateDescriptor();  // -1: not one local file (a tar member, a remote file)
      held.file.copy.reset();
    } else if (hold == HoldMode::kMemfd) {
      if (!file.copy->complete()) continue;  // not read whole by the audit: never handed out
      if (auto sealed = file.copy->Seal(); !sealed)
        return cannot("cannot seal the copy of '" + name + "': " + sealed.error().message());
    } else {  // lazy
      auto expected = trusted.find(shown(name));
      if (expected != trusted.end()) held.expected_sha256 = expected->second;
      if (!held.expected_sha256 && !file.copy->complete()) {
        return cannot("hold 'lazy' has no trusted digest for '" + shown(name) +
                      "', which the structure audit did not read whole: give its SHA-256 in expected_files");
      }
    }
    vc->files_.emplace(shown(name), std::move(held));
  }
  ListRawTensors(vc->result_.artifact, vc->tensors_);
  for (TensorView& t : vc->tensors_) t.file = shown(t.file);
  for (std::size_t i = 0; i < vc->tensors_.size(); ++i) vc->tensor_index_.emplace(vc->tensors_[i].name, i);
  vc->holds_ = true;
  return vc;
}

}  // namespace ckpt
