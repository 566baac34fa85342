// OpenSSF Model Signing, the sigstore method offline (docs/model-signing.md): upstream's keyless
// vectors verify against the public-good trusted root they were made with, and each piece of
// evidence (the trusted root, the Rekor entry's signed entry timestamp, inclusion proof,
// checkpoint and integratedTime, the Fulcio chain, the SCT, the identity) is refused with its
// rule after one edit. The Merkle audit path and the time parser are checked on their own.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <filesystem>

#include "lib/core/base64.h"
#include "lib/core/der.h"
#include "lib/core/text.h"
#include "lib/hashing/sha256.h"
#include "lib/oms/fulcio_certificate.h"
#include "lib/oms/keys.h"
#include "lib/oms/transparency_log.h"
#include "lib/oms/trusted_root.h"
#include "tests/support/artifact_builder.h"
#include "tests/support/built_tools.h"
#include "tests/support/process.h"

namespace ckpt::testing {
namespace {

namespace fs = std::filesystem;

const fs::path kFixtures = fs::path(CKPT_SOURCE_DIR) / "fixtures/model-signing";
const fs::path kUpstream = kFixtures / "model-transparency";
const fs::path kTrustConfig = kUpstream / "custom_trust_config.json";
constexpr const char* kIdentity = "stefanb@us.ibm.com";
constexpr const char* kIssuer = "https://sigstore.verify.ibm.com/oauth2";

struct Verified {
  int exit_code = -1;
  boost::json::object signature;
  std::vector<std::string> oms_rules;
  std::vector<std::string> messages;
  std::string output;
};

Verified VerifyJson(const std::string& args) {
  Verified out;
  const CommandResult run = RunCommand(std::string(CKPT_AUDIT_BIN) + " --format json " + args + " 2>&1");
  out.exit_code = run.exit_code;
  out.output = run.output;
  boost::system::error_code ec;
  boost::json::value report = boost::json::parse(run.output, ec);
  if (ec) return out;
  const boost::json::object& artifact = report.at("artifacts").as_array().at(0).as_object();
  if (const auto* s = artifact.if_contains("model_signature")) out.signature = s->as_object();
  for (const auto& f : artifact.at("findings").as_array()) {
    const std::string rule(f.at("rule").as_string());
    if (!rule.starts_with("oms-")) continue;
    out.oms_rules.push_back(rule);
    out.messages.emplace_back(f.at("message").as_string());
  }
  return out;
}

std::string Trust(const fs::path& root, const std::string& identity = kIdentity, const std::string& issuer = kIssuer) {
  return " --sigstore-trusted-root " + ShellQuote(root) + " --identity " + ShellQuote(identity) + " --issuer " +
         ShellQuote(issuer);
}

Verified VerifySigstore(const fs::path& model, const std::string& trust = Trust(kTrustConfig),
                        const std::string& signature = "") {
  return VerifyJson("--verify-model-signature" + (signature.empty() ? "" : "=" + ShellQuote(signature)) +
                    " --ignore-path ignore-me" + trust + " " + ShellQuote(model));
}

fs::path CopyOf(const TempDir& dir, const std::string& vector) {
  fs::path copy = dir.path() / vector;
  fs::copy(kUpstream / vector, copy, fs::copy_options::recursive);
  return copy;
}

boost::json::object ReadJson(const fs::path& path) { return boost::json::parse(ReadText(path)).as_object(); }

void FlipBase64(boost::json::value& text, std::size_t from_end = 3) {
  std::string raw = Base64Decode(std::string(text.as_string())).value();
  raw[raw.size() - from_end] ^= 1;
  text = Base64Encode(raw);
}

// Edits the first tlog entry of `model`'s bundle.
template <class Edit>
void EditEntry(const fs::path& model, Edit edit) {
  boost::json::object bundle = ReadJson(model / "model.sig");
  edit(bundle["verificationMaterial"].as_object()["tlogEntries"].as_array()[0].as_object());
  WriteText(model / "model.sig", boost::json::serialize(bundle));
}

// The trusted root of the upstream config, edited, as a ClientTrustConfig in `dir`.
template <class Edit>
fs::path EditedRoot(const TempDir& dir, Edit edit) {
  boost::json::object config = ReadJson(kTrustConfig);
  edit(config["trustedRoot"].as_object());
  fs::path path = dir.path() / "trust.json";
  WriteText(path, boost::json::serialize(config));
  return path;
}

// A P-256 key that is not the log's: RFC 6979 A.2.5's.
std::string OtherKeySpkiBase64() {
  const std::string scalar = FromHex("c9afa9d845ba75166b5c215767b1d6934e50c3db36e89b127b8a622b120f6721").value();
  const std::string sec1 = der::Encode(
      der::kSequence, der::EncodeUnsignedInteger("\x01") + der::Encode(der::kOctetString, scalar) +
                          der::Encode(der::kContext0, der::Encode(der::kOid, "\x2a\x86\x48\xce\x3d\x03\x01\x07")));
  const auto key = oms::ParsePrivateKey(oms::PemOf(sec1, "EC PRIVATE KEY"));
  return Base64Encode(std::get<oms::PrivateKey>(key).public_key.spki_der);
}

TEST(ModelSigningSigstore, UpstreamVectorsVerifyOffline) {
  const std::pair<const char*, std::int64_t> vectors[] = {
      {"v1.1.0-sigstore", 0}, {"v1.0.1-sigstore", 1759851228}, {"v1.0.0-sigstore", 0}, {"v0.3.1-sigstore", 0}};
  for (const auto& [v, time] : vectors) {
    Verified r = VerifySigstore(kUpstream / v);
    EXPECT_EQ(r.signature["verified"], true) << v << r.output;
    EXPECT_EQ(r.signature["method"], "sigstore") << v;
    EXPECT_EQ(r.signature["identity"], kIdentity) << v;
    EXPECT_EQ(r.signature["issuer"], kIssuer) << v;
    EXPECT_EQ(r.signature["pae"], "dsse-v1") << v;
    EXPECT_EQ(r.signature["certificate"].at("issuer"), "CN=sigstore-intermediate,O=sigstore.dev") << v;
    EXPECT_TRUE(r.signature["integrated_time"].is_int64()) << v;
    if (time != 0) {
      EXPECT_EQ(r.signature["integrated_time"], time) << v;
    }
    EXPECT_EQ(r.oms_rules, std::vector<std::string>{}) << v;
  }
  // A bare trusted_root.json, the spec repository's bundle over the same files, and the text line.
  TempDir dir;
  const fs::path bare = dir.path() / "trusted_root.json";
  WriteText(bare, boost::json::serialize(ReadJson(kTrustConfig)["trustedRoot"]));
  EXPECT_EQ(VerifySigstore(kUpstream / "v1.0.1-sigstore", Trust(bare)).signature["verified"], true);
  Verified spec = VerifySigstore(kUpstream / "v1.1.0-sigstore", Trust(kTrustConfig),
                                 (kFixtures / "model-signing-spec/valid/sigstore.bundle.json").string());
  EXPECT_EQ(spec.signature["verified"], true) << spec.output;
  const CommandResult text =
      RunCommand(std::string(CKPT_AUDIT_BIN) + " --verbose --verify-model-signature --ignore-path ignore-me" +
                 Trust(kTrustConfig) + " " + ShellQuote(kUpstream / "v1.0.1-sigstore") + " 2>&1");
  EXPECT_NE(text.output.find("  model signature: verified by sigstore stefanb@us.ibm.com from "
                             "https://sigstore.verify.ibm.com/oauth2 (https://model_signing/signature/v1.0), 2 files, "
                             "root sha256:"),
            std::string::npos)
      << text.output;
}

TEST(ModelSigningSigstore, EditsToTheRekorEntryAreRefused) {
  struct Case {
    const char* what;
    void (*edit)(boost::json::object& entry);
    const char* message;
  };
  const Case cases[] = {
      {"signed entry timestamp",
       [](boost::json::object& e) { FlipBase64(e["inclusionPromise"].as_object()["signedEntryTimestamp"]); },
       "its signed entry timestamp does not verify with the key of 'https://rekor.sigstore.dev'"},
      {"integratedTime",
       [](boost::json::object& e) {
         e["integratedTime"] = std::to_string(std::stoll(std::string(e["integratedTime"].as_string())) + 1);
       },
       "its signed entry timestamp does not verify"},
      {"logIndex",
       [](boost::json::object& e) {
         e["logIndex"] = std::to_string(std::stoll(std::string(e["logIndex"].as_string())) + 1);
       },
       "its signed entry timestamp does not verify"},
      {"inclusion proof hash",
       [](boost::json::object& e) { FlipBase64(e["inclusionProof"].as_object()["hashes"].as_array()[3], 1); },
       "its inclusion proof does not lead from the entry at 467035550 to the root hash of a tree of 467035599"},
      {"inclusion proof index",
       [](boost::json::object& e) { e["inclusionProof"].as_object()["logIndex"] = "467035551"; },
       "its inclusion proof does not lead"},
      {"inclusion proof tree size",
       // An audit path does not fix the tree's size (the same path proves leaf 467035550 in a
       // tree one larger): the signed checkpoint does.
       [](boost::json::object& e) { e["inclusionProof"].as_object()["treeSize"] = "467035600"; },
       "its checkpoint is for a tree of '467035599', not 467035600"},
      {"checkpoint signature",
       [](boost::json::object& e) {
         boost::json::value& note = e["inclusionProof"].as_object()["checkpoint"].as_object()["envelope"];
         std::string text(note.as_string());
         const std::size_t at = text.size() - 6;
         text[at] = text[at] == 'A' ? 'B' : 'A';
         note = text;
       },
       "its checkpoint is not signed by the key of 'https://rekor.sigstore.dev'"},
      {"checkpoint tree size",
       [](boost::json::object& e) {
         boost::json::value& note = e["inclusionProof"].as_object()["checkpoint"].as_object()["envelope"];
         std::string text(note.as_string());
         text.replace(text.find("\n467035599\n"), 11, "\n467035598\n");
         note = text;
       },
       "its checkpoint is for a tree of '467035598', not 467035599"},
      {"no signed entry timestamp", [](boost::json::object& e) { e.erase("inclusionPromise"); },
       "no entry carries a signed entry timestamp"},
      {"another log", [](boost::json::object& e) { FlipBase64(e["logId"].as_object()["keyId"]); },
       "is not a transparency log of the trusted root"},
      {"another kind", [](boost::json::object& e) { e["kindVersion"].as_object()["kind"] = "intoto"; },
       "is not a dsse 0.0.1 entry"},
      {"another body",
       [](boost::json::object& e) {
         std::string body = Base64Decode(std::string(e["canonicalizedBody"].as_string())).value();
         const std::size_t at = body.find("\"payloadHash\"");
         const std::size_t digit = body.find("\"value\":\"", at) + 9;
         body[digit] = body[digit] == '0' ? '1' : '0';
         e["canonicalizedBody"] = Base64Encode(body);
       },
       "it records the payload"},
  };
  for (const Case& c : cases) {
    TempDir dir;
    const fs::path m = CopyOf(dir, "v1.0.1-sigstore");
    EditEntry(m, c.edit);
    Verified r = VerifySigstore(m);
    EXPECT_EQ(r.oms_rules, std::vector<std::string>{"oms-tlog-invalid"}) << c.what << r.output;
    ASSERT_EQ(r.messages.size(), 1u) << c.what;
    EXPECT_NE(r.messages[0].find(c.message), std::string::npos) << c.what << ": " << r.messages[0];
    EXPECT_EQ(r.signature["verified"], false) << c.what;
    EXPECT_EQ(r.exit_code, 1) << c.what;
  }
  {
    TempDir dir;
    const fs::path m = CopyOf(dir, "v1.0.1-sigstore");
    boost::json::object bundle = ReadJson(m / "model.sig");
    bundle["verificationMaterial"].as_object()["tlogEntries"] = boost::json::array();
    WriteText(m / "model.sig", boost::json::serialize(bundle));
    Verified r = VerifySigstore(m);
    EXPECT_EQ(r.oms_rules, std::vector<std::string>{"oms-tlog-invalid"});
    EXPECT_NE(r.messages.at(0).find("the bundle has no transparency log entry"), std::string::npos);
  }
  {  // near miss: the inclusion proof alone removed, the SET still vouches
    TempDir dir;
    const fs::path m = CopyOf(dir, "v1.0.1-sigstore");
    EditEntry(m, [](boost::json::object& e) { e.erase("inclusionProof"); });
    EXPECT_EQ(VerifySigstore(m).signature["verified"], true);
  }
}

TEST(ModelSigningSigstore, EditsToTheTrustedRootAreRefused) {
  const fs::path model = kUpstream / "v1.0.1-sigstore";
  struct Case {
    const char* what;
    void (*edit)(boost::json::object& root);
    const char* rule;
    const char* message;
  };
  const Case cases[] = {
      {"another Rekor key",
       [](boost::json::object& r) {
         r["tlogs"].as_array()[0].as_object()["publicKey"].as_object()["rawBytes"] = OtherKeySpkiBase64();
       },
       "oms-tlog-invalid", "its signed entry timestamp does not verify"},
      {"Rekor key not yet valid",
       [](boost::json::object& r) {
         r["tlogs"].as_array()[0].as_object()["publicKey"].as_object()["validFor"].as_object()["start"] =
             "2025-10-08T00:00:00Z";
       },
       "oms-tlog-invalid", "lies outside the validity of the log's key"},
      {"no such Rekor log",
       [](boost::json::object& r) { FlipBase64(r["tlogs"].as_array()[0].as_object()["logId"].as_object()["keyId"]); },
       "oms-tlog-invalid", "is not a transparency log of the trusted root"},
      {"another Fulcio root",
       [](boost::json::object& r) {
         for (auto& ca : r["certificateAuthorities"].as_array()) {
           auto& chain = ca.as_object()["certChain"].as_object()["certificates"].as_array();
           chain.erase(chain.end() - 1);  // the intermediate alone is no anchor
           if (chain.empty()) chain.emplace_back(boost::json::object{{"rawBytes", "MAA="}});
         }
       },
       "oms-cert-untrusted",
       "does not chain to a Fulcio authority of the trusted root at the signing time "
       "2025-10-07T15:33:48Z"},
      {"Fulcio authority expired before the signing",
       [](boost::json::object& r) {
         r["certificateAuthorities"].as_array()[1].as_object()["validFor"].as_object()["end"] = "2025-10-07T15:33:47Z";
       },
       "oms-cert-untrusted", "no certificate authority of the trusted root was valid then"},
      {"another CT log key",
       [](boost::json::object& r) {
         for (auto& log : r["ctlogs"].as_array())
           log.as_object()["publicKey"].as_object()["rawBytes"] = OtherKeySpkiBase64();
       },
       "oms-sct-invalid", "does not verify over the precertificate"},
      {"no such CT log",
       [](boost::json::object& r) {
         for (auto& log : r["ctlogs"].as_array()) FlipBase64(log.as_object()["logId"].as_object()["keyId"]);
       },
       "oms-sct-invalid", "of its 1 embedded SCT, none is from a CT log of the trusted root"},
  };
  for (const Case& c : cases) {
    TempDir dir;
    Verified r = VerifySigstore(model, Trust(EditedRoot(dir, c.edit)));
    EXPECT_EQ(r.oms_rules, std::vector<std::string>{c.rule}) << c.what << r.output;
    ASSERT_EQ(r.messages.size(), 1u) << c.what;
    EXPECT_NE(r.messages[0].find(c.message), std::string::npos) << c.what << ": " << r.messages[0];
  }
}

TEST(ModelSigningSigstore, IdentitySignatureFilesAndMethod) {
  const fs::path model = kUpstream / "v1.0.1-sigstore";
  Verified identity = VerifySigstore(model, Trust(kTrustConfig, "stefanb@us.ibm.co"));
  EXPECT_EQ(identity.oms_rules, std::vector<std::string>{"oms-identity-mismatch"});
  EXPECT_EQ(identity.messages.at(0),
            "The model was signed by 'stefanb@us.ibm.com', not by --identity 'stefanb@us.ibm.co'.");
  Verified issuer = VerifySigstore(model, Trust(kTrustConfig, kIdentity, "https://accounts.google.com"));
  EXPECT_EQ(issuer.oms_rules, std::vector<std::string>{"oms-identity-mismatch"});
  EXPECT_EQ(issuer.messages.at(0),
            "The signer 'stefanb@us.ibm.com' signed in at 'https://sigstore.verify.ibm.com/oauth2', not at --issuer "
            "'https://accounts.google.com'.");
  EXPECT_EQ(identity.exit_code, 1);

  for (const char* member : {"sig", "payload"}) {
    TempDir dir;
    const fs::path m = CopyOf(dir, "v1.0.1-sigstore");
    boost::json::object bundle = ReadJson(m / "model.sig");
    boost::json::object& envelope = bundle["dsseEnvelope"].as_object();
    if (std::string_view(member) == "sig") {
      FlipBase64(envelope["signatures"].as_array()[0].as_object()["sig"]);
    } else {
      std::string payload = Base64Decode(std::string(envelope["payload"].as_string())).value();
      payload[payload.find("signme-2") + 7] ^= 1;
      envelope["payload"] = Base64Encode(payload);
    }
    WriteText(m / "model.sig", boost::json::serialize(bundle));
    EXPECT_EQ(VerifySigstore(m).oms_rules, std::vector<std::string>{"oms-signature-invalid"}) << member;
  }
  {
    TempDir dir;
    const fs::path m = CopyOf(dir, "v1.0.1-sigstore");
    std::string bytes = ReadText(m / "signme-2");
    bytes[0] ^= 1;
    WriteText(m / "signme-2", bytes);
    EXPECT_EQ(VerifySigstore(m).oms_rules, std::vector<std::string>{"oms-digest-mismatch"});
  }
  {  // the older spelling of the bundle type: accepted for Sigstore bundles, not for key bundles
    TempDir dir;
    const fs::path m = CopyOf(dir, "v1.0.1-sigstore");
    boost::json::object bundle = ReadJson(m / "model.sig");
    bundle["mediaType"] = "application/vnd.dev.sigstore.bundle+json;version=0.3";
    WriteText(m / "model.sig", boost::json::serialize(bundle));
    EXPECT_EQ(VerifySigstore(m).signature["verified"], true);
    const fs::path k = CopyOf(dir, "v1.0.1-elliptic-key");
    boost::json::object key_bundle = ReadJson(k / "model.sig");
    key_bundle["mediaType"] = "application/vnd.dev.sigstore.bundle+json;version=0.3";
    WriteText(k / "model.sig", boost::json::serialize(key_bundle));
    Verified r = VerifyJson("--verify-model-signature --ignore-path ignore-me --trusted-key " +
                            ShellQuote(kUpstream / "keys/signing-key-pub.pem") + " " + ShellQuote(k));
    EXPECT_EQ(r.oms_rules, std::vector<std::string>{"oms-media-type"});
  }
  {  // older Sigstore clients carry the Fulcio certificate as a one-entry x509CertificateChain
    TempDir dir;
    const fs::path m = CopyOf(dir, "v1.0.1-sigstore");
    boost::json::object bundle = ReadJson(m / "model.sig");
    boost::json::object& material = bundle["verificationMaterial"].as_object();
    material["x509CertificateChain"] = {{"certificates", boost::json::array{material["certificate"]}}};
    material.erase("certificate");
    WriteText(m / "model.sig", boost::json::serialize(bundle));
    EXPECT_EQ(VerifySigstore(m).signature["verified"], true);
  }
  // Key and certificate bundles are not keyless ones, and a keyless one is not a key bundle.
  EXPECT_EQ(VerifySigstore(kUpstream / "v1.0.1-elliptic-key").oms_rules,
            std::vector<std::string>{"oms-method-mismatch"});
  EXPECT_EQ(VerifySigstore(kUpstream / "v1.0.1-certificate").oms_rules.size(), 1u);
  Verified keyed = VerifyJson("--verify-model-signature --ignore-path ignore-me --trusted-key " +
                              ShellQuote(kUpstream / "keys/signing-key-pub.pem") + " " + ShellQuote(model));
  EXPECT_EQ(keyed.oms_rules, std::vector<std::string>{"oms-method-mismatch"});
}

// Issue 51 item 5: a workflow identity carries its ref, so the expected signer can be a
// pattern: '*' within one path segment, '**' across, matched against the whole identity, with
// the host, owner and repository literal; and .ckpt-audit.json may name it for the runs that
// verify without breaking the runs that do not.
TEST(ModelSigningSigstore, WorkflowIdentityPatternsMatchWholeIdentitiesOnly) {
  const std::string release = "https://github.com/org/repo/.github/workflows/release.yml@refs/tags/v1.2";
  const std::string tags = "https://github.com/org/repo/.github/workflows/release.yml@refs/tags/*";
  EXPECT_TRUE(oms::IdentityMatchesPattern(tags, release));
  EXPECT_TRUE(oms::IdentityMatchesPattern(release, release));
  EXPECT_TRUE(oms::IdentityMatchesPattern("https://github.com/org/repo/**", release));
  // Near misses: no partial match at either end, '*' never crosses '/', nor matches nothing.
  EXPECT_FALSE(oms::IdentityMatchesPattern(tags, release + "/../../evil"));
  EXPECT_FALSE(oms::IdentityMatchesPattern(tags, "x" + release));
  EXPECT_FALSE(oms::IdentityMatchesPattern(tags, release.substr(0, release.size() - 4) + "feature/x"));
  EXPECT_FALSE(oms::IdentityMatchesPattern(tags, release.substr(0, release.size() - 4)));
  EXPECT_FALSE(oms::IdentityMatchesPattern("https://github.com/org/repo/*", release));
  EXPECT_FALSE(oms::IdentityMatchesPattern("https://github.com/org/repo/**", "https://github.com/org/repo2/x"));
  EXPECT_FALSE(oms::IdentityMatchesPattern("https://github.com/org/repo/**", std::string(9000, 'a')));
  EXPECT_EQ(oms::IdentityPatternError(tags), std::nullopt);
  EXPECT_EQ(oms::IdentityPatternError("https://github.com/*/repo/x"),
            "a wildcard comes before the host, owner and repository are named (https://HOST/OWNER/REPO/...)");
  EXPECT_EQ(oms::IdentityPatternError("https://github.com/org/*"),
            "a wildcard comes before the host, owner and repository are named (https://HOST/OWNER/REPO/...)");
  EXPECT_EQ(oms::IdentityPatternError("*@example.com"), "it must start with https:// (email identities match exactly)");

  const fs::path model = kUpstream / "v1.0.1-sigstore";
  const std::string root = " --sigstore-trusted-root " + ShellQuote(kTrustConfig);
  const CommandResult other =
      RunCommand(std::string(CKPT_AUDIT_BIN) + " --verify-model-signature" + root + " --identity-pattern " +
                 ShellQuote(tags) + " --issuer " + ShellQuote(kIssuer) + " " + ShellQuote(model) + " 2>&1");
  EXPECT_EQ(other.exit_code, 1) << other.output;
  EXPECT_NE(other.output.find("The model was signed by 'stefanb@us.ibm.com', not by an identity matching "
                              "--identity-pattern '" +
                              tags + "' whole. [oms-identity-mismatch"),
            std::string::npos)
      << other.output;
  const CommandResult refused = RunCommand(std::string(CKPT_AUDIT_BIN) + " --verify-model-signature" + root +
                                           " --identity-pattern 'https://github.com/*/repo/x' --issuer " +
                                           ShellQuote(kIssuer) + " " + ShellQuote(model) + " 2>&1");
  EXPECT_EQ(refused.exit_code, 2) << refused.output;
  EXPECT_NE(refused.output.find("--identity-pattern 'https://github.com/*/repo/x': a wildcard comes before"),
            std::string::npos)
      << refused.output;

  // The expected signer in .ckpt-audit.json: a plain audit in that repository runs as before,
  // and a verification takes the signer from it.
  TempDir dir;
  const fs::path repo = dir.path() / "repo";
  fs::create_directories(repo / ".git");
  WriteText(repo / ".ckpt-audit.json",
            R"({"ckpt-audit": {"identity": ")" + std::string(kIdentity) + R"(", "issuer": ")" + kIssuer + R"("}})");
  const std::string in_repo = "cd " + ShellQuote(repo) + " && " + CKPT_AUDIT_BIN;
  const CommandResult plain =
      RunCommand(in_repo + " " + ShellQuote(fs::path(CKPT_SOURCE_DIR) / "fixtures/vectors/v1-single") + " 2>&1");
  EXPECT_EQ(plain.exit_code, 0) << plain.output;
  const CommandResult verified = RunCommand(in_repo + " --verify-model-signature --ignore-path ignore-me" + root + " " +
                                            ShellQuote(model) + " 2>&1");
  EXPECT_NE(verified.output.find("model signature: verified"), std::string::npos) << verified.output;
  EXPECT_EQ(verified.output.find("[oms-"), std::string::npos) << verified.output;
}

TEST(ModelSigningSigstore, UsageErrors) {
  const std::string model = ShellQuote(kUpstream / "v1.0.1-sigstore");
  auto exit_code = [](const std::string& args) {
    return RunCommand(std::string(CKPT_AUDIT_BIN) + " " + args + " >/dev/null 2>&1").exit_code;
  };
  const std::string root = " --sigstore-trusted-root " + ShellQuote(kTrustConfig);
  EXPECT_EQ(exit_code("--verify-model-signature" + root + " --identity a@b " + model), 2);  // no --issuer
  EXPECT_EQ(exit_code("--verify-model-signature" + root + " --issuer https://x " + model), 2);
  EXPECT_EQ(exit_code("--verify-model-signature --identity a@b --issuer https://x --trusted-key " +
                      ShellQuote(kUpstream / "keys/signing-key-pub.pem") + " " + model),
            2);
  EXPECT_EQ(exit_code("--verify-model-signature" + Trust(kTrustConfig) + " --trusted-key " +
                      ShellQuote(kUpstream / "keys/signing-key-pub.pem") + " " + model),
            2);
  EXPECT_EQ(exit_code(root + " --identity a@b --issuer https://x " + model), 2);  // no verification asked
  EXPECT_EQ(exit_code("--verify-model-signature" + Trust("/nonexistent/root.json") + " " + model), 2);
  TempDir dir;
  WriteText(dir.path() / "not-json.json", "{");
  WriteText(dir.path() / "other.json", R"({"mediaType":"application/json"})");
  const CommandResult bad = RunCommand(std::string(CKPT_AUDIT_BIN) + " --verify-model-signature" +
                                       Trust(dir.path() / "other.json") + " " + model + " 2>&1");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.output.find("its mediaType is 'application/json', not "
                            "application/vnd.dev.sigstore.trustedroot+json;version=0.1"),
            std::string::npos)
      << bad.output;
  EXPECT_EQ(exit_code("--verify-model-signature" + Trust(dir.path() / "not-json.json") + " " + model), 2);
}

// RFC 9162 2.1.3: audit paths from a reference implementation of PATH(m, D[n]) verify for every
// leaf of trees of 1 to 17 leaves, and fail at another index or leaf, with a hash flipped,
// dropped or added. (The tree's size is fixed by the signed checkpoint, not by the path.)
std::string LeafHash(std::size_t i) { return Sha256Digest(std::string(1, '\0') + "leaf" + std::to_string(i)); }
std::string NodeHash(const std::string& l, const std::string& r) { return Sha256Digest("\x01" + l + r); }
std::size_t SplitPoint(std::size_t n) {
  std::size_t k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}
std::string TreeHash(std::size_t begin, std::size_t n) {
  if (n == 1) return LeafHash(begin);
  const std::size_t k = SplitPoint(n);
  return NodeHash(TreeHash(begin, k), TreeHash(begin + k, n - k));
}
std::vector<std::string> AuditPath(std::size_t m, std::size_t begin, std::size_t n) {
  if (n == 1) return {};
  const std::size_t k = SplitPoint(n);
  std::vector<std::string> path;
  if (m < k) {
    path = AuditPath(m, begin, k);
    path.push_back(TreeHash(begin + k, n - k));
  } else {
    path = AuditPath(m - k, begin + k, n - k);
    path.push_back(TreeHash(begin, k));
  }
  return path;
}

TEST(ModelSigningSigstore, InclusionPathsOfRfc9162) {
  for (std::size_t n = 1; n <= 17; ++n) {
    const std::string root = TreeHash(0, n);
    for (std::size_t m = 0; m < n; ++m) {
      const std::vector<std::string> path = AuditPath(m, 0, n);
      EXPECT_TRUE(oms::VerifyInclusionPath(m, n, LeafHash(m), path, root)) << m << " of " << n;
      if (!path.empty()) {
        std::vector<std::string> flipped = path;
        flipped[m % path.size()][0] ^= 1;
        EXPECT_FALSE(oms::VerifyInclusionPath(m, n, LeafHash(m), flipped, root)) << m << " of " << n;
        EXPECT_FALSE(oms::VerifyInclusionPath(m, n, LeafHash(m), {path.begin(), path.end() - 1}, root));
      }
      std::vector<std::string> longer = path;
      longer.push_back(LeafHash(0));
      EXPECT_FALSE(oms::VerifyInclusionPath(m, n, LeafHash(m), longer, root)) << m << " of " << n;
      if (n > 1) {
        EXPECT_FALSE(oms::VerifyInclusionPath((m + 1) % n, n, LeafHash(m), path, root)) << m << " of " << n;
      }
      EXPECT_FALSE(oms::VerifyInclusionPath(m, n, LeafHash(m + 1), path, root)) << m << " of " << n;
    }
  }
  EXPECT_FALSE(oms::VerifyInclusionPath(3, 3, LeafHash(3), {}, LeafHash(3)));  // index past the tree
}

// The fields read from the Fulcio certificate itself, and malformed ones refused without a crash.
TEST(ModelSigningSigstore, FulcioCertificateFields) {
  const boost::json::object bundle = ReadJson(kUpstream / "v1.0.1-sigstore/model.sig");
  const std::string leaf =
      Base64Decode(std::string(bundle.at("verificationMaterial").at("certificate").at("rawBytes").as_string())).value();
  auto identity = oms::IdentityOf(leaf);
  ASSERT_TRUE(std::holds_alternative<oms::CertificateIdentity>(identity));
  EXPECT_EQ(std::get<oms::CertificateIdentity>(identity).emails, std::vector<std::string>{kIdentity});
  EXPECT_EQ(std::get<oms::CertificateIdentity>(identity).oidc_issuer, std::string(kIssuer));
  auto embedded = oms::EmbeddedTimestampsOf(leaf);
  ASSERT_TRUE(std::holds_alternative<oms::EmbeddedTimestamps>(embedded));
  const auto& timestamps = std::get<oms::EmbeddedTimestamps>(embedded);
  ASSERT_EQ(timestamps.timestamps.size(), 1u);
  // The public-good CT log of 2022 (its key id in the trusted root).
  EXPECT_EQ(Base64Encode(timestamps.timestamps[0].log_id), "3T0wasbHETJjGR4cmWc3AqJKXrjePK3/h4pygC8p7o4=");
  EXPECT_EQ(timestamps.timestamps[0].hash_algorithm, 4);
  EXPECT_EQ(timestamps.precertificate_tbs.find("\x2b\x06\x01\x04\x01\xd6\x79\x02\x04\x02"), std::string::npos);
  EXPECT_LT(timestamps.precertificate_tbs.size(), leaf.size());
  for (std::size_t cut : {std::size_t{0}, std::size_t{1}, leaf.size() / 2, leaf.size() - 1}) {
    EXPECT_TRUE(std::holds_alternative<std::string>(oms::IdentityOf(leaf.substr(0, cut)))) << cut;
    EXPECT_TRUE(std::holds_alternative<std::string>(oms::EmbeddedTimestampsOf(leaf.substr(0, cut)))) << cut;
  }
  std::string longer_length = leaf;
  longer_length[2] = static_cast<char>(longer_length[2] + 1);  // the outer length one past the bytes
  EXPECT_TRUE(std::holds_alternative<std::string>(oms::IdentityOf(longer_length)));
}

TEST(ModelSigningSigstore, Rfc3339Times) {
  EXPECT_EQ(oms::ParseRfc3339Millis("2021-01-12T11:53:27.000Z"), std::int64_t{1610452407000});
  EXPECT_EQ(oms::ParseRfc3339Millis("2022-12-31T23:59:59.999Z"), std::int64_t{1672531199999});
  EXPECT_EQ(oms::ParseRfc3339Millis("2022-12-31T23:59:59.9999999Z"), std::int64_t{1672531199999});
  EXPECT_EQ(oms::ParseRfc3339Millis("2021-01-12T12:53:27+01:00"), std::int64_t{1610452407000});
  EXPECT_EQ(oms::ParseRfc3339Millis("2021-01-12T11:53:27Z"), std::int64_t{1610452407000});
  for (const char* bad : {"2021-01-12", "2021-01-12T11:53:27", "2021-02-30T00:00:00Z", "2021-01-12T11:53:27.Z",
                          "2021-01-12 11:53:27Z", "2021-13-01T00:00:00Z", "2021-01-12T11:53:27Zx"}) {
    EXPECT_FALSE(oms::ParseRfc3339Millis(bad)) << bad;
  }
}

}  // namespace
}  // namespace ckpt::testing
