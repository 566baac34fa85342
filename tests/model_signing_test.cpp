// OpenSSF Model Signing (docs/model-signing.md): the upstream vectors (fixtures/model-signing),
// each refused with its rule after one edit; certificates and defective statements made by an
// independent signer (tests/model_signing/sign_bundle.py, Python's cryptography); --sign-model
// checked by an independent verifier (tests/model_signing/oms_verify.py) and byte-stable.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <filesystem>
#include <fstream>

#include "lib/core/base64.h"
#include "lib/core/der.h"
#include "lib/oms/bundle.h"
#include "lib/oms/keys.h"
#include "lib/oms/model_files.h"
#include "tests/support/artifact_builder.h"
#include "tests/support/built_tools.h"
#include "tests/support/model_folder_builder.h"
#include "tests/support/prerequisite.h"
#include "tests/support/process.h"

namespace ckpt::testing {
namespace {

namespace fs = std::filesystem;

const fs::path kFixtures = fs::path(CKPT_SOURCE_DIR) / "fixtures/model-signing";
const fs::path kUpstream = kFixtures / "model-transparency";
const fs::path kSpec = kFixtures / "model-signing-spec";
const fs::path kKeys = kUpstream / "keys";
const std::string kSigner = std::string("/usr/bin/python3 ") + CKPT_SOURCE_DIR + "/tests/model_signing/sign_bundle.py";
const std::string kVerifier = std::string("/usr/bin/python3 ") + CKPT_SOURCE_DIR + "/tests/model_signing/oms_verify.py";

CommandResult Audit(const std::string& args) { return RunCommand(std::string(CKPT_AUDIT_BIN) + " " + args + " 2>&1"); }

std::string Hex(std::string_view raw) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  for (char c : raw) {
    out.push_back(kDigits[static_cast<unsigned char>(c) >> 4]);
    out.push_back(kDigits[static_cast<unsigned char>(c) & 15]);
  }
  return out;
}

std::string Unhex(std::string_view hex) {
  std::string out;
  for (std::size_t i = 0; i + 1 < hex.size(); i += 2)
    out.push_back(static_cast<char>(std::stoi(std::string(hex.substr(i, 2)), nullptr, 16)));
  return out;
}

// The JSON report's model_signature and the rule ids of its findings.
struct Verified {
  int exit_code = -1;
  boost::json::object signature;
  std::vector<std::string> rules;
  std::string output;
};

Verified VerifyJson(const std::string& args) {
  Verified out;
  const CommandResult run = RunCommand(std::string(CKPT_AUDIT_BIN) + " --format json " + args + " 2>/dev/null");
  out.exit_code = run.exit_code;
  out.output = run.output;
  boost::system::error_code ec;
  boost::json::value report = boost::json::parse(run.output, ec);
  if (ec) return out;
  const boost::json::object& artifact = report.at("artifacts").as_array().at(0).as_object();
  if (const auto* s = artifact.if_contains("model_signature")) out.signature = s->as_object();
  for (const auto& f : artifact.at("findings").as_array()) out.rules.emplace_back(f.at("rule").as_string().c_str());
  return out;
}

std::vector<std::string> OmsRules(const Verified& v) {
  std::vector<std::string> out;
  for (const std::string& r : v.rules) {
    if (r.starts_with("oms-")) out.push_back(r);
  }
  return out;
}

// A copy of an upstream folder to edit.
fs::path CopyOf(const TempDir& dir, const std::string& vector) {
  fs::path copy = dir.path() / vector;
  fs::copy(kUpstream / vector, copy, fs::copy_options::recursive);
  return copy;
}

TEST(ModelSigningKeys, Rfc6979AppendixA25) {
  // RFC 6979 A.2.5: P-256, SHA-256, messages "sample" and "test".
  const std::string scalar = Unhex("c9afa9d845ba75166b5c215767b1d6934e50c3db36e89b127b8a622b120f6721");
  const std::string sec1 = der::Encode(
      der::kSequence, der::EncodeUnsignedInteger("\x01") + der::Encode(der::kOctetString, scalar) +
                          der::Encode(der::kContext0, der::Encode(der::kOid, "\x2a\x86\x48\xce\x3d\x03\x01\x07")));
  auto parsed = oms::ParsePrivateKey(oms::PemOf(sec1, "EC PRIVATE KEY"));
  ASSERT_TRUE(std::holds_alternative<oms::PrivateKey>(parsed)) << std::get<oms::KeyError>(parsed).message;
  const oms::PrivateKey& key = std::get<oms::PrivateKey>(parsed);
  EXPECT_EQ(Hex(key.public_key.point),
            "0460fed4ba255a9d31c961eb74c6356d68c049b8923b61fa6ce669622e60f29fb6"
            "7903fe1008b8bc99a41ae9e95628bc64f2f1b20c2d7e9f5177a3c294d4462299");
  const std::pair<const char*, std::pair<const char*, const char*>> cases[] = {
      {"sample",
       {"efd48b2aacb6a8fd1140dd9cd45e81d69d2c877b56aaf991c34d0ea84eaf3716",
        "f7cb1c942d657c41d436c7a1b6e29f65f3e900dbb9aff4064dc4ab2f843acda8"}},
      {"test",
       {"f1abb023518351cd71d881567b1ea663ed3efcf6c5132b354f28d3b0b7d38367",
        "019f4113742a2b14bd25926b49c649155f267e60d3814b4c0cc84250e46f0083"}},
  };
  for (const auto& [message, rs] : cases) {
    const std::string signature = oms::SignDeterministic(key, message);
    der::Reader outer(signature);
    auto sequence = outer.Read(der::kSequence);
    ASSERT_TRUE(sequence);
    der::Reader fields(*sequence);
    auto r = fields.ReadUnsignedInteger();
    auto s = fields.ReadUnsignedInteger();
    ASSERT_TRUE(r && s);
    EXPECT_EQ(Hex(*r), rs.first) << message;
    EXPECT_EQ(std::string(64 - Hex(*s).size(), '0') + Hex(*s), rs.second) << message;
    EXPECT_TRUE(oms::VerifySignature(key.public_key, message, signature));
    EXPECT_FALSE(oms::VerifySignature(key.public_key, std::string(message) + "!", signature));
  }
}

TEST(ModelSigningKeys, HintIsTheSha256OfThePemAsPrinted) {
  // The upstream key file has certtool's text before its PEM block.
  auto key = oms::LoadPublicKeyFile((kKeys / "signing-key-pub.pem").string());
  ASSERT_TRUE(std::holds_alternative<oms::PublicKey>(key));
  const CommandResult openssl =
      RunCommand("openssl pkey -pubin -in " + ShellQuote(kKeys / "signing-key-pub.pem") + " | sha256sum");
  EXPECT_EQ(std::get<oms::PublicKey>(key).hint, openssl.output.substr(0, 64));
  EXPECT_EQ(std::get<oms::PublicKey>(key).hint, "e8450dec4eb99dae995da9af1bc2cc9f76ed669ee2e744f57abba763df3e3f8e");
  EXPECT_EQ(std::get<oms::PublicKey>(key).algorithm, oms::KeyAlgorithm::kEcdsaP384);
}

TEST(ModelSigningKeys, RefusesOtherKeys) {
  TempDir dir;
  const CommandResult made =
      RunCommand("cd " + ShellQuote(dir.path()) +
                 " && openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:1024 -out rsa.pem 2>/dev/null"
                 " && openssl pkey -in rsa.pem -pubout -out rsa.pub 2>/dev/null"
                 " && openssl ecparam -name secp224r1 -genkey -noout -out p224.pem 2>/dev/null"
                 " && openssl ec -in p224.pem -pubout -out p224.pub 2>/dev/null"
                 " && openssl genpkey -algorithm ed25519 -out ed.pem 2>/dev/null");
  ASSERT_EQ(made.exit_code, 0);
  auto rsa = oms::LoadPublicKeyFile((dir.path() / "rsa.pub").string());
  ASSERT_TRUE(std::holds_alternative<oms::KeyError>(rsa));
  EXPECT_EQ(std::get<oms::KeyError>(rsa).message, "an RSA key, not an ECDSA or Ed25519 key");
  auto p224 = oms::LoadPublicKeyFile((dir.path() / "p224.pub").string());
  ASSERT_TRUE(std::holds_alternative<oms::KeyError>(p224));
  EXPECT_EQ(std::get<oms::KeyError>(p224).message, "an EC key on a curve other than P-256, P-384 or P-521");
  const CommandResult ed = Audit("--sign-model " + ShellQuote(dir.path() / "ed.pem") + " --model-signature-out " +
                                 ShellQuote(dir.path() / "x.sig") + " " + ShellQuote(dir.path()));
  EXPECT_EQ(ed.exit_code, 2) << ed.output;
  EXPECT_NE(ed.output.find("an Ed25519 key; model signatures are ECDSA"), std::string::npos) << ed.output;
  EXPECT_FALSE(fs::exists(dir.path() / "x.sig"));
}

TEST(ModelSigningPae, LegacyReprIsPythons) {
  const std::string samples[] = {
      "plain", "it's", "say \"hi\"", "both ' and \"", "tab\tnl\ncr\r\\", std::string("\x00\x1f\x7f\xff", 4)};
  for (const std::string& s : samples) {
    std::ofstream(fs::temp_directory_path() / "oms-repr.bin", std::ios::binary) << s;
    const CommandResult python =
        RunCommand("/usr/bin/python3 -c \"import sys; sys.stdout.write(repr(open(sys.argv[1], 'rb').read()))\" " +
                   ShellQuote(fs::temp_directory_path() / "oms-repr.bin"));
    EXPECT_EQ(oms::PythonBytesRepr(s), python.output) << s;
  }
}

TEST(ModelSigningOrder, ByPathComponents) {
  EXPECT_TRUE(oms::ComponentOrderLess("a/b", "a-b"));
  EXPECT_TRUE(oms::ComponentOrderLess("tokenizer/vocab.txt", "tokenizer.json"));
  EXPECT_TRUE(oms::ComponentOrderLess("a", "a/b"));
  EXPECT_FALSE(oms::ComponentOrderLess("a-b", "a/b"));
  EXPECT_FALSE(oms::ComponentOrderLess("x", "x"));
}

// Every valid upstream vector verifies; the audit alone fails these folders (no weights).
TEST(ModelSigningVectors, UpstreamKeyVectorsVerify) {
  const std::string key = " --trusted-key " + ShellQuote(kKeys / "signing-key-pub.pem");
  for (const char* v : {"v1.1.0-elliptic-key", "v1.0.1-elliptic-key"}) {
    Verified r = VerifyJson("--verify-model-signature --ignore-path ignore-me" + key + " " + ShellQuote(kUpstream / v));
    EXPECT_EQ(r.signature["verified"], true) << v << r.output;
    EXPECT_EQ(r.signature["pae"], "dsse-v1") << v;
    EXPECT_EQ(r.signature["root_digest"], "92745110b1ab4368471cbe31664e10174e954b113a3df333db860317b2c6dec4") << v;
    EXPECT_EQ(r.signature["files"], 2) << v;
    EXPECT_EQ(r.rules, std::vector<std::string>{"input-no-weights"}) << v;
  }
  for (const char* v : {"v1.0.0-elliptic-key", "v0.3.1-elliptic-key"}) {  // single files named "."
    Verified r = VerifyJson("--verify-model-signature=" + ShellQuote(kUpstream / v / "model.sig") + key + " " +
                            ShellQuote(kUpstream / v / "signme-1"));
    EXPECT_EQ(r.signature["verified"], true) << v << r.output;
    EXPECT_EQ(r.signature["files"], 1) << v;
    EXPECT_EQ(r.rules, std::vector<std::string>{"input-unrecognised"}) << v;
  }
}

TEST(ModelSigningVectors, UpstreamCertificateVectorsVerify) {
  const std::string roots = " --trusted-cert-chain " + ShellQuote(kKeys / "ca-cert.pem");
  for (const char* v :
       {"v1.1.0-certificate", "v1.0.1-certificate", "v1.0.0-certificate", "v0.3.1-certificate", "v0.2.0-certificate"}) {
    Verified r =
        VerifyJson("--verify-model-signature --ignore-path ignore-me" + roots + " " + ShellQuote(kUpstream / v));
    EXPECT_EQ(r.signature["verified"], true) << v << r.output;
    EXPECT_EQ(r.signature["certificate"].at("subject"), "CN=intermediate-ca") << v;
    EXPECT_EQ(OmsRules(r), std::vector<std::string>{}) << v;
  }
  Verified legacy = VerifyJson("--verify-model-signature" + roots + " " + ShellQuote(kUpstream / "v0.2.0-certificate"));
  EXPECT_EQ(legacy.signature["pae"], "v0.2-compat");
  EXPECT_EQ(legacy.signature["predicate_type"], "https://model_signing/Digests/v0.1");
  EXPECT_TRUE(legacy.signature["root_digest"].is_null());
  // An intermediate alone is no trust anchor.
  Verified intermediate =
      VerifyJson("--verify-model-signature --trusted-cert-chain " + ShellQuote(kKeys / "int-ca-cert.pem") + " " +
                 ShellQuote(kUpstream / "v1.1.0-certificate"));
  EXPECT_EQ(OmsRules(intermediate), std::vector<std::string>{"oms-cert-untrusted"});
  EXPECT_EQ(intermediate.exit_code, 1);
}

TEST(ModelSigningVectors, SpecBundles) {
  TempDir dir;
  const fs::path model = dir.path() / "model";
  fs::create_directory(model);
  for (const char* f : {"signme-1", "signme-2", "ignore-me"})
    fs::copy(kUpstream / "v1.1.0-elliptic-key" / f, model / f);
  const std::string key = " --trusted-key " + ShellQuote(kKeys / "signing-key-pub.pem");
  const std::string roots = " --trusted-cert-chain " + ShellQuote(kKeys / "ca-cert.pem");
  auto run = [&](const char* bundle, const std::string& trust) {
    return VerifyJson("--verify-model-signature=" + ShellQuote(kSpec / bundle) + trust + " " + ShellQuote(model));
  };
  EXPECT_EQ(run("valid/key.bundle.json", key).signature["verified"], true);
  EXPECT_EQ(run("valid/certificate.bundle.json", roots).signature["verified"], true);
  EXPECT_EQ(OmsRules(run("invalid/empty.bundle.json", key)), std::vector<std::string>{"oms-bundle-invalid"});
  EXPECT_EQ(OmsRules(run("invalid/missing-envelope.bundle.json", key)), std::vector<std::string>{"oms-bundle-invalid"});
  EXPECT_EQ(OmsRules(run("invalid/missing-verification-material.bundle.json", key)),
            std::vector<std::string>{"oms-bundle-invalid"});
  EXPECT_EQ(OmsRules(run("invalid/missing-tlog-entries.bundle.json", roots)),
            std::vector<std::string>{"oms-method-mismatch"});
  EXPECT_EQ(OmsRules(run("invalid-payload/wrong-predicate.bundle.json", key)),
            std::vector<std::string>{"oms-signature-invalid"});
  EXPECT_EQ(OmsRules(run("valid/certificate.bundle.json", key)), std::vector<std::string>{"oms-method-mismatch"});
}

// One edit each: a flipped byte, a file added or removed, an edited signature or payload,
// another key or root.
TEST(ModelSigningVectors, EachEditIsRefusedWithItsRule) {
  const std::string key = " --trusted-key " + ShellQuote(kKeys / "signing-key-pub.pem");
  auto verify = [&](const fs::path& model, const std::string& trust = "") {
    return VerifyJson("--verify-model-signature --ignore-path ignore-me" + (trust.empty() ? key : trust) + " " +
                      ShellQuote(model));
  };
  {
    TempDir dir;
    const fs::path m = CopyOf(dir, "v1.1.0-elliptic-key");
    std::string bytes = ReadText(m / "signme-1");
    bytes[0] ^= 1;
    WriteText(m / "signme-1", bytes);
    Verified r = verify(m);
    EXPECT_EQ(OmsRules(r), std::vector<std::string>{"oms-digest-mismatch"});
    EXPECT_EQ(r.signature["verified"], false);
  }
  {
    TempDir dir;
    const fs::path m = CopyOf(dir, "v1.1.0-elliptic-key");
    WriteText(m / "added.bin", "x");
    EXPECT_EQ(OmsRules(verify(m)), std::vector<std::string>{"oms-file-unsigned"});
    fs::create_directory(m / "sub");
    WriteText(m / "sub" / ".git", "a sub/.git is an ordinary file");
    fs::remove(m / "added.bin");
    EXPECT_EQ(OmsRules(verify(m)), std::vector<std::string>{"oms-file-unsigned"});
    fs::remove_all(m / "sub");
    fs::create_directory(m / ".git");
    WriteText(m / ".git" / "HEAD", "ignored at the top level");
    EXPECT_EQ(OmsRules(verify(m)), std::vector<std::string>{});  // near miss
  }
  {
    TempDir dir;
    const fs::path m = CopyOf(dir, "v1.1.0-elliptic-key");
    fs::remove(m / "signme-2");
    EXPECT_EQ(OmsRules(verify(m)), std::vector<std::string>{"oms-file-missing"});
  }
  for (const char* member : {"sig", "payload"}) {
    TempDir dir;
    const fs::path m = CopyOf(dir, "v1.1.0-elliptic-key");
    boost::json::object bundle = boost::json::parse(ReadText(m / "model.sig")).as_object();
    boost::json::object& envelope = bundle["dsseEnvelope"].as_object();
    boost::json::string& text = std::string_view(member) == "sig"
                                    ? envelope["signatures"].as_array()[0].as_object()["sig"].as_string()
                                    : envelope["payload"].as_string();
    std::string raw = Base64Decode(std::string(text)).value();
    raw[std::string_view(member) == "sig" ? raw.size() - 3 : raw.find("signme-2") + 7] ^= 1;
    text = Base64Encode(raw);
    WriteText(m / "model.sig", boost::json::serialize(bundle));
    EXPECT_EQ(OmsRules(verify(m)), std::vector<std::string>{"oms-signature-invalid"}) << member;
  }
  {
    TempDir dir;
    const fs::path m = CopyOf(dir, "v1.1.0-elliptic-key");
    ASSERT_EQ(RunCommand("openssl ecparam -name prime256v1 -genkey -noout 2>/dev/null | openssl ec -pubout -out " +
                         ShellQuote(dir.path() / "other.pub") + " 2>/dev/null")
                  .exit_code,
              0);
    Verified other = verify(m, " --trusted-key " + ShellQuote(dir.path() / "other.pub"));
    EXPECT_EQ(OmsRules(other), std::vector<std::string>{"oms-key-untrusted"});
    EXPECT_EQ(other.exit_code, 1);
  }
  {
    TempDir dir;
    const fs::path m = CopyOf(dir, "v1.1.0-certificate");
    ASSERT_EQ(RunCommand("cd " + ShellQuote(dir.path()) + " && " + kSigner + " certs other").exit_code, 0);
    EXPECT_EQ(OmsRules(verify(m, " --trusted-cert-chain " + ShellQuote(dir.path() / "other/root.pem"))),
              std::vector<std::string>{"oms-cert-untrusted"});
  }
}

// Certificates from the independent signer: an expired leaf that was valid when issued passes;
// key usage is enforced; a leaf issued outside its root's validity does not chain.
TEST(ModelSigningCertificates, TimeAndUsage) {
  TempDir dir;
  WriteFiles(ModelFolderSpec{}.Build(), dir.path() / "model");
  const std::string cd = "cd " + ShellQuote(dir.path()) + " && ";
  ASSERT_EQ(RunCommand(cd + kSigner + " statement model > payload.json").exit_code, 0);
  auto bundle_with = [&](const std::string& name, const std::string& cert_options) {
    const CommandResult made = RunCommand(cd + kSigner + " certs " + name + " " + cert_options + " && " + kSigner +
                                          " cert " + name + " payload.json " + name + ".sig");
    EXPECT_EQ(made.exit_code, 0) << made.output;
    return VerifyJson("--verify-model-signature=" + ShellQuote(dir.path() / (name + ".sig")) +
                      " --trusted-cert-chain " + ShellQuote(dir.path() / name / "root.pem") + " " +
                      ShellQuote(dir.path() / "model"));
  };
  Verified expired = bundle_with("expired", "--leaf-days-ago 100 --leaf-lifetime-days 30 --root-days-ago 200");
  EXPECT_EQ(expired.exit_code, 0) << expired.output;
  EXPECT_EQ(expired.signature["verified"], true);
  EXPECT_EQ(expired.signature["certificate"].at("subject"), "CN=test-signer");
  EXPECT_EQ(expired.signature["certificate"].at("issuer"), "CN=test-intermediate");
  EXPECT_EQ(OmsRules(bundle_with("before-root", "--leaf-days-ago 20 --root-days-ago 10")),
            std::vector<std::string>{"oms-cert-untrusted"});
  EXPECT_EQ(OmsRules(bundle_with("no-usage", "--leaf-usage none")), std::vector<std::string>{"oms-cert-usage"});
  EXPECT_EQ(OmsRules(bundle_with("server", "--leaf-usage server")), std::vector<std::string>{"oms-cert-usage"});
  EXPECT_EQ(bundle_with("code", "--leaf-usage code").exit_code, 0);  // near miss: codeSigning alone
  EXPECT_EQ(OmsRules(bundle_with("rsa", "--leaf-key rsa")), std::vector<std::string>{"oms-key-unsupported"});
}

// Statements signed by the independent signer, one defect each.
TEST(ModelSigningStatements, DefectsAndSerializations) {
  TempDir dir;
  WriteFiles(ModelFolderSpec{}.Build(), dir.path() / "model");
  const std::string cd = "cd " + ShellQuote(dir.path()) + " && ";
  ASSERT_EQ(RunCommand(cd + "openssl ecparam -name prime256v1 -genkey -noout -out k.pem 2>/dev/null && "
                            "openssl ec -in k.pem -pubout -out k.pub 2>/dev/null")
                .exit_code,
            0);
  int n = 0;
  auto signed_as = [&](const std::string& payload, const std::string& options = "") {
    const std::string name = "s" + std::to_string(++n);
    WriteText(dir.path() / (name + ".json"), payload);
    const CommandResult made = RunCommand(cd + kSigner + " key k.pem " + name + ".json " + name + ".sig " + options);
    EXPECT_EQ(made.exit_code, 0) << made.output;
    return VerifyJson("--verify-model-signature=" + ShellQuote(dir.path() / (name + ".sig")) + " --trusted-key " +
                      ShellQuote(dir.path() / "k.pub") + " " + ShellQuote(dir.path() / "model"));
  };
  auto statement = [&](const std::string& options) {
    return RunCommand(cd + kSigner + " statement model " + options).output;
  };
  const std::string good = statement("");
  EXPECT_EQ(signed_as(good).exit_code, 0);
  EXPECT_EQ(signed_as(good, "--legacy-pae").signature["pae"], "v0.2-compat");
  Verified shards = signed_as(statement("--method shards --shard-size 7"));
  EXPECT_EQ(shards.exit_code, 0) << shards.output;
  EXPECT_EQ(shards.signature["serialization"], "shards");
  Verified blake = signed_as(statement("--hash blake2b"));
  EXPECT_EQ(blake.exit_code, 0) << blake.output;
  EXPECT_EQ(blake.signature["hash_type"], "blake2b");
  auto edited = [&](std::string text, const std::string& from, const std::string& to) {
    const std::size_t at = text.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    return at == std::string::npos ? text : text.replace(at, from.size(), to);
  };
  EXPECT_EQ(OmsRules(signed_as(edited(good, "\"allow_symlinks\": false", "\"allow_symlinks\": \"false\""))),
            std::vector<std::string>{"oms-statement-invalid"});
  EXPECT_EQ(OmsRules(signed_as(edited(good, "https://model_signing/signature/v1.0", "https://example.com/other"))),
            std::vector<std::string>{"oms-predicate-unknown"});
  EXPECT_EQ(OmsRules(signed_as(edited(good, "\"hash_type\": \"sha256\"", "\"hash_type\": \"blake3\""))),
            std::vector<std::string>{"oms-hash-unsupported"});
  EXPECT_EQ(OmsRules(signed_as(edited(good, "\"sha256\": \"", "\"sha256\": \"00"))),
            std::vector<std::string>{"oms-subject-invalid"});
  const std::size_t root_at = good.find("\"sha256\": \"") + 11;
  std::string wrong_root = good;
  wrong_root[root_at] = wrong_root[root_at] == '0' ? '1' : '0';
  EXPECT_EQ(OmsRules(signed_as(wrong_root)), std::vector<std::string>{"oms-root-mismatch"});
  EXPECT_EQ(OmsRules(signed_as(edited(good, "\"name\": \"config.json\"", "\"name\": \"./config.json\""))),
            std::vector<std::string>{"oms-statement-invalid"});
  // A shards signature after the file grew: the ranges differ, one finding for the file.
  const std::string shard_statement = statement("--method shards --shard-size 7");
  WriteText(dir.path() / "model" / "config.json", ReadText(dir.path() / "model" / "config.json") + " ");
  EXPECT_EQ(OmsRules(signed_as(shard_statement)), std::vector<std::string>{"oms-digest-mismatch"});
  // The bundle's own shape.
  Verified wrong_type = VerifyJson("--verify-model-signature=" + ShellQuote(dir.path() / "s1.sig") + " --trusted-key " +
                                   ShellQuote(dir.path() / "k.pub") + " " + ShellQuote(dir.path() / "model"));
  (void)wrong_type;
  std::string bundle = ReadText(dir.path() / "s1.sig");
  WriteText(dir.path() / "media.sig", edited(bundle, "bundle.v0.3+json", "bundle.v0.2+json"));
  WriteText(dir.path() / "ptype.sig", edited(bundle, "application/vnd.in-toto+json", "application/json"));
  for (const auto& [file, rule] :
       {std::pair{"media.sig", "oms-media-type"}, std::pair{"ptype.sig", "oms-payload-type"}}) {
    Verified r = VerifyJson("--verify-model-signature=" + ShellQuote(dir.path() / file) + " --trusted-key " +
                            ShellQuote(dir.path() / "k.pub") + " " + ShellQuote(dir.path() / "model"));
    EXPECT_EQ(OmsRules(r), std::vector<std::string>{rule}) << file;
  }
}

TEST(ModelSigningFolder, SymlinksSpecialFilesAndMissingSignature) {
  TempDir dir;
  const fs::path m = CopyOf(dir, "v1.1.0-elliptic-key");
  const std::string key = " --trusted-key " + ShellQuote(kKeys / "signing-key-pub.pem");
  fs::create_symlink("signme-1", m / "link");
  EXPECT_EQ(OmsRules(VerifyJson("--verify-model-signature --ignore-path ignore-me" + key + " " + ShellQuote(m))),
            std::vector<std::string>{"oms-symlink"});
  fs::remove(m / "link");
  ASSERT_EQ(RunCommand("mkfifo " + ShellQuote(m / "fifo")).exit_code, 0);
  EXPECT_EQ(OmsRules(VerifyJson("--verify-model-signature --ignore-path ignore-me" + key + " " + ShellQuote(m))),
            std::vector<std::string>{"oms-special-file"});
  // --ignore-path leaves it out (a near miss for both rules).
  EXPECT_EQ(OmsRules(VerifyJson("--verify-model-signature --ignore-path ignore-me --ignore-path fifo" + key + " " +
                                ShellQuote(m))),
            std::vector<std::string>{});
  fs::remove(m / "fifo");
  fs::remove(m / "model.sig");
  Verified missing = VerifyJson("--verify-model-signature --ignore-path ignore-me" + key + " " + ShellQuote(m));
  EXPECT_EQ(OmsRules(missing), std::vector<std::string>{"oms-signature-missing"});
  EXPECT_EQ(missing.exit_code, 1);
}

TEST(ModelSigningCli, UsageErrors) {
  const std::string model = ShellQuote(kUpstream / "v1.1.0-elliptic-key");
  const std::string key = " --trusted-key " + ShellQuote(kKeys / "signing-key-pub.pem");
  const std::string roots = " --trusted-cert-chain " + ShellQuote(kKeys / "ca-cert.pem");
  EXPECT_EQ(Audit("--verify-model-signature " + model).exit_code, 2);                     // no trust
  EXPECT_EQ(Audit("--verify-model-signature" + key + roots + " " + model).exit_code, 2);  // two
  EXPECT_EQ(Audit("--verify-model-signature" + key + " " + model + " " + model).exit_code, 2);
  EXPECT_EQ(Audit("--verify-model-signature=/nonexistent.sig" + key + " " + model).exit_code, 2);
  EXPECT_EQ(
      Audit("--verify-model-signature" + key + " " + ShellQuote(kUpstream / "v1.0.0-elliptic-key/signme-1")).exit_code,
      2);
  EXPECT_EQ(Audit("--verify-model-signature --ignore-path ../x" + key + " " + model).exit_code, 2);
  EXPECT_EQ(Audit("--trusted-cert-chain " + ShellQuote(kKeys / "ca-cert.pem") + " " + model).exit_code, 2);
  EXPECT_EQ(Audit("--sign-model " + ShellQuote(kKeys / "signing-key-pub.pem") + " " + model).exit_code, 2);
}

// --sign-model: written only when the audit passes; accepted by the independent verifier
// byte for byte; the same bytes on every run; every curve model_signing verifies.
TEST(ModelSigningSign, RoundTripByteStableAndIndependentlyVerified) {
  TempDir dir;
  Files files = ModelFolderSpec{}.Build();
  files["tokenizer/vocab.txt"] = "a\nb\n";
  files["tokenizer.json"] = "{}";
  WriteFiles(files, dir.path() / "model");
  const fs::path model = dir.path() / "model";
  const std::string cd = "cd " + ShellQuote(dir.path()) + " && ";
  ASSERT_EQ(
      RunCommand(cd +
                 "openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out p256.pem 2>/dev/null && "
                 "chmod 600 p256.pem && openssl pkey -in p256.pem -pubout -out p256.pub && "
                 "openssl ecparam -name secp384r1 -genkey -out p384.pem 2>/dev/null && chmod 600 p384.pem && "
                 "openssl ec -in p384.pem -pubout -out p384.pub 2>/dev/null && "
                 "openssl ecparam -name secp521r1 -genkey -noout -out p521.pem 2>/dev/null && chmod 600 p521.pem && "
                 "openssl ec -in p521.pem -pubout -out p521.pub 2>/dev/null")
          .exit_code,
      0);
  for (const char* curve : {"p256", "p384", "p521"}) {
    const fs::path key = dir.path() / (std::string(curve) + ".pem");
    const fs::path pub = dir.path() / (std::string(curve) + ".pub");
    const CommandResult first = Audit("--sign-model " + ShellQuote(key) + " --model-signature-out " +
                                      ShellQuote(model / "model.sig") + " " + ShellQuote(model));
    ASSERT_EQ(first.exit_code, 0) << first.output;
    const std::string bytes = ReadText(model / "model.sig");
    ASSERT_EQ(Audit("--sign-model " + ShellQuote(key) + " --model-signature-out " + ShellQuote(model / "model.sig") +
                    " " + ShellQuote(model))
                  .exit_code,
              0);
    EXPECT_EQ(ReadText(model / "model.sig"), bytes) << curve << ": two runs, two byte strings";
    const CommandResult independent =
        RunCommand(kVerifier + " --exact-bytes --key " + ShellQuote(pub) + " --signature " +
                   ShellQuote(model / "model.sig") + " " + ShellQuote(model) + " 2>&1");
    EXPECT_EQ(independent.exit_code, 0) << curve << ": " << independent.output;
    Verified product =
        VerifyJson("--verify-model-signature --trusted-key " + ShellQuote(pub) + " " + ShellQuote(model));
    EXPECT_EQ(product.exit_code, 0) << product.output;
    EXPECT_EQ(product.signature["verified"], true);
    EXPECT_EQ(product.signature["files"], files.size());
    const std::string payload =
        Base64Decode(std::string(boost::json::parse(bytes).at("dsseEnvelope").at("payload").as_string())).value();
    EXPECT_LT(payload.find("\"tokenizer/vocab.txt\""), payload.find("\"tokenizer.json\""));
  }
  // The independent verifier refuses an edited model (its own check can fail).
  WriteText(model / "config.json", "{}");
  EXPECT_NE(RunCommand(kVerifier + " --key " + ShellQuote(dir.path() / "p521.pub") + " --signature " +
                       ShellQuote(model / "model.sig") + " " + ShellQuote(model) + " 2>&1")
                .exit_code,
            0);
}

TEST(ModelSigningSign, NothingWrittenWhenTheAuditFailsOrTheFolderCannotBeSigned) {
  TempDir dir;
  ASSERT_EQ(RunCommand("cd " + ShellQuote(dir.path()) +
                       " && openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out k.pem 2>/dev/null && "
                       "chmod 600 k.pem")
                .exit_code,
            0);
  const fs::path model = dir.path() / "model";
  Files files = ModelFolderSpec{}.Build();
  files["model.safetensors"].resize(files["model.safetensors"].size() - 3);  // truncated: the audit fails
  WriteFiles(files, model);
  const std::string sign = "--sign-model " + ShellQuote(dir.path() / "k.pem") + " --model-signature-out " +
                           ShellQuote(dir.path() / "out.sig") + " ";
  const CommandResult failed = Audit(sign + ShellQuote(model));
  EXPECT_EQ(failed.exit_code, 1);
  EXPECT_NE(failed.output.find("ckpt-audit: no signature written to " + (dir.path() / "out.sig").string() +
                               ": its audit failed, and only a model that passes is signed (exit 1)\n"),
            std::string::npos)
      << failed.output;
  EXPECT_FALSE(fs::exists(dir.path() / "out.sig"));
  fs::remove_all(model);
  WriteFiles(ModelFolderSpec{}.Build(), model);
  fs::create_symlink("config.json", model / "link.json");
  const CommandResult linked = Audit(sign + ShellQuote(model));
  EXPECT_NE(linked.exit_code, 0) << linked.output;
  EXPECT_NE(linked.output.find("ckpt-audit: no signature written to " + (dir.path() / "out.sig").string() + ": "),
            std::string::npos)
      << linked.output;
  EXPECT_FALSE(fs::exists(dir.path() / "out.sig"));
  fs::remove(model / "link.json");
  const CommandResult written = Audit(sign + ShellQuote(model));
  EXPECT_EQ(written.exit_code, 0) << written.output;
  EXPECT_TRUE(fs::exists(dir.path() / "out.sig"));
  EXPECT_NE(written.output.find("ckpt-audit: wrote " + (dir.path() / "out.sig").string() +
                                ": a model signature (OpenSSF Model Signing, key "),
            std::string::npos)
      << written.output;
  EXPECT_NE(written.output.find(") of " + std::to_string(ModelFolderSpec{}.Build().size()) + " files of " +
                                model.string() + "\n"),
            std::string::npos)
      << written.output;
}

}  // namespace
}  // namespace ckpt::testing
