#include "engine/convert.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <boost/json.hpp>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <thread>

#include "engine/audit.h"
#include "lib/attest/derivation.h"
#include "lib/attest/dsse.h"
#include "lib/convert/conversion_plan.h"
#include "lib/core/text.h"
#include "lib/digest/content_hash.h"
#include "lib/formats/format_table.h"
#include "lib/formats/weight_formats.h"
#include "lib/hashing/sha256.h"
#include "lib/io/directory_source.h"
#include "lib/io/place_new.h"
#include "lib/json/json_writer.h"
#include "lib/remote/url.h"
#include "rules/catalog.h"
#include "rules/reader_rules.h"

namespace ckpt {
namespace {

namespace fs = std::filesystem;

// SHA-256 of [offset, offset + size) of `fd`.
std::optional<std::string> HashRange(int fd, std::uint64_t offset, std::uint64_t size, std::vector<std::byte>& buffer) {
  Sha256 sha;
  while (size > 0) {
    const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(size, buffer.size()));
    const ssize_t got = ::pread(fd, buffer.data(), n, static_cast<off_t>(offset));
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) return std::nullopt;
    sha.Update(std::span(buffer).first(static_cast<std::size_t>(got)));
    offset += static_cast<std::uint64_t>(got);
    size -= static_cast<std::uint64_t>(got);
  }
  return sha.FinalHex();
}

// One output file: its name, header and tensors (indices into the plan), each with its
// absolute offset in the file.
struct OutputFile {
  std::string name;
  std::string header;
  std::uint64_t size = 0;
  std::vector<std::size_t> tensors;
  std::vector<std::uint64_t> offsets;
};

// The files the plan is written to: one safetensors file, or a Lensemble artifact's weight
// files (shards of at most `shard_size` tensor bytes, by name order; a larger tensor alone).
std::vector<OutputFile> LayOut(const convert::Plan& plan, const std::optional<LensembleOutput>& lensemble) {
  auto file_of = [&](std::string name, const std::vector<std::size_t>& members,
                     const std::vector<std::pair<std::string, std::string>>& metadata) {
    std::vector<convert::PlannedTensor> tensors;
    tensors.reserve(members.size());
    for (std::size_t i : members) tensors.push_back(plan.tensors[i]);
    // Within a file, the reference order: members are taken in plan order, which is it.
    std::uint64_t at = 0;
    for (convert::PlannedTensor& t : tensors) {
      t.output_offset = at;
      at += t.size;
    }
    OutputFile f;
    f.name = std::move(name);
    f.header = convert::SafetensorsHeader(tensors, metadata);
    f.tensors = members;
    for (const convert::PlannedTensor& t : tensors) f.offsets.push_back(8 + f.header.size() + t.output_offset);
    f.size = 8 + f.header.size() + at;
    return f;
  };
  std::vector<std::size_t> all(plan.tensors.size());
  for (std::size_t i = 0; i < all.size(); ++i) all[i] = i;
  if (!lensemble) {
    std::vector<std::pair<std::string, std::string>> metadata = {{"format", "pt"}};
    metadata.insert(metadata.end(), plan.aliases.begin(), plan.aliases.end());
    return {file_of("", all, metadata)};
  }
  if (!lensemble->shard_size) return {file_of("weights.safetensors", all, {{"format", "pt"}})};
  std::vector<std::size_t> by_name = all;
  std::sort(by_name.begin(), by_name.end(),
            [&](std::size_t a, std::size_t b) { return plan.tensors[a].name < plan.tensors[b].name; });
  std::vector<std::vector<std::size_t>> shards(1);
  std::uint64_t filled = 0;
  for (std::size_t i : by_name) {
    if (!shards.back().empty() && filled + plan.tensors[i].size > *lensemble->shard_size) {
      shards.emplace_back();
      filled = 0;
    }
    shards.back().push_back(i);
    filled += plan.tensors[i].size;
  }
  if (shards.size() < 2) return {file_of("weights.safetensors", all, {{"format", "pt"}})};
  std::vector<OutputFile> files;
  char name[64];
  for (std::size_t k = 0; k < shards.size(); ++k) {
    std::sort(shards[k].begin(), shards[k].end());  // plan order is the reference order
    std::snprintf(name, sizeof name, "weights-%05zu-of-%05zu.safetensors", k, shards.size());
    files.push_back(file_of(name, shards[k], {{"format", "pt"}}));
  }
  return files;
}

std::string ManifestToken(const std::string& dtype) {
  return dtype == "F32" ? "float32" : dtype == "BF16" ? "bfloat16" : "float16";
}

// header.json of schema version 2 (artifact-format.md section 2), with `content_hash`.
std::string HeaderJson(const convert::Plan& plan, const LensembleOutput& l, const std::vector<OutputFile>& files,
                       const std::string& content_hash, const std::string& created_at) {
  std::vector<std::size_t> by_name(plan.tensors.size());
  for (std::size_t i = 0; i < by_name.size(); ++i) by_name[i] = i;
  std::sort(by_name.begin(), by_name.end(),
            [&](std::size_t a, std::size_t b) { return plan.tensors[a].name < plan.tensors[b].name; });
  boost::json::array manifest;
  for (std::size_t i : by_name) {
    const convert::PlannedTensor& t = plan.tensors[i];
    boost::json::array shape;
    for (std::uint64_t d : t.shape) shape.push_back(d);
    manifest.push_back({{"name", t.name},
                        {"group", t.name.substr(0, t.name.find('.'))},
                        {"dtype", ManifestToken(t.dtype)},
                        {"shape", std::move(shape)}});
  }
  boost::json::array groups;
  for (const std::string& g : l.groups) groups.push_back(boost::json::value(g));
  boost::json::array weight_files;
  for (const OutputFile& f : files) weight_files.push_back(boost::json::value(f.name));
  boost::json::object header{
      {"schema_version", 2},
      {"hash_algorithm", "sha256"},
      {"content_hash", content_hash},
      {"parent_hash", l.parent_hash ? boost::json::value(*l.parent_hash) : boost::json::value(nullptr)},
      {"round_index", l.round_index},
      {"wmcp_version", l.wmcp_version},
      {"config_hash", l.config_hash},
      {"created_at", created_at},
      {"param_groups", std::move(groups)},
      {"weight_files", std::move(weight_files)},
      {"tensor_manifest", std::move(manifest)}};
  return boost::json::serialize(header) + "\n";
}

std::string IndexJson(const convert::Plan& plan, const std::vector<OutputFile>& files) {
  boost::json::object map;
  std::uint64_t total = 0;
  std::vector<std::pair<std::string, std::string>> entries;
  for (const OutputFile& f : files) {
    for (std::size_t i : f.tensors) {
      entries.emplace_back(plan.tensors[i].name, f.name);
      total += plan.tensors[i].size;
    }
  }
  std::sort(entries.begin(), entries.end());
  for (const auto& [name, file] : entries) map[name] = file;
  return boost::json::serialize(boost::json::object{{"metadata", {{"total_size", total}}}, {"weight_map", map}}) + "\n";
}

// The input's audit policy: its SHA-256 comes from the one read that copies it.
AuditOptions InputPolicy(const ConvertOptions& options) {
  AuditOptions policy = options.policy;
  policy.digest_files = true;
  return policy;
}

// The output being written: a temporary file beside the destination, or a temporary folder
// beside the artifact's, each renamed into place only once checked; removed unless kept.
class Outputs {
 public:
  Outputs(const ConvertOptions& options, std::vector<OutputFile> files) : options_(options), files_(std::move(files)) {}
  ~Outputs() {
    if (options_.lensemble) {
      for (int fd : fds_) ::close(fd);
    }
    std::error_code ec;
    if (!kept_ && !folder_.empty()) fs::remove_all(folder_, ec);
  }
  Outputs(const Outputs&) = delete;
  Outputs& operator=(const Outputs&) = delete;

  // Creates every output file; the error says why not.
  std::optional<std::string> Open() {
    if (!options_.lensemble) {
      single_.emplace(options_.output);
      if (!single_->ok()) return "cannot write beside " + options_.output + ": " + std::strerror(errno);
      fds_.push_back(single_->fd());
      return std::nullopt;
    }
    const fs::path target(options_.lensemble->dir);
    const fs::path parent = target.has_parent_path() ? target.parent_path() : fs::path(".");
    std::string pattern = (parent / ("." + target.filename().string() + ".tmp.XXXXXX")).string();
    if (::mkdtemp(pattern.data()) == nullptr) {
      return "cannot write beside " + options_.lensemble->dir + ": " + std::strerror(errno);
    }
    folder_ = pattern;
    for (const OutputFile& f : files_) {
      const int fd = ::open((fs::path(folder_) / f.name).c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
      if (fd < 0) return "cannot write " + f.name + " in " + folder_ + ": " + std::strerror(errno);
      fds_.push_back(fd);
    }
    return std::nullopt;
  }
  // Each file's length prefix and header, its size set; where each tensor goes.
  bool WriteHeaders(std::size_t tensors) {
    place_.assign(tensors, {-1, 0});
    bool written = true;
    for (std::size_t k = 0; k < files_.size(); ++k) {
      const OutputFile& f = files_[k];
      std::array<std::byte, 8> length{};
      for (std::size_t i = 0; i < 8; ++i) length[i] = static_cast<std::byte>((f.header.size() >> (8 * i)) & 0xFF);
      written = written && ::ftruncate(fds_[k], static_cast<off_t>(f.size)) == 0 && WriteAll(fds_[k], 0, length) &&
                WriteAll(fds_[k], 8, std::as_bytes(std::span(f.header)));
      for (std::size_t j = 0; j < f.tensors.size(); ++j) place_[f.tensors[j]] = {fds_[k], f.offsets[j]};
    }
    return written;
  }
  [[nodiscard]] fs::path PathOf(std::size_t k) const {
    return options_.lensemble ? fs::path(folder_) / files_[k].name : fs::path(single_->path());
  }
  // Into place: never onto anything, not even an empty directory made meanwhile.
  bool Place() {
    if (!options_.lensemble) return single_->Keep();
    for (int fd : fds_) ::fsync(fd);
    const int error = PlaceNew(folder_, options_.lensemble->dir);
    if (error != 0) {
      errno = error;
      return false;
    }
    kept_ = true;
    ::chmod(options_.lensemble->dir.c_str(), 0755);
    return true;
  }

  const std::vector<OutputFile>& files() const { return files_; }
  const std::vector<int>& fds() const { return fds_; }
  const std::string& folder() const { return folder_; }
  const std::pair<int, std::uint64_t>& place(std::size_t tensor) const { return place_[tensor]; }

 private:
  const ConvertOptions& options_;
  std::vector<OutputFile> files_;
  std::optional<NewFileBeside> single_;
  std::string folder_;
  bool kept_ = false;
  std::vector<int> fds_;
  std::vector<std::pair<int, std::uint64_t>> place_;  // each tensor's file and absolute offset in it
};

// One read of the input: its SHA-256 behind, the copy into the outputs and each tensor's
// SHA-256 ahead. False when the input could not be read; `written` false when the output could
// not be written.
bool CopyAndHash(AuditSession& session, WeightFile& wf, const convert::Plan& plan, const Outputs& outputs,
                 bool digest_input, std::vector<std::string>& hashes, bool& written) {
  std::vector<std::size_t> by_input(plan.tensors.size());
  for (std::size_t i = 0; i < by_input.size(); ++i) by_input[i] = i;
  std::sort(by_input.begin(), by_input.end(),
            [&](std::size_t a, std::size_t b) { return plan.tensors[a].input_offset < plan.tensors[b].input_offset; });
  std::vector<Sha256> running(plan.tensors.size());
  // Tensors in input order, walked by each side with its own cursor: the reading side copies,
  // the other hashes (the input's own SHA-256 beside it only when a record will name it).
  auto walk = [&](std::size_t& next, std::uint64_t at, std::span<const std::byte> bytes, auto&& use) {
    const std::uint64_t end = at + bytes.size();
    for (std::size_t k = next; k < by_input.size(); ++k) {
      const std::size_t index = by_input[k];
      const convert::PlannedTensor& t = plan.tensors[index];
      if (t.input_offset >= end) break;
      const std::uint64_t from = std::max(at, t.input_offset);
      const std::uint64_t to = std::min(end, t.input_offset + t.size);
      if (from < to) {
        use(index, from - t.input_offset,
            bytes.subspan(static_cast<std::size_t>(from - at), static_cast<std::size_t>(to - from)));
      }
      if (t.input_offset + t.size <= end && k == next) ++next;
    }
  };
  std::size_t next_copy = 0;
  std::size_t next_hash = 0;
  auto copy = [&](std::uint64_t at, std::span<const std::byte> bytes) {
    walk(next_copy, at, bytes, [&](std::size_t index, std::uint64_t into, std::span<const std::byte> piece) {
      const auto& [fd, offset] = outputs.place(index);
      written = written && WriteAll(fd, offset + into, piece);
    });
  };
  auto hash_tensors = [&](std::uint64_t at, std::span<const std::byte> bytes) {
    walk(next_hash, at, bytes,
         [&](std::size_t index, std::uint64_t, std::span<const std::byte> piece) { running[index].Update(piece); });
  };
  const bool read = DigestSessionFileWith(session, wf, copy, hash_tensors, digest_input);
  hashes.resize(plan.tensors.size());
  for (std::size_t i = 0; i < running.size(); ++i) hashes[i] = running[i].FinalHex();
  return read;
}

// Reads the output back while it reaches the disk: the strict reader must pass every file, and
// every tensor must hash to what was read from its record (tensors split over two threads).
// With `whole_files`, each file's own SHA-256 too. False when anything differs.
bool ReadBack(const convert::Plan& plan, const Outputs& outputs, const std::vector<std::string>& hashes,
              bool whole_files, std::vector<std::string>& file_hashes) {
  const std::vector<OutputFile>& files = outputs.files();
  file_hashes.assign(files.size(), "");
  std::thread syncer([&outputs] {
    for (int fd : outputs.fds()) ::fsync(fd);
  });
  struct Join {
    std::thread& thread;
    ~Join() { thread.join(); }
  } join_syncer{syncer};
  bool valid = true;
  for (std::size_t k = 0; valid && k < files.size(); ++k) {
    const fs::path path = outputs.PathOf(k);
    auto dir = DirectorySource::OpenDirectory(path.parent_path().string());
    auto file = dir ? (*dir)->Open(path.filename().string()) : IoResult<std::unique_ptr<RandomAccessFile>>(dir.error());
    DiagnosticList reader;
    auto reread =
        file ? AcceptedWeightFormat().read("output", std::move(*file), reader) : IoResult<WeightFile>(file.error());
    valid = reread && reread->valid && reread->tensors.size() == files[k].tensors.size();
    for (std::size_t j = 0; valid && j < files[k].tensors.size(); ++j) {
      const convert::PlannedTensor& t = plan.tensors[files[k].tensors[j]];
      const StoredTensor* s = reread->FindTensor(t.name);
      valid = s != nullptr && s->dtype == t.dtype && s->shape == t.shape && s->data_offset == files[k].offsets[j];
    }
  }
  if (!valid) return false;
  std::vector<std::optional<std::string>> again(plan.tensors.size());
  auto hash_some = [&](std::size_t part, std::size_t parts) {
    std::vector<std::byte> buffer(1 << 20);
    for (std::size_t i = part; i < plan.tensors.size(); i += parts) {
      again[i] = HashRange(outputs.place(i).first, outputs.place(i).second, plan.tensors[i].size, buffer);
    }
  };
  bool whole_ok = true;
  if (whole_files) {  // the record names each output file by its SHA-256
    std::thread tensors_thread([&] { hash_some(0, 1); });
    std::vector<std::byte> buffer(1 << 20);
    for (std::size_t k = 0; k < files.size(); ++k) {
      auto whole = HashRange(outputs.fds()[k], 0, files[k].size, buffer);
      whole_ok = whole_ok && whole.has_value();
      if (whole) file_hashes[k] = *whole;
    }
    tensors_thread.join();
  } else {
    std::thread other([&] { hash_some(1, 2); });
    hash_some(0, 2);
    other.join();
  }
  for (std::size_t i = 0; valid && i < plan.tensors.size(); ++i) valid = again[i] && *again[i] == hashes[i];
  return valid && whole_ok;
}

// A Lensemble artifact: its index and header.json, the content hash computed from the files as
// written, then the whole artifact audited as ckpt-audit audits it. Sets the content hash and
// (with a key) the record's subjects; the error says why the artifact is not kept.
std::optional<std::vector<std::string>> FinishArtifact(const convert::Plan& plan, const ConvertOptions& options,
                                                       const AuditOptions& policy, const Outputs& outputs,
                                                       const std::vector<std::string>& file_hashes,
                                                       std::int64_t input_mtime_ns, ConvertResult& out,
                                                       std::vector<std::pair<std::string, std::string>>& subjects) {
  const LensembleOutput& l = *options.lensemble;
  const std::vector<OutputFile>& files = outputs.files();
  const std::string created_at = l.created_at ? *l.created_at : UtcTime(input_mtime_ns / 1000000000);
  std::vector<std::pair<std::string, std::string>> texts;
  if (files.size() > 1) texts.emplace_back("weights.index.json", IndexJson(plan, files));
  texts.emplace_back("header.json", HeaderJson(plan, l, files, std::string(64, '0'), created_at));
  auto write_text = [&](const std::string& name, const std::string& text) {
    std::ofstream f(fs::path(outputs.folder()) / name, std::ios::binary | std::ios::trunc);
    f << text;
    f.flush();
    return static_cast<bool>(f);
  };
  bool ok = true;
  for (const auto& [name, text] : texts) ok = ok && write_text(name, text);
  std::optional<std::string> content_hash;
  if (ok) {
    std::unique_ptr<AuditSession> artifact = BeginAuditPath(outputs.folder(), AuditOptions{});
    if (artifact->plan) {
      auto hash = ComputeContentHash(*artifact->plan);
      if (hash) content_hash = *hash;
    }
  }
  ok = ok && content_hash && write_text("header.json", HeaderJson(plan, l, files, *content_hash, created_at));
  AuditResult audited;
  if (ok) {
    AuditOptions strict;
    strict.allowed_groups = l.groups;
    strict.action_head_patterns = policy.action_head_patterns;
    strict.expected_hash = content_hash;
    audited = AuditPath(outputs.folder(), strict);
  }
  if (!ok || VerdictOf(audited, Severity::kError) != Verdict::kPass) {
    std::vector<std::string> errors = {"the artifact written does not pass ckpt-audit: nothing is kept"};
    for (const Finding& f : audited.findings) errors.push_back(f.message);
    return errors;
  }
  out.content_hash = *content_hash;
  if (options.key) {
    for (std::size_t k = 0; k < files.size(); ++k) subjects.emplace_back(files[k].name, file_hashes[k]);
    for (const auto& [name, text] : texts) {
      Sha256 sha;
      sha.Update(name == "header.json" ? HeaderJson(plan, l, files, *content_hash, created_at) : text);
      subjects.emplace_back(name, sha.FinalHex());
    }
    std::sort(subjects.begin(), subjects.end());
  }
  return std::nullopt;
}

// The input audit's result once its session ends early (unreadable, refused, or not converted).
ConvertResult Finished(AuditSession& session, ConvertResult out) {
  if (!session.unreadable && !session.refused) {
    out.input = FinishAudit(session);
  } else {
    out.input = std::move(session.result);
    if (session.refused) {
      out.input.findings = std::move(session.sink.findings());
      out.input.dropped = session.sink.dropped();
    }
  }
  return out;
}

// The input's file name as its record names it: a URL's last path segment, decoded, without
// its query (which may carry a signature).
std::string InputFileName(const std::string& input) {
  if (remote::IsRemoteArgument(input)) {
    if (auto url = remote::ParseUrl(input)) return url->FileName();
  }
  return fs::path(input).filename().string();
}

ConvertResult ConvertSession(std::unique_ptr<AuditSession> session, const std::string& input,
                             const ConvertOptions& options) {
  ConvertResult out;
  const AuditOptions& policy = session->policy;
  AuditResult& result = session->result;
  if (session->unreadable || session->refused) return Finished(*session, std::move(out));
  const InputKind kind = result.artifact.kind;
  const TorchLoads loads = FormatOf(kind).torch_loads;
  if (loads != TorchLoads::kTorchSave && loads != TorchLoads::kPlainPickle) {
    result.tool_errors.push_back(result.artifact.path + " is " + std::string(InputKindName(kind)) +
                                 ", not a torch.save checkpoint or pickle ckpt-convert converts");
    return Finished(*session, std::move(out));
  }
  if (result.artifact.weights.size() != 1 || !result.artifact.weights.front().file) {
    return Finished(*session, std::move(out));
  }
  WeightFile& wf = result.artifact.weights.front();

  // The analysis must pass before anything is written: what the readers found so far.
  auto analysis_fails = [&] {
    for (const Finding& f : session->sink.findings()) {
      if (f.counts() && AtOrAbove(f.severity(), VerdictThreshold(options.threshold))) return true;
    }
    return false;
  };
  rules::RuleSink refusals(session->sink);
  std::optional<convert::LensembleRules> rules_for_artifact;
  if (options.lensemble) {
    rules_for_artifact = convert::LensembleRules{options.lensemble->groups, policy.action_head_patterns};
  }
  std::optional<convert::Plan> plan =
      convert::PlanConversion(wf, refusals, rules_for_artifact ? &*rules_for_artifact : nullptr,
                              options.select ? &*options.select : nullptr, options.copy_aliases);
  if (analysis_fails() || !plan) return Finished(*session, std::move(out));

  Outputs outputs(options, LayOut(*plan, options.lensemble));
  if (auto error = outputs.Open()) {
    result.tool_errors.push_back(*error);
    return Finished(*session, std::move(out));
  }
  bool written = outputs.WriteHeaders(plan->tensors.size());
  std::vector<std::string> hashes;
  if (!CopyAndHash(*session, wf, *plan, outputs, options.key.has_value(), hashes, written)) {
    result.tool_errors.push_back("cannot read " + result.artifact.path);  // a URL as reports name it (redacted)
    return Finished(*session, std::move(out));
  }
  if (!written) {
    result.tool_errors.push_back(std::string("cannot write the output: ") + std::strerror(errno));
    return Finished(*session, std::move(out));
  }
  // The input is judged on the bytes just read: the audit's own identity check (a file that
  // changed while read is layout-file-changed) and every rule.
  const FileIdentity before = wf.file->identity();
  out.input = FinishAudit(*session);
  if (VerdictOf(out.input, options.threshold) != Verdict::kPass) return out;

  std::vector<std::string> file_hashes;
  if (!ReadBack(*plan, outputs, hashes, options.key.has_value(), file_hashes)) {
    out.input.tool_errors.push_back("the output read back is not what was written: nothing is kept");
    return out;
  }
  if (!options.lensemble && options.key) out.output_sha256 = file_hashes.front();
  std::vector<std::pair<std::string, std::string>> subjects;  // name -> SHA-256 (records)
  if (options.lensemble) {
    if (auto errors = FinishArtifact(*plan, options, policy, outputs, file_hashes, before.mtime_ns, out, subjects)) {
      for (std::string& e : *errors) out.input.tool_errors.push_back(std::move(e));
      return out;
    }
  } else if (options.key) {
    subjects.emplace_back(fs::path(options.output).filename().string(), out.output_sha256);
  }

  // The record first (beside its destination), then the output into place, then the record.
  std::optional<NewFileBeside> record;
  if (options.key && options.record) {
    record.emplace(*options.record);
    const std::string payload = attest::DerivationPayload(*plan, hashes, subjects, InputFileName(input),
                                                          out.input.artifact.files.front().sha256.value_or(""));
    const std::string envelope = attest::SignEnvelope(attest::kInTotoPayloadType, payload, *options.key);
    if (!record->ok() || !WriteAll(record->fd(), 0, std::as_bytes(std::span(envelope)))) {
      out.input.tool_errors.push_back("cannot write the derivation record " + *options.record);
      return out;
    }
  }
  if (!outputs.Place()) {
    out.input.tool_errors.push_back("cannot move the output into place: " + std::string(std::strerror(errno)));
    return out;
  }
  if (record && !record->Keep()) {
    // The record could not be placed (its name was taken meanwhile): take the output back, so
    // that a failed run leaves nothing of its own at the destination.
    const std::string why = std::strerror(errno);
    std::error_code ec;
    fs::remove_all(options.lensemble ? fs::path(options.lensemble->dir) : fs::path(options.output), ec);
    out.input.tool_errors.push_back("cannot move the derivation record into place: " + why);
    return out;
  }
  out.written = true;
  out.tensors = plan->tensors.size();
  out.aliases = plan->aliases.size();
  out.alias_names = plan->aliases;
  out.not_carried = plan->not_carried.size();
  return out;
}

// The safetensors name the Hub's conversion gives a .bin weight file: pytorch_model.bin is
// model.safetensors, pytorch_model-00001-of-00002.bin model-00001-of-00002.safetensors.
std::string SafetensorsName(const std::string& bin) {
  std::string stem = bin.ends_with(".bin") ? bin.substr(0, bin.size() - 4) : bin;
  constexpr std::string_view kTorchStem = "pytorch_model";
  if (stem.starts_with(kTorchStem)) stem = "model" + stem.substr(kTorchStem.size());
  return stem + ".safetensors";
}

// A new hidden folder beside `target`, removed when destroyed unless kept.
class FolderBeside {
 public:
  explicit FolderBeside(const std::string& target) {
    const fs::path t(target);
    const fs::path parent = t.has_parent_path() ? t.parent_path() : fs::path(".");
    std::string pattern = (parent / ("." + t.filename().string() + ".tmp.XXXXXX")).string();
    if (::mkdtemp(pattern.data()) != nullptr) path_ = pattern;
  }
  ~FolderBeside() {
    std::error_code ec;
    if (!kept_ && !path_.empty()) fs::remove_all(path_, ec);
  }
  FolderBeside(const FolderBeside&) = delete;
  FolderBeside& operator=(const FolderBeside&) = delete;
  [[nodiscard]] bool ok() const { return !path_.empty(); }
  [[nodiscard]] const std::string& path() const { return path_; }
  // Into place, never onto anything (errno set when it cannot).
  bool Keep(const std::string& target) {
    const int error = PlaceNew(path_, target);
    if (error != 0) {
      errno = error;
      return false;
    }
    kept_ = true;
    ::chmod(target.c_str(), 0755);
    return true;
  }

 private:
  std::string path_;
  bool kept_ = false;
};

// model.safetensors.index.json as save_pretrained writes it (sorted keys, two-space indent),
// from the headers of the files written: each tensor's file, and the bytes of them all.
std::optional<std::string> SafetensorsIndex(const std::string& folder, const std::vector<std::string>& files) {
  std::vector<std::pair<std::string, std::string>> entries;
  std::uint64_t total = 0;
  auto dir = DirectorySource::OpenDirectory(folder);
  if (!dir) return std::nullopt;
  for (const std::string& name : files) {
    auto file = (*dir)->Open(name);
    if (!file) return std::nullopt;
    DiagnosticList reader;
    auto read = AcceptedWeightFormat().read(name, std::move(*file), reader);
    if (!read || !read->valid) return std::nullopt;
    for (const StoredTensor& t : read->tensors) {
      entries.emplace_back(t.name, name);
      total += t.end - t.begin;
    }
  }
  std::sort(entries.begin(), entries.end());
  std::string out =
      "{\n  \"metadata\": {\n    \"total_size\": " + std::to_string(total) + "\n  },\n  \"weight_map\": {";
  for (std::size_t i = 0; i < entries.size(); ++i) {
    out += (i == 0 ? "\n    " : ",\n    ") + json::QuoteString(entries[i].first) + ": " +
           json::QuoteString(entries[i].second);
  }
  out += entries.empty() ? "}\n}\n" : "\n  }\n}\n";
  return out;
}

}  // namespace

ConvertResult ConvertModelFolder(const std::string& input, const ConvertOptions& options) {
  ConvertResult out;
  // The folder as a whole first (every file judged, the index against the shards), reading the
  // structure only: each .bin's bytes are read once, hashed and checked by its own conversion.
  AuditOptions structure = options.policy;
  structure.compute_hash = false;
  out.input = AuditPath(input, structure);
  // Its --no-hash warning is void: the conversions below hash every byte.
  std::erase_if(out.input.findings,
                [](const Finding& f) { return f.rule != nullptr && f.rule->id == "hash-not-verified"; });
  AuditResult& folder = out.input;
  if (!folder.tool_errors.empty()) return out;
  if (folder.artifact.kind != InputKind::kModelFolder) {
    folder.tool_errors.push_back(input + " is " + std::string(InputKindName(folder.artifact.kind)) +
                                 ", not a model folder of .bin weights");
    return out;
  }
  if (VerdictOf(folder, options.threshold) != Verdict::kPass) return out;
  std::vector<std::string> bins;
  std::vector<const WeightFile*> weights;
  for (const WeightFile& wf : folder.artifact.weights) weights.push_back(&wf);  // safetensors: refused below
  if (folder.artifact.model) {
    for (const WeightFile& wf : folder.artifact.model->other_weights) weights.push_back(&wf);
    for (const WeightFile& wf : folder.artifact.model->analysed) weights.push_back(&wf);
  }
  for (const WeightFile* weight : weights) {
    const WeightFile& wf = *weight;
    if (!wf.pickle || !wf.name.ends_with(".bin")) {
      folder.tool_errors.push_back(input + " holds " + QuoteForMessage(wf.name) +
                                   ", which is not a torch .bin file: ckpt-convert converts a folder whose weights "
                                   "are all .bin files");
      return out;
    }
    bins.push_back(wf.name);
  }
  if (bins.empty()) {
    folder.tool_errors.push_back(input + " holds no .bin weights to convert");
    return out;
  }
  std::sort(bins.begin(), bins.end());

  FolderBeside written(options.output);
  std::optional<FolderBeside> records;
  if (options.record) records.emplace(*options.record);
  if (!written.ok() || (records && !records->ok())) {
    folder.tool_errors.push_back("cannot write beside " + (written.ok() ? *options.record : options.output) + ": " +
                                 std::strerror(errno));
    return out;
  }
  std::vector<std::string> outputs;
  for (const std::string& bin : bins) {
    ConvertOptions one = options;
    one.policy.shard_of_audited_folder = true;  // the folder was audited whole above
    one.copy_aliases = true;
    one.output = (fs::path(written.path()) / SafetensorsName(bin)).string();
    if (records) one.record = (fs::path(records->path()) / (SafetensorsName(bin) + ".dsse.json")).string();
    ConvertResult converted = ConvertCheckpoint((fs::path(input) / bin).string(), one);
    out.tensors += converted.tensors;
    out.aliases += converted.aliases;
    out.not_carried += converted.not_carried;
    out.alias_names.insert(out.alias_names.end(), converted.alias_names.begin(), converted.alias_names.end());
    out.shard_inputs.push_back(std::move(converted.input));
    if (!converted.written) return out;  // its analysis says why; nothing is kept
    outputs.push_back(SafetensorsName(bin));
  }
  std::vector<std::string> files = outputs;
  if (outputs.size() > 1) {
    auto index = SafetensorsIndex(written.path(), outputs);
    NewFileBeside index_file(fs::path(written.path()) / "model.safetensors.index.json");
    if (!index || !index_file.ok() || !WriteAll(index_file.fd(), 0, std::as_bytes(std::span(*index))) ||
        !index_file.Keep()) {
      folder.tool_errors.push_back("cannot write the index model.safetensors.index.json: nothing is kept");
      return out;
    }
    files.push_back("model.safetensors.index.json");
  }
  // What was written is a model folder ckpt-audit passes, or nothing is kept.
  const AuditResult audited = AuditPath(written.path(), AuditOptions{});
  if (VerdictOf(audited, Severity::kError) != Verdict::kPass || !audited.tool_errors.empty()) {
    folder.tool_errors.push_back("the folder written does not pass ckpt-audit: nothing is kept");
    for (const Finding& f : audited.findings) folder.tool_errors.push_back(f.message);
    return out;
  }
  if (records && !records->Keep(*options.record)) {
    folder.tool_errors.push_back("cannot move the derivation records into place: " + std::string(std::strerror(errno)));
    return out;
  }
  if (!written.Keep(options.output)) {
    const std::string why = std::strerror(errno);
    std::error_code ec;
    if (records) fs::remove_all(*options.record, ec);  // a failed run leaves nothing of its own
    folder.tool_errors.push_back("cannot move the output into place: " + why);
    return out;
  }
  out.written = true;
  out.files_written = std::move(files);
  return out;
}

ConvertResult ConvertCheckpoint(const std::string& input, const ConvertOptions& options) {
  return ConvertSession(BeginAuditPath(input, InputPolicy(options)), input, options);
}

ConvertResult ConvertCheckpoint(const std::string& input, const ArtifactSource& source, InputKind kind,
                                const ConvertOptions& options) {
  return ConvertSession(BeginAudit(input, source, InputPolicy(options), kind), input, options);
}

}  // namespace ckpt
