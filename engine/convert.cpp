#include "engine/convert.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <boost/json.hpp>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <thread>

#include "engine/audit.h"
#include "lib/attest/dsse.h"
#include "lib/convert/conversion_plan.h"
#include "lib/core/text.h"
#include "lib/formats/weight_formats.h"
#include "lib/hashing/sha256.h"
#include "lib/io/directory_source.h"
#include "rules/catalog.h"
#include "rules/reader_rules.h"

namespace ckpt {
namespace {

namespace fs = std::filesystem;

// A new file beside `target`, removed unless Keep() renames it into place.
class TempFile {
 public:
  explicit TempFile(const fs::path& target) : target_(target) {
    const fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
    path_ = (dir / ("." + target.filename().string() + ".tmp.XXXXXX")).string();
    fd_ = ::mkstemp(path_.data());
  }
  ~TempFile() {
    if (fd_ >= 0) ::close(fd_);
    if (!kept_) ::unlink(path_.c_str());
  }
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
  [[nodiscard]] bool ok() const { return fd_ >= 0; }
  [[nodiscard]] int fd() const { return fd_; }
  [[nodiscard]] const std::string& path() const { return path_; }
  bool Keep() {
    const mode_t mask = ::umask(0);  // mkstemp makes 0600; the output gets the usual 0666 & ~umask
    ::umask(mask);
    if (::fchmod(fd_, 0666 & ~mask) != 0 || ::fsync(fd_) != 0) return false;
    ::close(fd_);
    fd_ = -1;
    if (::rename(path_.c_str(), target_.c_str()) != 0) return false;
    kept_ = true;
    return true;
  }

 private:
  fs::path target_;
  std::string path_;
  int fd_ = -1;
  bool kept_ = false;
};

bool WriteAll(int fd, std::uint64_t offset, std::span<const std::byte> bytes) {
  while (!bytes.empty()) {
    const ssize_t n = ::pwrite(fd, bytes.data(), bytes.size(), static_cast<off_t>(offset));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    bytes = bytes.subspan(static_cast<std::size_t>(n));
    offset += static_cast<std::uint64_t>(n);
  }
  return true;
}

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

std::string DerivationPayload(const convert::Plan& plan, const std::vector<std::string>& hashes,
                              const std::string& output_name, const std::string& output_sha256,
                              const std::string& input_name, const std::string& input_sha256) {
  boost::json::array tensors;
  for (std::size_t i = 0; i < plan.tensors.size(); ++i) {
    const convert::PlannedTensor& t = plan.tensors[i];
    boost::json::array shape;
    for (std::uint64_t d : t.shape) shape.push_back(d);
    tensors.push_back({{"name", ToValidUtf8(t.name)},
                       {"dtype", t.dtype},
                       {"shape", std::move(shape)},
                       {"size_bytes", t.size},
                       {"sha256", hashes[i]},
                       {"source", {{"record", ToValidUtf8(t.record)}, {"offset_bytes", t.record_offset}}}});
  }
  boost::json::array not_carried;
  for (const std::string& n : plan.not_carried) not_carried.push_back(boost::json::value(ToValidUtf8(n)));
  boost::json::object aliases;
  for (const auto& [name, kept] : plan.aliases) aliases[ToValidUtf8(name)] = ToValidUtf8(kept);
  boost::json::object statement{
      {"_type", attest::kStatementType},
      {"subject", boost::json::array{{{"name", ToValidUtf8(output_name)}, {"digest", {{"sha256", output_sha256}}}}}},
      {"predicateType", attest::kDerivationPredicateType},
      {"predicate",
       {{"tool", {{"name", "ckpt-convert"}, {"version", CKPT_VERSION}}},
        {"input", {{"name", ToValidUtf8(input_name)}, {"digest", {{"sha256", input_sha256}}}}},
        {"tensors", std::move(tensors)},
        {"aliases", std::move(aliases)},
        {"not_carried", std::move(not_carried)}}}};
  return boost::json::serialize(statement);
}

}  // namespace

ConvertResult ConvertCheckpoint(const std::string& input, const ConvertOptions& options) {
  ConvertResult out;
  Policy policy = options.policy;
  policy.digest_files = true;  // the input's SHA-256 comes from the one read that copies it
  std::unique_ptr<AuditSession> session = BeginAuditPath(input, policy);
  AuditResult& result = session->result;
  auto finish = [&]() -> ConvertResult {
    if (!session->unreadable && !session->refused) {
      out.input = FinishAudit(*session);
    } else {
      out.input = std::move(session->result);
      if (session->refused) {
        out.input.findings = std::move(session->sink.findings());
        out.input.dropped = session->sink.dropped();
      }
    }
    return std::move(out);
  };
  if (session->unreadable || session->refused) return finish();
  const InputKind kind = result.artifact.kind;
  if (kind != InputKind::kTorchZip && kind != InputKind::kTorchLegacy && kind != InputKind::kPickle) {
    result.tool_errors.push_back(input + " is " + std::string(InputKindName(kind)) +
                                 ", not a torch.save checkpoint or pickle ckpt-convert converts");
    return finish();
  }
  if (result.artifact.weights.size() != 1 || !result.artifact.weights.front().file) return finish();
  WeightFile& wf = result.artifact.weights.front();

  // The analysis must pass before anything is written: what the readers found so far.
  auto analysis_fails = [&] {
    for (const Finding& f : session->sink.findings()) {
      if (f.counts() && AtOrAbove(f.severity(), VerdictThreshold(options.threshold))) return true;
    }
    return false;
  };
  rules::RuleSink refusals(session->sink);
  std::optional<convert::Plan> plan = convert::PlanConversion(wf, refusals);
  if (analysis_fails() || !plan) return finish();

  // One read of the input: its SHA-256 behind, the copy and the tensor hashes ahead.
  TempFile output(options.output);
  if (!output.ok()) {
    result.tool_errors.push_back("cannot write beside " + options.output + ": " + std::strerror(errno));
    return finish();
  }
  std::array<std::byte, 8> length{};
  for (std::size_t i = 0; i < 8; ++i) length[i] = static_cast<std::byte>((plan->header.size() >> (8 * i)) & 0xFF);
  bool written = ::ftruncate(output.fd(), static_cast<off_t>(plan->file_size())) == 0 &&
                 WriteAll(output.fd(), 0, length) && WriteAll(output.fd(), 8, std::as_bytes(std::span(plan->header)));
  const std::uint64_t data_start = 8 + plan->header.size();
  std::vector<std::size_t> by_input(plan->tensors.size());
  for (std::size_t i = 0; i < by_input.size(); ++i) by_input[i] = i;
  std::sort(by_input.begin(), by_input.end(), [&](std::size_t a, std::size_t b) {
    return plan->tensors[a].input_offset < plan->tensors[b].input_offset;
  });
  std::vector<std::string> hashes(plan->tensors.size());
  std::vector<Sha256> running(plan->tensors.size());
  std::size_t next = 0;  // first tensor (in input order) not finished
  auto copy = [&](std::uint64_t at, std::span<const std::byte> bytes) {
    const std::uint64_t end = at + bytes.size();
    for (std::size_t k = next; k < by_input.size(); ++k) {
      const convert::PlannedTensor& t = plan->tensors[by_input[k]];
      if (t.input_offset >= end) break;
      const std::uint64_t from = std::max(at, t.input_offset);
      const std::uint64_t to = std::min(end, t.input_offset + t.size);
      if (from < to) {
        const auto piece = bytes.subspan(static_cast<std::size_t>(from - at), static_cast<std::size_t>(to - from));
        running[by_input[k]].Update(piece);
        written = written && WriteAll(output.fd(), data_start + t.output_offset + (from - t.input_offset), piece);
      }
      if (t.input_offset + t.size <= end && k == next) ++next;
    }
  };
  const bool read = DigestSessionFileWith(*session, wf, copy);
  for (std::size_t i = 0; i < running.size(); ++i) hashes[i] = running[i].FinalHex();
  if (!read) {
    result.tool_errors.push_back("cannot read " + input);
    return finish();
  }
  if (!written) {
    result.tool_errors.push_back("cannot write " + output.path() + ": " + std::strerror(errno));
    return finish();
  }
  // The input is judged on the bytes just read: identity unchanged, every rule.
  const FileIdentity before = wf.file->identity();
  out.input = FinishAudit(*session);
  std::error_code ec;
  struct stat now {};
  const bool same = ::stat(input.c_str(), &now) == 0 && static_cast<std::uint64_t>(now.st_ino) == before.inode &&
                    static_cast<std::uint64_t>(now.st_size) == before.size &&
                    static_cast<std::uint64_t>(now.st_dev) == before.device &&
                    static_cast<std::int64_t>(now.st_mtim.tv_sec) * 1000000000 + now.st_mtim.tv_nsec == before.mtime_ns;
  if (!same) {
    Location at;
    at.file = "";
    out.input.findings.push_back(Finding{&rules::convert_input_changed::kRule, at,
                                         "The checkpoint changed while it was converted (its size, times or inode are "
                                         "not the ones it had when it was opened): nothing is written."});
  }
  if (VerdictOf(out.input, options.threshold) != Verdict::kPass) return out;

  // Read the output back: the strict reader must pass it and every tensor must hash to what
  // was read from its record.
  {
    auto dir = DirectorySource::OpenDirectory(fs::path(output.path()).parent_path().string());
    auto file = dir ? (*dir)->Open(fs::path(output.path()).filename().string())
                    : IoResult<std::unique_ptr<RandomAccessFile>>(dir.error());
    DiagnosticList reader;
    auto reread =
        file ? AcceptedWeightFormat().read("output", std::move(*file), reader) : IoResult<WeightFile>(file.error());
    bool valid = reread && reread->valid && reread->tensors.size() == plan->tensors.size();
    for (std::size_t i = 0; valid && i < plan->tensors.size(); ++i) {
      const StoredTensor* s = reread->FindTensor(plan->tensors[i].name);
      valid = s != nullptr && s->dtype == plan->tensors[i].dtype && s->shape == plan->tensors[i].shape &&
              s->data_offset == data_start + plan->tensors[i].output_offset;
    }
    // Tensor hashes on two threads (half the bytes each); the whole file's for a record.
    std::vector<std::optional<std::string>> again(plan->tensors.size());
    std::optional<std::string> whole;
    auto hash_some = [&](std::size_t part, std::size_t parts) {
      std::vector<std::byte> buffer(1 << 20);
      for (std::size_t i = part; i < plan->tensors.size(); i += parts) {
        again[i] = HashRange(output.fd(), data_start + plan->tensors[i].output_offset, plan->tensors[i].size, buffer);
      }
    };
    if (valid) {
      if (options.key) {
        std::thread tensors_thread([&] { hash_some(0, 1); });
        std::vector<std::byte> buffer(1 << 20);
        whole = HashRange(output.fd(), 0, plan->file_size(), buffer);
        tensors_thread.join();
      } else {
        std::thread other([&] { hash_some(1, 2); });
        hash_some(0, 2);
        other.join();
      }
    }
    for (std::size_t i = 0; valid && i < plan->tensors.size(); ++i) valid = again[i] && *again[i] == hashes[i];
    if (!valid || (options.key && !whole)) {
      out.input.tool_errors.push_back("the output read back is not what was written (" + output.path() +
                                      "): nothing is kept");
      return out;
    }
    if (whole) out.output_sha256 = *whole;
  }

  // The record first (beside its destination), then the output into place, then the record.
  std::optional<TempFile> record;
  if (options.key && options.record) {
    record.emplace(*options.record);
    const std::string payload =
        DerivationPayload(*plan, hashes, fs::path(options.output).filename().string(), out.output_sha256,
                          fs::path(input).filename().string(), out.input.artifact.files.front().sha256.value_or(""));
    const std::string envelope = attest::SignEnvelope(attest::kInTotoPayloadType, payload, *options.key);
    if (!record->ok() || !WriteAll(record->fd(), 0, std::as_bytes(std::span(envelope)))) {
      out.input.tool_errors.push_back("cannot write the derivation record " + *options.record);
      return out;
    }
  }
  if (!output.Keep() || (record && !record->Keep())) {
    out.input.tool_errors.push_back("cannot rename the output into place: " + std::string(std::strerror(errno)));
    return out;
  }
  out.written = true;
  out.tensors = plan->tensors.size();
  out.aliases = plan->aliases.size();
  return out;
}

}  // namespace ckpt
