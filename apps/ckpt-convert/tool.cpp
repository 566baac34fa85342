// ckpt-convert: rebuilds a torch.save checkpoint as safetensors from its storage records,
// without running it. The one tool of the suite that writes, and only new files.
// Exit codes: 0 written, 1 refused (findings say why; nothing at the destination), 2 tool error.
#include <algorithm>
#include <iostream>
#include <optional>
#include <variant>
#include <vector>

#include "apps/common/audit_writers.h"
#include "apps/common/cli.h"
#include "apps/common/tool_mains.h"
#include "apps/common/writer_table.h"
#include "engine/convert.h"
#include "lib/attest/ed25519.h"
#include "lib/core/text.h"
#include "lib/remote/url.h"
#include "reports/sarif_report.h"

namespace po = boost::program_options;

namespace {

constexpr const char* kUsage = R"(Usage: ckpt-convert [options] INPUT -o OUTPUT.safetensors
       ckpt-convert [options] INPUT -o OUTPUT.safetensors --attest KEY --record RECORD.dsse.json
       ckpt-convert [options] INPUT --lensemble DIR --round N --parent HEX|none --wmcp VERSION --config-hash HEX
       ckpt-convert [options] MODEL_DIR -o NEW_DIR [--attest KEY --record NEW_RECORDS_DIR]

Converts pickle checkpoints to safetensors without unpickling them. A torch.save
checkpoint (zip or legacy; a local file, or an https:// URL read where it lives) whose
analysis passes becomes safetensors, each tensor's bytes copied from its storage record:
nothing is unpickled or run. The
output is written as the reference serializer writes it (one input, one set of bytes),
read back and checked, and only then renamed into place. Exact aliases (tied weights) are
written once and named in __metadata__; values that are not tensors are not carried. A
non-contiguous tensor, a conj or neg bit, big-endian data, overlapping views or a dtype
safetensors cannot name is refused, and nothing is written. With --attest, a derivation
record binding the output to the input is signed. With --lensemble, the output is a
Lensemble artifact (header.json schema 2 with the computed content hash, weights sharded
with --shard-size) that ckpt-audit passes; an action head, or a tensor of another group or
dtype, is refused before anything is written. A Hugging Face model folder of .bin weights
(pytorch_model.bin, or the shards its index names) whose audit passes becomes a new folder
of safetensors files named as the Hub's conversion names them (model.safetensors, or
model-0000K-of-0000N.safetensors and model.safetensors.index.json), each .bin converted as
one file is, with a derivation record per file in NEW_RECORDS_DIR.

Exit status:
  0  the output was written (and the record, with --attest)
  1  the checkpoint was refused: its findings say why; nothing is at the destination
  2  the tool could not do its job: bad usage, a path that cannot be read or written, or
     an internal error

Examples:
  ckpt-convert -o model.safetensors pytorch_model.bin
  ckpt-convert --attest signer.pem --record model.dsse.json -o model.safetensors pytorch_model.bin
  ckpt-convert -o my-model-safetensors my-model

Options)";

// The options of ckpt-convert beyond CommonCli's.
struct ConvertCli {
  std::string output;
  std::string attest_key;
  std::string record;
  std::string select;
  ckpt::LensembleOutput artifact;
  std::string parent;
  std::string groups;
  std::uint64_t shard_size = 0;
  std::string created_at;
};

void DeclareOptions(ckpt::cli::CommonCli& cli, ConvertCli& o) {
  cli.options().add_options()("output,o", po::value(&o.output)->value_name("OUTPUT"),
                              "the safetensors file to write (new; never inside the input)")(
      "attest", po::value(&o.attest_key)->value_name("KEY"),
      "sign a derivation record with this Ed25519 private key (PEM, as openssl genpkey writes it)")(
      "record", po::value(&o.record)->value_name("RECORD"), "with --attest: where the derivation record goes");
  cli.options().add_options()("select", po::value(&o.select)->value_name("PREFIX"),
                              "convert only the tensors named PREFIX... (the model. sub-dict of a training "
                              "checkpoint), written without PREFIX; the rest are listed as not carried")(
      "quiet,q", "print nothing when the output is written; a refusal still lists its findings");
  cli.options().add_options()("lensemble", po::value(&o.artifact.dir)->value_name("DIR"),
                              "write a Lensemble artifact into the new directory DIR instead")(
      "round", po::value(&o.artifact.round_index)->value_name("N"), "--lensemble: round_index")(
      "parent", po::value(&o.parent)->value_name("HEX|none"), "--lensemble: parent_hash (none for round 0)")(
      "wmcp", po::value(&o.artifact.wmcp_version)->value_name("VERSION"), "--lensemble: wmcp_version")(
      "config-hash", po::value(&o.artifact.config_hash)->value_name("HEX"), "--lensemble: config_hash (64 hex digits)")(
      "groups", po::value(&o.groups)->value_name("A,B"), "--lensemble: the param groups (default encoder,predictor)")(
      "shard-size", po::value(&o.shard_size)->value_name("BYTES"),
      "--lensemble: at most BYTES of tensor data per weight file (sharded, with weights.index.json)")(
      "created-at", po::value(&o.created_at)->value_name("TIME"),
      "--lensemble: created_at (default: the input's modification time, UTC, to the second)");
}

// --lensemble and the header fields that go with it; without it, none of them.
std::optional<int> ApplyLensemble(const ckpt::cli::CommonCli& cli, ConvertCli& o) {
  if (!cli.Has("lensemble")) {
    for (const char* artifact_only : {"round", "parent", "wmcp", "config-hash", "groups", "shard-size", "created-at"}) {
      if (cli.Has(artifact_only)) return cli.UsageError(std::string("--") + artifact_only + " goes with --lensemble");
    }
    return std::nullopt;
  }
  ckpt::LensembleOutput& artifact = o.artifact;
  if (cli.Has("output")) return cli.UsageError("--lensemble DIR is the output; -o goes without it");
  for (const char* required : {"round", "parent", "wmcp", "config-hash"}) {
    if (!cli.Has(required)) return cli.UsageError(std::string("--lensemble needs --") + required);
  }
  if (o.parent == "none") {
    if (artifact.round_index != 0) return cli.UsageError("--parent none is for round 0 (genesis) only");
  } else {
    if (!ckpt::NormalizeHex(o.parent, 64, 64)) return cli.UsageError("--parent needs 64 hexadecimal digits or none");
    if (artifact.round_index == 0) return cli.UsageError("round 0 is genesis: --parent none");
    artifact.parent_hash = o.parent;
  }
  if (artifact.wmcp_version.empty()) return cli.UsageError("--wmcp needs a non-empty version");
  if (!ckpt::NormalizeHex(artifact.config_hash, 64, 64)) {
    return cli.UsageError("--config-hash needs 64 hexadecimal digits");
  }
  if (cli.Has("groups")) {
    artifact.groups.clear();
    std::size_t at = 0;
    while (at <= o.groups.size()) {
      const std::size_t end = std::min(o.groups.find(',', at), o.groups.size());
      if (end == at) return cli.UsageError("--groups needs names separated by commas");
      artifact.groups.push_back(o.groups.substr(at, end - at));
      at = end + 1;
    }
  }
  if (cli.Has("shard-size")) {
    if (o.shard_size == 0) return cli.UsageError("--shard-size must be at least 1 byte");
    artifact.shard_size = o.shard_size;
  }
  if (cli.Has("created-at")) artifact.created_at = o.created_at;
  std::error_code exists_ec;
  if (std::filesystem::exists(artifact.dir, exists_ec)) {
    return cli.UsageError("--lensemble '" + artifact.dir + "' exists; ckpt-convert only writes new artifacts");
  }
  o.output = artifact.dir;
  return std::nullopt;
}

// The one tool that writes, writes only new files, in folders that exist, never over the
// input or each other: said before anything is read.
std::optional<int> RefuseOutputPaths(const ckpt::cli::CommonCli& cli, const ConvertCli& o,
                                     const std::vector<std::string>& inputs) {
  auto folder_missing = [](const std::string& path) -> std::optional<std::string> {
    const std::filesystem::path folder = std::filesystem::path(path).parent_path();
    if (folder.empty()) return std::nullopt;
    std::error_code ec;
    if (std::filesystem::is_directory(folder, ec)) return std::nullopt;
    return folder.string();
  };
  if (auto missing = folder_missing(o.output)) {
    return cli.UsageError("cannot write '" + o.output + "': the folder '" + *missing + "' does not exist");
  }
  if (cli.Has("record")) {
    if (auto missing = folder_missing(o.record)) {
      return cli.UsageError("cannot write --record '" + o.record + "': the folder '" + *missing + "' does not exist");
    }
  }
  std::error_code exists_ec;
  if (!cli.Has("lensemble") && std::filesystem::exists(std::filesystem::symlink_status(o.output, exists_ec))) {
    return cli.UsageError("'" + o.output + "' exists; ckpt-convert only writes new files");
  }
  if (cli.Has("record") && std::filesystem::exists(std::filesystem::symlink_status(o.record, exists_ec))) {
    return cli.UsageError("--record '" + o.record + "' exists; ckpt-convert only writes new files");
  }
  if (cli.Has("attest") != cli.Has("record")) return cli.UsageError("--attest KEY and --record RECORD go together");
  // The output, the record and the input are three different paths, compared with their
  // folders resolved (conversion.md): -o X --record X would leave only the record.
  auto resolved = [](const std::string& p) {
    std::error_code ec;
    const std::filesystem::path path = std::filesystem::absolute(p, ec);
    return std::filesystem::weakly_canonical(path.parent_path(), ec) / path.filename();
  };
  const auto out_path = resolved(o.output);
  if (cli.Has("record") && resolved(o.record) == out_path) {
    return cli.UsageError("--record '" + o.record + "' names the output itself; give the record its own path");
  }
  for (const std::string& input : inputs) {
    if (resolved(input) == out_path) {
      return cli.UsageError("-o names the input itself; ckpt-convert only writes new files");
    }
    if (cli.Has("record") && resolved(input) == resolved(o.record)) {
      return cli.UsageError("--record names the input itself; ckpt-convert only writes new files");
    }
  }
  if (auto refused = cli.RefuseInsideInputs(o.output, inputs, "-o")) return *refused;
  std::error_code ec;
  if (std::filesystem::equivalent(inputs.front(), o.output, ec) && !ec) {
    return cli.UsageError("-o names the input itself; ckpt-convert only writes new files");
  }
  return std::nullopt;
}

// The conversion the options ask for, or the exit code of a usage error.
std::variant<ckpt::ConvertOptions, int> ConvertOptionsOf(ckpt::cli::CommonCli& cli, ConvertCli& o,
                                                         const std::vector<std::string>& inputs) {
  if (inputs.empty()) return cli.UsageError("give one INPUT checkpoint");
  if (inputs.size() > 1) {
    // "ckpt-convert in.pt out.safetensors", as cp is used: the output is named by -o.
    return cli.UsageError("ckpt-convert takes one INPUT, and " + std::to_string(inputs.size()) +
                          " were given; name the output with -o" +
                          (cli.Has("output") ? std::string()
                                             : " (ckpt-convert " + ckpt::QuoteForMessage(inputs.front()) + " -o " +
                                                   ckpt::QuoteForMessage(inputs.back()) + ")"));
  }
  std::error_code folder_ec;
  if (std::filesystem::is_directory(inputs.front(), folder_ec)) {
    // A model folder of .bin weights becomes a new folder of safetensors files.
    if (cli.Has("lensemble") || cli.Has("select")) {
      return cli.UsageError(std::string(cli.Has("lensemble") ? "--lensemble" : "--select") +
                            " converts one checkpoint file, not a model folder");
    }
  }
  if (auto stop = ApplyLensemble(cli, o)) return *stop;
  if (o.output.empty()) return cli.UsageError("give the output file: -o OUTPUT.safetensors");
  if (cli.Has("select") && o.select.empty()) return cli.UsageError("--select needs a prefix, such as model.");
  if (auto stop = RefuseOutputPaths(cli, o, inputs)) return *stop;
  ckpt::ConvertOptions options;
  options.output = o.output;
  if (cli.Has("select")) options.select = o.select;
  if (cli.Has("lensemble")) options.lensemble = o.artifact;
  if (cli.Has("attest")) {
    auto key = ckpt::attest::LoadPrivateKey(o.attest_key);
    if (auto* error = std::get_if<ckpt::attest::KeyError>(&key)) {
      return cli.UsageError("--attest '" + o.attest_key + "': " + error->message);
    }
    options.key = std::get<ckpt::attest::PrivateKey>(key);
    options.record = o.record;
  }
  if (auto stop = cli.ApplyAllowGroups(options.policy)) return *stop;
  // A remote checkpoint file is read where it lives, as ckpt-audit reads it (each byte once);
  // a remote folder (hf://, a directory URL) is not converted: its files would be written
  // beside nothing the user has.
  for (const std::string& input : inputs) {
    if (ckpt::remote::IsRemoteFolderArgument(input)) {
      return cli.UsageError("'" + ckpt::remote::RedactUrl(input) +
                            "' is a remote folder: ckpt-convert reads a remote checkpoint file "
                            "(https://HOST/PATH/FILE, a Hub file by its resolve/COMMIT/FILE URL) or a local model "
                            "folder");
    }
  }
  if (auto stop = cli.ApplyRemoteOptions(options.policy, inputs)) return *stop;
  options.threshold = cli.Context().threshold;
  return options;
}

// The writer table: an audit's text, JSON and SARIF (the first three of apps/common/audit_writers.h).
using WriterEntry = ckpt::cli::AuditWriterEntry;
std::span<const WriterEntry> Writers() { return ckpt::cli::AuditWriters().first(3); }

// What was written: the output, its counts and hash, the record, and each alias kept once.
void SayWritten(const ckpt::ConvertOptions& options, const ckpt::ConvertResult& converted) {
  if (!converted.files_written.empty()) {
    std::string files;
    for (const std::string& f : converted.files_written) files += (files.empty() ? "" : ", ") + f;
    std::cerr << "ckpt-convert: wrote " << ckpt::EscapeForDisplay(options.output) << " (" << files << ": "
              << ckpt::Plural(converted.tensors, "tensor") << ", " << ckpt::Plural(converted.aliases, "alias")
              << (converted.not_carried ? ", " + std::to_string(converted.not_carried) + " values not carried"
                                        : std::string())
              << ")"
              << (options.record
                      ? " and a derivation record for each file in " + ckpt::EscapeForDisplay(*options.record)
                      : std::string())
              << "\n";
  } else {
    std::cerr << "ckpt-convert: wrote " << ckpt::EscapeForDisplay(options.output) << " ("
              << ckpt::Plural(converted.tensors, "tensor") << ", " << ckpt::Plural(converted.aliases, "alias")
              << (converted.not_carried ? ", " + std::to_string(converted.not_carried) + " values not carried"
                                        : std::string())
              << (converted.content_hash.empty() ? std::string() : ", content_hash " + converted.content_hash) << ")"
              << (options.record ? " and its derivation record " + ckpt::EscapeForDisplay(*options.record)
                                 : std::string())
              << "\n";
  }
  // Tied weights are written once: a loader sees only the kept name unless it reads __metadata__.
  for (const auto& [alias, kept] : converted.alias_names) {
    std::cerr << "ckpt-convert: " << ckpt::QuoteForMessage(alias) << " is an alias of " << ckpt::QuoteForMessage(kept)
              << ": written once, under " << ckpt::QuoteForMessage(kept)
              << ", and named in the output's __metadata__; safetensors' load_file returns "
              << ckpt::QuoteForMessage(kept) << " only (tie the weights again when loading)\n";
  }
}

// Writes the input's audit (unless quiet and written), says what was written, and returns the exit code.
int ReportAndExit(const ckpt::cli::CommonCli& cli, const ckpt::ConvertOptions& options, ckpt::ConvertResult converted) {
  ckpt::reports::ReportContext context = cli.Context();
  context.quiet = cli.Has("quiet");
  std::vector<ckpt::AuditResult> results;
  results.push_back(std::move(converted.input));
  for (ckpt::AuditResult& shard : converted.shard_inputs) results.push_back(std::move(shard));
  const bool silent = context.quiet && converted.written && results.front().tool_errors.empty();
  auto write_failed =
      silent ? std::nullopt : ckpt::cli::WriteReports<std::vector<ckpt::AuditResult>>(cli, context, Writers(), results);
  if (write_failed) return *write_failed;
  bool tool_error = false;
  for (const ckpt::AuditResult& result : results) {
    for (const std::string& e : result.tool_errors) std::cerr << "ckpt-convert: " << e << "\n";
    tool_error = tool_error || !result.tool_errors.empty();
  }
  if (tool_error) return ckpt::kExitToolError;
  if (!converted.written) return ckpt::kExitFindings;
  if (silent) return ckpt::kExitClean;
  SayWritten(options, converted);
  return ckpt::kExitClean;
}

}  // namespace

int ckpt::apps::ConvertMain(int argc, char** argv) try {
  ckpt::cli::CommonCli cli("ckpt-convert", ckpt::cli::WriterNames<std::vector<ckpt::AuditResult>>(Writers()), kUsage,
                           /*report_to_o=*/false);
  ConvertCli o;
  DeclareOptions(cli, o);
  std::vector<std::string> inputs;
  if (auto stop = cli.Parse(argc, argv, inputs)) return *stop;
  auto parsed = ConvertOptionsOf(cli, o, inputs);
  if (const int* stop = std::get_if<int>(&parsed)) return *stop;
  const auto& options = std::get<ckpt::ConvertOptions>(parsed);

  std::error_code ec;
  if (!ckpt::remote::IsRemoteArgument(inputs.front()) && std::filesystem::is_directory(inputs.front(), ec)) {
    return ReportAndExit(cli, options, ckpt::ConvertModelFolder(inputs.front(), options));
  }
  return ReportAndExit(cli, options, ckpt::ConvertCheckpoint(inputs.front(), options));
} catch (const std::exception& e) {
  std::cerr << "ckpt-convert: internal error: " << e.what() << "\n";
  return ckpt::kExitToolError;
}
