// SARIF 2.1.0: every catalog rule with full metadata; results positioned like the JSON
// report; deterministic bytes; fingerprints that survive unrelated changes; a golden file;
// and zero errors and zero warnings (tests/sarif/validate.sh) from the official schema,
// Microsoft's SARIF Multitool and GitHub's ingestion rules on what each tool writes: a clean
// artifact, every audit rule firing, a broken chain, a diff with findings.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <algorithm>
#include <boost/json.hpp>
#include <cstdlib>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "lib/formats/polyglot.h"
#include "lib/hashing/sha256.h"
#include "lib/io/directory_source.h"
#include "lib/io/memory_source.h"
#include "reports/json_pretty.h"
#include "reports/sarif_report.h"
#include "rules/catalog.h"
#include "tests/support/audit_helpers.h"
#include "tests/support/built_tools.h"
#include "tests/support/fire_cases.h"
#include "tests/support/golden_scenarios.h"
#include "tests/support/history_builder.h"
#include "tests/support/model_folder_builder.h"
#include "tests/support/prerequisite.h"
#include "tests/support/tar_builder.h"

namespace ckpt::testing {
namespace {

namespace fs = std::filesystem;

std::string Sarif(std::span<const AuditResult> results, const fs::path& root,
                  std::optional<std::string> category = {}) {
  reports::SarifOptions options;
  options.source_root = fs::absolute(root);
  options.category = std::move(category);
  std::ostringstream out;
  reports::WriteSarif(out, reports::SarifFromAudit(results, Severity::kError), options, reports::ReportContext{});
  return out.str();
}

boost::json::object FirstRun(const std::string& sarif) {
  return boost::json::parse(sarif).as_object()["runs"].as_array()[0].as_object();
}

// Writes `files` under root/name and audits it from disk (so SARIF lists the files read).
AuditResult AuditOnDisk(const fs::path& root, const std::string& name, const Files& files) {
  WriteFiles(files, root / name);
  AuditOptions sarif;
  sarif.digest_files = true;  // as the tools set it for --format sarif
  return AuditPath((fs::absolute(root) / name).string(), sarif);
}

TEST(Sarif, EveryRuleWithFullMetadata) {
  TempDir dir;
  AuditResult clean = AuditOnDisk(dir.path(), "clean", Clean());
  // A report lists the rules its results name: none for a clean audit (issue 51: 520 KB of
  // catalog for 18 results); --list-rules --format sarif lists the catalog.
  EXPECT_TRUE(FirstRun(Sarif({&clean, 1}, dir.path()))["tool"].at("driver").at("rules").as_array().empty());
  reports::SarifInput catalog;
  catalog.whole_catalog = true;
  std::ostringstream written;
  reports::SarifOptions options;
  options.source_root = dir.path();
  reports::WriteSarif(written, catalog, options, reports::ReportContext{});
  boost::json::object run = FirstRun(written.str());
  auto& rules = run["tool"].as_object()["driver"].as_object()["rules"].as_array();
  ASSERT_EQ(rules.size(), rules::AllRules().size());
  std::string previous;
  for (std::size_t i = 0; i < rules.size(); ++i) {
    auto& r = rules[i].as_object();
    const std::string id(r["id"].as_string());
    EXPECT_LT(previous, id) << "rules sorted by id";
    previous = id;
    for (const char* key : {"shortDescription", "fullDescription", "help"}) {
      ASSERT_TRUE(r.contains(key)) << id << " lacks " << key;
      EXPECT_FALSE(r[key].as_object()["text"].as_string().empty()) << id;
    }
    EXPECT_LE(r["fullDescription"].as_object()["text"].as_string().size(), 1024u) << id;
    EXPECT_LE(r["shortDescription"].as_object()["text"].as_string().size(), 1024u) << id;
    EXPECT_FALSE(r["help"].as_object()["markdown"].as_string().empty()) << id;
    EXPECT_TRUE(r["defaultConfiguration"].as_object().contains("level"));
    auto& props = r["properties"].as_object();
    EXPECT_EQ(props["precision"], "very-high");
    bool security_tag = false;
    for (const auto& tag : props["tags"].as_array()) security_tag |= tag == "security";
    EXPECT_EQ(security_tag, props.contains("security-severity")) << id;
    if (props.contains("security-severity")) {
      const double v = std::stod(std::string(props["security-severity"].as_string()));
      EXPECT_TRUE(v > 0 && v <= 10) << id;
    }
  }
}

TEST(Sarif, ResultsPointWhereTheJsonReportPoints) {
  TempDir dir;
  Files files = Clean();
  EditHeader(files, [](boost::json::object& h) { h["round_index"] = "0"; });
  files["weights.safetensors"] += "x";
  AuditResult result = AuditOnDisk(dir.path(), "a", files);
  boost::json::object run = FirstRun(Sarif({&result, 1}, dir.path()));
  auto& results = run["results"].as_array();
  ASSERT_EQ(results.size(), result.findings.size());
  for (auto& item : results) {
    auto& r = item.as_object();
    const std::string rule(r["ruleId"].as_string());
    const Finding* f = FindingsOf(result, rule).at(0);
    auto& physical = r["locations"].as_array()[0].as_object()["physicalLocation"].as_object();
    const std::string uri(physical["artifactLocation"].as_object()["uri"].as_string());
    EXPECT_EQ(uri, "a/" + f->location.file);
    auto& region = physical["region"].as_object();
    if (f->location.line) {
      EXPECT_EQ(region["startLine"], *f->location.line) << rule;
      EXPECT_EQ(region["startColumn"], *f->location.column) << rule;
      EXPECT_FALSE(region.contains("byteOffset")) << "text files get a text region";
    } else if (f->location.byte_offset) {
      EXPECT_EQ(region["byteOffset"], *f->location.byte_offset) << rule;
      EXPECT_FALSE(region.contains("startLine")) << "binary files never get a line";
    }
    const std::string text(r["message"].as_object()["text"].as_string());
    EXPECT_EQ(text.back(), '.') << "messages are complete sentences: " << text;
    const auto& named = run["tool"].at("driver").at("rules").as_array();
    ASSERT_LT(r["ruleIndex"].to_number<std::size_t>(), named.size()) << rule;
    EXPECT_EQ(named.at(r["ruleIndex"].to_number<std::size_t>()).at("id").as_string(), rule);
  }
  auto& artifacts = run["artifacts"].as_array();
  ASSERT_EQ(artifacts.size(), 2u);  // header.json and weights.safetensors
  EXPECT_EQ(artifacts[1].as_object()["length"], files["weights.safetensors"].size());
  EXPECT_EQ(artifacts[1].as_object()["hashes"].as_object()["sha-256"].as_string().size(), 64u);
}

TEST(Sarif, SameInputSameBytes) {
  TempDir dir;
  Files files = Clean();
  files["weights.safetensors"].back() ^= 1;
  AuditResult first = AuditOnDisk(dir.path(), "a", files);
  AuditResult second = AuditOnDisk(dir.path(), "a", files);
  EXPECT_EQ(Sarif({&first, 1}, dir.path()), Sarif({&second, 1}, dir.path()));
}

std::map<std::string, std::string> Fingerprints(const std::string& sarif) {
  std::map<std::string, std::string> out;
  boost::json::object run = FirstRun(sarif);
  for (auto& item : run["results"].as_array()) {
    auto& r = item.as_object();
    out[std::string(r["ruleId"].as_string())] = boost::json::serialize(r.at("partialFingerprints"));
  }
  return out;
}

TEST(Sarif, FingerprintsSurviveAnUnrelatedTensor) {
  // Findings in header.json (line moves) and in the weight file (byte offset moves).
  auto make = [](bool extra) {
    return FromSpec([&](ArtifactSpec& s) {
      if (extra) s.tensors.insert(s.tensors.begin(), {"encoder.aaa.first", "encoder", "float32", {16}, ""});
      s.tensors.push_back({"predictor.action_head.w", "predictor", "float32", {2}, ""});
      s.tensors.push_back({"predictor.zz", "predictor", "float32", {2}, ""});
    });
  };
  TempDir dir;
  Files before = make(false), after = make(true);
  for (Files* f : {&before, &after}) {
    ArtifactSpec extra_weights;  // an unlisted tensor in the weights: a binary-file finding
    SafetensorsParts parts = SplitSafetensors((*f)["weights.safetensors"]);
    boost::json::object h = boost::json::parse(parts.header).as_object();
    h["predictor.unlisted"] = {{"dtype", "F32"},
                               {"shape", boost::json::array{1}},
                               {"data_offsets", boost::json::array{parts.data.size(), parts.data.size() + 4}}};
    (*f)["weights.safetensors"] = SafetensorsFile(boost::json::serialize(h), parts.data + std::string(4, '\0'));
  }
  AuditResult a = AuditOnDisk(dir.path(), "x", before);
  AuditResult b = AuditOnDisk(dir.path(), "x", after);
  ASSERT_FALSE(FindingsOf(a, "residency-action-head").empty());
  ASSERT_FALSE(FindingsOf(a, "manifest-tensor-unlisted").empty());
  auto fa = Fingerprints(Sarif({&a, 1}, dir.path()));
  auto fb = Fingerprints(Sarif({&b, 1}, dir.path()));
  for (const char* rule : {"residency-action-head", "manifest-tensor-unlisted"}) {
    EXPECT_EQ(fa.at(rule), fb.at(rule)) << rule;
  }
  // The test must really move both findings: the header token's column, the entry's byte offset.
  EXPECT_NE(FindingsOf(a, "residency-action-head")[0]->location.column,
            FindingsOf(b, "residency-action-head")[0]->location.column);
  EXPECT_NE(FindingsOf(a, "manifest-tensor-unlisted")[0]->location.byte_offset,
            FindingsOf(b, "manifest-tensor-unlisted")[0]->location.byte_offset);
}

TEST(Sarif, CategoryCapAndToolErrors) {
  TempDir dir;
  AuditResult missing = AuditPath((dir.path() / "nope").string(), AuditOptions{});
  boost::json::object run = FirstRun(Sarif({&missing, 1}, dir.path(), "nightly"));
  EXPECT_EQ(run["automationDetails"].as_object()["id"], "ckpt-audit/nightly/");
  EXPECT_TRUE(run["results"].as_array().empty()) << "tool problems are not results";
  auto& invocation = run["invocations"].as_array()[0].as_object();
  EXPECT_EQ(invocation["executionSuccessful"], false);
  EXPECT_EQ(invocation["exitCode"], 2);
  EXPECT_EQ(invocation["toolExecutionNotifications"].as_array().size(), 1u);

  reports::SarifInput many;
  AuditResult broken = AuditFiles([] {
    Files f = Clean();
    f["weights.safetensors"].back() ^= 1;
    return f;
  }());
  for (std::size_t i = 0; i < reports::kMaxSarifResults + 7; ++i)
    many.findings.push_back({&broken.findings[0], "a", {}, ""});
  reports::SarifOptions options;
  options.source_root = dir.path();
  std::ostringstream out;
  reports::WriteSarif(out, many, options, reports::ReportContext{});
  boost::json::object capped = FirstRun(out.str());
  EXPECT_EQ(capped["results"].as_array().size(), reports::kMaxSarifResults);
  const std::string note(capped["invocations"]
                             .as_array()[0]
                             .as_object()["toolExecutionNotifications"]
                             .as_array()[0]
                             .as_object()["message"]
                             .as_object()["text"]
                             .as_string());
  EXPECT_NE(note.find("7 results were dropped"), std::string::npos) << note;
}

// Issue 9, acceptance 3, and issue 10: SARIF's artifacts[] digests come from the audit's own
// reads: each file is opened once and each byte read once (the weight file's digest is fed
// from the content hash's windows), and the digest is the file's SHA-256.
TEST(Sarif, DigestsComeFromTheAuditsOwnReads) {
  TempDir dir;
  const std::uint64_t before = DirectorySource::FileOpenCount();
  const std::uint64_t bytes_before = DirectorySource::BytesRead();
  AuditResult result = AuditOnDisk(dir.path(), "clean", Clean());
  EXPECT_EQ(DirectorySource::FileOpenCount() - before, 2u) << "header.json and weights.safetensors, once each";
  std::uint64_t total = 0;
  for (const auto& [name, bytes] : Clean()) total += bytes.size();
  // The safetensors header is read by the reader and again for the digest's prefix: small.
  // The polyglot check reads the weight file's head and the tail zip readers search (here,
  // a small file, all of it).
  const std::uint64_t weights = Clean().at("weights.safetensors").size();
  EXPECT_LE(DirectorySource::BytesRead() - bytes_before, total + 1024 + 1024 + std::min(weights, kZipSearchWindow))
      << "each tensor byte read once by the hashing pass";
  const std::string sarif = Sarif({&result, 1}, dir.path());
  EXPECT_EQ(DirectorySource::FileOpenCount() - before, 2u) << "writing SARIF opens nothing";
  boost::json::object run = FirstRun(sarif);
  const Files files = Clean();
  std::map<std::string, std::string> want;
  for (const auto& [name, bytes] : files) {
    Sha256 hash;
    hash.Update(bytes);
    want["clean/" + name] = hash.FinalHex();
  }
  ASSERT_EQ(run["artifacts"].as_array().size(), want.size());
  for (const auto& a : run["artifacts"].as_array()) {
    const std::string uri(a.as_object().at("location").as_object().at("uri").as_string());
    EXPECT_EQ(std::string(a.as_object().at("hashes").as_object().at("sha-256").as_string()), want[uri]) << uri;
  }
}

// A weight file whose tensors are stored out of name order (as the reference writer orders
// them by dtype first) cannot feed its digest from the content hash's windows in order: it
// is read a second time, and the digest is still the file's SHA-256.
TEST(Sarif, DigestsOfFilesStoredOutOfNameOrderAreStillExact) {
  TempDir dir;
  ArtifactSpec spec = ArtifactSpec::Clean();
  std::reverse(spec.tensors.begin(), spec.tensors.end());  // stored in reverse name order
  const Files files = spec.Build();
  AuditResult result = AuditOnDisk(dir.path(), "reversed", files);
  ASSERT_TRUE(result.findings.empty()) << Describe(result);
  for (const AdmittedFile& f : result.artifact.files) {
    Sha256 hash;
    hash.Update(files.at(f.name));
    ASSERT_TRUE(f.sha256.has_value()) << f.name;
    EXPECT_EQ(*f.sha256, hash.FinalHex()) << f.name;
  }
}

TEST(Sarif, UrisArePercentEncodedRelativeAndSlashSeparated) {
  EXPECT_EQ(reports::RelativeUri("/src/a b/n\xC3\xA9t#1.json", "/src"), "a%20b/n%C3%A9t%231.json");
  EXPECT_EQ(reports::RelativeUri("/src/x/header.json", "/src/"), "x/header.json");
  EXPECT_EQ(reports::RelativeUri("/other/h.json", "/src"), "../other/h.json");
}

// ---- golden files (normalized for the tool version and the scan root's absolute URI)
//
// The catalog (every rule's texts, tags and help) is pinned once, a golden per family under
// fixtures/golden/catalog/; a report's golden pins the ids of the rules its results name.
// Rewording a rule then changes one catalog file, not every report's golden, and a new rule
// adds its family's entry without touching the reports'.

// The catalog as every SARIF writes it (driver.rules), from a run with no results.
const boost::json::array& CatalogRules() {
  static const boost::json::array rules = [] {
    std::ostringstream out;
    reports::SarifOptions options;
    options.source_root = fs::current_path();
    reports::SarifInput whole = reports::SarifFromAudit({}, Severity::kError);
    whole.whole_catalog = true;
    reports::WriteSarif(out, whole, options, reports::ReportContext{});
    return boost::json::parse(out.str()).at("runs").at(0).at("tool").at("driver").at("rules").as_array();
  }();
  return rules;
}

// Checks that driver.rules holds, sorted, exactly the catalog's entries of the rules the
// results name (the catalog TheCatalogIsPinnedOncePerFamily pins) and that each result's
// ruleIndex names its ruleId there, then keeps of driver.rules only the ids, without indexes.
void PinRuleIds(boost::json::object& run) {
  auto& driver = run["tool"].as_object()["driver"].as_object();
  const boost::json::array rules = driver["rules"].as_array();
  std::set<std::string> listed;
  for (const boost::json::value& rule : rules) {
    const auto& id = rule.at("id").as_string();
    const auto in_catalog = std::find_if(CatalogRules().begin(), CatalogRules().end(),
                                         [&](const boost::json::value& c) { return c.at("id").as_string() == id; });
    EXPECT_TRUE(in_catalog != CatalogRules().end() && *in_catalog == rule) << id << " is not the catalog's entry";
    EXPECT_TRUE(listed.insert(std::string(id)).second) << id << " listed twice";
  }
  EXPECT_TRUE(std::is_sorted(listed.begin(), listed.end()));
  std::set<std::string> named;
  for (boost::json::value& r : run["results"].as_array()) {
    boost::json::object& result = r.as_object();
    const std::string id(result.at("ruleId").as_string());
    const auto index = static_cast<std::size_t>(result.at("ruleIndex").as_int64());
    EXPECT_LT(index, rules.size()) << id;
    if (index < rules.size()) {
      EXPECT_EQ(rules[index].as_object().at("id").as_string(), id);
    }
    result.erase("ruleIndex");
    named.insert(id);
  }
  EXPECT_EQ(listed, named) << "driver.rules lists exactly the rules the results name";
  boost::json::array ids;
  for (const std::string& id : named) ids.emplace_back(id);
  driver["rules"] = std::move(ids);
}

// Normalizes what legitimately varies: the tool version, the scan root's absolute URI and
// the temporary directory that messages name artifacts by.
std::string Normalize(const std::string& sarif, const fs::path& temp_root = {}) {
  boost::json::value v = boost::json::parse(sarif);
  auto& run = v.as_object()["runs"].as_array()[0].as_object();
  run["tool"].as_object()["driver"].as_object()["semanticVersion"] = "VERSION";
  run["originalUriBaseIds"].as_object()["%SRCROOT%"].as_object()["uri"] = "file:///SRCROOT/";
  PinRuleIds(run);
  std::string text = boost::json::serialize(v);
  if (temp_root.empty()) return text;
  const std::string temp = fs::absolute(temp_root).string();
  for (std::size_t at; (at = text.find(temp)) != std::string::npos;) text.replace(at, temp.size(), "$TMP");
  return text;
}

void ExpectGolden(const std::string& got, const fs::path& golden) {
  if (std::getenv("CKPT_UPDATE_GOLDEN")) {
    fs::create_directories(golden.parent_path());
    std::ofstream(golden) << got << "\n";
    return;
  }
  std::ifstream in(golden);
  ASSERT_TRUE(in) << golden << " missing: run with CKPT_UPDATE_GOLDEN=1";
  std::string want((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  while (!want.empty() && want.back() == '\n') want.pop_back();
  EXPECT_EQ(got, want) << golden << " changed; if intended, rerun with CKPT_UPDATE_GOLDEN=1 and review the diff";
}

// The catalog every tool writes as driver.rules (PinRuleIds checks each golden's), pinned once per family.
TEST(SarifGolden, TheCatalogIsPinnedOncePerFamily) {
  const boost::json::array& rules = CatalogRules();
  ASSERT_EQ(rules.size(), rules::AllRules().size());
  std::map<std::string, boost::json::array> by_family;
  for (const boost::json::value& rule : rules) {
    const std::string id(rule.as_object().at("id").as_string());
    by_family[id.substr(0, id.find('-'))].push_back(rule);
  }
  const fs::path folder = "fixtures/golden/catalog";
  for (const auto& [family, entries] : by_family) {
    std::ostringstream pretty;
    reports::WritePrettyJson(pretty, entries);
    std::string text = pretty.str();
    while (!text.empty() && text.back() == '\n') text.pop_back();
    ExpectGolden(text, folder / (family + ".json"));
  }
  for (const fs::directory_entry& e : fs::directory_iterator(folder)) {  // no file for a family gone
    EXPECT_TRUE(by_family.contains(e.path().stem().string())) << e.path() << " pins a family the catalog lacks";
  }
}

TEST(SarifGolden, AuditOfATamperedArtifact) {
  TempDir dir;
  AuditResult result = AuditOnDisk(dir.path(), "tampered", TamperedFiles());
  ExpectGolden(Normalize(Sarif({&result, 1}, dir.path()), dir.path()), "fixtures/golden/ckpt-audit-tampered.sarif");
}

TEST(SarifGolden, ChainWithAGapAndAFork) {
  TempDir dir;
  ChainRunOptions options;
  options.jobs = 2;
  options.policy.digest_files = true;
  const ChainRun run = RunGapAndFork(dir.path(), options);
  reports::SarifOptions sarif;
  sarif.source_root = fs::absolute(dir.path());
  reports::ReportContext context;
  context.tool_name = "ckpt-chain";
  std::ostringstream out;
  reports::WriteSarif(out, reports::SarifFromChain(run, Severity::kError), sarif, context);
  ExpectGolden(Normalize(out.str(), dir.path()), "fixtures/golden/ckpt-chain-gap-fork.sarif");
}

TEST(SarifGolden, DiffWithGateFindings) {
  TempDir dir;
  DiffOptions options;
  options.jobs = 2;
  options.policy.digest_files = true;
  const DiffRun run = RunGatedDiff(dir.path(), options);
  reports::SarifOptions sarif;
  sarif.source_root = fs::absolute(dir.path());
  reports::ReportContext context;
  context.tool_name = "ckpt-diff";
  std::ostringstream out;
  reports::WriteSarif(out, reports::SarifFromDiff(run, Severity::kError), sarif, context);
  ExpectGolden(Normalize(out.str(), dir.path()), "fixtures/golden/ckpt-diff-gates.sarif");
}

// ---- the official validators

// The team's validators beside a ../shared checkout, else the OASIS schema (tests/sarif).
std::string Validator() { return fs::absolute("tests/sarif/validate.sh").string(); }

int Shell(const std::string& cmd) {
  int status = std::system(cmd.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST(SarifValidation, EveryToolsOutputPassesTheOfficialValidators) {
  const std::string validator = Validator();
  TempDir dir;
  const fs::path& root = dir.path();
  // 1. ckpt-audit on a clean artifact.
  WriteFiles(Clean(), root / "clean");
  // 2. every audit rule firing at least once across the fixture set, written by the
  //    ckpt-audit binary: default-policy cases in one run, the policy cases in another.
  std::string default_dirs, policy_dirs, no_hash_dirs, pins, kind_dirs, kinds, env_dirs, env;
  std::set<std::string> expected_rules;
  int index = 0;
  for (const FireCase& fc : AllFireCases()) {
    if (!fc.replaced_on_open.empty()) continue;  // needs a file changed mid-audit: tests/identity_test.cpp
    const std::string case_dir = "fire/" + std::to_string(index++);
    const fs::path input = WriteInput(fc.make(), fc.form, fc.input_name, fc.entries, root / case_dir);
    const std::string name = fs::relative(input, root).string();
    const bool needs_policy = !fc.policy.extra_allowed_groups.empty() || fc.policy.expected_hash;
    if (!fc.environment.empty()) {  // a stand-in helper (CKPT_H5PROBE): one run of their own
      env.clear();
      for (const auto& [variable, value] : fc.environment) env.append(variable).append("=").append(value).append(" ");
      env_dirs += " " + name;
      expected_rules.insert(fc.rule);
      continue;
    }
    if (!fc.policy.expected_kinds.empty()) {  // --expect-kind cases: one run of their own
      kind_dirs += " " + name;
      kinds.clear();
      for (InputKind k : fc.policy.expected_kinds) kinds += " --expect-kind " + std::string(InputKindName(k));
      expected_rules.insert(fc.rule);
      continue;
    }
    (!fc.policy.compute_hash ? no_hash_dirs : needs_policy ? policy_dirs : default_dirs) += " " + name;
    if (fc.policy.expected_hash) pins += " --expect-hash " + name + "=" + *fc.policy.expected_hash;
    expected_rules.insert(fc.rule);
  }
  const std::string bin = fs::path(CKPT_AUDIT_BIN).parent_path().string();
  const std::string cd = "cd " + root.string() + " && ";
  EXPECT_EQ(Shell(cd + bin + "/ckpt-audit --format sarif --sarif-category rules -o all-rules.sarif" + default_dirs), 1);
  EXPECT_EQ(Shell(cd + bin + "/ckpt-audit --format sarif --sarif-category policy --allow-group gripper" + pins +
                  " -o policy-rules.sarif" + policy_dirs),
            1);
  EXPECT_EQ(Shell(cd + bin + "/ckpt-audit --format sarif --sarif-category structure --no-hash --fail-on warning " +
                  "-o no-hash-rules.sarif" + no_hash_dirs),
            1);
  EXPECT_EQ(Shell(cd + bin + "/ckpt-audit --format sarif --sarif-category kinds" + kinds + " -o kind-rules.sarif" +
                  kind_dirs),
            1);
  EXPECT_EQ(Shell(cd + env + bin + "/ckpt-audit --format sarif --sarif-category helper -o env-rules.sarif" + env_dirs),
            1);
  std::set<std::string> fired;
  for (const char* file :
       {"all-rules.sarif", "policy-rules.sarif", "no-hash-rules.sarif", "kind-rules.sarif", "env-rules.sarif"}) {
    std::ifstream in(root / file);
    boost::json::object run =
        FirstRun(std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>()));
    for (auto& r : run["results"].as_array()) fired.insert(std::string(r.as_object()["ruleId"].as_string()));
  }
  for (const std::string& rule : expected_rules) {
    EXPECT_TRUE(fired.count(rule)) << rule << " missing from the SARIF files";
  }
  // 3. a broken chain (gap, fork, corrupted round) and 4. a diff with gate findings.
  auto rounds = WriteHistory(root / "history", 6);
  fs::remove_all(rounds[4].dir);
  ArtifactSpec fork = RoundSpec(2, rounds[1].hash);
  fork.tensors[0].data[0] ^= 1;
  WriteRound(root / "history", "fork-2", fork);
  EXPECT_EQ(Shell(cd + bin + "/ckpt-audit --format sarif -o clean.sarif clean"), 0);
  // 5. the other inputs: a tar (members nested in it) and a hub-cache snapshot (files nested
  //    in their repository folder), both clean, and a tar with a stray member.
  {
    const std::string tar = BuildTar(TarOfFiles(Clean(), "round-0000/"));
    std::ofstream(root / "round.tar", std::ios::binary).write(tar.data(), static_cast<std::streamsize>(tar.size()));
    TarSpec stray = TarOfFiles(Clean());
    stray.members.push_back(Member("optimizer.pt", std::string("\x80\x02}q\x00.", 6)));
    const std::string bad = BuildTar(stray);
    std::ofstream(root / "stray.tar", std::ios::binary).write(bad.data(), static_cast<std::streamsize>(bad.size()));
    WriteFiles(HubCache(ModelFolderSpec{}.Build()), root / "cache" / kSnapshot);
  }
  EXPECT_EQ(Shell(cd + bin + "/ckpt-audit --format sarif -o inputs.sarif round.tar cache/hub"), 0);
  EXPECT_EQ(Shell(cd + bin + "/ckpt-audit --format sarif -o stray-tar.sarif stray.tar"), 1);
  EXPECT_EQ(Shell(cd + bin + "/ckpt-chain --format sarif --sarif-category nightly -o chain.sarif history"), 1);
  EXPECT_EQ(Shell(cd + bin +
                  "/ckpt-diff --format sarif --require-child --max-rel-l2 0.00001 --allow-change 'encoder.*' "
                  "-o diff.sarif history/round-0000 history/round-0002"),
            1);
  const std::string files =
      "clean.sarif all-rules.sarif policy-rules.sarif kind-rules.sarif chain.sarif diff.sarif inputs.sarif "
      "stray-tar.sarif";
  EXPECT_EQ(Shell(cd + validator + " --strict --require-multitool " + files + " > validate.log 2>&1"), 0) << [&] {
    std::ifstream log(root / "validate.log");
    return std::string((std::istreambuf_iterator<char>(log)), std::istreambuf_iterator<char>());
  }();
}

}  // namespace
}  // namespace ckpt::testing
