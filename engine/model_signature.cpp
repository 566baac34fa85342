#include "engine/model_signature.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <ctime>
#include <filesystem>
#include <set>
#include <span>

#include "engine/attestation.h"
#include "engine/audit.h"
#include "lib/core/base64.h"
#include "lib/core/text.h"
#include "lib/gate/gate.h"
#include "lib/hashing/sha256.h"
#include "lib/io/small_file.h"
#include "lib/json/json_writer.h"
#include "lib/oms/bundle.h"
#include "lib/oms/fulcio_certificate.h"
#include "lib/oms/model_files.h"
#include "lib/oms/statement.h"
#include "lib/oms/transparency_log.h"
#include "lib/oms/x509_path.h"
#include "rules/reader_rules.h"

namespace ckpt {
namespace {

namespace fs = std::filesystem;

// `path` relative to `model` when it lies inside it (both resolved as far as they exist).
std::optional<std::string> InsideModel(const std::string& model, const std::string& path) {
  std::error_code ec;
  const fs::path root = fs::weakly_canonical(model, ec);
  if (ec) return std::nullopt;
  const fs::path target = fs::weakly_canonical(path, ec);
  if (ec) return std::nullopt;
  const fs::path relative = target.lexically_relative(root);
  if (relative.empty() || relative == "." || *relative.begin() == "..") return std::nullopt;
  return relative.generic_string();
}

// What the folder comparison ignores besides the statement's own entries: the defaults at the
// top level, the signature when it lies inside the model, and --ignore-path.
std::vector<std::string> BaseIgnores(const std::string& model, const std::string& signature,
                                     const std::vector<std::string>& extra) {
  std::vector<std::string> out(std::begin(oms::kDefaultIgnorePaths), std::end(oms::kDefaultIgnorePaths));
  if (auto inside = InsideModel(model, signature)) out.push_back(*inside);
  out.insert(out.end(), extra.begin(), extra.end());
  return out;
}

// A remote model's ignores: the defaults, its own model.sig when that is the signature read,
// and --ignore-path.
std::vector<std::string> BaseIgnores(const std::vector<std::string>& extra, bool default_signature) {
  std::vector<std::string> out(std::begin(oms::kDefaultIgnorePaths), std::end(oms::kDefaultIgnorePaths));
  if (default_signature) out.emplace_back("model.sig");
  out.insert(out.end(), extra.begin(), extra.end());
  return out;
}

enum class SignatureRead : std::uint8_t { kRead, kMissing, kTooLarge, kUnreadable };

// The bundle at `path` into `text` (on kUnreadable: why).
SignatureRead ReadLocalSignature(const std::string& path, std::string& text) {
  std::error_code ec;
  const fs::file_status status = fs::status(path, ec);
  if (!fs::exists(status)) return SignatureRead::kMissing;
  if (fs::is_regular_file(status) && fs::file_size(path, ec) > oms::kMaxBundleBytes && !ec) {
    return SignatureRead::kTooLarge;
  }
  SmallFile file = ReadSmallFile(path, static_cast<std::size_t>(oms::kMaxBundleBytes));
  text = file.ok() ? std::move(file.text) : file.error;
  return file.ok() ? SignatureRead::kRead : SignatureRead::kUnreadable;
}

// A bundle read from a remote source (bound to its ETag like every file): a remote model's own
// model.sig, or a bundle named by its URL.
SignatureRead ReadRemoteSignature(const ArtifactSource& source, const std::string& name, std::string& text) {
  auto file = source.Open(name);
  if (!file) {
    if (file.error().value() == ENOENT) return SignatureRead::kMissing;
    text = file.error().message();
    return SignatureRead::kUnreadable;
  }
  const std::uint64_t size = (*file)->size();
  if (size > oms::kMaxBundleBytes) return SignatureRead::kTooLarge;
  text.assign(static_cast<std::size_t>(size), '\0');
  if (auto read = (*file)->ReadAt(0, std::as_writable_bytes(std::span(text.data(), text.size()))); !read) {
    text = read.error().message();
    return SignatureRead::kUnreadable;
  }
  return SignatureRead::kRead;
}

// A remote file's digest: the audit's own SHA-256 of its read (each admitted file was checked
// against its ETag when the audit ended), else one read of it now through the same source.
oms::WholeFileDigester RemoteDigester(const ArtifactSource& model, const AuditResult& audited, oms::HashType hash) {
  std::map<std::string, std::string> audited_sha256;
  for (const AdmittedFile& f : audited.artifact.files) {
    if (f.sha256 && !f.change) audited_sha256.emplace(f.name, *f.sha256);
  }
  return [&model, hash, audited_sha256 = std::move(audited_sha256)](const oms::ModelFile& file,
                                                                    std::string& error) -> std::optional<std::string> {
    if (auto it = audited_sha256.find(file.name); hash == oms::HashType::kSha256 && it != audited_sha256.end()) {
      if (auto raw = FromHex(it->second)) return raw;
    }
    return oms::HashSourceFile(model, file.name, hash, error);
  };
}

std::map<std::string, oms::KnownDigest> KnownDigests(const AuditResult& audited) {
  std::map<std::string, oms::KnownDigest> known;
  const Artifact& a = audited.artifact;
  // A tar's members are not the model's files, and a remote input has none on this disk.
  if (a.kind == InputKind::kLensembleTar || a.remote) return known;
  for (const AdmittedFile& f : a.files) {
    if (f.sha256 && !f.change) known.emplace(f.name, oms::KnownDigest{f.identity, *f.sha256});
  }
  return known;
}

std::string_view MaterialName(oms::Material m) {
  switch (m) {
    case oms::Material::kPublicKey:
      return "a public key (key method)";
    case oms::Material::kCertificateChain:
      return "a certificate chain (certificate method)";
    case oms::Material::kCertificate:
      return "a Sigstore certificate (sigstore method)";
    case oms::Material::kNone:
      break;
  }
  return "no verification material this verifier knows";
}

// Which PAE the signature holds over with `key`: the standard one, else model_signing 0.2's
// (with `legacy_hash`), else none.
std::optional<std::string> VerifiedPae(const oms::PublicKey& key, const oms::Bundle& bundle,
                                       oms::SignatureHash legacy_hash) {
  if (oms::VerifySignature(key, oms::StandardPae(bundle.payload_type, bundle.payload), bundle.signature)) {
    return "dsse-v1";
  }
  if (oms::VerifySignature(key, oms::LegacyPae(bundle.payload_type, bundle.payload), bundle.signature, legacy_hash)) {
    return "v0.2-compat";
  }
  return std::nullopt;
}

// The key method (docs/model-signing.md): the signature holds with the trusted key. False after
// a finding.
bool CheckKeyTrust(const oms::Bundle& bundle, const ModelSignatureTrust& trust, const FileReporter& report,
                   oms::ModelSignatureFacts& facts) {
  const oms::PublicKey& key = *trust.key;
  facts.key_hint = key.hint;
  if (bundle.material != oms::Material::kPublicKey) {
    report(Diag::kOmsMethodMismatch, "The bundle carries " + std::string(MaterialName(bundle.material)) +
                                         ", not a public key: --trusted-key verifies key-method signatures only.");
    return false;
  }
  if (bundle.key_hint && !bundle.key_hint->empty() && *bundle.key_hint != key.hint) {
    report(Diag::kOmsKeyUntrusted, "The bundle names the key " + QuoteForMessage(*bundle.key_hint, 80) +
                                       ", not the trusted key " + key.hint + " (" +
                                       std::string(oms::KeyAlgorithmName(key.algorithm)) + ").");
    return false;
  }
  if (auto pae = VerifiedPae(key, bundle, oms::SignatureHash::kCurveHash)) {
    facts.pae = *pae;
    return true;
  }
  if (bundle.key_raw_bytes) {
    auto carried = oms::ParsePublicKey(*bundle.key_raw_bytes);
    if (auto* other = std::get_if<oms::PublicKey>(&carried); other != nullptr && other->spki_der != key.spki_der) {
      report(Diag::kOmsKeyUntrusted, "The signature does not verify with the trusted key " + key.hint +
                                         "; the bundle carries another key, " + other->hint + ".");
      return false;
    }
  }
  report(Diag::kOmsSignatureInvalid, bundle.signature_offset,
         "The signature does not verify with the trusted key " + key.hint +
             " over the DSSE encoding of the payload (nor model_signing 0.2's): the payload or the signature "
             "changed after signing.");
  return false;
}

// The certificate method: a path to a trusted root at the leaf's notBefore, a signing usage,
// and the signature with the leaf's key.
bool CheckCertificateTrust(const oms::Bundle& bundle, const ModelSignatureTrust& trust, const FileReporter& report,
                           oms::ModelSignatureFacts& facts) {
  if (bundle.material != oms::Material::kCertificateChain || bundle.certificates.empty()) {
    report(Diag::kOmsMethodMismatch,
           "The bundle carries " +
               std::string(bundle.material == oms::Material::kCertificateChain ? "an empty certificate chain"
                                                                               : MaterialName(bundle.material)) +
               ", not a certificate chain: --trusted-cert-chain verifies certificate-method signatures only.");
    return false;
  }
  std::vector<oms::CertificateFacts> described;
  for (const std::string& der : bundle.certificates) {
    auto facts_of = oms::DescribeCertificate(der);
    if (!facts_of) {
      report(Diag::kOmsBundleInvalid, "The signature file is not a Sigstore bundle: certificate " +
                                          std::to_string(described.size() + 1) +
                                          " of its chain is not a DER X.509 certificate.");
      return false;
    }
    described.push_back(std::move(*facts_of));
  }
  const oms::CertificateFacts& leaf = described.front();
  facts.certificate = oms::SignedCertificate{leaf.subject, leaf.issuer, leaf.sha256};
  const std::vector<std::string> intermediates(bundle.certificates.begin() + 1, bundle.certificates.end());
  const oms::PathResult path =
      oms::VerifyCertificatePath(bundle.certificates.front(), intermediates, trust.certificates);
  if (!path.valid) {
    report(Diag::kOmsCertUntrusted, "The signing certificate " + QuoteForMessage(leaf.subject) +
                                        " does not chain to a trusted root at its notBefore: " + path.error + ".");
    return false;
  }
  if (!leaf.signing_usage) {
    report(Diag::kOmsCertUsage, "The signing certificate " + QuoteForMessage(leaf.subject) +
                                    " allows neither digitalSignature (KeyUsage) nor codeSigning (ExtendedKeyUsage).");
    return false;
  }
  auto key = oms::PublicKeyFromSpki(leaf.spki_der);
  if (auto* error = std::get_if<oms::KeyError>(&key)) {
    report(Diag::kOmsKeyUnsupported,
           "The signing certificate " + QuoteForMessage(leaf.subject) + " holds " + error->message + ".");
    return false;
  }
  // model_signing 0.2 signed with SHA-256 whatever the curve.
  if (auto pae = VerifiedPae(std::get<oms::PublicKey>(key), bundle, oms::SignatureHash::kSha256)) {
    facts.pae = *pae;
    return true;
  }
  report(Diag::kOmsSignatureInvalid, bundle.signature_offset,
         "The signature does not verify with the key of " + QuoteForMessage(leaf.subject) +
             " over the DSSE encoding of the payload (nor model_signing 0.2's): the payload or the signature changed "
             "after signing.");
  return false;
}

std::string ListForMessage(const std::vector<std::string>& names) {
  if (names.empty()) return "none";
  std::string out;
  for (std::size_t i = 0; i < names.size() && i < 8; ++i) out += (i == 0 ? "" : ", ") + QuoteForMessage(names[i], 120);
  if (names.size() > 8) out += ", ...";
  return out;
}

// The sigstore method, offline (docs/model-signing.md): the signature with the Fulcio
// certificate's key; a Rekor entry of the root's logs for it, with a signed entry timestamp
// (the signing time) and whatever proofs it carries holding; the certificate chaining to a
// Fulcio authority of the root at that time; its embedded SCT; the identity and issuer asked.
bool CheckSigstoreTrust(const oms::Bundle& bundle, const ModelSignatureTrust& trust, const FileReporter& report,
                        oms::ModelSignatureFacts& facts) {
  if ((bundle.material != oms::Material::kCertificate && bundle.material != oms::Material::kCertificateChain) ||
      bundle.certificates.empty()) {
    report(Diag::kOmsMethodMismatch,
           "The bundle carries " +
               std::string(bundle.material == oms::Material::kCertificateChain ? "an empty certificate chain"
                                                                               : MaterialName(bundle.material)) +
               ", not a Fulcio certificate: --sigstore-trusted-root verifies keyless (sigstore-method) signatures "
               "only.");
    return false;
  }
  const oms::TrustedRoot& root = *trust.root;
  const std::string& leaf_der = bundle.certificates.front();
  auto leaf = oms::DescribeCertificate(leaf_der);
  if (!leaf) {
    report(Diag::kOmsBundleInvalid,
           "The signature file is not a Sigstore bundle: its certificate is not a DER X.509 certificate.");
    return false;
  }
  facts.certificate = oms::SignedCertificate{leaf->subject, leaf->issuer, leaf->sha256};
  const std::string who =
      "the certificate " + leaf->sha256.substr(0, 16) + " (issued by " + QuoteForMessage(leaf->issuer) + ")";
  auto key = oms::PublicKeyFromSpki(leaf->spki_der);
  if (auto* error = std::get_if<oms::KeyError>(&key)) {
    report(Diag::kOmsKeyUnsupported, "The signing certificate holds " + error->message + ".");
    return false;
  }
  if (!oms::VerifySignature(std::get<oms::PublicKey>(key), oms::StandardPae(bundle.payload_type, bundle.payload),
                            bundle.signature)) {
    report(Diag::kOmsSignatureInvalid, bundle.signature_offset,
           "The signature does not verify with the key of " + who +
               " over the DSSE encoding of the payload: the payload or the signature changed after signing.");
    return false;
  }
  facts.pae = "dsse-v1";

  const oms::TlogVerdict tlog =
      oms::VerifyTlogEntries(bundle.tlog_entries, root, bundle.payload, bundle.signature, leaf_der);
  if (tlog.error) {
    report(Diag::kOmsTlogInvalid, tlog.offset,
           (tlog.entry == 0
                ? std::string("The transparency log does not vouch for the signature: ")
                : "Transparency log entry " + std::to_string(tlog.entry) + " does not vouch for the signature: ") +
               *tlog.error + ".");
    return false;
  }
  const std::int64_t signed_at = *tlog.integrated_time;
  facts.integrated_time = signed_at;

  // The Fulcio authority whose validity holds the signing time, and a path to its root then.
  const oms::CertificateAuthority* authority = nullptr;
  std::string path_error = "no certificate authority of the trusted root was valid then";
  for (const oms::CertificateAuthority& ca : root.certificate_authorities) {
    if (!ca.valid_for.Contains(signed_at * 1000)) continue;
    const std::vector<std::string> intermediates(ca.chain.begin(), ca.chain.end() - 1);
    const oms::PathResult path =
        oms::VerifyCertificatePath(leaf_der, intermediates, {ca.chain.back()}, static_cast<std::time_t>(signed_at));
    if (path.valid) {
      authority = &ca;
      break;
    }
    path_error = path.error;
  }
  if (authority == nullptr) {
    report(Diag::kOmsCertUntrusted, "The signing certificate " + who +
                                        " does not chain to a Fulcio authority of the trusted root at the "
                                        "signing time " +
                                        UtcTime(signed_at) + ": " + path_error + ".");
    return false;
  }
  if (!leaf->signing_usage) {
    report(Diag::kOmsCertUsage, "The signing certificate " + who +
                                    " allows neither digitalSignature (KeyUsage) nor codeSigning (ExtendedKeyUsage).");
    return false;
  }

  // Certificate transparency: an SCT of a CT log of the root over the precertificate.
  std::string issuer_key_hash;
  for (const std::string& der : authority->chain) {
    auto ca_facts = oms::DescribeCertificate(der);
    if (ca_facts && ca_facts->subject == leaf->issuer) {
      issuer_key_hash = Sha256Digest(ca_facts->spki_der);
      break;
    }
  }
  auto embedded = oms::EmbeddedTimestampsOf(leaf_der);
  if (auto* error = std::get_if<std::string>(&embedded)) {
    report(Diag::kOmsSctInvalid, "The signing certificate " + who + " is not logged: " + *error + ".");
    return false;
  }
  const auto& timestamps = std::get<oms::EmbeddedTimestamps>(embedded);
  bool logged = false;
  std::string sct_error = "none is from a CT log of the trusted root";
  for (const oms::SignedTimestamp& sct : timestamps.timestamps) {
    const auto log = std::find_if(root.ctlogs.begin(), root.ctlogs.end(),
                                  [&](const oms::LogKey& l) { return l.key_id == sct.log_id; });
    if (log == root.ctlogs.end()) continue;
    if (!log->key) {
      sct_error = "the key of the CT log " + QuoteForMessage(log->base_url) + " is " + log->unsupported;
      continue;
    }
    if (sct.hash_algorithm != 4 || issuer_key_hash.empty()) {
      sct_error = issuer_key_hash.empty() ? "the issuing certificate is not in the authority's chain"
                                          : "an SCT is signed with a hash other than SHA-256";
      continue;
    }
    const std::string signed_data = oms::PrecertificateSignedData(sct, issuer_key_hash, timestamps.precertificate_tbs);
    if (oms::VerifySignature(*log->key, signed_data, sct.signature, oms::SignatureHash::kSha256)) {
      logged = true;
      break;
    }
    sct_error = "the SCT of " + QuoteForMessage(log->base_url) + " does not verify over the precertificate";
  }
  if (!logged) {
    report(Diag::kOmsSctInvalid, "The signing certificate " + who +
                                     " has no valid certificate transparency timestamp: of its " +
                                     Plural(timestamps.timestamps.size(), "embedded SCT") + ", " + sct_error + ".");
    return false;
  }

  auto identity = oms::IdentityOf(leaf_der);
  if (auto* error = std::get_if<std::string>(&identity)) {
    report(Diag::kOmsIdentityMismatch, "The signing certificate " + who + " names no identity: " + *error + ".");
    return false;
  }
  const auto& names = std::get<oms::CertificateIdentity>(identity);
  std::vector<std::string> sans = names.emails;
  sans.insert(sans.end(), names.uris.begin(), names.uris.end());
  std::optional<std::string> signer;
  for (const std::string& san : sans) {
    const bool match = trust.identity_pattern.empty() ? san == trust.identity
                                                      : oms::IdentityMatchesPattern(trust.identity_pattern, san);
    if (match && !signer) signer = san;
  }
  if (!signer) {
    report(Diag::kOmsIdentityMismatch,
           "The model was signed by " + ListForMessage(sans) + ", not by " +
               (trust.identity_pattern.empty() ? "--identity " + QuoteForMessage(trust.identity, 120)
                                               : "an identity matching --identity-pattern " +
                                                     QuoteForMessage(trust.identity_pattern, 120) + " whole") +
               ".");
    return false;
  }
  if (names.oidc_issuer != trust.issuer) {
    report(Diag::kOmsIdentityMismatch,
           "The signer " + QuoteForMessage(*signer, 120) + " signed in at " +
               (names.oidc_issuer ? QuoteForMessage(*names.oidc_issuer, 120) : std::string("no recorded OIDC issuer")) +
               ", not at --issuer " + QuoteForMessage(trust.issuer, 120) + ".");
    return false;
  }
  facts.identity = *signer;
  facts.issuer = trust.issuer;
  return true;
}

bool CheckTrust(const oms::Bundle& bundle, const ModelSignatureTrust& trust, const FileReporter& report,
                oms::ModelSignatureFacts& facts) {
  switch (trust.method) {
    case ModelSignatureTrust::Method::kKey:
      return CheckKeyTrust(bundle, trust, report, facts);
    case ModelSignatureTrust::Method::kCertificate:
      return CheckCertificateTrust(bundle, trust, report, facts);
    case ModelSignatureTrust::Method::kSigstore:
      return CheckSigstoreTrust(bundle, trust, report, facts);
  }
  return false;
}

std::string MethodName(ModelSignatureTrust::Method method) {
  switch (method) {
    case ModelSignatureTrust::Method::kKey:
      return "key";
    case ModelSignatureTrust::Method::kCertificate:
      return "certificate";
    case ModelSignatureTrust::Method::kSigstore:
      return "sigstore";
  }
  return "key";
}

void MergeFindings(FindingSink& sink, const AuditOptions& policy, AuditResult& audited) {
  std::vector<Finding> findings = std::move(sink.findings());
  std::vector<DroppedFindings> dropped = sink.dropped();
  if (policy.gate != nullptr) ApplyGate(*policy.gate, findings, dropped, audited.artifact.path);
  audited.findings.insert(audited.findings.end(), std::make_move_iterator(findings.begin()),
                          std::make_move_iterator(findings.end()));
  audited.dropped.insert(audited.dropped.end(), dropped.begin(), dropped.end());
  SortFindings(audited.findings);
}

// MODEL's last path component, as model_signing names the subject.
std::string SubjectName(const std::string& model) {
  std::string trimmed = model;
  while (trimmed.size() > 1 && trimmed.back() == '/') trimmed.pop_back();
  std::string name = fs::path(trimmed).filename().string();
  if (name.empty() || name == "." || name == "..") {
    std::error_code ec;
    name = fs::canonical(model, ec).filename().string();
  }
  return name;
}

}  // namespace

void VerifyModelSignature(const std::string& model, const VerifyModelSignatureOptions& options,
                          const AuditOptions& policy, AuditResult& audited) {
  oms::ModelSignatureFacts& facts = audited.model_signature.emplace();
  facts.signature = options.signature;
  facts.method = MethodName(options.trust.method);
  if (options.trust.key) facts.key_hint = options.trust.key->hint;
  FindingSink sink;
  rules::LocatedRuleSink at_signature(sink, FileLocation(options.signature));
  const FileReporter report("", at_signature);
  auto finish = [&] {
    facts.verified = sink.findings().empty() && sink.dropped().empty();
    MergeFindings(sink, policy, audited);
  };

  const bool remote = options.remote_model != nullptr;
  std::string bundle_text;
  SignatureRead read = SignatureRead::kMissing;
  if (const auto& bundle = options.remote_bundle) {
    if (bundle->source) read = ReadRemoteSignature(*bundle->source, bundle->file, bundle_text);
  } else if (remote && options.default_signature) {
    read = ReadRemoteSignature(*options.remote_model, "model.sig", bundle_text);
  } else {
    read = ReadLocalSignature(options.signature, bundle_text);
  }
  switch (read) {
    case SignatureRead::kRead:
      break;
    case SignatureRead::kMissing:
      if (options.default_signature) {
        report(Diag::kOmsSignatureMissing,
               "The model has no model.sig: nothing says who signed its files (name a bundle with "
               "--verify-model-signature=PATH).");
        finish();
      } else {
        audited.tool_errors.push_back("cannot read the model signature " + QuoteForMessage(options.signature) +
                                      ": it does not exist");
      }
      return;
    case SignatureRead::kTooLarge:
      report(Diag::kOmsBundleInvalid, "The signature file is not a Sigstore bundle: it is larger than 64 MiB.");
      finish();
      return;
    case SignatureRead::kUnreadable:
      audited.tool_errors.push_back("cannot read the model signature " + QuoteForMessage(options.signature) + ": " +
                                    bundle_text);
      return;
  }
  {
    Sha256 sha;
    sha.Update(bundle_text);
    facts.signature_sha256 = sha.FinalHex();
  }
  auto bundle = oms::ParseBundle(bundle_text, report);
  if (!bundle) return finish();
  // Sigstore clients also spell the v0.3 type the older way; model_signing's key and
  // certificate bundles never do.
  const bool sigstore = options.trust.method == ModelSignatureTrust::Method::kSigstore;
  if (bundle->media_type != oms::kBundleMediaType &&
      !(sigstore && bundle->media_type == oms::kBundleMediaTypeAlternative)) {
    report(Diag::kOmsMediaType, "The bundle's mediaType " + QuoteForMessage(bundle->media_type, 120) + " is not " +
                                    std::string(oms::kBundleMediaType) + ".");
    return finish();
  }
  if (bundle->payload_type != oms::kInTotoPayloadType) {
    report(Diag::kOmsPayloadType, bundle->payload_offset,
           "The envelope's payloadType " + QuoteForMessage(bundle->payload_type, 120) + " is not " +
               std::string(oms::kInTotoPayloadType) + ".");
    return finish();
  }
  if (!CheckTrust(*bundle, options.trust, report, facts)) return finish();

  auto manifest = oms::ParseManifest(bundle->payload, [&](Diag kind, std::string message) {
    report(kind, bundle->payload_offset, std::move(message));
  });
  if (!manifest) return finish();
  facts.predicate_type = manifest->predicate_type;
  facts.serialization = manifest->method == oms::SerializationMethod::kShards ? "shards" : "files";
  facts.hash_type = std::string(oms::HashTypeName(manifest->hash));
  facts.resources = manifest->resources.size();
  facts.root_known = true;
  facts.root_digest = manifest->root_digest;
  if (options.signed_digests != nullptr) {
    if (manifest->method != oms::SerializationMethod::kFiles || manifest->hash != oms::HashType::kSha256) {
      audited.tool_errors.push_back("the model signature " + QuoteForMessage(options.signature) + " signs " +
                                    (manifest->method == oms::SerializationMethod::kFiles ? "files" : "shards") +
                                    " with " + std::string(oms::HashTypeName(manifest->hash)) +
                                    ": hold 'lazy' checks whole files by SHA-256 only");
      return;
    }
    for (const oms::Resource& r : manifest->resources) (*options.signed_digests)[r.path] = ToHex(r.digest);
    return finish();
  }

  std::vector<std::string> ignore = remote ? BaseIgnores(options.ignore_paths, options.default_signature)
                                           : BaseIgnores(model, options.signature, options.ignore_paths);
  for (const std::string& entry : manifest->ignore_paths) {
    if (auto normalized = oms::NormalizeIgnorePath(entry)) ignore.push_back(*normalized);
  }
  const oms::ModelListing listing = remote ? oms::ListSourceModel(*options.remote_model, ignore)
                                           : oms::ListModel(model, ignore, manifest->allow_symlinks);
  if (listing.error) {
    audited.tool_errors.push_back(*listing.error);
    return;
  }
  rules::RuleSink at_model(sink);
  const oms::ComparisonResult compared =
      remote ? oms::CompareWithManifest(listing, *manifest,
                                        RemoteDigester(*options.remote_model, audited, manifest->hash), 1, at_model)
             : oms::CompareWithManifest(listing, *manifest, KnownDigests(audited), options.jobs, at_model);
  if (compared.error) {
    audited.tool_errors.push_back(*compared.error);
    return;
  }
  facts.files = compared.files_compared;
  finish();
}

std::string ModelSignaturePayload(const std::string& model_name, const std::vector<std::string>& ignore_paths,
                                  const std::vector<std::pair<std::string, std::string>>& resources_hex) {
  std::string root_input;
  for (const auto& [name, hex] : resources_hex) {
    root_input += FromHex(hex).value_or(std::string());
  }
  std::vector<oms::Resource> for_root(1);
  for_root[0].digest = root_input;
  const std::string root = oms::RootDigest(for_root);

  std::string out = "{\n  \"_type\": \"https://in-toto.io/Statement/v1\",\n  \"subject\": [\n    {\n      \"name\": ";
  out += json::QuoteString(model_name);
  out += ",\n      \"digest\": {\n        \"sha256\": \"" + root + "\"\n      }\n    }\n  ],\n";
  out += "  \"predicateType\": \"https://model_signing/signature/v1.0\",\n  \"predicate\": {\n";
  out += "    \"serialization\": {\n      \"method\": \"files\",\n      \"hash_type\": \"sha256\",\n";
  out += "      \"allow_symlinks\": false,\n      \"ignore_paths\": [";
  for (std::size_t i = 0; i < ignore_paths.size(); ++i) {
    out += i == 0 ? "\n        " : ",\n        ";
    out += json::QuoteString(ignore_paths[i]);
  }
  out += ignore_paths.empty() ? "]\n    },\n" : "\n      ]\n    },\n";
  out += "    \"resources\": [";
  for (std::size_t i = 0; i < resources_hex.size(); ++i) {
    out += i == 0 ? "\n      {\n        \"name\": " : ",\n      {\n        \"name\": ";
    out += json::QuoteString(resources_hex[i].first);
    out += ",\n        \"algorithm\": \"sha256\",\n        \"digest\": \"" + resources_hex[i].second + "\"\n      }";
  }
  out += resources_hex.empty() ? "]\n  }\n}" : "\n    ]\n  }\n}";
  return out;
}

SignedModel SignModel(const std::string& model, const SignModelOptions& options, const AuditResult& audited) {
  SignedModel out;
  std::vector<std::string> ignore = BaseIgnores(model, options.output, options.ignore_paths);
  std::sort(ignore.begin(), ignore.end());
  ignore.erase(std::unique(ignore.begin(), ignore.end()), ignore.end());
  const oms::ModelListing listing = oms::ListModel(model, ignore, false);
  if (listing.error) {
    out.error = *listing.error;
    return out;
  }
  if (listing.single_file) {
    out.error = "--sign-model signs a model folder, not a single file";
    return out;
  }
  if (!listing.symlinks.empty()) {
    out.error = QuoteForMessage(listing.symlinks.front().first) + " is " + listing.symlinks.front().second +
                "; a model signature covers regular files only (remove it, or --ignore-path it)";
    return out;
  }
  if (!listing.special_files.empty()) {
    out.error = QuoteForMessage(listing.special_files.front().first) + " is " + listing.special_files.front().second +
                "; a model signature covers regular files only";
    return out;
  }
  for (const oms::ModelFile& f : listing.files) {
    if (!f.valid_utf8) {
      out.error = QuoteForMessage(ToValidUtf8(f.name)) + " has a name that is not UTF-8, which no statement can name";
      return out;
    }
  }
  if (listing.files.empty()) {
    out.error = QuoteForMessage(model) + " holds no file to sign";
    return out;
  }
  const oms::HashedFiles hashed =
      oms::HashModelFiles(listing, oms::HashType::kSha256, KnownDigests(audited), options.jobs);
  if (hashed.error) {
    out.error = *hashed.error;
    return out;
  }
  std::vector<std::pair<std::string, std::string>> resources;
  for (std::size_t i = 0; i < listing.files.size(); ++i)
    resources.emplace_back(listing.files[i].name, ToHex(hashed.digests[i]));
  std::sort(resources.begin(), resources.end(),
            [](const auto& a, const auto& b) { return oms::ComponentOrderLess(a.first, b.first); });
  const std::string payload = ModelSignaturePayload(SubjectName(model), ignore, resources);
  const std::string signature = oms::SignDeterministic(options.key, oms::StandardPae(oms::kInTotoPayloadType, payload));
  out.bundle =
      R"({"mediaType":"application/vnd.dev.sigstore.bundle.v0.3+json","verificationMaterial":{"publicKey":{"hint":")" +
      options.key.public_key.hint + R"("},"tlogEntries":[]},"dsseEnvelope":{"payload":")" + Base64Encode(payload) +
      R"(","payloadType":"application/vnd.in-toto+json","signatures":[{"sig":")" + Base64Encode(signature) +
      R"(","keyid":""}]}})";
  out.files = resources.size();
  out.ignored = options.ignore_paths;  // what was asked; the defaults (.git, ...) go without saying
  out.key_hint = options.key.public_key.hint;
  return out;
}

}  // namespace ckpt
