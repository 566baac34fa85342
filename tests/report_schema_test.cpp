// The JSON report matches its documented schema (reports/ckpt-audit-report.schema.json).
// A small validator for the keywords that schema uses keeps the schema honest.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <fstream>
#include <memory>
#include <set>
#include <sstream>
#include <variant>

#include "engine/audit.h"
#include "engine/gate.h"
#include "reports/json_report.h"
#include "rules/catalog.h"
#include "tests/support/artifact_builder.h"
#include "tests/support/audit_helpers.h"
#include "tests/support/model_folder_builder.h"
#include "tests/support/tar_builder.h"

namespace ckpt::testing {
namespace {

class SchemaValidator {
 public:
  explicit SchemaValidator(boost::json::value root) : root_(std::move(root)) {}

  void Validate(const boost::json::value& v, const boost::json::value& schema, const std::string& path,
                std::vector<std::string>& errors) const {
    const auto& s = schema.as_object();
    if (const auto* ref = s.if_contains("$ref")) {
      std::string name(ref->as_string());
      name = name.substr(name.rfind('/') + 1);
      Validate(v, root_.at("$defs").at(name), path, errors);
      return;
    }
    if (const auto* type = s.if_contains("type")) {
      bool ok = false;
      if (type->is_string()) {
        ok = HasType(v, type->as_string());
      } else {
        for (const auto& t : type->as_array()) ok |= HasType(v, t.as_string());
      }
      if (!ok) errors.push_back(path + ": wrong type " + boost::json::serialize(v));
    }
    if (const auto* c = s.if_contains("const"); c && *c != v) errors.push_back(path + ": not the const value");
    if (const auto* e = s.if_contains("enum")) {
      bool found = false;
      for (const auto& option : e->as_array()) found |= option == v;
      if (!found) errors.push_back(path + ": " + boost::json::serialize(v) + " not in enum");
    }
    if (const auto* min = s.if_contains("minimum");
        min && v.is_number() && v.to_number<double>() < min->to_number<double>()) {
      errors.push_back(path + ": below minimum");
    }
    if (v.is_object()) {
      const auto& obj = v.as_object();
      if (const auto* req = s.if_contains("required")) {
        for (const auto& key : req->as_array()) {
          if (!obj.contains(key.as_string())) errors.push_back(path + ": missing " + std::string(key.as_string()));
        }
      }
      const auto* props = s.if_contains("properties");
      for (const auto& member : obj) {
        const boost::json::value* sub = props ? props->as_object().if_contains(member.key()) : nullptr;
        if (sub) {
          Validate(member.value(), *sub, path + "/" + std::string(member.key()), errors);
        } else if (const auto* extra = s.if_contains("additionalProperties"); extra && *extra == false) {
          errors.push_back(path + ": unexpected key " + std::string(member.key()));
        }
      }
    }
    if (v.is_array()) {
      if (const auto* items = s.if_contains("items")) {
        for (std::size_t i = 0; i < v.as_array().size(); ++i) {
          Validate(v.as_array()[i], *items, path + "/" + std::to_string(i), errors);
        }
      }
    }
  }

  std::vector<std::string> Check(const boost::json::value& v) const {
    std::vector<std::string> errors;
    Validate(v, root_, "", errors);
    return errors;
  }

 private:
  static bool HasType(const boost::json::value& v, std::string_view t) {
    if (t == "object") return v.is_object();
    if (t == "array") return v.is_array();
    if (t == "string") return v.is_string();
    if (t == "integer") return v.is_int64() || v.is_uint64();
    if (t == "number") return v.is_number();
    if (t == "boolean") return v.is_bool();
    if (t == "null") return v.is_null();
    return false;
  }
  boost::json::value root_;
};

SchemaValidator LoadSchema(const std::string& path = "reports/ckpt-audit-report.schema.json") {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return SchemaValidator(boost::json::parse(text.str()));
}

TEST(JsonReportSchema, ReportsOfEveryKindConform) {
  std::vector<AuditResult> results;
  results.push_back(AuditPath("fixtures/vectors/v1-sharded", AuditOptions{}));
  Files broken = ArtifactSpec::Clean().Build();
  broken["weights.safetensors"] = "\x80\x04junk";
  broken["README"] = "x";
  EditHeader(broken, [](boost::json::object& h) {
    h["round_index"] = -1;
    h["surprise"] = true;
  });
  results.push_back(AuditFiles(broken));
  results.push_back(AuditPath("/nonexistent/artifact", AuditOptions{}));
  ASSERT_GT(results[1].findings.size(), 3u);
  // Every other kind: a tar, a safetensors file, a model folder, a hub-cache snapshot, a
  // compressed file, an unknown file, a pickle.
  TempDir dir;
  const std::string tar = BuildTar(TarOfFiles(ArtifactSpec::Clean().Build(), "./"));
  const Files inputs = {{"round.tar", tar},
                        {"model.safetensors", ArtifactSpec::Clean().Build().at("weights.safetensors")},
                        {"round.tar.gz", std::string("\x1f\x8b\x08\0", 4)},
                        {"notes.txt", "hello"},
                        {"model.bin", std::string("\x80\x02}q\x00.", 6)}};
  WriteFiles(inputs, dir.path());
  for (const auto& [name, bytes] : inputs) results.push_back(AuditPath((dir.path() / name).string(), AuditOptions{}));
  WriteFiles(ModelFolderSpec{.shards = 2}.Build(), dir.path() / "model");
  results.push_back(AuditPath((dir.path() / "model").string(), AuditOptions{}));
  WriteFiles(HubCache(ModelFolderSpec{}.Build()), dir.path() / kSnapshot);
  results.push_back(AuditPath((dir.path() / kSnapshot).string(), AuditOptions{}));
  // A pinned file (content_hash.pin) and a finding a baseline entry accepts (suppressed).
  AuditOptions pinned;
  pinned.expected_hash = std::string(64, 'a');
  results.push_back(AuditPath((dir.path() / "model.safetensors").string(), pinned));
  auto accepted = std::make_shared<Suppression>();
  accepted->rule = results[1].findings.front().rule->id;
  accepted->path_glob = "*";
  accepted->reason = "reviewed";
  accepted->expires = "2099-12-31";
  results[1].findings.front().suppression = accepted;
  // A reviewed acceptance of a pickle's global (its finding names the global and the call).
  auto reviewed = std::make_shared<Suppression>();
  reviewed->kind = Suppression::Kind::kAcceptance;
  reviewed->path = "model.bin";
  reviewed->sha256 = std::string(64, 'b');
  reviewed->globals = {"numpy.dtype"};
  reviewed->calls = {"numpy.dtype('u4', False, True)"};
  reviewed->source = "policy.json";
  reviewed->reason = "reviewed";
  reviewed->expires = "2099-12-31";
  results[1].findings.back().location.global = "numpy.dtype";
  results[1].findings.back().location.call = "numpy.dtype('u4', False, True)";
  results[1].findings.back().suppression = reviewed;
  // What a verified attestation and a refused derivation record established.
  VerificationFacts verified;
  verified.method = "attestation";
  verified.envelope = "round.dsse.json";
  verified.key_id = std::string(64, 'c');
  verified.signature = VerificationFacts::Signature::kVerified;
  verified.payload_type_ok = true;
  verified.predicate_type = "https://github.com/ckpt-audit/ckpt-audit/predicates/audit/v1";
  verified.tool_name = "ckpt-audit";
  verified.tool_version = "0.1.0";
  verified.signed_kind = "lensemble";
  verified.signed_verdict = "pass";
  verified.rules_count = 276;
  verified.rules_fingerprint = std::string(64, 'd');
  verified.rules_match = true;
  verified.subjects_compared = true;
  verified.subjects = verified.subjects_matched = 2;
  results[0].verification = verified;
  VerificationFacts refused;
  refused.method = "derivation";
  refused.envelope = "record.dsse.json";
  refused.key_id = std::string(64, 'c');
  refused.signature = VerificationFacts::Signature::kForeignKey;
  results[2].verification = refused;
  std::set<std::string> kinds;
  for (const AuditResult& r : results) kinds.insert(std::string(InputKindName(r.artifact.kind)));
  EXPECT_EQ(kinds.size(), 7U);  // lensemble, lensemble-tar, safetensors, compressed, unknown, pickle, model-folder

  reports::ReportContext context;
  const SchemaValidator schema = LoadSchema();
  const boost::json::value report = reports::AuditReportToJson(results, context);
  std::vector<std::string> errors = schema.Check(report);
  std::string all;
  for (const auto& e : errors) all += e + "\n";
  EXPECT_TRUE(errors.empty()) << all;
  EXPECT_EQ(report.at("exit_code"), 2);
  EXPECT_EQ(report.at("artifacts").as_array().size(), results.size());
}

// code-in-metadata.md section 4: every template and target found, passing or not, with where
// it is, and (for templates) its length, SHA-256 and whether it parsed.
TEST(JsonReportSchema, TemplatesAndTargetsAreListed) {
  Files files = ModelFolderSpec{}.Build();
  files["tokenizer_config.json"] =
      R"({"chat_template": [{"name": "default", "template": "{{ messages[0].content }}"}, {"name": "tool_use", "template": "{{ x.__class__ }}"}]})";
  files["chat_template.jinja"] = "{% for m in messages %}";
  files["hparams.yaml"] = "model:\n  _target_: os.system\n  act: {_target_: torch.nn.ReLU}\n";
  const AuditResult result = AuditInput(files, InputForm::kFolder, "model");
  reports::ReportContext context;
  const boost::json::value report = reports::AuditReportToJson({&result, 1}, context);
  const std::vector<std::string> errors = LoadSchema().Check(report);
  std::string all;
  for (const auto& e : errors) all += e + "\n";
  EXPECT_TRUE(errors.empty()) << all;
  const boost::json::object& artifact = report.at("artifacts").at(0).as_object();
  EXPECT_EQ(artifact.at("kind"), "model-folder") << boost::json::serialize(artifact.at("findings"));
  std::set<std::string> templates;
  for (const auto& t : artifact.at("templates").as_array()) {
    templates.insert(std::string(t.at("file").as_string()) + " " + std::string(t.at("name").as_string()) + " " +
                     std::to_string(t.at("length").to_number<std::uint64_t>()) + " " +
                     (t.at("parsed").as_bool() ? "parsed" : "invalid") + " " +
                     std::to_string(t.at("unsafe_places").to_number<std::uint64_t>()));
    EXPECT_EQ(t.at("sha256").as_string().size(), 64U);
  }
  EXPECT_EQ(templates, (std::set<std::string>{"tokenizer_config.json default 25 parsed 0",
                                              "tokenizer_config.json tool_use 17 parsed 1",
                                              "chat_template.jinja chat_template 23 invalid 0"}));
  std::set<std::string> targets;
  for (const auto& t : artifact.at("targets").as_array()) {
    targets.insert(std::string(t.at("file").as_string()) + " " + std::string(t.at("key_path").as_string()) + " " +
                   std::string(t.at("value").as_string()) + " " + (t.at("allowed").as_bool() ? "allowed" : "refused"));
  }
  EXPECT_EQ(targets, (std::set<std::string>{"hparams.yaml /model/_target_ os.system refused",
                                            "hparams.yaml /model/act/_target_ torch.nn.ReLU allowed"}));
}

// A configuration kept in a safetensors __metadata__ value: its targets name the key holding it.
TEST(JsonReportSchema, MetadataTargetsNameTheirKey) {
  std::string header = R"({"__metadata__":{"format":"pt","config":"model:\n  _target_: os.system\n"},)"
                       R"("w":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}})";
  header.append((8 - header.size() % 8) % 8, ' ');
  std::string bytes(8, '\0');
  for (std::size_t i = 0; i < 8; ++i) bytes[i] = static_cast<char>((header.size() >> (8 * i)) & 0xFFU);
  bytes += header + std::string(4, '\0');
  const AuditResult result = AuditInput(Files{{"model.safetensors", bytes}}, InputForm::kFile, "");
  reports::ReportContext context;
  const boost::json::value report = reports::AuditReportToJson({&result, 1}, context);
  const std::vector<std::string> errors = LoadSchema().Check(report);
  EXPECT_TRUE(errors.empty()) << (errors.empty() ? "" : errors.front());
  const boost::json::array& targets = report.at("artifacts").at(0).at("targets").as_array();
  ASSERT_EQ(targets.size(), 1U) << boost::json::serialize(report);
  EXPECT_EQ(targets[0].at("metadata_key"), "config");
  EXPECT_EQ(targets[0].at("key_path"), "/model/_target_");
  EXPECT_EQ(targets[0].at("value"), "os.system");
  EXPECT_EQ(targets[0].at("allowed"), false);
}

TEST(JsonReportSchema, ValidatorCatchesViolations) {
  const SchemaValidator schema = LoadSchema();
  boost::json::value bad = boost::json::parse(R"({"report":"ckpt-audit-report","report_schema_version":2,
      "tool":{"name":"x","version":"1"},"fail_on":"sometimes","artifacts":[{"path":1}],"summary":{},"exit_code":3})");
  EXPECT_GE(schema.Check(bad).size(), 5u);
}

}  // namespace
}  // namespace ckpt::testing

namespace ckpt::testing {
namespace {

// The installed schemas of the files the tools read say what the tools accept: the README's
// examples and a written baseline pass both; an unknown key or a malformed digest fails both.
TEST(GateFileSchemas, AcceptWhatTheToolsAcceptAndRefuseWhatTheyRefuse) {
  const SchemaValidator policy = LoadSchema("schemas/policy.schema.json");
  const SchemaValidator baseline = LoadSchema("schemas/baseline.schema.json");
  const SchemaValidator config = LoadSchema("schemas/config.schema.json");
  const std::string sha(64, 'a');
  const std::string good_policy =
      R"json({"fail_on": "warning", "allowed_groups": ["encoder", "predictor", "adapter"],
              "action_head_patterns": ["policy_head"], "allow_wmcp_change": false,
              "max_rel_l2": {"encoder": 0, "predictor.*": 0.05},
              "severity": {"model-remote-code": "error", "model-shard-name": "off"},
              "accept": [{"path": "ckpt/training_args.bin", "sha256": ")json" +
      sha + R"json(", "globals": ["transformers.training_args.TrainingArguments"],
                           "calls": ["transformers.training_args.TrainingArguments()"], "reason": "r",
                           "expires": "2027-06-30"}]})json";
  EXPECT_TRUE(policy.Check(boost::json::parse(good_policy)).empty());
  EXPECT_TRUE(std::holds_alternative<PolicyFile>(ParsePolicy(good_policy)));
  const std::string bad_policy =
      R"({"accept": [{"path": "x", "sha256": "ABC", "reason": "r", "expires": "2027-06-30", "globals": ["a"]}]})";
  EXPECT_FALSE(std::holds_alternative<PolicyFile>(ParsePolicy(bad_policy)));
  const std::string unknown = R"({"colour": "red"})";
  EXPECT_FALSE(policy.Check(boost::json::parse(unknown)).empty());
  EXPECT_FALSE(std::holds_alternative<PolicyFile>(ParsePolicy(unknown)));

  // What --write-baseline writes validates.
  Finding f;
  f.rule = &rules::header_created_at_invalid::kRule;
  const std::string written = BaselineFromFindings({{&f, "rounds/r1/header.json"}}, "why", "2099-12-31");
  EXPECT_TRUE(baseline.Check(boost::json::parse(written)).empty()) << written;
  EXPECT_TRUE(std::holds_alternative<BaselineFile>(ParseBaseline(written)));
  EXPECT_FALSE(baseline.Check(boost::json::parse(R"({"suppressions": [{"rule": "x"}]})")).empty());

  const std::string good_config =
      R"({"policy": "ci/policy.json", "fail-on": "warning", "ckpt-audit": {"expect-kind": ["model-folder"], "jobs": 4}})";
  EXPECT_TRUE(config.Check(boost::json::parse(good_config)).empty());
  EXPECT_FALSE(config.Check(boost::json::parse(R"({"fail-onn": "warning"})")).empty());
}

}  // namespace
}  // namespace ckpt::testing
