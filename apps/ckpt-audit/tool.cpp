// ckpt-audit: audits Lensemble checkpoint artifacts. Parses options, runs the library,
// writes one report. Exit codes: 0 clean, 1 findings at or above --fail-on, 2 tool error.
#include <sys/stat.h>

#include <ctime>
#include <filesystem>
#include <iostream>
#include <map>
#include <mutex>
#include <optional>
#include <thread>

#include "apps/common/audit_writers.h"
#include "apps/common/cli.h"
#include "apps/common/progress.h"
#include "apps/common/tool_mains.h"
#include "apps/common/writer_table.h"
#include "engine/attestation.h"
#include "engine/audit.h"
#include "engine/model_signature.h"
#include "lib/attest/dsse.h"
#include "lib/core/parallel.h"
#include "lib/core/text.h"
#include "lib/formats/format_table.h"
#include "lib/formats/hdf5/h5probe_client.h"
#include "lib/gate/gate.h"
#include "lib/hashing/sha256.h"
#include "lib/io/shared_source.h"
#include "lib/load/input.h"
#include "lib/oms/fulcio_certificate.h"
#include "lib/oms/model_files.h"
#include "lib/oms/x509_path.h"
#include "lib/remote/remote_source.h"
#include "lib/remote/url.h"
#include "reports/ci_reports.h"
#include "reports/html_report.h"
#include "reports/json_report.h"
#include "reports/rule_catalog_report.h"
#include "reports/sarif_report.h"
#include "reports/text_report.h"

namespace po = boost::program_options;

namespace {

constexpr const char* kUsage = R"(Usage: ckpt-audit [options] ARTIFACT...
       ckpt-audit --attest KEY --attestation-out PATH [options] ARTIFACT...
       ckpt-audit --verify-attestation ENVELOPE --trusted-key PUB [options] INPUT
       ckpt-audit --verify-derivation RECORD --trusted-key PUB [--derived-from INPUT] [options] OUTPUT
       ckpt-audit --verify-model-signature[=SIG] (--trusted-key PUB | --trusted-cert-chain PEM...) [options] MODEL
       ckpt-audit --sign-model KEY --model-signature-out PATH [--ignore-path P]... [options] MODEL

Audits machine-learning checkpoints without running them: each ARTIFACT (a safetensors,
GGUF, pickle-based (torch.save, joblib), NumPy, ONNX, Keras, HDF5 or Flax file, a Hugging
Face model folder or cache, a Lensemble artifact) is recognised by content and judged by
every rule of its kind. A Lensemble artifact (header.json plus safetensors weights) is
checked against its format: schema version and migration, header fields, strict
safetensors structure, manifest and shard index cross-checks, path confinement,
action-head exclusion, pickle refusal and the recomputed content hash. An ARTIFACT may be remote: https://HOST/FILE, a
Lensemble directory https://HOST/DIR/, or hf://ORG/NAME[@REV][/SUBPATH] (through
$HF_ENDPOINT, with $HF_TOKEN when set); http:// only to a loopback host.

With --attest, each audit is also signed: an in-toto Statement v1 in a DSSE envelope
(Ed25519), written whatever the verdict. --verify-attestation checks such an envelope
and that INPUT's files still hash to its subjects; --verify-derivation checks a
conversion's derivation record against its safetensors OUTPUT (and its input).

--verify-model-signature also checks MODEL's OpenSSF Model Signing signature (model.sig,
as model_signing writes it) offline, in the same run: trusted by a key or certificate
roots, the signed statement, and every file of MODEL against it. MODEL may be remote
(hf://, a directory URL): each file is read once, by its audit, and its own model.sig is
read there too. --sign-model writes such a signature (ECDSA, deterministic) for a local
model folder whose audit passes, and only then.

Exit status:
  0  no finding at or above --fail-on
  1  findings at or above --fail-on (an artifact that cannot be parsed is a finding;
     with --verify-*, any check that fails, or a signed verdict of fail)
  2  the tool could not do its job: bad usage (a malformed key too), a path that does
     not exist or cannot be read, nothing to audit, a statement that cannot be
     written, or an internal error

Examples:
  ckpt-audit ./my-model                         a Hugging Face model folder (or a hub-cache snapshot)
  ckpt-audit checkpoint-500/training_args.bin   one pickle-based file, analysed without running it
  ckpt-audit rounds/round-0042                  a Lensemble artifact (header.json and safetensors)
  ckpt-audit hf://org/name@main                 a model where it lives, over HTTP range requests
  ckpt-audit -f sarif -o audit.sarif --report markdown=summary.md models/*
  ckpt-audit --policy ci/policy.json --baseline ci/baseline.json --fail-on warning models/*

Options)";

// "now", or an RFC 3339 UTC time to the second, as --attestation-time takes it.
std::optional<std::string> AttestationTime(const std::string& value) {
  if (value == "now") return ckpt::UtcTime(std::time(nullptr));
  // YYYY-MM-DDTHH:MM:SSZ with each field in range (a leap second allowed), nothing else.
  auto number = [&](std::size_t at, std::size_t digits) -> int {
    int n = 0;
    for (std::size_t i = at; i < at + digits; ++i) {
      if (value[i] < '0' || value[i] > '9') return -1;
      n = n * 10 + (value[i] - '0');
    }
    return n;
  };
  if (value.size() != 20 || value[4] != '-' || value[7] != '-' || value[10] != 'T' || value[13] != ':' ||
      value[16] != ':' || value[19] != 'Z') {
    return std::nullopt;
  }
  const int year = number(0, 4);
  const int month = number(5, 2);
  const int day = number(8, 2);
  const int hour = number(11, 2);
  const int minute = number(14, 2);
  const int second = number(17, 2);
  if (year < 0 || month < 1 || month > 12 || day < 1 || day > 31 || hour < 0 || hour > 23 || minute < 0 ||
      minute > 59 || second < 0 || second > 60) {
    return std::nullopt;
  }
  return value;
}

// The name a statement file takes for an input: its own name (a folder's or a file's).
std::string StatementName(const std::string& input) {
  std::error_code ec;
  std::filesystem::path path = std::filesystem::absolute(input, ec).lexically_normal();
  if (!path.has_filename()) path = path.parent_path();
  std::string name = path.filename().string();
  return (name.empty() || name == "." || name == "..") ? "input" : name;
}

}  // namespace

namespace {

// The kinds the audit reads (the format table's, less the refused), for --expect-kind.
std::string ReadKinds() {
  std::string kinds;
  for (ckpt::InputKind kind : ckpt::kAllInputKinds) {
    if (ckpt::FormatOf(kind).opening == ckpt::InputOpening::kRefused) continue;
    kinds += (kinds.empty() ? "" : ", ") + std::string(ckpt::InputKindName(kind));
  }
  return kinds;
}

// Every option's value, as program_options fills it.
struct AuditCli {
  std::vector<std::string> expect_hashes;
  std::vector<std::string> expect_kinds;
  std::string attest_key;
  std::string attestation_out;
  std::string attestation_time;
  std::string verify_attestation;
  std::string verify_derivation;
  std::string trusted_key;
  std::string derived_from;
  std::string model_signature;
  std::vector<std::string> trusted_cert_chains;
  std::vector<std::string> ignore_paths;
  std::string sign_model_key;
  std::string model_signature_out;
  std::string sigstore_root;
  std::string sigstore_identity;
  std::string sigstore_identity_pattern;
  std::string sigstore_issuer;
  unsigned jobs = std::max(1U, std::thread::hardware_concurrency());
  std::string progress = "auto";
  std::string inputs_from;
  std::string write_acceptances;
  ckpt::hdf5::ProbeTimes probe_times;
};

void DeclareOptions(ckpt::cli::CommonCli& cli, AuditCli& o) {
  cli.options().add_options()(
      "expect-kind", po::value(&o.expect_kinds)->value_name("KIND"),
      ("the input must be of this kind (repeatable: " + ReadKinds() + "); any other is input-kind-unexpected").c_str())(
      "expect-hash", po::value(&o.expect_hashes)->value_name("[PATH=]HEX"),
      "the recomputed content hash must equal HEX (64 hex digits); with several artifacts, name each as "
      "PATH=HEX (repeatable)")("no-hash",
                               "check structure only; do not recompute the content hash (reported as a warning)");
  cli.options().add_options()(
      "write-acceptances", po::value(&o.write_acceptances)->value_name("FILE"),
      "write a reviewed acceptance for each file holding security findings (its path, SHA-256, globals, "
      "calls) with --reason TEXT until --expires DATE, to read with --baseline FILE; the run is judged with "
      "it")("attest", po::value(&o.attest_key)->value_name("KEY"),
            "sign each audit with the Ed25519 private key in KEY (PEM, as openssl genpkey writes it)")(
      "attestation-out", po::value(&o.attestation_out)->value_name("PATH"),
      "where --attest writes: the envelope file for one input; for several, a folder receiving "
      "<name>.audit.dsse.json each")(
      "attestation-time", po::value(&o.attestation_time)->value_name("TIME")->implicit_value("now"),
      "record when the audit ran (RFC 3339 UTC, or now); without it two runs sign identical statements")(
      "verify-attestation", po::value(&o.verify_attestation)->value_name("ENVELOPE"),
      "check a signed audit statement against INPUT as it is now (needs --trusted-key)")(
      "verify-derivation", po::value(&o.verify_derivation)->value_name("RECORD"),
      "check a signed derivation record against the safetensors OUTPUT (needs --trusted-key)")(
      "trusted-key", po::value(&o.trusted_key)->value_name("PUB"),
      "the signer's Ed25519 public key (PEM, as openssl pkey -pubout writes it)")(
      "derived-from", po::value(&o.derived_from)->value_name("INPUT"),
      "with --verify-derivation: also check the torch.save checkpoint the output was made from (a file or a URL)");
  cli.options().add_options()(
      "verify-model-signature", po::value(&o.model_signature)->value_name("SIG")->implicit_value(""),
      "also verify MODEL's OpenSSF Model Signing bundle (MODEL/model.sig, or SIG, a file or an http(s):// URL, "
      "given as --verify-model-signature=SIG) with --trusted-key, --trusted-cert-chain or --sigstore-trusted-root")(
      "trusted-cert-chain", po::value(&o.trusted_cert_chains)->value_name("PEM"),
      "with --verify-model-signature: root certificates (PEM) a certificate-method signature must chain to "
      "(repeatable)")(
      "sigstore-trusted-root", po::value(&o.sigstore_root)->value_name("FILE"),
      "with --verify-model-signature: verify a keyless (Sigstore) signature offline against this trusted_root.json "
      "or ClientTrustConfig (needs --identity and --issuer)")(
      "identity", po::value(&o.sigstore_identity)->value_name("ID"),
      "with --sigstore-trusted-root: the signer's identity, an email address or URI of the certificate")(
      "identity-pattern", po::value(&o.sigstore_identity_pattern)->value_name("PATTERN"),
      "with --sigstore-trusted-root, instead of --identity: a workflow identity with '*' for one or more "
      "characters but '/' and '**' for any, matched whole; https://HOST/OWNER/REPO/ stays literal "
      "(https://github.com/org/repo/.github/workflows/release.yml@refs/tags/*)")(
      "issuer", po::value(&o.sigstore_issuer)->value_name("URL"),
      "with --sigstore-trusted-root: the OIDC issuer the signer signed in at")(
      "ignore-path", po::value(&o.ignore_paths)->value_name("P"),
      "with --verify-model-signature or --sign-model: a path relative to MODEL that the signature leaves out "
      "(repeatable; the audit still reads it)")(
      "sign-model", po::value(&o.sign_model_key)->value_name("KEY"),
      "sign the model folder with the ECDSA private key in KEY (PEM) when its audit passes")(
      "model-signature-out", po::value(&o.model_signature_out)->value_name("PATH"),
      "where --sign-model writes the bundle (e.g. MODEL/model.sig)");
  cli.options().add_options()("jobs,j", po::value(&o.jobs)->value_name("N"),
                              "inputs audited in parallel (default: number of cores); the report order is the inputs'")(
      "progress", po::value(&o.progress)->value_name("WHEN"),
      "auto|always|never: bytes read and throughput on standard error (auto: when it is a terminal)")(
      "quiet,q", "text report: only the inputs that fail (and passing inputs' warnings, a line each), and the summary")(
      "verbose,v", "text report: a block per input with its files, digests and tensors (also --inventory)")(
      "inventory", "the same as --verbose")(
      "inputs-from", po::value(&o.inputs_from)->value_name("FILE"),
      "also audit the paths listed in FILE, one per line; blank lines and lines starting with # are skipped (- "
      "reads standard input)");
  cli.options().add_options()("hdf5-cpu-limit", po::value(&o.probe_times.cpu_seconds)->value_name("S"),
                              "lower the isolated HDF5 reader's CPU-time limit from 20 s to S (1-20)")(
      "hdf5-wall-limit", po::value(&o.probe_times.wall_seconds)->value_name("S"),
      "lower the isolated HDF5 reader's wall-clock limit from 60 s to S (1-60)");
}

// The writer table: every format of an audit (apps/common/audit_writers.h).
using WriterEntry = ckpt::cli::AuditWriterEntry;
std::span<const WriterEntry> Writers() { return ckpt::cli::AuditWriters(); }

// Writes every report of `results`, says each input's tool errors, and returns the exit code.
int ReportAndExit(const ckpt::cli::CommonCli& cli, const ckpt::reports::ReportContext& context,
                  const std::vector<ckpt::AuditResult>& results) {
  auto write_failed = ckpt::cli::WriteReports<std::vector<ckpt::AuditResult>>(cli, context, Writers(), results);
  if (write_failed) return *write_failed;
  for (const auto& r : results) {
    for (const auto& e : r.tool_errors) std::cerr << "ckpt-audit: " << e << "\n";
  }
  return ckpt::ExitCodeOf(results, context.threshold);
}

void WarnIfReadableByOthers(const std::string& key) {
  struct stat st {};
  if (::stat(key.c_str(), &st) == 0 && (st.st_mode & (S_IRGRP | S_IROTH)) != 0) {
    std::cerr << "ckpt-audit: warning: the private key '" << key
              << "' is readable by others than its owner; chmod 600 it\n";
  }
}

// Accepted findings as --write-baseline writes them: each with the path its report shows.
std::optional<int> WriteBaseline(const ckpt::cli::CommonCli& cli, std::vector<ckpt::AuditResult>& results) {
  std::vector<std::pair<ckpt::Finding*, std::string>> accepted;
  for (ckpt::AuditResult& r : results) {
    for (ckpt::Finding& f : r.findings) accepted.emplace_back(&f, ckpt::ReportedPath(r.artifact.path, f.location));
  }
  return cli.WriteBaseline(accepted);
}

// --write-acceptances: writes the entries for the run's security findings, says what it left
// out and why, and marks what they accept so the run is reported as the next one with the file.
std::optional<int> WriteAcceptances(const ckpt::cli::CommonCli& cli, const AuditCli& o,
                                    std::vector<ckpt::AuditResult>& results) {
  if (!cli.Has("write-acceptances")) return std::nullopt;
  ckpt::AcceptanceDraft draft =
      ckpt::DraftAcceptances(results, cli.GateFileRoot(o.write_acceptances), cli.reason(), cli.expires());
  for (const auto& [why, count] : draft.left_out) {
    std::cerr << "ckpt-audit: --write-acceptances left out " << count
              << (count == 1 ? " security finding: " : " security findings: ") << why
              << "; they fail the gate until the input is fixed or reviewed otherwise\n";
  }
  if (!cli.WriteFileAtomically(o.write_acceptances, ckpt::AcceptanceText(draft.entries))) return ckpt::kExitToolError;
  std::vector<std::shared_ptr<const ckpt::Suppression>> written;
  for (ckpt::Suppression& entry : draft.entries) {
    entry.source = o.write_acceptances;
    written.push_back(std::make_shared<const ckpt::Suppression>(std::move(entry)));
  }
  for (auto& [finding, entry] : draft.covers) finding->suppression = written[entry];
  std::cerr << "ckpt-audit: wrote " << written.size() << (written.size() == 1 ? " acceptance" : " acceptances")
            << " covering " << draft.covers.size() << " security findings to " << o.write_acceptances
            << ": review each file before trusting it\n";
  return std::nullopt;
}

// An expired baseline entry is reported once, with the first input.
void AddExpiredEntries(const ckpt::cli::CommonCli& cli, ckpt::AuditResult& first) {
  std::vector<ckpt::Finding> expired = cli.ExpiredEntryFindings();
  first.findings.insert(first.findings.begin(), std::make_move_iterator(expired.begin()),
                        std::make_move_iterator(expired.end()));
}

// The trust a model signature is verified with (exactly one of the three), or a usage error.
std::optional<int> ReadModelTrust(const ckpt::cli::CommonCli& cli, const AuditCli& o,
                                  ckpt::ModelSignatureTrust& trust) {
  const int trusts = (cli.Has("trusted-key") ? 1 : 0) + (cli.Has("trusted-cert-chain") ? 1 : 0) +
                     (cli.Has("sigstore-trusted-root") ? 1 : 0);
  if (trusts != 1) {
    return cli.UsageError(
        "--verify-model-signature needs one trust: --trusted-key PUB, --trusted-cert-chain PEM or "
        "--sigstore-trusted-root FILE --identity ID --issuer URL");
  }
  if (cli.Has("sigstore-trusted-root")) {
    const bool identity = cli.Has("identity") && !o.sigstore_identity.empty();
    const bool pattern = cli.Has("identity-pattern") && !o.sigstore_identity_pattern.empty();
    if (identity == pattern || !cli.Has("issuer") || o.sigstore_issuer.empty()) {
      return cli.UsageError(
          "--sigstore-trusted-root needs --identity ID (or --identity-pattern PATTERN, not both) and --issuer URL "
          "(who signed, and where they signed in)");
    }
    if (pattern) {
      if (auto why = ckpt::oms::IdentityPatternError(o.sigstore_identity_pattern)) {
        return cli.UsageError("--identity-pattern '" + o.sigstore_identity_pattern + "': " + *why);
      }
    }
    auto root = ckpt::oms::LoadTrustedRootFile(o.sigstore_root);
    if (auto* error = std::get_if<std::string>(&root)) {
      return cli.UsageError("--sigstore-trusted-root '" + o.sigstore_root + "': " + *error);
    }
    trust.method = ckpt::ModelSignatureTrust::Method::kSigstore;
    trust.root = std::move(std::get<ckpt::oms::TrustedRoot>(root));
    trust.identity = o.sigstore_identity;
    trust.identity_pattern = o.sigstore_identity_pattern;
    trust.issuer = o.sigstore_issuer;
  } else if (cli.Has("trusted-key")) {
    auto key = ckpt::oms::LoadPublicKeyFile(o.trusted_key);
    if (auto* error = std::get_if<ckpt::oms::KeyError>(&key)) {
      return cli.UsageError("--trusted-key '" + o.trusted_key + "': " + error->message);
    }
    trust.method = ckpt::ModelSignatureTrust::Method::kKey;
    trust.key = std::get<ckpt::oms::PublicKey>(key);
  } else {
    trust.method = ckpt::ModelSignatureTrust::Method::kCertificate;
    for (const std::string& pem : o.trusted_cert_chains) {
      auto certificates = ckpt::oms::LoadCertificatesPem(pem);
      if (auto* error = std::get_if<std::string>(&certificates)) {
        return cli.UsageError("--trusted-cert-chain '" + pem + "': " + *error);
      }
      for (std::string& der : std::get<std::vector<std::string>>(certificates))
        trust.certificates.push_back(std::move(der));
    }
  }
  return std::nullopt;
}

// Which options go together: a usage error for a combination the modes do not take.
std::optional<int> RefuseMismatchedOptions(const ckpt::cli::CommonCli& cli) {
  const bool verify_model = cli.Has("verify-model-signature");
  const bool sign_model = cli.Has("sign-model");
  if (cli.Has("trusted-cert-chain") && !verify_model) {
    return cli.UsageError("--trusted-cert-chain goes with --verify-model-signature");
  }
  if (cli.Has("sigstore-trusted-root") && !verify_model) {
    return cli.UsageError("--sigstore-trusted-root goes with --verify-model-signature");
  }
  // Typed, not set by .ckpt-audit.json, which may name the expected signer for the runs that verify.
  if ((cli.Typed("identity") || cli.Typed("identity-pattern") || cli.Typed("issuer")) &&
      !cli.Has("sigstore-trusted-root")) {
    return cli.UsageError("--identity, --identity-pattern and --issuer go with --sigstore-trusted-root");
  }
  if (cli.Has("ignore-path") && !verify_model && !sign_model) {
    return cli.UsageError("--ignore-path goes with --verify-model-signature or --sign-model");
  }
  if (sign_model != cli.Has("model-signature-out")) {
    return cli.UsageError("--sign-model KEY and --model-signature-out PATH go together");
  }
  return std::nullopt;
}

// Why a bundle named by a URL cannot be read there (nullopt: it can): it must name one file
// over HTTP(S); the Hub's model.sig is read from the repository by the bare option.
std::optional<std::string> RemoteBundleUsageError(const std::string& url, const ckpt::remote::RemoteOptions& remote) {
  if (url.starts_with("hf://")) {
    return "--verify-model-signature=" + url +
           ": a bundle on the Hub is read from the repository it signs (--verify-model-signature with no value "
           "reads hf://ORG/NAME's model.sig); name another by its https:// URL";
  }
  if (std::string why = ckpt::remote::RemoteUsageError(url, remote); !why.empty()) {
    return "--verify-model-signature: " + why;
  }
  if (ckpt::remote::IsRemoteFolderArgument(url)) {
    return "--verify-model-signature=" + ckpt::remote::RedactUrl(url) + " names a folder; name the bundle file";
  }
  return std::nullopt;
}

// NAME beside a directory URL's files: resolved as the URL's own files are (its query dropped).
std::string SiblingUrl(const std::string& directory_url, const std::string& name) {
  return directory_url.substr(0, directory_url.find_first_of("?#")) + name;
}

// OpenSSF Model Signing: one MODEL, audited, and its signature verified (a local or remote
// MODEL) or written (a local one).
int RunModelSigning(const ckpt::cli::CommonCli& cli, const AuditCli& o, ckpt::AuditOptions policy,
                    const std::string& model, const ckpt::reports::ReportContext& context) {
  const bool verify_model = cli.Has("verify-model-signature");
  const std::string option = verify_model ? "--verify-model-signature" : "--sign-model";
  const bool remote = ckpt::remote::IsRemoteArgument(model);
  if (remote && !verify_model) return cli.UsageError("--sign-model signs a local model folder (download it first)");
  std::error_code ec;
  // A remote MODEL is a folder (hf://, a directory URL); a remote file is refused by its audit.
  const bool model_is_folder = remote || std::filesystem::is_directory(model, ec);
  if (!remote && !std::filesystem::exists(model, ec)) return cli.UsageError("'" + model + "' does not exist");
  std::vector<std::string> ignores;
  for (const std::string& p : o.ignore_paths) {
    auto normalized = ckpt::oms::NormalizeIgnorePath(p);
    if (!normalized) {
      return cli.UsageError("--ignore-path '" + p +
                            "' must be a path relative to MODEL, '/'-separated, without a leading '/' or '..'");
    }
    ignores.push_back(*normalized);
  }
  if (!policy.compute_hash) return cli.UsageError(option + " needs every file hashed: drop --no-hash");
  policy.digest_files = true;  // the signature's file digests come from the audit's own reads
  ckpt::VerifyModelSignatureOptions verify_options;
  ckpt::SignModelOptions sign_options;
  std::string bundle_url;  // a bundle read where it lives: --verify-model-signature=URL, a directory URL's model.sig
  if (verify_model) {
    verify_options.jobs = o.jobs;
    verify_options.ignore_paths = ignores;
    if (o.model_signature.empty()) {
      if (!model_is_folder)
        return cli.UsageError("MODEL is a file: name its signature with --verify-model-signature=SIG");
      verify_options.signature = (std::filesystem::path(model) / "model.sig").string();
      verify_options.default_signature = true;
    } else if (ckpt::remote::IsRemoteArgument(o.model_signature)) {
      if (auto refused = RemoteBundleUsageError(o.model_signature, policy.remote)) return cli.UsageError(*refused);
      bundle_url = o.model_signature;
      verify_options.signature = ckpt::remote::RedactUrl(o.model_signature);
    } else {
      verify_options.signature = o.model_signature;
      if (!std::filesystem::exists(o.model_signature, ec)) {
        return cli.UsageError("the model signature '" + o.model_signature + "' does not exist");
      }
    }
    if (auto stop = ReadModelTrust(cli, o, verify_options.trust)) return *stop;
  } else {
    if (!model_is_folder) return cli.UsageError("--sign-model signs a model folder; '" + model + "' is not one");
    if (cli.Has("trusted-key")) return cli.UsageError("--trusted-key is for verifying, not --sign-model");
    auto key = ckpt::oms::LoadPrivateKeyFile(o.sign_model_key);
    if (auto* error = std::get_if<ckpt::oms::KeyError>(&key)) {
      return cli.UsageError("--sign-model '" + o.sign_model_key + "': " + error->message);
    }
    WarnIfReadableByOthers(o.sign_model_key);
    sign_options.key = std::get<ckpt::oms::PrivateKey>(key);
    sign_options.output = o.model_signature_out;
    sign_options.ignore_paths = ignores;
    sign_options.jobs = o.jobs;
  }
  if (!o.expect_hashes.empty()) {
    std::string hex = o.expect_hashes.front().substr(o.expect_hashes.front().rfind('=') + 1);
    if (o.expect_hashes.size() != 1 || !ckpt::NormalizeHex(hex, 64, 64)) {
      return cli.UsageError("--expect-hash needs 64 hexadecimal digits, once for one MODEL");
    }
    policy.expected_hash = hex;
  }
  std::vector<ckpt::AuditResult> results(1);
  // A remote model's source outlives its audit: the signature is checked against the files
  // the audit read (their digests, bound to their ETags), reading only what it did not.
  std::shared_ptr<const ckpt::ArtifactSource> remote_model;
  {
    ckpt::cli::Progress shown("ckpt-audit", o.progress, 1);
    if (remote) {
      results[0] =
          ckpt::AuditPathThrough(model, policy, [&](std::unique_ptr<ckpt::ArtifactSource> source, std::string&) {
            remote_model = std::move(source);
            return std::unique_ptr<ckpt::ArtifactSource>(std::make_unique<ckpt::SharedSource>(remote_model));
          });
    } else {
      results[0] = ckpt::AuditPath(model, policy);
    }
    shown.InputDone();
  }
  AddExpiredEntries(cli, results[0]);
  if (verify_model && remote && results[0].tool_errors.empty()) {
    if (!remote_model || !results[0].artifact.remote || results[0].artifact.kind == ckpt::InputKind::kLensembleTar ||
        (results[0].artifact.kind != ckpt::InputKind::kModelFolder &&
         results[0].artifact.kind != ckpt::InputKind::kLensemble)) {
      results[0].tool_errors.push_back(option + " checks a remote model folder (hf://ORG/NAME, a directory URL); '" +
                                       results[0].artifact.path +
                                       "' is a single file: download it and name its "
                                       "signature with --verify-model-signature=SIG");
    } else {
      verify_options.remote_model = remote_model.get();
      if (verify_options.default_signature && results[0].artifact.remote->scheme == "hf") {
        verify_options.signature = results[0].artifact.path + "/model.sig";
      } else if (verify_options.default_signature) {
        // A directory URL lists nothing: its model.sig is asked for beside its header.json.
        bundle_url = SiblingUrl(model, "model.sig");
        verify_options.signature = ckpt::remote::RedactUrl(bundle_url);
      }
    }
  }
  ckpt::remote::OpenedRemote bundle;
  if (verify_model && results[0].tool_errors.empty() && !bundle_url.empty()) {
    bundle = ckpt::remote::OpenRemote(bundle_url, policy.remote);
    if (bundle.source || bundle.not_found) {
      verify_options.remote_bundle = {bundle.source.get(), bundle.file_name};
    } else {
      results[0].tool_errors.push_back("cannot read the model signature " + verify_options.signature + ": " +
                                       (bundle.usage_error.empty() ? bundle.tool_error : bundle.usage_error));
    }
  }
  if (verify_model && results[0].tool_errors.empty()) {
    ckpt::VerifyModelSignature(model, verify_options, policy, results[0]);
  }
  if (auto failed = WriteBaseline(cli, results)) return *failed;
  const int code = ReportAndExit(cli, context, results);
  if (verify_model) return code;
  if (code != 0) {
    std::cerr << "ckpt-audit: no signature written to " << o.model_signature_out << ": "
              << (code == ckpt::kExitToolError ? "the model could not be audited"
                                               : "its audit failed, and only a model that passes is signed")
              << " (exit " << code << ")\n";
    return code;
  }
  const ckpt::SignedModel signed_model = ckpt::SignModel(model, sign_options, results[0]);
  if (signed_model.error) {
    std::cerr << "ckpt-audit: no signature written to " << o.model_signature_out << ": " << *signed_model.error << "\n";
    return ckpt::kExitToolError;
  }
  if (!cli.WriteFileAtomically(o.model_signature_out, signed_model.bundle)) return ckpt::kExitToolError;
  std::string ignored;
  for (const std::string& path : signed_model.ignored) ignored += (ignored.empty() ? "" : ", ") + path;
  std::cerr << "ckpt-audit: wrote " << o.model_signature_out << ": a model signature (OpenSSF Model Signing, key "
            << signed_model.key_hint << ") of " << signed_model.files << (signed_model.files == 1 ? " file" : " files")
            << " of " << model << (ignored.empty() ? std::string() : ", leaving out " + ignored) << "\n";
  return 0;
}

// Verifying a statement or a record: one input, no audit of its own.
int RunVerification(const ckpt::cli::CommonCli& cli, const AuditCli& o, ckpt::AuditOptions policy,
                    const std::vector<std::string>& inputs, const ckpt::reports::ReportContext& context) {
  if (!cli.Has("trusted-key")) return cli.UsageError("verifying needs the signer's public key: --trusted-key PUB");
  if (cli.Has("attest")) return cli.UsageError("--attest signs an audit; it cannot be combined with verifying");
  if (inputs.size() != 1) {
    return cli.UsageError(cli.Has("verify-attestation") ? "--verify-attestation checks one INPUT"
                                                        : "--verify-derivation checks one OUTPUT");
  }
  auto key = ckpt::attest::LoadPublicKey(o.trusted_key);
  if (auto* error = std::get_if<ckpt::attest::KeyError>(&key)) {
    return cli.UsageError("--trusted-key '" + o.trusted_key + "': " + error->message);
  }
  const auto& public_key = std::get<ckpt::attest::PublicKey>(key);
  std::vector<ckpt::AuditResult> results;
  if (cli.Has("verify-attestation")) {
    policy.file_jobs = o.jobs;  // the input's files, hashed on every core
    results.push_back(ckpt::VerifyAttestation(o.verify_attestation, public_key, inputs.front(), policy));
  } else {
    results.push_back(ckpt::VerifyDerivationRecord(
        o.verify_derivation, public_key, inputs.front(),
        cli.Has("derived-from") ? std::optional<std::string>(o.derived_from) : std::nullopt, policy.remote));
  }
  return ReportAndExit(cli, context, results);
}

// --expect-hash pins one artifact's hash: bare HEX only when there is one artifact.
std::optional<int> PinHashes(const ckpt::cli::CommonCli& cli, const AuditCli& o, const ckpt::AuditOptions& policy,
                             const std::vector<std::string>& artifacts,
                             std::vector<std::optional<std::string>>& pinned) {
  pinned.assign(artifacts.size(), std::nullopt);
  for (const std::string& value : o.expect_hashes) {
    if (!policy.compute_hash) {
      return cli.UsageError("--expect-hash needs the hash, so it cannot be combined with --no-hash");
    }
    const std::size_t eq = value.rfind('=');
    std::string hex = eq == std::string::npos ? value : value.substr(eq + 1);
    if (!ckpt::NormalizeHex(hex, 64, 64)) return cli.UsageError("--expect-hash needs 64 hexadecimal digits");
    if (eq == std::string::npos) {
      if (artifacts.size() != 1) {
        return cli.UsageError("with several artifacts, say which one --expect-hash pins: --expect-hash PATH=HEX");
      }
      pinned[0] = hex;
      continue;
    }
    const std::string path = value.substr(0, eq);
    bool found = false;
    for (std::size_t i = 0; i < artifacts.size(); ++i) {
      std::error_code ec;
      if (artifacts[i] == path || (std::filesystem::equivalent(artifacts[i], path, ec) && !ec)) {
        pinned[i] = hex;
        found = true;
      }
    }
    if (!found) return cli.UsageError("--expect-hash names '" + path + "', which is not one of the artifacts");
  }
  return std::nullopt;
}

// --attest: the key (refused when malformed) and where each statement goes, before any audit.
struct Attesting {
  std::optional<ckpt::attest::PrivateKey> key;
  ckpt::AttestOptions options;
  std::vector<std::string> statement_paths;
};
std::optional<int> PrepareAttestation(const ckpt::cli::CommonCli& cli, const AuditCli& o,
                                      const ckpt::reports::ReportContext& context,
                                      const std::vector<std::string>& artifacts, ckpt::AuditOptions& policy,
                                      Attesting& out) {
  if (cli.Has("attest") != cli.Has("attestation-out")) {
    return cli.UsageError("--attest KEY and --attestation-out PATH go together");
  }
  if (cli.Has("attestation-time") && !cli.Has("attest")) return cli.UsageError("--attestation-time goes with --attest");
  if (!cli.Has("attest")) return std::nullopt;
  if (!policy.compute_hash && std::any_of(artifacts.begin(), artifacts.end(),
                                          [](const std::string& a) { return ckpt::remote::IsRemoteArgument(a); })) {
    return cli.UsageError(
        "--attest signs the digests of the bytes read, so it cannot be combined with --no-hash on a remote input");
  }
  auto key = ckpt::attest::LoadPrivateKey(o.attest_key);
  if (auto* error = std::get_if<ckpt::attest::KeyError>(&key)) {
    return cli.UsageError("--attest '" + o.attest_key + "': " + error->message);
  }
  out.key = std::get<ckpt::attest::PrivateKey>(key);
  WarnIfReadableByOthers(o.attest_key);
  if (cli.Has("attestation-time")) {
    out.options.time = AttestationTime(o.attestation_time);
    if (!out.options.time) return cli.UsageError("--attestation-time needs now or a UTC time as YYYY-MM-DDTHH:MM:SSZ");
  }
  out.options.threshold = context.threshold;
  out.options.gate = cli.gate();
  policy.digest_files = true;  // the subjects' digests come from the audit's own reads
  std::error_code ec;
  const bool into_folder = artifacts.size() > 1 || std::filesystem::is_directory(o.attestation_out, ec);
  if (auto refused = cli.RefuseInsideInputs(o.attestation_out, artifacts, "--attestation-out")) return *refused;
  if (!into_folder) {
    out.statement_paths.push_back(o.attestation_out);
    return std::nullopt;
  }
  std::filesystem::create_directories(o.attestation_out, ec);
  if (ec || !std::filesystem::is_directory(o.attestation_out, ec)) {
    return cli.UsageError("--attestation-out '" + o.attestation_out + "' is not a folder that can be written");
  }
  std::map<std::string, std::string> taken;
  for (const std::string& input : artifacts) {
    const std::string name = StatementName(input) + ".audit.dsse.json";
    if (auto [it, fresh] = taken.emplace(name, input); !fresh) {
      std::string message = "'" + it->second;
      message.append("' and '").append(input).append("' would both be signed into ").append(name);
      return cli.UsageError(message.append("; attest them in separate runs"));
    }
    out.statement_paths.push_back((std::filesystem::path(o.attestation_out) / name).string());
  }
  return std::nullopt;
}

// Signs one audited input's statement into `path`: an error message (empty when none) and
// whether it failed. Called by the audits' workers as each audit ends, so that signing and
// writing 1,000 statements overlap the other audits; `writing` lets one at a time create its
// file (two threads creating files in one folder spend the second core on its lock in the kernel).
std::pair<std::string, bool> SignStatement(const ckpt::cli::CommonCli& cli, const Attesting& attesting,
                                           ckpt::AuditResult& r, const std::string& path, std::mutex& writing) {
  if (!r.tool_errors.empty()) {
    return {"ckpt-audit: no statement for '" + r.artifact.path + "': it could not be audited\n", false};
  }
  ckpt::InputSubjects subjects = ckpt::SubjectsOfAudit(r);
  if (subjects.error)
    return {"ckpt-audit: no statement for '" + r.artifact.path + "': " + *subjects.error + "\n", true};
  const std::string payload = ckpt::AuditStatementPayload(r, subjects.subjects, attesting.options);
  const std::string envelope = ckpt::attest::SignEnvelope(ckpt::attest::kInTotoPayloadType, payload, *attesting.key);
  const std::lock_guard lock(writing);
  if (!cli.WriteFileAtomically(path, envelope)) return {std::string(), true};
  ckpt::Sha256 sha;
  sha.Update(envelope);
  r.statement_written.emplace(path, sha.FinalHex());
  return {std::string(), false};
}

// What each reviewed acceptance did over the run: a baseline-acceptance-unmatched warning for
// one that accepted nothing (in the first input's findings, beside the expired entries), and
// the policy object's acceptances[].matched and .accepted in every report.
void NoteAcceptanceUse(const ckpt::cli::CommonCli& cli, std::vector<ckpt::AuditResult>& results,
                       ckpt::reports::ReportContext& context) {
  const ckpt::ResolvedGate* gate = cli.gate();
  if (gate == nullptr || gate->acceptances.empty() || results.empty()) return;
  ckpt::AcceptanceUse use = ckpt::JudgeAcceptanceUse(*gate, results);
  for (ckpt::Finding& f : use.unmatched) results.front().findings.push_back(std::move(f));
  if (!context.policy) return;
  boost::json::value* listed = context.policy->if_contains("acceptances");
  if (listed == nullptr || !listed->is_array()) return;
  for (boost::json::value& item : listed->as_array()) {
    boost::json::object& entry = item.as_object();
    std::uint64_t accepted = 0;
    for (std::size_t i = 0; i < gate->gate.acceptances.size(); ++i) {
      const ckpt::Suppression& a = *gate->gate.acceptances[i];
      if (entry.at("entry").to_number<std::uint64_t>() == a.index + 1 &&
          entry.at("source").as_string() == ckpt::ToValidUtf8(a.source)) {
        accepted = use.accepted[i];
      }
    }
    entry["matched"] = accepted > 0;
    entry["accepted"] = accepted;
  }
}

// The audits: every input (a hub root or folder of rounds stands for several), in parallel.
int RunAudits(const ckpt::cli::CommonCli& cli, const AuditCli& o, ckpt::AuditOptions policy,
              std::vector<std::string> artifacts, const ckpt::reports::ReportContext& context) {
  std::vector<std::string> expanded;
  for (const std::string& path : artifacts) {
    for (std::string& one : ckpt::ExpandInputPath(path)) expanded.push_back(std::move(one));
  }
  artifacts = std::move(expanded);
  std::vector<std::optional<std::string>> pinned;
  if (auto stop = PinHashes(cli, o, policy, artifacts, pinned)) return *stop;
  Attesting attesting;
  if (auto stop = PrepareAttestation(cli, o, context, artifacts, policy, attesting)) return *stop;
  std::vector<ckpt::AuditResult> results(artifacts.size());
  // Findings about the baseline itself go first in the first input's findings (and so into its
  // statement).
  std::vector<ckpt::Finding> expired = cli.ExpiredEntryFindings();
  std::vector<std::pair<std::string, bool>> signing(artifacts.size());
  std::mutex writing;
  {
    ckpt::cli::Progress shown("ckpt-audit", o.progress, artifacts.size());
    // Audits already run one per core: no read-ahead thread of their own then.
    const bool overlap = o.jobs <= 1 || artifacts.size() <= 1;
    // The cores inputs leave free hash the files of each input (a model folder's shards).
    const unsigned file_jobs = std::max<unsigned>(
        1, o.jobs / static_cast<unsigned>(std::min<std::size_t>(artifacts.size(), std::max(1U, o.jobs))));
    ckpt::ParallelFor(artifacts.size(), o.jobs, [&](std::size_t i) {
      ckpt::AuditOptions own = policy;
      own.expected_hash = pinned[i];
      own.overlap_reads = overlap;
      own.file_jobs = file_jobs;
      results[i] = ckpt::AuditPath(artifacts[i], own);
      if (i == 0) {
        results[0].findings.insert(results[0].findings.begin(), std::make_move_iterator(expired.begin()),
                                   std::make_move_iterator(expired.end()));
      }
      if (attesting.key) signing[i] = SignStatement(cli, attesting, results[i], attesting.statement_paths[i], writing);
      shown.InputDone();
    });
  }
  int signing_failed = 0;
  for (const auto& [message, failed] : signing) {
    std::cerr << message;
    if (failed) signing_failed = ckpt::kExitToolError;
  }
  if (auto failed = WriteBaseline(cli, results)) return *failed;
  if (auto failed = WriteAcceptances(cli, o, results)) return *failed;
  ckpt::reports::ReportContext judged = context;
  NoteAcceptanceUse(cli, results, judged);
  const int code = ReportAndExit(cli, judged, results);
  return code == ckpt::kExitToolError ? code : (signing_failed != 0 ? signing_failed : code);
}

}  // namespace

int ckpt::apps::AuditMain(int argc, char** argv) try {
  ckpt::cli::CommonCli cli("ckpt-audit", ckpt::cli::WriterNames<std::vector<ckpt::AuditResult>>(Writers()), kUsage);
  cli.AllowReportsInsideInputs();
  {
    std::vector<std::string> kinds;
    for (ckpt::InputKind kind : ckpt::kAllInputKinds) {
      if (ckpt::FormatOf(kind).opening != ckpt::InputOpening::kRefused) kinds.emplace_back(ckpt::InputKindName(kind));
    }
    cli.AddChoices("expect-kind", std::move(kinds));
  }
  AuditCli o;
  DeclareOptions(cli, o);
  std::vector<std::string> artifacts;
  if (auto stop = cli.Parse(argc, argv, artifacts)) return *stop;
  if (o.jobs == 0 || o.jobs > 1024) return cli.UsageError("--jobs must be between 1 and 1024");
  if (o.probe_times.cpu_seconds == 0 || o.probe_times.cpu_seconds > ckpt::hdf5::kPinnedCpuSeconds) {
    return cli.UsageError("--hdf5-cpu-limit must be between 1 and 20");
  }
  if (o.probe_times.wall_seconds == 0 || o.probe_times.wall_seconds > ckpt::hdf5::kPinnedWallSeconds) {
    return cli.UsageError("--hdf5-wall-limit must be between 1 and 60");
  }
  ckpt::hdf5::SetProbeTimes(o.probe_times);
  if (!ckpt::cli::Progress::ValidWhen(o.progress)) {
    return cli.UsageError("--progress must be auto, always or never, not '" + o.progress + "'");
  }
  if (cli.Has("inputs-from")) {
    if (auto stop = cli.AppendInputList(o.inputs_from, artifacts)) return *stop;
  }
  if (artifacts.empty()) return cli.UsageError("nothing to audit: give at least one ARTIFACT directory");

  ckpt::AuditOptions policy;
  policy.compute_hash = !cli.Has("no-hash");
  for (const std::string& name : o.expect_kinds) {
    auto kind = ckpt::InputKindFromName(name);
    if (!kind) {
      return cli.UsageError("--expect-kind '" + name + "' is not an input kind" + ckpt::InputKindSuggestion(name));
    }
    policy.expected_kinds.push_back(*kind);
  }
  if (auto stop = cli.ApplyAllowGroups(policy)) return *stop;
  // What is read remotely: the inputs, and a checkpoint or a bundle named by its URL.
  std::vector<std::string> read = artifacts;
  for (const std::string* named : {&o.derived_from, &o.model_signature}) {
    if (ckpt::remote::IsRemoteArgument(*named)) read.push_back(*named);
  }
  if (auto stop = cli.ApplyRemoteOptions(policy, read)) return *stop;
  ckpt::reports::ReportContext context = cli.Context();
  context.quiet = cli.Has("quiet");
  context.verbose = cli.Has("verbose") || cli.Has("inventory");
  if (auto stop = RefuseMismatchedOptions(cli)) return *stop;

  const bool verify_model = cli.Has("verify-model-signature");
  const bool sign_model = cli.Has("sign-model");
  if (verify_model || sign_model) {
    const std::string option = verify_model ? "--verify-model-signature" : "--sign-model";
    if (verify_model && sign_model) return cli.UsageError("--verify-model-signature and --sign-model: give one");
    if (cli.Has("verify-attestation") || cli.Has("verify-derivation") || cli.Has("attest")) {
      return cli.UsageError(option + " cannot be combined with --attest or --verify-attestation/-derivation");
    }
    if (artifacts.size() != 1) return cli.UsageError(option + " checks one MODEL");
    return RunModelSigning(cli, o, policy, artifacts.front(), context);
  }
  const bool verifying = cli.Has("verify-attestation") || cli.Has("verify-derivation");
  if (cli.Has("verify-attestation") && cli.Has("verify-derivation")) {
    return cli.UsageError("--verify-attestation and --verify-derivation check different things: give one");
  }
  if (cli.Has("trusted-key") && !verifying) {
    return cli.UsageError("--trusted-key is for --verify-attestation or --verify-derivation (ckpt-chain takes it too)");
  }
  if (cli.Has("derived-from") && !cli.Has("verify-derivation")) {
    return cli.UsageError("--derived-from goes with --verify-derivation");
  }
  if (verifying) return RunVerification(cli, o, policy, artifacts, context);
  return RunAudits(cli, o, policy, std::move(artifacts), context);
} catch (const std::exception& e) {
  std::cerr << "ckpt-audit: internal error: " << e.what() << "\n";
  return ckpt::kExitToolError;
}
