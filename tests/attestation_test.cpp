// Signed audits, their verification, chains from signed statements and derivation records
// (attestations.md), checked against independent implementations: openssl signs and
// verifies Ed25519 over the DSSE pre-authentication encoding, and computes key ids; real
// torch.save checkpoints and their conversions come from tests/torch/make_derivations.py.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <array>
#include <boost/json.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <random>
#include <set>

#include "lib/attest/dsse.h"
#include "lib/attest/ed25519.h"
#include "lib/core/base64.h"
#include "lib/hashing/sha256.h"
#include "tests/support/artifact_builder.h"
#include "tests/support/built_tools.h"
#include "tests/support/history_builder.h"
#include "tests/support/prerequisite.h"
#include "tests/support/process.h"
#include "tests/support/python_fixtures.h"

namespace ckpt::testing {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kInToto = "application/vnd.in-toto+json";

CommandResult Audit(const std::string& args) { return RunCommand(std::string(CKPT_AUDIT_BIN) + " " + args + " 2>&1"); }
CommandResult Chain(const std::string& args) { return RunCommand(std::string(CKPT_CHAIN_BIN) + " " + args + " 2>&1"); }

std::string Sha256Hex(std::string_view bytes) {
  Sha256 sha;
  sha.Update(bytes);
  return sha.FinalHex();
}

// A key pair written by openssl, as a user makes one, and its key id as openssl computes it.
struct KeyPair {
  fs::path key;
  fs::path pub;
  std::string keyid;
};

KeyPair MakeKeyPair(const fs::path& dir, const std::string& name) {
  KeyPair k{dir / (name + ".pem"), dir / (name + ".pub.pem"), {}};
  const CommandResult made = RunCommand("openssl genpkey -algorithm ed25519 -out " + ShellQuote(k.key) +
                                        " 2>&1 && chmod 600 " + ShellQuote(k.key) + " && openssl pkey -in " +
                                        ShellQuote(k.key) + " -pubout -out " + ShellQuote(k.pub) + " 2>&1");
  EXPECT_EQ(made.exit_code, 0) << made.output;
  const CommandResult id = RunCommand("openssl pkey -pubin -in " + ShellQuote(k.pub) + " -outform DER | sha256sum");
  k.keyid = id.output.substr(0, 64);
  return k;
}

struct Envelope {
  std::string payload_type;
  std::string payload;
  std::string keyid;
  std::string sig;
};

Envelope ReadEnvelope(const std::string& text) {
  const boost::json::object e = boost::json::parse(text).as_object();
  Envelope out;
  out.payload_type = e.at("payloadType").as_string().c_str();
  out.payload = Base64Decode(std::string(e.at("payload").as_string())).value();
  const boost::json::object& s = e.at("signatures").as_array().at(0).as_object();
  out.keyid = s.at("keyid").as_string().c_str();
  out.sig = Base64Decode(std::string(s.at("sig").as_string())).value();
  return out;
}

std::string WriteEnvelope(const Envelope& e) {
  boost::json::object s{{"keyid", e.keyid}, {"sig", Base64Encode(e.sig)}};
  boost::json::object out{
      {"payloadType", e.payload_type}, {"payload", Base64Encode(e.payload)}, {"signatures", boost::json::array{s}}};
  return boost::json::serialize(out);
}

std::string Pae(std::string_view type, std::string_view payload) {
  return "DSSEv1 " + std::to_string(type.size()) + " " + std::string(type) + " " + std::to_string(payload.size()) +
         " " + std::string(payload);
}

// An envelope signed by openssl (pkeyutl -rawin: pure Ed25519 over the PAE).
std::string SignWithOpenssl(const fs::path& dir, std::string_view type, std::string_view payload, const KeyPair& k) {
  WriteText(dir / "pae.bin", Pae(type, payload));
  const CommandResult signed_pae =
      RunCommand("openssl pkeyutl -sign -inkey " + ShellQuote(k.key) + " -rawin -in " + ShellQuote(dir / "pae.bin") +
                 " -out " + ShellQuote(dir / "sig.bin") + " 2>&1");
  EXPECT_EQ(signed_pae.exit_code, 0) << signed_pae.output;
  return WriteEnvelope({std::string(type), std::string(payload), k.keyid, ReadText(dir / "sig.bin")});
}

// A verification by openssl of an envelope the tool wrote.
bool OpensslVerifies(const fs::path& dir, const Envelope& e, const KeyPair& k) {
  WriteText(dir / "check-pae.bin", Pae(e.payload_type, e.payload));
  WriteText(dir / "check-sig.bin", e.sig);
  const CommandResult run =
      RunCommand("openssl pkeyutl -verify -pubin -inkey " + ShellQuote(k.pub) + " -rawin -in " +
                 ShellQuote(dir / "check-pae.bin") + " -sigfile " + ShellQuote(dir / "check-sig.bin") + " 2>&1");
  return run.exit_code == 0 && run.output.find("Signature Verified Successfully") != std::string::npos;
}

class Attestation : public ::testing::Test {
 protected:
  void SetUp() override {
    if (std::system("openssl version >/dev/null 2>&1") != 0) CKPT_MISSING_PREREQUISITE() << "openssl is missing";
    keys_ = MakeKeyPair(dir_.path(), "signer");
    foreign_ = MakeKeyPair(dir_.path(), "foreign");
    rounds_ = WriteHistory(dir_.path() / "history", 3);
  }
  // Signs the audit of round `i` into `name` and returns the envelope text.
  std::string Attest(std::size_t i, const std::string& name, const std::string& extra = "", int exit_code = 0) {
    const CommandResult run = Audit("--attest " + ShellQuote(keys_.key) + " --attestation-out " +
                                    ShellQuote(dir_.path() / name) + " " + extra + " " + ShellQuote(rounds_[i].dir));
    EXPECT_EQ(run.exit_code, exit_code) << run.output;
    return ReadText(dir_.path() / name);
  }
  CommandResult Verify(const std::string& envelope_text, const fs::path& input, const KeyPair* key = nullptr) {
    WriteText(dir_.path() / "check.dsse.json", envelope_text);
    return Audit("--verbose --verify-attestation " + ShellQuote(dir_.path() / "check.dsse.json") + " --trusted-key " +
                 ShellQuote((key ? *key : keys_).pub) + " " + ShellQuote(input));
  }
  TempDir dir_;
  KeyPair keys_;
  KeyPair foreign_;
  std::vector<Round> rounds_;
};

// Issue 51 item 1: a report written inside the signed input is no subject (the audit left it
// out), and a verification that writes the same report there verifies; a run that leaves it
// behind for one that does not write it finds an unsigned file.
TEST_F(Attestation, AReportInsideTheInputIsNoSubject) {
  const std::string report = (rounds_[1].dir / "audit.json").string();
  for (int run = 0; run < 2; ++run) {  // the second with the first run's report present
    const Envelope e = ReadEnvelope(Attest(1, "inside.dsse.json", "-f json -o " + ShellQuote(report)));
    const boost::json::value statement = boost::json::parse(e.payload);
    const boost::json::array& subjects = statement.at("subject").as_array();
    ASSERT_EQ(subjects.size(), 2u) << run;
    EXPECT_EQ(subjects[0].at("name"), "header.json");
    EXPECT_EQ(subjects[1].at("name"), "weights.safetensors");
  }
  const std::string envelope = ReadText(dir_.path() / "inside.dsse.json");
  WriteText(dir_.path() / "check.dsse.json", envelope);
  const CommandResult same =
      Audit("--verify-attestation " + ShellQuote(dir_.path() / "check.dsse.json") + " --trusted-key " +
            ShellQuote(keys_.pub) + " -f json -o " + ShellQuote(report) + " " + ShellQuote(rounds_[1].dir));
  EXPECT_EQ(same.exit_code, 0) << same.output;
  // Near miss: verified without writing it, the report left behind is a file no subject names.
  EXPECT_EQ(Verify(envelope, rounds_[1].dir).exit_code, 1);
  fs::remove(report);
  EXPECT_EQ(Verify(envelope, rounds_[1].dir).exit_code, 0);
}

TEST_F(Attestation, KeyIdIsTheSha256OfTheDerSubjectPublicKeyInfoAsOpensslComputesIt) {
  auto key = attest::LoadPublicKey(keys_.pub.string());
  ASSERT_TRUE(std::holds_alternative<attest::PublicKey>(key)) << std::get<attest::KeyError>(key).message;
  EXPECT_EQ(std::get<attest::PublicKey>(key).keyid, keys_.keyid);
  auto private_key = attest::LoadPrivateKey(keys_.key.string());
  ASSERT_TRUE(std::holds_alternative<attest::PrivateKey>(private_key));
  EXPECT_EQ(std::get<attest::PrivateKey>(private_key).public_key.keyid, keys_.keyid);
}

TEST_F(Attestation, EnvelopeTheToolWritesVerifiesWithOpenssl) {
  const Envelope e = ReadEnvelope(Attest(1, "round.dsse.json"));
  EXPECT_EQ(e.payload_type, kInToto);
  EXPECT_EQ(e.keyid, keys_.keyid);
  EXPECT_TRUE(OpensslVerifies(dir_.path(), e, keys_));
  EXPECT_FALSE(OpensslVerifies(dir_.path(), e, foreign_));

  // The statement, read back as any in-toto consumer would.
  const boost::json::object s = boost::json::parse(e.payload).as_object();
  EXPECT_EQ(s.at("_type"), "https://in-toto.io/Statement/v1");
  EXPECT_EQ(s.at("predicateType"), "https://github.com/ckpt-audit/ckpt-audit/predicates/audit/v1");
  const boost::json::array& subjects = s.at("subject").as_array();
  ASSERT_EQ(subjects.size(), 2u);
  EXPECT_EQ(subjects[0].at("name"), "header.json");
  EXPECT_EQ(subjects[0].at("digest").at("sha256").as_string(), Sha256Hex(ReadText(rounds_[1].dir / "header.json")));
  EXPECT_EQ(subjects[1].at("name"), "weights.safetensors");
  EXPECT_EQ(subjects[1].at("digest").at("sha256").as_string(),
            Sha256Hex(ReadText(rounds_[1].dir / "weights.safetensors")));
  const boost::json::object& p = s.at("predicate").as_object();
  EXPECT_EQ(p.at("verdict"), "pass");
  EXPECT_EQ(p.at("kind"), "lensemble");
  EXPECT_EQ(p.at("content_hash").as_string(), rounds_[1].hash);
  EXPECT_EQ(p.at("parent_hash").as_string(), rounds_[0].hash);
  EXPECT_EQ(p.at("round_index"), 1);
  EXPECT_EQ(p.at("tool").at("name"), "ckpt-audit");
  EXPECT_EQ(p.at("rules").at("fingerprint").as_string().size(), 64u);
  EXPECT_FALSE(p.contains("audited_at"));
}

// The same envelope through a second verifier: Python's cryptography (Debian's
// python3-cryptography), reading the envelope JSON and the PEM itself.
TEST_F(Attestation, EnvelopeTheToolWritesVerifiesWithPythonCryptography) {
  if (std::system("/usr/bin/python3 -c 'import cryptography' >/dev/null 2>&1") != 0) {
    CKPT_MISSING_PREREQUISITE() << "no python3-cryptography (scripts/install-deps --test installs it)";
  }
  Attest(1, "round.dsse.json");
  const std::string script = R"(
import base64, hashlib, json, sys
from cryptography.hazmat.primitives import serialization
envelope = json.load(open(sys.argv[1]))
key = serialization.load_pem_public_key(open(sys.argv[2], 'rb').read())
spki = key.public_bytes(serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)
payload = base64.b64decode(envelope['payload'], validate=True)
kind = envelope['payloadType'].encode()
pae = b'DSSEv1 %d %s %d %s' % (len(kind), kind, len(payload), payload)
signature = envelope['signatures'][0]
assert signature['keyid'] == hashlib.sha256(spki).hexdigest(), 'keyid'
key.verify(base64.b64decode(signature['sig'], validate=True), pae)  # raises InvalidSignature
statement = json.loads(payload)
print('verified', statement['_type'], statement['predicate']['verdict'])
)";
  WriteText(dir_.path() / "verify.py", script);
  const CommandResult run =
      RunCommand("/usr/bin/python3 " + ShellQuote(dir_.path() / "verify.py") + " " +
                 ShellQuote(dir_.path() / "round.dsse.json") + " " + ShellQuote(keys_.pub) + " 2>&1");
  EXPECT_EQ(run.exit_code, 0) << run.output;
  EXPECT_EQ(run.output, "verified https://in-toto.io/Statement/v1 pass\n");
  const CommandResult foreign =
      RunCommand("/usr/bin/python3 " + ShellQuote(dir_.path() / "verify.py") + " " +
                 ShellQuote(dir_.path() / "round.dsse.json") + " " + ShellQuote(foreign_.pub) + " 2>&1");
  EXPECT_NE(foreign.exit_code, 0) << foreign.output;
}

TEST_F(Attestation, EnvelopeSignedByOpensslVerifiesWithTheTool) {
  // A statement written here, not by the tool: subjects hashed by sha256sum.
  auto digest = [](const fs::path& file) { return RunCommand("sha256sum " + ShellQuote(file)).output.substr(0, 64); };
  boost::json::object statement{
      {"_type", "https://in-toto.io/Statement/v1"},
      {"subject",
       boost::json::array{boost::json::object{{"name", "weights.safetensors"},
                                              {"digest", {{"sha256", digest(rounds_[2].dir / "weights.safetensors")}}}},
                          boost::json::object{{"name", "header.json"},
                                              {"digest", {{"sha256", digest(rounds_[2].dir / "header.json")}}}}}},
      {"predicateType", "https://github.com/ckpt-audit/ckpt-audit/predicates/audit/v1"},
      {"predicate",
       {{"tool", {{"name", "another-auditor"}, {"version", "9"}}},
        {"kind", "lensemble"},
        {"verdict", "pass"},
        {"findings", boost::json::array{}},
        {"content_hash", rounds_[2].hash}}}};
  const std::string envelope = SignWithOpenssl(dir_.path(), kInToto, boost::json::serialize(statement), keys_);
  const CommandResult run = Verify(envelope, rounds_[2].dir);
  EXPECT_EQ(run.exit_code, 0) << run.output;
  EXPECT_NE(run.output.find(": PASS"), std::string::npos) << run.output;
}

TEST_F(Attestation, TwoRunsSignByteIdenticalStatements) {
  const std::string first = Attest(0, "first.dsse.json");
  const std::string second = Attest(0, "second.dsse.json");
  EXPECT_EQ(first, second);
  // Asked for, the time is recorded (and only then do statements differ by run).
  const Envelope timed = ReadEnvelope(Attest(0, "timed.dsse.json", "--attestation-time=2026-11-30T12:00:00Z"));
  EXPECT_EQ(boost::json::parse(timed.payload).at("predicate").at("audited_at"), "2026-11-30T12:00:00Z");
  EXPECT_NE(ReadEnvelope(first).payload, timed.payload);
}

TEST_F(Attestation, AFailingAuditIsSignedTooAndItsVerdictFailsVerification) {
  // Tampered weights: the audit fails (exit 1) and still signs what it found.
  std::string weights = ReadText(rounds_[1].dir / "weights.safetensors");
  weights.back() = static_cast<char>(weights.back() ^ 1);
  WriteText(rounds_[1].dir / "weights.safetensors", weights);
  const CommandResult run = Audit("--attest " + ShellQuote(keys_.key) + " --attestation-out " +
                                  ShellQuote(dir_.path() / "failed.dsse.json") + " " + ShellQuote(rounds_[1].dir));
  EXPECT_EQ(run.exit_code, 1) << run.output;
  const std::string envelope = ReadText(dir_.path() / "failed.dsse.json");
  const boost::json::value p = boost::json::parse(ReadEnvelope(envelope).payload).at("predicate");
  EXPECT_EQ(p.at("verdict"), "fail");
  EXPECT_EQ(p.at("findings").at(0).at("rule"), "hash-mismatch");
  EXPECT_EQ(p.at("counts").at("error"), 1);

  const CommandResult verified = Verify(envelope, rounds_[1].dir);
  EXPECT_EQ(verified.exit_code, 1) << verified.output;
  EXPECT_NE(verified.output.find(": error: The statement verifies, but its signed verdict is fail (1 findings listed, "
                                 "the first 'hash-mismatch'). [attest-verdict-fail CHECKPOINT_INTEGRITY]"),
            std::string::npos)
      << verified.output;
  EXPECT_EQ(verified.output.find("attest-subject-mismatch"), std::string::npos) << verified.output;
}

TEST_F(Attestation, NearMissAVerifiedStatementOfAnUnchangedInputHasNoFinding) {
  const CommandResult run = Verify(Attest(1, "ok.dsse.json"), rounds_[1].dir);
  EXPECT_EQ(run.exit_code, 0) << run.output;
  EXPECT_EQ(run.output.find("attest-"), std::string::npos) << run.output;
  // The report lists the input's files as they hash now.
  const std::string weights = ReadText(rounds_[1].dir / "weights.safetensors");
  EXPECT_NE(run.output.find("    weights.safetensors  " + std::to_string(weights.size()) + " bytes  sha256 " +
                            Sha256Hex(weights)),
            std::string::npos)
      << run.output;
}

// Issue 30, item 2: a passing verification says what was verified, as cosign does: key id,
// predicate, signed verdict, tool and version, rule fingerprint, subjects matched; and a
// refused one is labelled by the input's kind, not "unknown".
TEST_F(Attestation, VerificationListsTheChecksPerformed) {
  const std::string envelope = Attest(1, "r.dsse.json");
  CommandResult run = Audit("--verify-attestation " + ShellQuote(dir_.path() / "r.dsse.json") + " --trusted-key " +
                            ShellQuote(keys_.pub) + " " + ShellQuote(rounds_[1].dir));
  EXPECT_EQ(run.exit_code, 0) << run.output;
  const boost::json::object payload = boost::json::parse(ReadEnvelope(envelope).payload).as_object();
  const std::string fingerprint(payload.at("predicate").at("rules").at("fingerprint").as_string());
  const std::uint64_t count = payload.at("predicate").at("rules").at("count").to_number<std::uint64_t>();
  const std::size_t subjects = payload.at("subject").as_array().size();
  const std::string block = rounds_[1].dir.string() + ": checks performed with " +
                            (dir_.path() / "r.dsse.json").string() + ":\n  signature: verified with the trusted key " +
                            keys_.keyid +
                            "\n  predicate: https://github.com/ckpt-audit/ckpt-audit/predicates/audit/v1\n  signed "
                            "verdict: pass (ckpt-audit " CKPT_VERSION ", input kind lensemble)\n  rules: " +
                            std::to_string(count) + " rules, fingerprint " + fingerprint +
                            " (the same rule set as this tool's)\n  subjects: " + std::to_string(subjects) + " of " +
                            std::to_string(subjects) + " subjects match the input's files now\n";
  EXPECT_NE(run.output.find(block), std::string::npos) << run.output;
  run = Audit("--format json --verify-attestation " + ShellQuote(dir_.path() / "r.dsse.json") + " --trusted-key " +
              ShellQuote(keys_.pub) + " " + ShellQuote(rounds_[1].dir));
  const boost::json::object v = boost::json::parse(run.output).at("artifacts").at(0).at("verification").as_object();
  EXPECT_EQ(v.at("key_id").as_string(), keys_.keyid);
  EXPECT_EQ(v.at("signature").as_string(), "verified");
  EXPECT_EQ(v.at("predicate_type").as_string(), "https://github.com/ckpt-audit/ckpt-audit/predicates/audit/v1");
  EXPECT_EQ(v.at("signed_verdict").as_string(), "pass");
  EXPECT_EQ(v.at("tool").at("version").as_string(), CKPT_VERSION);
  EXPECT_EQ(v.at("rules").at("fingerprint").as_string(), fingerprint);
  EXPECT_TRUE(v.at("rules").at("same_as_this_tool").as_bool());
  EXPECT_EQ(v.at("subjects").at("matched").to_number<std::size_t>(), subjects);
  EXPECT_EQ(v.at("subjects").at("signed").to_number<std::size_t>(), subjects);

  // Refused (another key): the block says which check failed, the input keeps its kind.
  run = Verify(envelope, rounds_[1].dir, &foreign_);
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_NE(run.output.find("\n  signature: made by another key only, not by the trusted key " + foreign_.keyid +
                            "\n  statement: not read (nothing is trusted without the signature)\n"),
            std::string::npos)
      << run.output;
  EXPECT_NE(run.output.find("FAIL (1 error, 0 warnings, 0 notes)\n  kind lensemble\n"), std::string::npos)
      << run.output;
  EXPECT_EQ(run.output.find("unknown"), std::string::npos) << run.output;
  // A changed file: the statement verifies, one subject no longer matches.
  std::string weights = ReadText(rounds_[1].dir / "weights.safetensors");
  weights.back() = static_cast<char>(weights.back() ^ 1);
  WriteText(rounds_[1].dir / "weights.safetensors", weights);
  run = Verify(envelope, rounds_[1].dir);
  EXPECT_NE(run.output.find("subjects: " + std::to_string(subjects - 1) + " of " + std::to_string(subjects) +
                            " subjects " + (subjects == 2 ? "matches" : "match") + " the input's files now"),
            std::string::npos)
      << run.output;
}

TEST_F(Attestation, FlippedPayloadByteIsRefused) {
  Envelope e = ReadEnvelope(Attest(1, "r.dsse.json"));
  e.payload[e.payload.size() / 2] = static_cast<char>(e.payload[e.payload.size() / 2] ^ 0x01);
  const CommandResult run = Verify(WriteEnvelope(e), rounds_[1].dir);
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_NE(run.output.find("check.dsse.json@" /* the signature's offset */), std::string::npos) << run.output;
  EXPECT_NE(run.output.find("error: The signature for trusted key " + keys_.keyid.substr(0, 16) +
                            " does not verify over this payload and payload type: the envelope changed after it "
                            "was signed. [attest-signature-invalid CHECKPOINT_INTEGRITY]"),
            std::string::npos)
      << run.output;
}

// S + L is a second encoding of a valid signature: lax verifiers accept it, openssl and
// RFC 8032 refuse it, and so does the tool (one statement, one signature encoding).
TEST_F(Attestation, ASignatureWhoseScalarIsNotReducedIsRefused) {
  Envelope e = ReadEnvelope(Attest(1, "r.dsse.json"));
  ASSERT_TRUE(OpensslVerifies(dir_.path(), e, keys_));
  static constexpr std::array<unsigned, 32> kOrder = {0xed, 0xd3, 0xf5, 0x5c, 0x1a, 0x63, 0x12, 0x58, 0xd6, 0x9c, 0xf7,
                                                      0xa2, 0xde, 0xf9, 0xde, 0x14, 0,    0,    0,    0,    0,    0,
                                                      0,    0,    0,    0,    0,    0,    0,    0,    0,    0x10};
  unsigned carry = 0;
  for (std::size_t i = 0; i < 32; ++i) {
    const unsigned sum = static_cast<unsigned char>(e.sig[32 + i]) + kOrder[i] + carry;
    e.sig[32 + i] = static_cast<char>(sum & 0xFF);
    carry = sum >> 8;
  }
  ASSERT_EQ(carry, 0U);
  EXPECT_FALSE(OpensslVerifies(dir_.path(), e, keys_)) << "openssl refuses S + L";
  const CommandResult run = Verify(WriteEnvelope(e), rounds_[1].dir);
  EXPECT_EQ(run.exit_code, 1) << run.output;
  EXPECT_NE(run.output.find("error: The signature for trusted key " + keys_.keyid.substr(0, 16) +
                            " does not verify over this payload and payload type: the envelope changed after it "
                            "was signed. [attest-signature-invalid CHECKPOINT_INTEGRITY]"),
            std::string::npos)
      << run.output;
}

TEST_F(Attestation, FlippedSignatureByteIsRefused) {
  Envelope e = ReadEnvelope(Attest(1, "r.dsse.json"));
  e.sig[10] = static_cast<char>(e.sig[10] ^ 0x80);
  const CommandResult run = Verify(WriteEnvelope(e), rounds_[1].dir);
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_NE(run.output.find("[attest-signature-invalid CHECKPOINT_INTEGRITY]"), std::string::npos) << run.output;
  // A payload type changed after signing is the same refusal: the type is signed too.
  Envelope retyped = ReadEnvelope(ReadText(dir_.path() / "r.dsse.json"));
  retyped.payload_type = "application/json";
  EXPECT_NE(Verify(WriteEnvelope(retyped), rounds_[1].dir).output.find("[attest-signature-invalid"), std::string::npos);
}

TEST_F(Attestation, ForeignKeyIsRefused) {
  const std::string envelope = Attest(1, "r.dsse.json");
  const CommandResult run = Verify(envelope, rounds_[1].dir, &foreign_);
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_NE(run.output.find("error: The envelope is signed only by key '" + keys_.keyid + "', not by the trusted key " +
                            foreign_.keyid.substr(0, 16) + ". [attest-foreign-key CHECKPOINT_INTEGRITY]"),
            std::string::npos)
      << run.output;
  // A signature that claims the trusted key id but was made by another key does not verify.
  const Envelope forged = ReadEnvelope(SignWithOpenssl(dir_.path(), kInToto, ReadEnvelope(envelope).payload, foreign_));
  Envelope claimed = forged;
  claimed.keyid = keys_.keyid;
  EXPECT_NE(Verify(WriteEnvelope(claimed), rounds_[1].dir).output.find("[attest-signature-invalid"), std::string::npos);
}

TEST_F(Attestation, WrongPayloadTypeIsRefused) {
  const std::string payload = ReadEnvelope(Attest(1, "r.dsse.json")).payload;
  const CommandResult run = Verify(SignWithOpenssl(dir_.path(), "application/json", payload, keys_), rounds_[1].dir);
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_NE(run.output.find("error: The envelope's payloadType is 'application/json', not "
                            "application/vnd.in-toto+json: it is not an in-toto statement. [attest-payload-type "
                            "CHECKPOINT_INTEGRITY]"),
            std::string::npos)
      << run.output;
}

TEST_F(Attestation, OneChangedByteOfTheInputIsASubjectMismatch) {
  const std::string envelope = Attest(1, "r.dsse.json");
  const std::string before = Sha256Hex(ReadText(rounds_[1].dir / "weights.safetensors"));
  std::string weights = ReadText(rounds_[1].dir / "weights.safetensors");
  weights[weights.size() - 5] = static_cast<char>(weights[weights.size() - 5] ^ 0x10);
  WriteText(rounds_[1].dir / "weights.safetensors", weights);
  const CommandResult run = Verify(envelope, rounds_[1].dir);
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_NE(
      run.output.find(rounds_[1].dir.string() + "/weights.safetensors: error: File 'weights.safetensors' hashes to " +
                      Sha256Hex(weights) + " now, but the statement signed " + before +
                      ": it changed after the audit. [attest-subject-mismatch CHECKPOINT_INTEGRITY]"),
      std::string::npos)
      << run.output;
  EXPECT_EQ(run.output.find("header.json: error"), std::string::npos) << run.output;

  // A file added after the audit is one too; so is a missing one.
  WriteText(rounds_[2].dir / "notes.txt", "hello");
  // (the stray file fails round 2's audit: the statement is signed all the same)
  const CommandResult added = Verify(Attest(2, "r2.dsse.json", "", 1), rounds_[0].dir);
  EXPECT_NE(added.output.find("error: The statement's subject 'notes.txt' is not a file of the input now."),
            std::string::npos)
      << added.output;
  const CommandResult extra = Verify(Attest(0, "r0.dsse.json"), rounds_[2].dir);
  EXPECT_NE(extra.output.find("error: File 'notes.txt' of the input is not among the statement's subjects: it was "
                              "added after the audit."),
            std::string::npos)
      << extra.output;
}

// Every entry of a signed input is accounted for (attestations.md 2): a link to a folder
// holding a pickle, an empty folder, a FIFO or a dangling link added after signing is a
// subject mismatch, never a pass; and an input holding one cannot be signed.
TEST_F(Attestation, EntriesAddedAfterSigningThatAreNotFilesAreMismatches) {
  const std::string envelope = Attest(1, "r.dsse.json");
  const fs::path round = rounds_[1].dir;
  fs::create_directories(dir_.path() / "elsewhere");
  WriteText(dir_.path() / "elsewhere" / "diffusion_pytorch_model.bin", std::string("\x80\x02cposix\nsystem\n.", 16));
  struct Added {
    const char* name;
    std::function<void()> add;
    std::string what;
  };
  const std::vector<Added> cases = {
      {"unet", [&] { fs::create_directory_symlink("../../elsewhere", round / "unet"); },
       "a symbolic link to '../../elsewhere'"},
      {"empty", [&] { fs::create_directory(round / "empty"); }, "an empty directory"},
      {"pipe", [&] { ASSERT_EQ(::mkfifo((round / "pipe").c_str(), 0644), 0); }, "a FIFO"},
      {"dangling", [&] { fs::create_symlink("no-such-file", round / "dangling"); },
       "a symbolic link to 'no-such-file'"},
  };
  for (const Added& c : cases) {
    c.add();
    const CommandResult run = Verify(envelope, round);
    EXPECT_EQ(run.exit_code, 1) << c.name << "\n" << run.output;
    EXPECT_NE(run.output.find("Entry '" + std::string(c.name) + "' of the input is " + c.what +
                              ", which no statement's subjects account for: the input is not what was signed. "
                              "[attest-subject-mismatch CHECKPOINT_INTEGRITY]"),
              std::string::npos)
        << c.name << "\n"
        << run.output;
    // Such an input cannot be signed as it is.
    const CommandResult sign = Audit("--attest " + ShellQuote(keys_.key) + " --attestation-out " +
                                     ShellQuote(dir_.path() / "again.dsse.json") + " " + ShellQuote(round));
    EXPECT_NE(sign.exit_code, 0) << sign.output;
    EXPECT_NE(sign.output.find("' is " + c.what + ", and a statement names regular files only"), std::string::npos)
        << sign.output;
    fs::remove(round / c.name);
  }
  EXPECT_EQ(Verify(envelope, round).exit_code, 0) << "near miss: the input as signed";
}

TEST_F(Attestation, UnknownPredicateTypeIsRefused) {
  boost::json::value statement = boost::json::parse(ReadEnvelope(Attest(1, "r.dsse.json")).payload);
  statement.as_object()["predicateType"] = "https://slsa.dev/provenance/v1";
  const CommandResult run =
      Verify(SignWithOpenssl(dir_.path(), kInToto, boost::json::serialize(statement), keys_), rounds_[1].dir);
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_NE(run.output.find("error: The statement's predicateType is 'https://slsa.dev/provenance/v1', not "
                            "https://github.com/ckpt-audit/ckpt-audit/predicates/audit/v1: it is not evidence for "
                            "this check. [attest-predicate-unknown CHECKPOINT_INTEGRITY]"),
            std::string::npos)
      << run.output;
}

TEST_F(Attestation, StatementAndEnvelopeThatDoNotParseAreRefused) {
  boost::json::value statement = boost::json::parse(ReadEnvelope(Attest(1, "r.dsse.json")).payload);
  statement.at("predicate").as_object()["verdict"] = "maybe";
  CommandResult run =
      Verify(SignWithOpenssl(dir_.path(), kInToto, boost::json::serialize(statement), keys_), rounds_[1].dir);
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_NE(run.output.find("error: The signed statement has verdict 'maybe', not pass or fail. "
                            "[attest-statement-invalid CHECKPOINT_INTEGRITY]"),
            std::string::npos)
      << run.output;
  // Duplicate keys are refused: two readers could take different values.
  run = Verify(SignWithOpenssl(dir_.path(), kInToto, R"({"_type":"a","_type":"b"})", keys_), rounds_[1].dir);
  EXPECT_NE(run.output.find("error: The signed statement has the key '_type' twice in one object"), std::string::npos)
      << run.output;

  for (const std::string& bad : {std::string("not json"), std::string(R"({"payloadType":"x","payload":"@@"})"),
                                 std::string(R"({"payloadType":"x","payload":"","signatures":[]})")}) {
    run = Verify(bad, rounds_[1].dir);
    EXPECT_EQ(run.exit_code, 1) << bad;
    EXPECT_NE(run.output.find("error: Not a DSSE envelope: "), std::string::npos) << run.output;
    EXPECT_NE(run.output.find("[attest-envelope-invalid CHECKPOINT_INTEGRITY]"), std::string::npos) << run.output;
  }
}

TEST_F(Attestation, MalformedKeysAreUsageErrors) {
  const std::string pem = ReadText(keys_.pub);
  struct Case {
    std::string text;
    std::string message;
  };
  const std::vector<Case> cases = {
      {"", "not a PEM file (no -----BEGIN line)"},
      {pem.substr(0, pem.size() - 10), "no '-----END PUBLIC KEY-----' line"},
      {"-----BEGIN PUBLIC KEY-----\nMCowBQYDK2VwAyEA!!!\n-----END PUBLIC KEY-----\n", "the PEM body is not base64"},
      {"-----BEGIN PUBLIC KEY-----\nMCowBQYDK2VwAyEA\n-----END PUBLIC KEY-----\n",
       "the PEM body is not one DER SubjectPublicKeyInfo"},
      {ReadText(keys_.key), "a PEM 'PRIVATE KEY' block, not 'PUBLIC KEY'"},
      {"junk\n" + pem, "text before the PEM -----BEGIN line"},
  };
  for (const Case& c : cases) {
    WriteText(dir_.path() / "bad.pem", c.text);
    const CommandResult run =
        Audit("--verify-attestation " + ShellQuote(dir_.path() / "whatever.json") + " --trusted-key " +
              ShellQuote(dir_.path() / "bad.pem") + " " + ShellQuote(rounds_[0].dir));
    EXPECT_EQ(run.exit_code, 2) << c.message;
    EXPECT_NE(run.output.find("ckpt-audit: --trusted-key '" + (dir_.path() / "bad.pem").string() + "': " + c.message),
              std::string::npos)
        << run.output;
  }
  // An RSA key is named as what it is; a public key is no signing key.
  const CommandResult rsa = RunCommand("openssl genpkey -algorithm rsa -pkeyopt rsa_keygen_bits:1024 -out " +
                                       ShellQuote(dir_.path() / "rsa.pem") + " 2>&1");
  ASSERT_EQ(rsa.exit_code, 0) << rsa.output;
  CommandResult run = Audit("--attest " + ShellQuote(dir_.path() / "rsa.pem") + " --attestation-out " +
                            ShellQuote(dir_.path() / "x.json") + " " + ShellQuote(rounds_[0].dir));
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.output.find("': an RSA key, not an Ed25519 key"), std::string::npos) << run.output;
  run = Audit("--attest " + ShellQuote(keys_.pub) + " --attestation-out " + ShellQuote(dir_.path() / "x.json") + " " +
              ShellQuote(rounds_[0].dir));
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.output.find("a PEM 'PUBLIC KEY' block, not 'PRIVATE KEY'"), std::string::npos) << run.output;
  EXPECT_FALSE(fs::exists(dir_.path() / "x.json"));
}

TEST_F(Attestation, APrivateKeyReadableByOthersIsAWarning) {
  fs::permissions(keys_.key,
                  fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read | fs::perms::others_read);
  const CommandResult run = Audit("--attest " + ShellQuote(keys_.key) + " --attestation-out " +
                                  ShellQuote(dir_.path() / "r.json") + " " + ShellQuote(rounds_[0].dir));
  EXPECT_EQ(run.exit_code, 0);
  EXPECT_NE(run.output.find("ckpt-audit: warning: the private key '" + keys_.key.string() +
                            "' is readable by others than its owner; chmod 600 it"),
            std::string::npos)
      << run.output;
  fs::permissions(keys_.key, fs::perms::owner_read | fs::perms::owner_write);
  EXPECT_EQ(Audit("--attest " + ShellQuote(keys_.key) + " --attestation-out " + ShellQuote(dir_.path() / "r.json") +
                  " " + ShellQuote(rounds_[0].dir))
                .output.find("warning: the private key"),
            std::string::npos);
}

TEST_F(Attestation, SeveralInputsSignOneStatementEachIntoAFolder) {
  const CommandResult run =
      Audit("--attest " + ShellQuote(keys_.key) + " --attestation-out " + ShellQuote(dir_.path() / "out") + " " +
            ShellQuote(dir_.path() / "history"));  // a folder of rounds: three audits
  EXPECT_EQ(run.exit_code, 0) << run.output;
  for (const char* name : {"round-0000", "round-0001", "round-0002"}) {
    const fs::path envelope = dir_.path() / "out" / (std::string(name) + ".audit.dsse.json");
    ASSERT_TRUE(fs::exists(envelope)) << envelope;
    EXPECT_EQ(Verify(ReadText(envelope), dir_.path() / "history" / name).exit_code, 0);
  }
  // Statements are never written into what is audited.
  const CommandResult inside = Audit("--attest " + ShellQuote(keys_.key) + " --attestation-out " +
                                     ShellQuote(rounds_[0].dir / "x.json") + " " + ShellQuote(rounds_[0].dir));
  EXPECT_EQ(inside.exit_code, 2) << inside.output;
  EXPECT_FALSE(fs::exists(rounds_[0].dir / "x.json"));
}

TEST_F(Attestation, ATarOrASingleFileIsItsOwnSubject) {
  const fs::path tar = dir_.path() / "round-1.tar";
  ASSERT_EQ(RunCommand("tar -cf " + ShellQuote(tar) + " -C " + ShellQuote(rounds_[1].dir) + " . 2>&1").exit_code, 0);
  const fs::path weights = dir_.path() / "model.safetensors";
  fs::copy_file(rounds_[1].dir / "weights.safetensors", weights);
  for (const fs::path& input : {tar, weights}) {
    const CommandResult run = Audit("--attest " + ShellQuote(keys_.key) + " --attestation-out " +
                                    ShellQuote(dir_.path() / "one.dsse.json") + " " + ShellQuote(input));
    EXPECT_EQ(run.exit_code, 0) << run.output;
    const std::string envelope = ReadText(dir_.path() / "one.dsse.json");
    const boost::json::value s = boost::json::parse(ReadEnvelope(envelope).payload);
    ASSERT_EQ(s.at("subject").as_array().size(), 1u);
    EXPECT_EQ(s.at("subject").at(0).at("name").as_string(), input.filename().string());
    EXPECT_EQ(s.at("subject").at(0).at("digest").at("sha256").as_string(), Sha256Hex(ReadText(input)));
    EXPECT_EQ(Verify(envelope, input).exit_code, 0);
  }
}

// Acceptance 4: a 40-round history audited as 40 separate signed runs (one per CI matrix
// job), then proved from the envelopes alone, with the artifacts gone.
TEST(AttestedChain, FortySignedRoundsProveTheSameHistoryAsTheArtifacts) {
  if (std::system("openssl version >/dev/null 2>&1") != 0) CKPT_MISSING_PREREQUISITE() << "openssl is missing";
  TempDir dir;
  const KeyPair keys = MakeKeyPair(dir.path(), "ci");
  std::vector<Round> rounds = WriteHistory(dir.path() / "history", 40);
  // Damage as real histories see it: round 17's weights changed after publishing (it fails
  // its audit, so round 18 links to an untrusted parent), and round 30 is missing (a gap).
  std::string weights = ReadText(rounds[17].dir / "weights.safetensors");
  weights.back() = static_cast<char>(weights.back() ^ 1);
  WriteText(rounds[17].dir / "weights.safetensors", weights);
  fs::remove_all(rounds[30].dir);
  fs::create_directories(dir.path() / "envelopes");
  for (std::size_t i = 0; i < rounds.size(); ++i) {
    if (i == 30) continue;
    const CommandResult run =
        Audit("--attest " + ShellQuote(keys.key) + " --attestation-out " +
              ShellQuote(dir.path() / "envelopes" / ("round-" + std::to_string(i) + ".dsse.json")) + " " +
              ShellQuote(rounds[i].dir));
    ASSERT_TRUE(run.exit_code == 0 || (i == 17 && run.exit_code == 1)) << i << run.output;
  }
  const CommandResult from_artifacts = Chain("--format json " + ShellQuote(dir.path() / "history"));
  fs::rename(dir.path() / "history", dir.path() / "gone");  // nothing but the envelopes is left
  const auto start = std::chrono::steady_clock::now();
  const CommandResult from_envelopes =
      Chain("--format json --trusted-key " + ShellQuote(keys.pub) + " " + ShellQuote(dir.path() / "envelopes"));
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::cout << "envelope-only proof of 39 rounds: " << seconds << " s\n";
  EXPECT_EQ(from_artifacts.exit_code, 1);
  EXPECT_EQ(from_envelopes.exit_code, 1) << from_envelopes.output;

  // Same history (rounds, hashes, parents, verdicts in order) and the same findings by rule
  // and round, except the envelope marker of the failed round's signed verdict.
  auto summary = [](const std::string& json) {
    const boost::json::object report = boost::json::parse(json).as_object();
    std::vector<std::string> lines;
    std::map<std::string, std::string> round_of;
    for (const boost::json::value& node : report.at("history").as_array()) {
      const boost::json::object& n = node.as_object();
      const std::string round = boost::json::serialize(n.at("round_index"));
      round_of[std::string(n.at("path").as_string())] = round;
      lines.push_back("round " + round + " hash " + boost::json::serialize(n.at("content_hash")) + " parent " +
                      boost::json::serialize(n.at("parent_hash")) + " " + std::string(n.at("verdict").as_string()));
      for (const boost::json::value& f : n.at("findings").as_array()) {
        const std::string rule(f.at("rule").as_string());
        if (rule != "attest-verdict-fail")
          lines.push_back(std::string("  round ").append(round).append(" ").append(rule));
      }
    }
    std::set<std::string> chain;
    for (const boost::json::value& f : report.at("findings").as_array()) {
      chain.insert(std::string(f.at("rule").as_string()));
    }
    for (const std::string& rule : chain) lines.push_back("chain " + rule);
    return lines;
  };
  const std::vector<std::string> expected = summary(from_artifacts.output);
  EXPECT_EQ(summary(from_envelopes.output), expected);
  // 39 rounds, and the damage seen the same way from both sides.
  EXPECT_EQ(expected.size(), 42u) << ::testing::PrintToString(expected);
  for (const char* line : {"  round 17 hash-mismatch", "  round 18 chain-parent-untrusted", "  round 31 chain-gap"}) {
    EXPECT_NE(std::find(expected.begin(), expected.end(), line), expected.end()) << line;
  }
  EXPECT_NE(from_envelopes.output.find("attest-verdict-fail"), std::string::npos);
}

// Issue 51 item 4: a tampered round whose failing statement was edited to pass claims its
// recomputed hash while its child names the header's: the forgery is told once and the child
// links to the refused envelope (chain-parent-untrusted), never to a missing round.
TEST_F(Attestation, AForgedStatementOfATamperedRoundIsToldOnce) {
  std::vector<Round> rounds = WriteHistory(dir_.path() / "ten", 10);
  std::string weights = ReadText(rounds[7].dir / "weights.safetensors");
  weights.back() = static_cast<char>(weights.back() ^ 1);
  WriteText(rounds[7].dir / "weights.safetensors", weights);
  fs::create_directories(dir_.path() / "env");
  for (std::size_t i = 0; i < rounds.size(); ++i) {
    const CommandResult run = Audit("--attest " + ShellQuote(keys_.key) + " --attestation-out " +
                                    ShellQuote(dir_.path() / "env" / ("round-" + std::to_string(i) + ".dsse.json")) +
                                    " " + ShellQuote(rounds[i].dir));
    EXPECT_EQ(run.exit_code, i == 7 ? 1 : 0) << run.output;
  }
  const fs::path forged = dir_.path() / "env" / "round-7.dsse.json";
  Envelope e = ReadEnvelope(ReadText(forged));
  boost::json::object statement = boost::json::parse(e.payload).as_object();
  EXPECT_NE(statement["predicate"].at("content_hash"), statement["predicate"].at("declared_content_hash"));
  statement["predicate"].as_object()["verdict"] = "pass";
  statement["predicate"].as_object()["findings"] = boost::json::array{};
  e.payload = boost::json::serialize(statement);
  WriteText(forged, WriteEnvelope(e));
  const CommandResult run = Chain("--trusted-key " + ShellQuote(keys_.pub) + " " + ShellQuote(dir_.path() / "env"));
  EXPECT_EQ(run.exit_code, 1) << run.output;
  EXPECT_EQ(run.output.rfind("round 9 does not trace to genesis: forged at 7.\n", 0), 0u) << run.output;
  EXPECT_EQ(run.output.find("chain-gap"), std::string::npos) << run.output;
  EXPECT_NE(run.output.find("round 8 at " + (dir_.path() / "env" / "round-8.dsse.json").string() + " names parent " +
                            rounds[7].hash.substr(0, 12) + ", which only the refused signed statement " +
                            forged.string() + " claims (as round 7): signature does not verify"),
            std::string::npos)
      << run.output;
}

// Issue 51 item 4, as a property: histories with a random mix of the five faults a history
// meets (a tampered round, a forged statement, one signed by another key, a missing round, a
// fork), proved from their statements alone, tell the story and list each row's rules exactly
// as an independent model of the history says. Faults sit on rounds 1..n-2, two apart, so each
// is told on its own; the seed is printed with any mismatch.
TEST_F(Attestation, RandomlyDamagedHistoriesTellTheStoryTheModelPredicts) {
  // kForgedTampered: a tampered round whose failing statement was edited to say pass.
  enum class Fault { kTampered, kForged, kForeign, kMissing, kFork, kForgedTampered };
  std::mt19937 random(20261207);
  std::set<int> kinds_met;
  for (int history = 0; history < 8; ++history) {
    const auto seed = static_cast<std::uint32_t>(random());
    std::mt19937 draw(seed);
    const std::size_t count = 9 + draw() % 6;
    std::map<std::size_t, Fault> faults;
    for (std::size_t round = 1 + draw() % 2; round + 1 < count; round += 2 + draw() % 2) {
      if (draw() % 3 != 0) faults[round] = static_cast<Fault>(draw() % 6);
    }
    if (faults.empty()) faults[count / 2] = static_cast<Fault>(draw() % 6);
    for (const auto& [round, fault] : faults) kinds_met.insert(static_cast<int>(fault));
    const fs::path root = dir_.path() / ("random-" + std::to_string(history));
    std::vector<Round> rounds = WriteHistory(root / "h", count);
    fs::create_directories(root / "env");
    auto sign = [&](const fs::path& round, const KeyPair& key, const std::string& name) {
      const CommandResult run = Audit("--attest " + ShellQuote(key.key) + " --attestation-out " +
                                      ShellQuote(root / "env" / (name + ".dsse.json")) + " " + ShellQuote(round));
      EXPECT_LE(run.exit_code, 1) << run.output;
    };
    // The independent model: each row's rules by round (a fork's two rows), the story's events.
    std::multimap<std::uint64_t, std::vector<std::string>> rows;
    std::vector<std::string> events;
    for (std::size_t i = 0; i < count; ++i) {
      const auto fault = faults.find(i);
      const auto before = faults.find(i - 1);
      std::vector<std::string> rules;
      if (i > 0 && before != faults.end() && before->second != Fault::kMissing && before->second != Fault::kFork) {
        rules.emplace_back("chain-parent-untrusted");  // its parent is refused or failed its audit
      }
      if (i > 0 && before != faults.end() && before->second == Fault::kMissing) rules.emplace_back("chain-gap");
      if (fault == faults.end()) {
        sign(rounds[i].dir, keys_, "round-" + std::to_string(i));
        rows.emplace(i, rules);
        continue;
      }
      switch (fault->second) {
        case Fault::kTampered: {
          std::string weights = ReadText(rounds[i].dir / "weights.safetensors");
          weights.back() = static_cast<char>(weights.back() ^ 1);
          WriteText(rounds[i].dir / "weights.safetensors", weights);
          sign(rounds[i].dir, keys_, "round-" + std::to_string(i));
          rules.insert(rules.begin(), {"hash-mismatch", "attest-verdict-fail"});
          events.push_back("tampered at " + std::to_string(i));
          break;
        }
        case Fault::kForged:
        case Fault::kForgedTampered: {
          if (fault->second == Fault::kForgedTampered) {
            std::string weights = ReadText(rounds[i].dir / "weights.safetensors");
            weights.back() = static_cast<char>(weights.back() ^ 1);
            WriteText(rounds[i].dir / "weights.safetensors", weights);
          }
          sign(rounds[i].dir, keys_, "round-" + std::to_string(i));
          const fs::path envelope = root / "env" / ("round-" + std::to_string(i) + ".dsse.json");
          Envelope e = ReadEnvelope(ReadText(envelope));
          boost::json::object statement = boost::json::parse(e.payload).as_object();
          statement["predicate"].as_object()["tool"].as_object()["version"] = "edited";
          statement["predicate"].as_object()["verdict"] = "pass";
          statement["predicate"].as_object()["findings"] = boost::json::array{};
          e.payload = boost::json::serialize(statement);
          WriteText(envelope, WriteEnvelope(e));
          rules = {"attest-signature-invalid"};  // its own claims, parent included, are not read
          events.push_back("forged at " + std::to_string(i));
          break;
        }
        case Fault::kForeign:
          sign(rounds[i].dir, foreign_, "round-" + std::to_string(i));
          rules = {"attest-foreign-key"};
          events.push_back("foreign-signed at " + std::to_string(i));
          break;
        case Fault::kMissing:
          fs::remove_all(rounds[i].dir);
          events.push_back("gap at " + std::to_string(i));
          break;
        case Fault::kFork: {
          ArtifactSpec branch = RoundSpec(i, rounds[i - 1].hash);
          branch.tensors[0].data[0] ^= 1;
          const Round fork = WriteRound(root / "h", "fork-" + std::to_string(i), branch);
          sign(rounds[i].dir, keys_, "round-" + std::to_string(i));
          sign(fork.dir, keys_, "fork-" + std::to_string(i));
          rules.emplace_back("chain-fork");
          rows.emplace(i, std::vector<std::string>{"chain-fork"});  // the branch
          events.push_back("fork at " + std::to_string(i - 1));     // where the history branches
          break;
        }
      }
      if (fault->second != Fault::kMissing) rows.emplace(i, rules);
    }
    std::string story = "round " + std::to_string(count - 1) + " does not trace to genesis: ";
    for (std::size_t k = 0; k < events.size(); ++k) story += (k ? ", " : "") + events[k];
    story += ".";
    // Under --head (the last round): the lineage back from it, which ends at a missing round
    // (the gap is told) or at a refused statement (told; nothing vouches for its parent) and
    // never holds the fork's other branch. Its earliest round has no genesis behind it.
    std::vector<std::string> head_events;
    std::uint64_t earliest = 0;
    for (std::size_t i = count; i-- > 0;) {
      const auto fault = faults.find(i);
      if (fault == faults.end() || fault->second == Fault::kFork) continue;
      const std::string word = fault->second == Fault::kTampered  ? "tampered"
                               : fault->second == Fault::kForeign ? "foreign-signed"
                               : fault->second == Fault::kMissing ? "gap"
                                                                  : "forged";
      head_events.insert(head_events.begin(), word + " at " + std::to_string(i));
      if (fault->second == Fault::kTampered) continue;
      earliest = fault->second == Fault::kMissing ? i + 1 : i;
      break;
    }
    std::string head_story = "round " + std::to_string(count - 1) + " does not trace to genesis: ";
    for (std::size_t k = 0; k < head_events.size(); ++k) head_story += (k ? ", " : "") + head_events[k];
    head_story += ".";
    std::multimap<std::uint64_t, std::vector<std::string>> head_rows;
    for (const auto& [round, rules] : rows) {
      if (round < earliest) continue;
      std::vector<std::string> kept;
      for (const std::string& rule : rules) {
        if (rule != "chain-fork") kept.push_back(rule);
      }
      if (round == earliest && earliest > 0) kept.emplace_back("chain-genesis-missing");
      if (faults.count(round) && faults.at(round) == Fault::kFork && rules == std::vector<std::string>{"chain-fork"} &&
          head_rows.count(round)) {
        continue;  // the branch off the lineage
      }
      head_rows.emplace(round, kept);
    }

    using Rows = std::multimap<std::uint64_t, std::vector<std::string>>;
    auto sorted = [](const Rows& m) {
      std::vector<std::pair<std::uint64_t, std::vector<std::string>>> out(m.begin(), m.end());
      for (auto& [round, rules] : out) std::sort(rules.begin(), rules.end());
      std::sort(out.begin(), out.end());
      return out;
    };
    // The chain over the envelopes (the lineage of the last round with --head), against the model.
    auto prove = [&](const std::string& head, const std::string& want_story, const Rows& want_rows) {
      const CommandResult run =
          Chain("--format json --trusted-key " + ShellQuote(keys_.pub) + head + " " + ShellQuote(root / "env"));
      EXPECT_EQ(run.exit_code, 1) << "seed " << seed << head << "\n" << run.output;
      const boost::json::value report = boost::json::parse(run.output);
      EXPECT_EQ(report.at("story").at("line").as_string(), want_story) << "seed " << seed << head;
      Rows seen;
      for (const boost::json::value& node : report.at("history").as_array()) {
        std::vector<std::string> rules;
        for (const boost::json::value& f : node.at("findings").as_array()) rules.emplace_back(f.at("rule").as_string());
        seen.emplace(node.at("round_index").to_number<std::uint64_t>(), rules);
      }
      EXPECT_EQ(sorted(seen), sorted(want_rows)) << "seed " << seed << head << "\n" << run.output;
    };
    prove("", story, rows);
    prove(" --head " + rounds[count - 1].hash, head_story, head_rows);
  }
  EXPECT_EQ(kinds_met.size(), 6u) << "the histories drawn meet every fault";
}

// Issue 30, item 1: a round whose statement was edited after signing, or that another key
// signed, is named at its child as that refused envelope (with the round it claims and why
// it was refused), not read as a missing round.
TEST_F(Attestation, AForgedOrForeignSignedRoundIsNamedAtItsChild) {
  const std::vector<Round> rounds = WriteHistory(dir_.path() / "six", 6);
  fs::create_directories(dir_.path() / "env");
  auto sign = [&](std::size_t i, const KeyPair& key) {
    fs::path out = dir_.path() / "env" / ("round-" + std::to_string(i) + ".dsse.json");
    const CommandResult run = Audit("--attest " + ShellQuote(key.key) + " --attestation-out " + ShellQuote(out) + " " +
                                    ShellQuote(rounds[i].dir));
    EXPECT_EQ(run.exit_code, 0) << run.output;
    return out;
  };
  for (std::size_t i = 0; i < 6; ++i) sign(i, keys_);
  const std::string env = ShellQuote(dir_.path() / "env");
  // Near miss: the intact envelopes prove the history.
  CommandResult run = Chain("--trusted-key " + ShellQuote(keys_.pub) + " " + env);
  EXPECT_EQ(run.exit_code, 0) << run.output;
  EXPECT_EQ(run.output.find("chain-parent-untrusted"), std::string::npos) << run.output;

  // Round 2's payload edited after signing (its listed findings dropped), round 4 signed by
  // another key.
  const fs::path forged = dir_.path() / "env" / "round-2.dsse.json";
  Envelope e = ReadEnvelope(ReadText(forged));
  boost::json::object statement = boost::json::parse(e.payload).as_object();
  statement["predicate"].as_object()["findings"] = boost::json::array{};
  statement["predicate"].as_object()["note"] = "edited";
  e.payload = boost::json::serialize(statement);
  WriteText(forged, WriteEnvelope(e));
  const fs::path foreign = sign(4, foreign_);
  run = Chain("--trusted-key " + ShellQuote(keys_.pub) + " " + env);
  EXPECT_EQ(run.exit_code, 1) << run.output;
  EXPECT_EQ(run.output.find("chain-gap"), std::string::npos) << run.output;
  EXPECT_NE(
      run.output.find("error: round 3 at " + (dir_.path() / "env" / "round-3.dsse.json").string() + " names parent " +
                      rounds[2].hash.substr(0, 12) + ", which only the refused signed statement " + forged.string() +
                      " claims (as round 2): signature does not verify [attest-signature-invalid]. A statement "
                      "no trusted signature vouches for proves nothing. [chain-parent-untrusted CHAIN_INTEGRITY]"),
      std::string::npos)
      << run.output;
  EXPECT_NE(run.output.find(" names parent " + rounds[4].hash.substr(0, 12) +
                            ", which only the refused signed statement " + foreign.string() +
                            " claims (as round 4): signed by a key that is not trusted [attest-foreign-key]."),
            std::string::npos)
      << run.output;
  // The envelopes' own findings say the round they claim, in their round's row.
  EXPECT_NE(run.output.find("the envelope changed after it was signed. The refused statement claims round 2 with "
                            "content hash " +
                            rounds[2].hash.substr(0, 12) + "; nothing it claims is trusted."),
            std::string::npos)
      << run.output;
  run = Chain("--format json --trusted-key " + ShellQuote(keys_.pub) + " " + env);
  const boost::json::array history = boost::json::parse(run.output).at("history").as_array();
  ASSERT_EQ(history.size(), 6u) << run.output;
  const boost::json::object& refused = history.at(4).as_object();
  EXPECT_EQ(refused.at("path").as_string(), foreign.string());
  EXPECT_EQ(refused.at("round_index").to_number<std::uint64_t>(), 4u);
  EXPECT_EQ(refused.at("findings").at(0).at("rule").as_string(), "attest-foreign-key");
  EXPECT_EQ(history.at(5).at("findings").at(0).at("rule").as_string(), "chain-parent-untrusted");
}

// Issue 16, acceptance 4, with a signed statement as the trusted parent: its round and
// wmcp_version are checked against the first new round as a parent's are.
TEST_F(Attestation, ASignedStatementIsATrustedParent) {
  const std::vector<Round> more = WriteHistory(dir_.path() / "long", 6);
  ASSERT_EQ(Audit("--attest " + ShellQuote(keys_.key) + " --attestation-out " +
                  ShellQuote(dir_.path() / "r3.dsse.json") + " " + ShellQuote(more[3].dir))
                .exit_code,
            0);
  const std::string newer = " " + ShellQuote(more[4].dir) + " " + ShellQuote(more[5].dir);
  CommandResult run = Chain("--trusted-key " + ShellQuote(keys_.pub) + " --trusted-parent " +
                            ShellQuote(dir_.path() / "r3.dsse.json") + newer);
  EXPECT_EQ(run.exit_code, 0) << run.output;
  EXPECT_NE(run.output.find("2 artifacts in the history (2 found): 2 passed, 0 failed; rounds 4-5; on the proven round "
                            "3 79db982cf0f2; 0 findings"),
            std::string::npos)
      << run.output;
  // A statement signed by another key is no trusted parent: a usage error.
  run = Chain("--trusted-key " + ShellQuote(foreign_.pub) + " --trusted-parent " +
              ShellQuote(dir_.path() / "r3.dsse.json") + newer);
  EXPECT_EQ(run.exit_code, 2) << run.output;
  EXPECT_NE(run.output.find("is not a verified statement of a round that passed"), std::string::npos) << run.output;
  EXPECT_NE(run.output.find("[attest-foreign-key]"), std::string::npos) << run.output;
}

// ---- derivation records (section 4) over real torch.save files.

class Derivation : public ::testing::Test {
 protected:
  // The checkpoints and conversions are written once for the suite; each test edits a copy.
  static void SetUpTestSuite() {
    made_ = new TempDir();
    const PythonMade made = MadeByPython("derivations", made_->path());
    if (!made.ok) {
      missing_ = made.missing_module
                     ? "no python3 with torch (scripts/install-deps --test installs python3-torch): " + made.problem
                     : made.problem;
    }
  }
  static void TearDownTestSuite() {
    delete made_;
    made_ = nullptr;
  }
  void SetUp() override {
    if (std::system("openssl version >/dev/null 2>&1") != 0) CKPT_MISSING_PREREQUISITE() << "openssl is missing";
    if (!missing_.empty()) CKPT_MISSING_PREREQUISITE() << missing_;
    std::filesystem::copy(made_->path(), dir_.path(), std::filesystem::copy_options::recursive);
    keys_ = MakeKeyPair(dir_.path(), "airlock");
  }
  // Signs `form`'s record (edited by `edit`) and verifies it against the output and input.
  CommandResult Verify(const std::string& form, const std::function<void(boost::json::object&)>& edit = {},
                       bool with_input = true) {
    boost::json::value statement = boost::json::parse(ReadText(dir_.path() / (form + ".payload.json")));
    if (edit) edit(statement.as_object());
    WriteText(dir_.path() / "record.dsse.json",
              SignWithOpenssl(dir_.path(), kInToto, boost::json::serialize(statement), keys_));
    return Audit("--verify-derivation " + ShellQuote(dir_.path() / "record.dsse.json") + " --trusted-key " +
                 ShellQuote(keys_.pub) + " " + ShellQuote(dir_.path() / (form + ".safetensors")) +
                 (with_input ? " --derived-from " + ShellQuote(dir_.path() / (form + ".pt")) : std::string()));
  }
  static boost::json::object& Tensor(boost::json::object& statement, const std::string& name) {
    for (boost::json::value& t : statement["predicate"].as_object()["tensors"].as_array()) {
      if (t.at("name").as_string() == name) return t.as_object();
    }
    throw std::runtime_error("no tensor " + name);
  }
  static inline TempDir* made_ = nullptr;
  static inline std::string missing_;
  TempDir dir_;
  KeyPair keys_;
};

TEST_F(Derivation, NearMissRecordsOfZipAndLegacyCheckpointsVerify) {
  for (const char* form : {"zip", "legacy"}) {
    CommandResult run = Verify(form);
    EXPECT_EQ(run.exit_code, 0) << form << run.output;
    EXPECT_EQ(run.output.find("error:"), std::string::npos) << run.output;
    run = Verify(form, {}, false);
    EXPECT_EQ(run.exit_code, 0) << form << run.output;
  }
}

// Issue 30, item 2: a verified record says what it checked: the key, the predicate, the
// input record, the tensor count and the subjects, in text and JSON.
TEST_F(Derivation, AVerifiedRecordListsTheChecksPerformed) {
  const boost::json::object statement = boost::json::parse(ReadText(dir_.path() / "zip.payload.json")).as_object();
  const std::size_t tensors = statement.at("predicate").at("tensors").as_array().size();
  const std::string input_sha(statement.at("predicate").at("input").at("digest").at("sha256").as_string());
  CommandResult run = Verify("zip");
  EXPECT_EQ(run.exit_code, 0) << run.output;
  for (const std::string& line :
       {"checks performed with " + (dir_.path() / "record.dsse.json").string() + ":\n",
        "\n  signature: verified with the trusted key " + keys_.keyid + "\n",
        std::string("\n  predicate: https://github.com/ckpt-audit/ckpt-audit/predicates/derivation/v1\n"),
        "\n  input record: zip.pt sha256 " + input_sha + " (compared with --derived-from)\n",
        "\n  tensors: " + std::to_string(tensors) + " tensors, ",
        std::string("\n  subjects: 1 of 1 subject matches the input's files now\n")}) {
    EXPECT_NE(run.output.find(line), std::string::npos) << line << run.output;
  }
  run = Verify("zip", {}, false);
  EXPECT_NE(run.output.find(" (not compared: no --derived-from)\n"), std::string::npos) << run.output;
}

TEST_F(Derivation, TensorHashThatDoesNotMatchTheOutputIsRefused) {
  const CommandResult run =
      Verify("zip", [](boost::json::object& s) { Tensor(s, "encoder.weight")["sha256"] = std::string(64, 'a'); });
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_NE(run.output.find("zip.safetensors@"), std::string::npos) << run.output;
  EXPECT_NE(run.output.find("error: Tensor 'encoder.weight''s bytes in the output hash to "), std::string::npos)
      << run.output;
  EXPECT_NE(run.output.find(", not to the recorded aaaaaaaaaaaaaaaa... [derivation-tensor-mismatch "
                            "CHECKPOINT_INTEGRITY]"),
            std::string::npos)
      << run.output;
  // With the input given, its storage record disagrees with the recorded hash as well.
  EXPECT_NE(run.output.find("zip.pt@"), std::string::npos) << run.output;
  EXPECT_NE(run.output.find("[derivation-source-mismatch CHECKPOINT_INTEGRITY]"), std::string::npos) << run.output;
}

TEST_F(Derivation, SourceRangeThatDoesNotMatchIsRefused) {
  // Shifted by one element inside the shared storage of the two views.
  CommandResult run =
      Verify("zip", [](boost::json::object& s) { Tensor(s, "head.first")["source"].as_object()["offset_bytes"] = 4; });
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_NE(run.output.find("error: Tensor 'head.rest''s source range overlaps tensor 'head.first''s: a conversion "
                            "copies each storage byte into one tensor. [derivation-source-mismatch"),
            std::string::npos)
      << run.output;
  run = Verify("legacy", [](boost::json::object& s) {
    boost::json::object& source = Tensor(s, "encoder.weight")["source"].as_object();
    source["offset_bytes"] = source["offset_bytes"].as_int64() + 4;
  });
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_NE(run.output.find("error: Tensor 'encoder.weight''s source range (48 bytes at offset "), std::string::npos)
      << run.output;
  EXPECT_NE(run.output.find("lies outside record 'storage:"), std::string::npos) << run.output;
  run = Verify(
      "zip", [](boost::json::object& s) { Tensor(s, "encoder.half")["source"].as_object()["record"] = "zip/data/0"; });
  EXPECT_NE(run.output.find("error: Tensor 'encoder.half''s bytes in 'zip/data/0' hash to "), std::string::npos)
      << run.output;
  run = Verify(
      "zip", [](boost::json::object& s) { Tensor(s, "encoder.half")["source"].as_object()["record"] = "zip/data/99"; });
  EXPECT_NE(run.output.find("error: Tensor 'encoder.half''s source record 'zip/data/99' is not a storage record of "
                            "the input. [derivation-source-mismatch CHECKPOINT_INTEGRITY]"),
            std::string::npos)
      << run.output;
}

TEST_F(Derivation, InputOrOutputThatChangedIsRefused) {
  // One byte of the input (in a tensor's storage): its digest and that tensor's source.
  std::string input = ReadText(dir_.path() / "legacy.pt");
  const boost::json::value statement = boost::json::parse(ReadText(dir_.path() / "legacy.payload.json"));
  std::int64_t offset = 0;
  for (const boost::json::value& t : statement.at("predicate").at("tensors").as_array()) {
    if (t.at("name") == "encoder.weight") offset = t.at("source").at("offset_bytes").as_int64();
  }
  input[static_cast<std::size_t>(offset)] = static_cast<char>(input[static_cast<std::size_t>(offset)] ^ 1);
  WriteText(dir_.path() / "legacy.pt", input);
  CommandResult run = Verify("legacy");
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_NE(
      run.output.find("error: The input's SHA-256 is " + Sha256Hex(input) + ", but the record says 'legacy.pt' was "),
      std::string::npos)
      << run.output;
  EXPECT_NE(run.output.find("[derivation-input-mismatch CHECKPOINT_INTEGRITY]"), std::string::npos);
  EXPECT_NE(run.output.find("error: Tensor 'encoder.weight''s bytes in 'storage:"), std::string::npos) << run.output;

  // One byte of the output: the subject and the tensor it falls in.
  std::string output = ReadText(dir_.path() / "zip.safetensors");
  output.back() = static_cast<char>(output.back() ^ 1);
  WriteText(dir_.path() / "zip.safetensors", output);
  run = Verify("zip", {}, false);
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_NE(run.output.find("error: The output's SHA-256 is " + Sha256Hex(output) +
                            ", but the record's subject 'zip.safetensors' says "),
            std::string::npos)
      << run.output;
  EXPECT_NE(run.output.find("[attest-subject-mismatch CHECKPOINT_INTEGRITY]"), std::string::npos);
  EXPECT_NE(run.output.find("error: Tensor 'predictor.steps''s bytes in the output hash to "), std::string::npos)
      << run.output;
}

TEST_F(Derivation, TensorSetThatDiffersIsRefused) {
  const CommandResult run = Verify(
      "zip",
      [](boost::json::object& s) {
        Tensor(s, "encoder.half")["shape"] = boost::json::array{6};
        boost::json::object extra = Tensor(s, "encoder.weight");
        extra["name"] = "encoder.extra";
        s["predicate"].as_object()["tensors"].as_array().push_back(extra);
      },
      false);
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_NE(run.output.find("error: Tensor 'encoder.half' is F16 [5] (10 bytes) in the output, but the record says "
                            "'F16' [6] (10 bytes). [derivation-tensor-mismatch CHECKPOINT_INTEGRITY]"),
            std::string::npos)
      << run.output;
  EXPECT_NE(run.output.find("error: The record lists tensor 'encoder.extra', which the output does not hold."),
            std::string::npos)
      << run.output;
}

TEST_F(Derivation, AliasThatTheOutputDoesNotKeepIsRefused) {
  // The near miss above carries the tied weight as an alias the output keeps; here the record
  // names one the output does not.
  const CommandResult run = Verify(
      "zip",
      [](boost::json::object& s) { s["predicate"].as_object()["aliases"].as_object()["tied.encoder"] = "head.rest"; },
      false);
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_NE(run.output.find("error: The record says 'tied.encoder' is an alias of 'head.rest', but the output's "
                            "__metadata__ does not map it so. [derivation-tensor-mismatch CHECKPOINT_INTEGRITY]"),
            std::string::npos)
      << run.output;
}

TEST_F(Derivation, AnAuditStatementIsNotADerivationRecord) {
  const CommandResult run = Verify("zip", [](boost::json::object& s) {
    s["predicateType"] = "https://github.com/ckpt-audit/ckpt-audit/predicates/audit/v1";
  });
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_NE(run.output.find("[attest-predicate-unknown CHECKPOINT_INTEGRITY]"), std::string::npos) << run.output;
}

}  // namespace
}  // namespace ckpt::testing
