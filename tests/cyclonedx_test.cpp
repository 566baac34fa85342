// The CycloneDX BOM (sbom.md), judged on its JSON and by two validators that are not ours:
// the CycloneDX JavaScript library's strict validator and python3-jsonschema against the
// official 1.6 schema (tests/cyclonedx/validate.sh), which also both reject a broken copy.
// Section 2's elements are asserted for each input kind, several inputs in one run, a pickle's
// finding as a vulnerability (and accepted, not_affected), hostile names, --no-hash, and the
// bytes of two runs under SOURCE_DATE_EPOCH.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <filesystem>
#include <fstream>
#include <set>

#include "tests/support/artifact_builder.h"
#include "tests/support/built_tools.h"
#include "tests/support/gguf_builder.h"
#include "tests/support/history_builder.h"
#include "tests/support/pickle_builder.h"
#include "tests/support/prerequisite.h"
#include "tests/support/process.h"
#include "tests/support/tar_builder.h"

namespace ckpt::testing {
namespace {

namespace fs = std::filesystem;

CommandResult Audit(const fs::path& cwd, const std::string& args) {
  return RunCommand("cd " + ShellQuote(cwd) + " && " + CKPT_AUDIT_BIN + " " + args);
}

const boost::json::object& Obj(const boost::json::value& v, std::string_view key) { return v.at(key).as_object(); }

std::string Property(const boost::json::value& component, std::string_view name) {
  for (const boost::json::value& p : component.at("properties").as_array()) {
    if (p.at("name").as_string() == name) return std::string(p.at("value").as_string());
  }
  return "<none>";
}

// A JSON value as text: a string's content, anything else serialized.
std::string S(const boost::json::value& v) {
  return v.is_string() ? std::string(v.as_string()) : boost::json::serialize(v);
}

// urn:uuid: and an RFC 4122 version-4 UUID in lower-case hex.
bool IsVersion4Urn(std::string_view text) {
  constexpr std::string_view kPrefix = "urn:uuid:";
  if (!text.starts_with(kPrefix)) return false;
  const std::string_view uuid = text.substr(kPrefix.size());
  if (uuid.size() != 36) return false;
  for (std::size_t i = 0; i < uuid.size(); ++i) {
    const char c = uuid[i];
    const bool dash_position = i == 8 || i == 13 || i == 18 || i == 23;
    if (dash_position != (c == '-')) return false;
    if (!dash_position && !((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return uuid[14] == '4' && std::string_view("89ab").find(uuid[19]) != std::string_view::npos;
}

std::string Sha256Of(const fs::path& path) { return RunCommand("sha256sum " + ShellQuote(path)).output.substr(0, 64); }

// Writes a BOM where the validators can read it, and runs both on it.
CommandResult Validate(const std::vector<fs::path>& boms) {
  std::string args;
  for (const fs::path& bom : boms) args += " " + ShellQuote(bom);
  return RunCommand(SourceDir() + "/tests/cyclonedx/validate.sh " + ShellQuote(BuildDir()) + args + " 2>&1");
}

// The bom-ref and the content hash of one history component, and its named property.
struct RoundSeen {
  std::string name;
  std::string version;
  std::string hash;
  std::string round;
  std::string verdict;
};

RoundSeen SeenOf(const boost::json::value& c) {
  return {S(c.at("name")), S(c.at("version")), S(c.at("hashes").at(0).at("content")), Property(c, "ckpt-audit:round"),
          Property(c, "ckpt-audit:verdict")};
}

class CycloneDx : public ::testing::Test {
 protected:
  void SetUp() override {
    if (std::system("command -v npm >/dev/null && command -v node >/dev/null") != 0) {
      CKPT_MISSING_PREREQUISITE() << "npm and node validate the BOM (scripts/install-deps --test installs them)";
    }
    if (std::system("/usr/bin/python3 -c 'import jsonschema' 2>/dev/null") != 0) {
      CKPT_MISSING_PREREQUISITE() << "python3-jsonschema is missing";
    }
    // A Lensemble round with a parent, a model folder with a pickle that calls posix.system,
    // a plain safetensors file, and a folder whose file names are hostile.
    ArtifactSpec round = ArtifactSpec::Clean();
    round.round_index = 1;
    round.parent_hash = std::string(64, 'a');
    WriteFiles(round.Build(), dir_.path() / "round");
    fs::create_directories(dir_.path() / "model");
    WriteText(dir_.path() / "model" / "config.json", R"({"model_type": "llama"})");
    WriteText(dir_.path() / "model" / "extra.pkl", pk::SystemPickle("true"));
    const std::string header = R"({"w":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})";
    std::string prefix(8, '\0');
    prefix[0] = static_cast<char>(header.size());
    WriteText(dir_.path() / "model" / "model.safetensors", prefix + header + std::string(8, '\0'));
    WriteText(dir_.path() / "plain.safetensors", prefix + header + std::string(8, '\x01'));
    fs::create_directories(dir_.path() / "hostile");
    WriteText(dir_.path() / "hostile" / "model.safetensors", prefix + header + std::string(8, '\0'));
    WriteText(dir_.path() / "hostile" / "a\"b\\c\x1b[31m\nd.json", "{}");
  }
  fs::path Bom(const std::string& name, const std::string& args, int expected_exit = 0) {
    fs::path out = dir_.path() / (name + ".cdx.json");
    const CommandResult run = Audit(dir_.path(), "-f cyclonedx -o " + ShellQuote(out) + " " + args + " 2>&1");
    EXPECT_EQ(run.exit_code, expected_exit) << name << ": " << run.output;
    boms_.push_back(out);
    return out;
  }
  static boost::json::value Read(const fs::path& bom) { return boost::json::parse(ReadText(bom)); }

  TempDir dir_;
  std::vector<fs::path> boms_;
};

TEST_F(CycloneDx, EachInputKindIsAComponentWithItsPinItsFilesAndItsVerdict) {
  // A Lensemble round: version and hash are its content hash, the parent its pedigree.
  const boost::json::value round = Read(Bom("round", "round"));
  EXPECT_EQ(S(round.at("bomFormat")), "CycloneDX");
  EXPECT_EQ(S(round.at("specVersion")), "1.6");
  EXPECT_EQ(round.at("version").as_int64(), 1);
  EXPECT_TRUE(IsVersion4Urn(S(round.at("serialNumber")))) << round.at("serialNumber");
  const auto& tool = Obj(round, "metadata").at("tools").at("components").as_array().at(0);
  EXPECT_EQ(S(tool.at("type")), "application");
  EXPECT_EQ(S(tool.at("name")), "ckpt-audit");
  const boost::json::value& model = Obj(round, "metadata").at("component");
  const std::string json_report = Audit(dir_.path(), "-f json round").output;
  const std::string content_hash =
      std::string(boost::json::parse(json_report).at("artifacts").at(0).at("content_hash").at("computed").as_string());
  EXPECT_EQ(S(model.at("type")), "machine-learning-model");
  EXPECT_EQ(S(model.at("name")), "round");
  EXPECT_EQ(S(model.at("version")), content_hash);
  EXPECT_EQ(S(model.at("hashes").at(0).at("alg")), "SHA-256");
  EXPECT_EQ(S(model.at("hashes").at(0).at("content")), content_hash);
  EXPECT_EQ(S(model.at("bom-ref")), "ckpt-audit:round@" + content_hash.substr(0, 16));  // relative, stable
  EXPECT_EQ(S(model.at("pedigree").at("ancestors").at(0).at("version")), std::string(64, 'a'));
  EXPECT_EQ(Property(model, "ckpt-audit:kind"), "lensemble");
  EXPECT_EQ(Property(model, "ckpt-audit:verdict"), "pass");
  EXPECT_EQ(Property(model, "ckpt-audit:fail-on"), "error");
  EXPECT_EQ(Property(model, "ckpt-audit:gating"), "true");
  EXPECT_EQ(Property(model, "ckpt-audit:rules-fingerprint").size(), 64U);
  std::size_t files = 0;
  for (const boost::json::value& file : model.at("components").as_array()) {
    const std::string name(file.at("name").as_string());
    EXPECT_EQ(S(file.at("type")), name.ends_with(".safetensors") ? "data" : "file") << name;
    EXPECT_EQ(S(file.at("hashes").at(0).at("content")), Sha256Of(dir_.path() / "round" / name)) << name;
    EXPECT_EQ(Property(file, "ckpt-audit:size"), std::to_string(fs::file_size(dir_.path() / "round" / name)));
    ++files;
  }
  EXPECT_EQ(files, static_cast<std::size_t>(std::distance(fs::directory_iterator(dir_.path() / "round"), {})));
  EXPECT_FALSE(round.as_object().contains("vulnerabilities"));

  // A plain file: pinned by its SHA-256; no parent, no pedigree.
  const boost::json::value plain = Read(Bom("plain", "plain.safetensors"));
  const boost::json::value& file = Obj(plain, "metadata").at("component");
  EXPECT_EQ(S(file.at("hashes").at(0).at("content")), Sha256Of(dir_.path() / "plain.safetensors"));
  EXPECT_EQ(S(file.at("name")), "plain.safetensors");
  EXPECT_FALSE(file.as_object().contains("pedigree"));

  // The model card holds what the files state and nothing else: a safetensors file states
  // its dtypes only; a folder's config.json its model_type and architectures.
  EXPECT_FALSE(file.at("modelCard").as_object().contains("modelParameters"));
  EXPECT_EQ(Property(file.at("modelCard"), "ckpt-audit:dtypes"), "F32");
  fs::create_directories(dir_.path() / "card");
  WriteText(dir_.path() / "card" / "config.json", R"({"model_type": "llama", "architectures": ["LlamaForCausalLM"]})");
  WriteText(dir_.path() / "card" / "model.safetensors", ReadText(dir_.path() / "plain.safetensors"));
  const boost::json::value card = Read(Bom("card", "card"));
  const boost::json::value& parameters = Obj(card, "metadata").at("component").at("modelCard").at("modelParameters");
  EXPECT_EQ(S(parameters.at("architectureFamily")), "llama");
  EXPECT_EQ(S(parameters.at("modelArchitecture")), "LlamaForCausalLM");

  // Several inputs: each a top-level component, no metadata.component.
  // The same input given twice is two components, each reference once in the BOM.
  const boost::json::value twice = Read(Bom("twice", "round ./round"));
  std::set<std::string> twice_refs;
  std::size_t twice_count = 0;
  for (const boost::json::value& c : twice.at("components").as_array()) {
    twice_refs.insert(S(c.at("bom-ref")));
    for (const boost::json::value& f : c.at("components").as_array()) twice_refs.insert(S(f.at("bom-ref")));
    twice_count += 1 + c.at("components").as_array().size();
  }
  EXPECT_EQ(twice_refs.size(), twice_count);
  EXPECT_EQ(S(twice.at("components").at(1).at("bom-ref")), S(twice.at("components").at(0).at("bom-ref")) + "#2");
  const boost::json::value both = Read(Bom("both", "round plain.safetensors"));
  EXPECT_FALSE(Obj(both, "metadata").contains("component"));
  ASSERT_EQ(both.at("components").as_array().size(), 2U);

  // --no-hash invents no hash: none on the input or its weights, with a property saying why;
  // a file read whole anyway (header.json) carries the digest of that read.
  const boost::json::value unhashed = Read(Bom("unhashed", "--no-hash round"));
  const boost::json::value& structure = Obj(unhashed, "metadata").at("component");
  EXPECT_FALSE(structure.as_object().contains("hashes"));
  EXPECT_NE(Property(structure, "ckpt-audit:hash-not-verified"), "<none>");
  for (const boost::json::value& f : structure.at("components").as_array()) {
    const std::string name = S(f.at("name"));
    if (S(f.at("type")) == "data") {
      EXPECT_FALSE(f.as_object().contains("hashes")) << name;
      EXPECT_EQ(Property(f, "ckpt-audit:hash-not-verified"), "true") << name;
    } else if (f.as_object().contains("hashes")) {
      EXPECT_EQ(S(f.at("hashes").at(0).at("content")), Sha256Of(dir_.path() / "round" / name)) << name;
    }
  }
  EXPECT_EQ(Validate(boms_).exit_code, 0) << Validate(boms_).output;
}

TEST_F(CycloneDx, SecurityFindingsAreVulnerabilitiesAndAcceptedOnesAreNotAffected) {
  const boost::json::value failing = Read(Bom("model", "model", 1));
  const boost::json::value& model = Obj(failing, "metadata").at("component");
  EXPECT_EQ(Property(model, "ckpt-audit:verdict"), "fail");
  std::map<std::string, std::string> refs;
  for (const boost::json::value& f : model.at("components").as_array()) {
    refs[std::string(f.at("bom-ref").as_string())] = std::string(f.at("name").as_string());
  }
  const boost::json::array& vulnerabilities = failing.at("vulnerabilities").as_array();
  ASSERT_FALSE(vulnerabilities.empty());
  bool call_found = false;
  for (const boost::json::value& v : vulnerabilities) {
    EXPECT_EQ(refs[std::string(v.at("affects").at(0).at("ref").as_string())], "extra.pkl");
    EXPECT_EQ(S(v.at("ratings").at(0).at("severity")), "high");
    EXPECT_FALSE(v.as_object().contains("analysis"));
    if (S(v.at("id")) == "pickle-call-unsafe") {
      call_found = true;
      EXPECT_NE(std::string(v.at("description").as_string()).find("calls posix.system('true')"), std::string::npos);
      EXPECT_NE(std::string(v.at("source").at("url").as_string()).find("#pickle-call-unsafe"), std::string::npos);
    }
  }
  EXPECT_TRUE(call_found);
  // Reviewed and accepted: the same vulnerabilities, each not_affected with the reason.
  const CommandResult wrote =
      Audit(dir_.path(), "--write-acceptances accepted.json --reason 'reviewed by us' --expires 2099-12-31 model 2>&1");
  ASSERT_EQ(wrote.exit_code, 0) << wrote.output;
  const boost::json::value accepted = Read(Bom("accepted", "--baseline accepted.json model"));
  EXPECT_EQ(Property(Obj(accepted, "metadata").at("component"), "ckpt-audit:verdict"), "pass");
  EXPECT_NE(Property(Obj(accepted, "metadata").at("component"), "ckpt-audit:accepted"), "0");
  for (const boost::json::value& v : accepted.at("vulnerabilities").as_array()) {
    EXPECT_EQ(S(v.at("analysis").at("state")), "not_affected");
    EXPECT_NE(std::string(v.at("analysis").at("detail").as_string()).find("reviewed by us"), std::string::npos);
  }
  // Hostile names stay one escaped JSON string each; the BOM still validates.
  const boost::json::value hostile = Read(Bom("hostile", "hostile"));
  bool named = false;
  for (const boost::json::value& f : Obj(hostile, "metadata").at("component").at("components").as_array()) {
    named = named || S(f.at("name")) == "a\"b\\c\x1b[31m\nd.json";
  }
  EXPECT_TRUE(named);
  const CommandResult valid = Validate(boms_);
  EXPECT_EQ(valid.exit_code, 0) << valid.output;
  // A broken copy (an unknown component type) is rejected by both validators.
  boost::json::value broken = failing;
  broken.at("metadata").as_object()["component"].as_object()["type"] = "model";
  WriteText(dir_.path() / "broken.cdx.json", boost::json::serialize(broken));
  const CommandResult rejected = Validate({dir_.path() / "broken.cdx.json"});
  EXPECT_EQ(rejected.exit_code, 1);
  EXPECT_NE(rejected.output.find("strict: invalid"), std::string::npos) << rejected.output;
  EXPECT_NE(rejected.output.find("jsonschema: invalid"), std::string::npos) << rejected.output;
}

// What vouches for the input, verified in the same run, is referenced with its digest: the
// signed audit statement (--verify-attestation) and the model signature (model.sig).
TEST_F(CycloneDx, VerifiedStatementsAndSignaturesAreReferencedByDigest) {
  if (std::system("openssl version >/dev/null 2>&1") != 0) CKPT_MISSING_PREREQUISITE() << "openssl is missing";
  const fs::path& d = dir_.path();
  ASSERT_EQ(RunCommand("cd " + ShellQuote(d) +
                       " && openssl genpkey -algorithm ed25519 -out ed.pem && chmod 600 ed.pem && "
                       "openssl pkey -in ed.pem -pubout -out ed.pub && "
                       "openssl ecparam -name prime256v1 -genkey -noout -out ec.pem 2>/dev/null && chmod 600 ec.pem && "
                       "openssl ec -in ec.pem -pubout -out ec.pub 2>/dev/null")
                .exit_code,
            0);
  // Signed in the same run: the statement written is referenced by its digest.
  const CommandResult attested =
      Audit(d, "--attest ed.pem --attestation-out round.dsse.json --report cyclonedx=attested.cdx.json round 2>&1");
  ASSERT_EQ(attested.exit_code, 0) << attested.output;
  boms_.push_back(d / "attested.cdx.json");
  const boost::json::value written =
      Obj(Read(d / "attested.cdx.json"), "metadata").at("component").at("externalReferences").at(0);
  EXPECT_EQ(S(written.at("type")), "attestation");
  EXPECT_EQ(S(written.at("url")), "round.dsse.json");
  EXPECT_EQ(S(written.at("hashes").at(0).at("content")), Sha256Of(d / "round.dsse.json"));
  const boost::json::value verified =
      Read(Bom("verified", "--verify-attestation round.dsse.json --trusted-key ed.pub round"));
  const boost::json::value& statement =
      Obj(verified, "metadata").at("component").at("externalReferences").as_array().at(0);
  EXPECT_EQ(S(statement.at("type")), "attestation");
  EXPECT_EQ(S(statement.at("url")), "round.dsse.json");
  EXPECT_EQ(S(statement.at("hashes").at(0).at("content")), Sha256Of(d / "round.dsse.json"));

  fs::create_directories(d / "signed");
  WriteText(d / "signed" / "model.safetensors", ReadText(d / "plain.safetensors"));
  WriteText(d / "signed" / "config.json", R"({"model_type": "bert"})");
  const CommandResult signed_model =
      Audit(d, "--sign-model ec.pem --model-signature-out signed.sig signed 2>&1 && mv signed.sig signed/model.sig");
  ASSERT_EQ(signed_model.exit_code, 0) << signed_model.output;
  const boost::json::value signature_bom =
      Read(Bom("signature", "--verify-model-signature --trusted-key ec.pub signed"));
  const boost::json::value& signature =
      Obj(signature_bom, "metadata").at("component").at("externalReferences").as_array().at(0);
  EXPECT_EQ(S(signature.at("type")), "digital-signature");
  EXPECT_EQ(S(signature.at("hashes").at(0).at("content")), Sha256Of(d / "signed" / "model.sig"));
  // The near miss: a plain audit references nothing.
  EXPECT_FALSE(
      Obj(Read(Bom("plain-again", "signed")), "metadata").at("component").as_object().contains("externalReferences"));
  const CommandResult valid = Validate(boms_);
  EXPECT_EQ(valid.exit_code, 0) << valid.output;
}

TEST_F(CycloneDx, SourceDateEpochMakesTheBytesTheSameAndDiffRefusesTheFormat) {
  const std::string run = "SOURCE_DATE_EPOCH=1700000000 " + std::string(CKPT_AUDIT_BIN) + " -f cyclonedx round";
  const CommandResult first = RunCommand("cd " + ShellQuote(dir_.path()) + " && " + run);
  const CommandResult second = RunCommand("cd " + ShellQuote(dir_.path()) + " && " + run);
  ASSERT_EQ(first.exit_code, 0) << first.output;
  EXPECT_EQ(first.output, second.output);
  EXPECT_EQ(boost::json::parse(first.output).at("metadata").at("timestamp"), "2023-11-14T22:13:20Z");
  // Without it, only the serial number and the timestamp differ.
  const CommandResult a = Audit(dir_.path(), "-f cyclonedx round");
  const CommandResult b = Audit(dir_.path(), "-f cyclonedx round");
  boost::json::value ja = boost::json::parse(a.output);
  boost::json::value jb = boost::json::parse(b.output);
  EXPECT_NE(S(ja.at("serialNumber")), S(jb.at("serialNumber")));
  for (boost::json::value* j : {&ja, &jb}) {
    j->as_object().erase("serialNumber");
    j->at("metadata").as_object().erase("timestamp");
  }
  EXPECT_EQ(boost::json::serialize(ja), boost::json::serialize(jb));
  // A SOURCE_DATE_EPOCH that cannot date a BOM is a usage error, never silently now: not a
  // number, negative, or past 9999-12-31T23:59:59Z (a date-time the schema refuses). An empty
  // one is unset, and a report that is not a BOM does not read it.
  for (const char* bad : {"abc", "-1", "1700000000.5", "253402300800", "99999999999999"}) {
    const CommandResult refused =
        RunCommand("cd " + ShellQuote(dir_.path()) + " && SOURCE_DATE_EPOCH=" + ShellQuote(bad) + " " + CKPT_AUDIT_BIN +
                   " -f cyclonedx round 2>&1");
    EXPECT_EQ(refused.exit_code, 2) << bad << ": " << refused.output;
    EXPECT_NE(refused.output.find("SOURCE_DATE_EPOCH must be a whole number of seconds since 1970"), std::string::npos)
        << refused.output;
  }
  const CommandResult last = RunCommand("cd " + ShellQuote(dir_.path()) + " && SOURCE_DATE_EPOCH=253402300799 " +
                                        CKPT_AUDIT_BIN + " --report cyclonedx=last.cdx.json round 2>&1");
  EXPECT_EQ(last.exit_code, 0) << last.output;
  EXPECT_EQ(Read(dir_.path() / "last.cdx.json").at("metadata").at("timestamp"), "9999-12-31T23:59:59Z");
  boms_.push_back(dir_.path() / "last.cdx.json");
  for (const std::string& fine : {std::string("SOURCE_DATE_EPOCH= ") + CKPT_AUDIT_BIN + " -f cyclonedx round",
                                  std::string("SOURCE_DATE_EPOCH=abc ") + CKPT_AUDIT_BIN + " -f json round"}) {
    const CommandResult quiet_run = RunCommand("cd " + ShellQuote(dir_.path()) + " && " + fine + " >/dev/null 2>&1");
    EXPECT_EQ(quiet_run.exit_code, 0) << fine;
  }
  // ckpt-chain the same (a lone round 1 is a chain finding, exit 1; the refusal is exit 2).
  const auto chain = [&](const std::string& epoch, const std::string& format) {
    return RunCommand("cd " + ShellQuote(dir_.path()) + " && SOURCE_DATE_EPOCH=" + epoch + " " + CKPT_CHAIN_BIN +
                      " -f " + format + " round 2>&1");
  };
  EXPECT_EQ(chain("abc", "json").exit_code, 1);
  const CommandResult chain_refused = chain("abc", "cyclonedx");
  EXPECT_EQ(chain_refused.exit_code, 2) << chain_refused.output;
  EXPECT_NE(chain_refused.output.find("SOURCE_DATE_EPOCH must be"), std::string::npos) << chain_refused.output;
  // --report beside the text report; ckpt-diff writes no BOM.
  const CommandResult beside = Audit(dir_.path(), "--report cyclonedx=beside.cdx.json round 2>&1");
  EXPECT_EQ(beside.exit_code, 0) << beside.output;
  EXPECT_EQ(Read(dir_.path() / "beside.cdx.json").at("bomFormat"), "CycloneDX");
  const CommandResult diff =
      RunCommand("cd " + ShellQuote(dir_.path()) + " && " + CKPT_DIFF_BIN + " -f cyclonedx round round 2>&1");
  EXPECT_EQ(diff.exit_code, 2) << diff.output;
}

// One BOM per single-file kind a user brings (GGUF, a torch.save zip, a legacy torch file,
// NumPy .npy and .npz, a plain pickle, a Lensemble round as a tar): the component is the file
// with its kind, pinned by its SHA-256, the file nested with the same digest, the verdict the
// exit code's. The pickle that imports os.system fails, its finding a vulnerability of the file.
TEST_F(CycloneDx, EverySingleFileKindIsAModelComponentPinnedByItsSha256) {
  struct Case {
    std::string file;
    std::string bytes;
    std::string kind;
    int exit_code = 0;
  };
  std::vector<Case> cases = {
      {"model.gguf", gg::Build(gg::Several()), "gguf"},
      {"model.pt", pk::OneTensorZip(), "torch-zip"},
      {"legacy.pt", pk::OneTensorLegacy(), "torch-legacy"},
      {"array.npy", pk::Npy("<f4", {2, 3}), "numpy"},
      {"arrays.npz", pk::NpzOf({{"a.npy", pk::Npy("<f4", {4})}}), "npz"},
      {"exploit.pkl", pk::SystemPickle("true"), "pickle", 1},
      {"round.tar", BuildTar(TarOfFiles(ArtifactSpec::Clean().Build())), "lensemble-tar"},
  };
  fs::create_directories(dir_.path() / "kinds");
  for (const Case& c : cases) {
    WriteText(dir_.path() / "kinds" / c.file, c.bytes);
    const boost::json::value bom = Read(Bom("kind-" + c.kind, "kinds/" + c.file, c.exit_code));
    const boost::json::value& component = bom.at("metadata").at("component");
    const std::string sha256 = Sha256Of(dir_.path() / "kinds" / c.file);
    EXPECT_EQ(S(component.at("type")), "machine-learning-model") << c.kind;
    EXPECT_EQ(S(component.at("name")), c.file);
    EXPECT_EQ(Property(component, "ckpt-audit:kind"), c.kind);
    EXPECT_EQ(Property(component, "ckpt-audit:verdict"), c.exit_code == 0 ? "pass" : "fail") << c.kind;
    if (c.kind != "lensemble-tar") {  // a round's pin is its content hash, checked above
      EXPECT_EQ(S(component.at("hashes").at(0).at("content")), sha256) << c.kind;
      EXPECT_EQ(S(component.at("bom-ref")), "ckpt-audit:kinds/" + c.file + "@" + sha256.substr(0, 16));
      ASSERT_EQ(component.at("components").as_array().size(), 1U) << c.kind;
      EXPECT_EQ(S(component.at("components").at(0).at("hashes").at(0).at("content")), sha256) << c.kind;
    } else {
      // A tar's members are its files, each with the digest of its bytes in the tar.
      std::set<std::string> members;
      for (const boost::json::value& f : component.at("components").as_array()) {
        members.insert(S(f.at("name")));
        EXPECT_EQ(S(f.at("hashes").at(0).at("content")).size(), 64U) << S(f);
      }
      EXPECT_TRUE(members.count("header.json") == 1 && members.count("weights.safetensors") == 1) << S(component);
    }
    if (c.exit_code != 0) {
      const boost::json::value& v = bom.at("vulnerabilities").at(0);
      EXPECT_EQ(S(v.at("affects").at(0).at("ref")), S(component.at("components").at(0).at("bom-ref")));
      EXPECT_EQ(S(v.at("ratings").at(0).at("severity")), "high");
    }
  }
  const CommandResult valid = Validate(boms_);
  EXPECT_EQ(valid.exit_code, 0) << valid.output;
}

// ckpt-chain's BOM: the newest round is the component and every round before it, in order,
// its pedigree, each with its content hash and its own verdict; the chain's verdict is in the
// metadata; a tampered round's hash-mismatch and its child's chain-parent-untrusted are
// vulnerabilities of those rounds. The clean history beside it is the near miss.
TEST_F(CycloneDx, AChainIsTheNewestRoundWithTheWholeHistoryAsPedigree) {
  const std::vector<Round> clean = WriteHistory(dir_.path() / "clean", 4);
  const auto chain_bom = [&](const std::string& name, const std::string& history, int expected_exit) {
    const fs::path out = dir_.path() / (name + ".cdx.json");
    const CommandResult run = RunCommand("cd " + ShellQuote(dir_.path()) + " && " + CKPT_CHAIN_BIN +
                                         " -f cyclonedx -o " + ShellQuote(out) + " " + history + " 2>&1");
    EXPECT_EQ(run.exit_code, expected_exit) << name << ": " << run.output;
    boms_.push_back(out);
    return Read(out);
  };
  const boost::json::value passing = chain_bom("chain", "clean", 0);
  const boost::json::value& head = passing.at("metadata").at("component");
  EXPECT_EQ(S(head.at("type")), "machine-learning-model");
  EXPECT_EQ(S(head.at("bom-ref")), "ckpt-audit:clean/round-0003@" + clean[3].hash.substr(0, 16));
  const RoundSeen newest = SeenOf(head);
  EXPECT_EQ(newest.name, "round-0003");
  EXPECT_EQ(newest.version, clean[3].hash);
  EXPECT_EQ(newest.hash, clean[3].hash);
  EXPECT_EQ(newest.round, "3");
  EXPECT_EQ(newest.verdict, "pass");
  EXPECT_EQ(Property(head, "ckpt-audit:parent-hash"), clean[2].hash);
  const boost::json::array& ancestors = head.at("pedigree").at("ancestors").as_array();
  ASSERT_EQ(ancestors.size(), 3u);
  for (std::size_t k = 0; k < 3; ++k) {
    const RoundSeen seen = SeenOf(ancestors[k]);
    EXPECT_EQ(seen.version, clean[k].hash) << k;
    EXPECT_EQ(seen.hash, clean[k].hash) << k;
    EXPECT_EQ(seen.round, std::to_string(k));
    EXPECT_EQ(seen.verdict, "pass") << k;
    // Each round lists its files by the SHA-256 the audit read.
    bool weights_seen = false;
    for (const boost::json::value& file : ancestors[k].at("components").as_array()) {
      if (S(file.at("name")) != "weights.safetensors") continue;
      weights_seen = true;
      EXPECT_EQ(S(file.at("type")), "data");
      EXPECT_EQ(S(file.at("hashes").at(0).at("content")), Sha256Of(clean[k].dir / "weights.safetensors"));
    }
    EXPECT_TRUE(weights_seen) << k;
  }
  EXPECT_EQ(Property(ancestors[0], "ckpt-audit:parent-hash"), "null");  // genesis
  EXPECT_EQ(Property(passing.at("metadata"), "ckpt-audit:chain-verdict"), "pass");
  EXPECT_EQ(Property(passing.at("metadata"), "ckpt-audit:rounds"), "4");
  EXPECT_FALSE(passing.as_object().contains("vulnerabilities"));

  // Round 1 tampered: it fails, its child's link is untrusted, and both say so.
  const std::vector<Round> rounds = WriteHistory(dir_.path() / "tampered", 4);
  {
    std::fstream f(rounds[1].dir / "weights.safetensors", std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(-1, std::ios::end);
    f.put('\x7f');
  }
  const boost::json::value failing = chain_bom("tampered", "--report json=tampered.json tampered", 1);
  const boost::json::value& failing_head = failing.at("metadata").at("component");
  const boost::json::array& failing_ancestors = failing_head.at("pedigree").at("ancestors").as_array();
  ASSERT_EQ(failing_ancestors.size(), 3u);
  EXPECT_EQ(SeenOf(failing_ancestors[0]).verdict, "pass");
  EXPECT_EQ(SeenOf(failing_ancestors[1]).verdict, "fail");
  EXPECT_NE(SeenOf(failing_ancestors[1]).hash, rounds[1].hash);  // the recomputed hash, not the declared one
  EXPECT_EQ(S(failing_ancestors[1].at("version")), SeenOf(failing_ancestors[1]).hash);
  EXPECT_EQ(SeenOf(failing_ancestors[2]).verdict, "fail");
  EXPECT_EQ(Property(failing.at("metadata"), "ckpt-audit:chain-verdict"), "fail");
  std::map<std::string, std::string> affected;  // rule id -> the bom-ref it affects
  for (const boost::json::value& v : failing.at("vulnerabilities").as_array()) {
    affected[S(v.at("id"))] = S(v.at("affects").at(0).at("ref"));
  }
  EXPECT_EQ(affected["hash-mismatch"], S(failing_ancestors[1].at("bom-ref")) + "/header.json");
  EXPECT_EQ(affected["chain-parent-untrusted"], S(failing_ancestors[2].at("bom-ref")));
  // The same rounds and verdicts as the chain's own JSON report.
  const boost::json::value json = Read(dir_.path() / "tampered.json");
  EXPECT_EQ(json.at("history").as_array().size(), 4u);

  // The report goldens' BOMs (a tampered artifact, a history with a gap and a fork) too.
  boms_.push_back(fs::path(SourceDir()) / "fixtures/golden/ckpt-audit-tampered.cdx.json");
  boms_.push_back(fs::path(SourceDir()) / "fixtures/golden/ckpt-chain-gap-fork.cdx.json");
  const CommandResult valid = Validate(boms_);
  EXPECT_EQ(valid.exit_code, 0) << valid.output;
}

}  // namespace
}  // namespace ckpt::testing
