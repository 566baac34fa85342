// OpenSSF Model Signing beside the audit (docs/model-signing.md): verifying a model's
// `model.sig` against a trusted key, certificate roots or a Sigstore trusted root (offline), every failure an oms-*
// finding of the same result the audit produced; and writing a key-method bundle for a model whose audit passed,
// byte-stable for one input and one key.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "lib/io/artifact_source.h"
#include "lib/model/audit_result.h"
#include "lib/oms/keys.h"
#include "lib/oms/trusted_root.h"

namespace ckpt {

struct ModelSignatureTrust {
  enum class Method : std::uint8_t { kKey, kCertificate, kSigstore };
  Method method = Method::kKey;
  std::optional<oms::PublicKey> key;      ///< kKey
  std::vector<std::string> certificates;  ///< kCertificate: every certificate of the trusted PEM files (DER)
  std::optional<oms::TrustedRoot> root;   ///< kSigstore: the logs and authorities trusted
  std::string identity;                   ///< kSigstore: the SAN the certificate must carry
  std::string identity_pattern;           ///< kSigstore: or a pattern one SAN must match whole
  std::string issuer;                     ///< kSigstore: the OIDC issuer it must name
};

struct VerifyModelSignatureOptions {
  std::string signature;           ///< the bundle's path
  bool default_signature = false;  ///< MODEL/model.sig, not named: its absence is oms-signature-missing
  ModelSignatureTrust trust;
  std::vector<std::string> ignore_paths;  ///< --ignore-path, normalized, relative to MODEL
  unsigned jobs = 1;
  /// Verify the bundle and its statement only, not the files (verify-then-load's lazy hold
  /// checks each file against its signed digest when it is first read): the signed SHA-256
  /// of each whole file go to `signed_digests` (a shards statement, or BLAKE2b digests, are
  /// a tool error: the lazy hold cannot check them).
  std::map<std::string, std::string>* signed_digests = nullptr;
  /// A remote MODEL (hf://, a directory URL): the source its audit read, kept open. Its files
  /// are listed there and each digest is the audit's own, bound to the file's ETag, or one
  /// read of the file now; with `default_signature`, model.sig is read there too.
  const ArtifactSource* remote_model = nullptr;
  /// A bundle at a URL (a directory URL's model.sig, or --verify-model-signature=URL): read
  /// as `file` of `source`, bound to its ETag; a null source is a URL the server answered 404.
  struct RemoteBundle {
    const ArtifactSource* source = nullptr;
    std::string file;
  };
  std::optional<RemoteBundle> remote_bundle;
};

/// Verifies the signature of the model at `model` (whose audit is `audited`, with the
/// digests of its reads) and adds the findings (gated as `policy` says) and the facts to
/// `audited`. A bundle that cannot be read is a tool error.
void VerifyModelSignature(const std::string& model, const VerifyModelSignatureOptions& options,
                          const AuditOptions& policy, AuditResult& audited);

struct SignModelOptions {
  oms::PrivateKey key;
  std::string output;                     ///< where the bundle goes (to know whether it is inside MODEL)
  std::vector<std::string> ignore_paths;  ///< --ignore-path, normalized
  unsigned jobs = 1;
};

struct SignedModel {
  std::string bundle;                ///< the bundle's bytes
  std::optional<std::string> error;  ///< why the model cannot be signed (a usage error)
  std::size_t files = 0;             ///< the files it signs
  std::vector<std::string> ignored;  ///< the --ignore-path paths it leaves out
  std::string key_hint;              ///< the signing key's hint, as the bundle names it
};

/// The bundle for the model folder `model`, whose audit (`audited`) passed.
SignedModel SignModel(const std::string& model, const SignModelOptions& options, const AuditResult& audited);

/// The statement's bytes as Python's json.dumps(statement, indent=2, ensure_ascii=False)
/// prints them (what model_signing signs).
std::string ModelSignaturePayload(const std::string& model_name, const std::vector<std::string>& ignore_paths,
                                  const std::vector<std::pair<std::string, std::string>>& resources_hex);

}  // namespace ckpt
