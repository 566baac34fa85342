// ckpt-convert on real torch.save checkpoints written at test time by Debian's python3-torch
// (tests/torch/make_convert_cases.py): every output checked by an independent reader
// (tests/torch/check_converted.py: the standard library against torch.load's bytes and the
// reference serializer's layout rebuilt byte for byte), determinism, the derivation record
// verified, and every refusal leaving nothing at the destination.
#include "engine/convert.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <cerrno>
#include <filesystem>
#include <fstream>
#include <set>

#include "lib/core/base64.h"
#include "lib/io/memory_source.h"
#include "lib/io/place_new.h"
#include "tests/support/artifact_builder.h"
#include "tests/support/audit_helpers.h"
#include "tests/support/built_tools.h"
#include "tests/support/pickle_builder.h"
#include "tests/support/prerequisite.h"
#include "tests/support/process.h"
#include "tests/support/python_fixtures.h"

namespace ckpt::testing {
namespace {

namespace fs = std::filesystem;

CommandResult Convert(const std::string& args) {
  return RunCommand(std::string(CKPT_CONVERT_BIN) + " " + args + " 2>&1");
}
CommandResult Audit(const std::string& args) { return RunCommand(std::string(CKPT_AUDIT_BIN) + " " + args + " 2>&1"); }

bool Has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

class ConvertTorch : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir();
    const PythonMade made = MadeByPython("convert-cases", dir_->path());
    if (made.missing_module) {
      missing_ = "no python3 with torch (scripts/install-deps --test installs python3-torch): " + made.problem;
      return;
    }
    ASSERT_TRUE(made.ok) << made.problem;
  }
  static void TearDownTestSuite() {
    delete dir_;
    dir_ = nullptr;
  }
  void SetUp() override {
    if (!missing_.empty()) CKPT_MISSING_PREREQUISITE() << missing_;
  }
  static fs::path Path(const std::string& name) { return dir_->path() / name; }
  static CommandResult Check(const std::string& input, const fs::path& output) {
    return RunCommand("/usr/bin/python3 tests/torch/check_converted.py " + ShellQuote(Path("expected.json")) + " " +
                      input + " " + ShellQuote(output) + " 2>&1");
  }
  static inline TempDir* dir_ = nullptr;
  static inline std::string missing_;
};

TEST_F(ConvertTorch, EveryCheckpointConvertsToWhatTorchLoadGives) {
  for (const char* input : {"zip.pt", "legacy.pt", "training.pt"}) {
    SCOPED_TRACE(input);
    const fs::path output = Path(std::string(input) + ".safetensors");
    const CommandResult run = Convert(ShellQuote(Path(input)) + " -o " + ShellQuote(output));
    EXPECT_EQ(run.exit_code, 0) << run.output;
    EXPECT_TRUE(Has(run.output, "ckpt-convert: wrote " + output.string() + " (12 tensors, 1 alias")) << run.output;
    const CommandResult checked = Check(input, output);
    EXPECT_EQ(checked.exit_code, 0) << checked.output;
    EXPECT_EQ(checked.output, "ok 12 tensors\n");
    // The output passes the audit of a plain safetensors file.
    EXPECT_EQ(Audit(ShellQuote(output)).exit_code, 0);
  }
}

// The names a safetensors file holds, from its header (the JSON keys but __metadata__).
std::set<std::string> SafetensorsNames(const fs::path& file) {
  const std::string bytes = ReadText(file);
  std::uint64_t length = 0;
  for (int i = 7; i >= 0; --i)
    length = (length << 8) | static_cast<unsigned char>(bytes.at(static_cast<std::size_t>(i)));
  const boost::json::object header = boost::json::parse(bytes.substr(8, length)).as_object();
  std::set<std::string> names;
  for (const auto& member : header) {
    if (member.key() != "__metadata__") names.insert(std::string(member.key()));
  }
  return names;
}

// Issue 30, item 6: --select converts one sub-dict of a training checkpoint under its own
// names; -q is silent when the output is written; the aliases are named, with what
// load_file returns; a missing destination folder is a usage error before anything is read.
TEST_F(ConvertTorch, SelectQuietAliasesAndAMissingFolder) {
  const fs::path whole = Path("select-whole.safetensors");
  ASSERT_EQ(Convert(ShellQuote(Path("zip.pt")) + " -o " + ShellQuote(whole)).exit_code, 0);
  const fs::path model = Path("select-model.safetensors");
  CommandResult run = Convert(ShellQuote(Path("training.pt")) + " --select model. -o " + ShellQuote(model));
  EXPECT_EQ(run.exit_code, 0) << run.output;
  EXPECT_TRUE(Has(run.output, "ckpt-convert: wrote " + model.string() + " (12 tensors, 1 alias, ")) << run.output;
  EXPECT_TRUE(Has(run.output, " values not carried)")) << run.output;
  EXPECT_TRUE(Has(run.output,
                  "ckpt-convert: 'tied.embedding' is an alias of 'encoder.weight': written once, under "
                  "'encoder.weight', and named in the output's __metadata__; safetensors' load_file "
                  "returns 'encoder.weight' only"))
      << run.output;
  // The sub-dict's names, as the plain state dict gives them.
  EXPECT_EQ(SafetensorsNames(model), SafetensorsNames(whole));
  EXPECT_EQ(ReadText(model), ReadText(whole)) << "same tensors, same names: the same bytes";
  // Near miss: without --select every name keeps its "model." prefix.
  const fs::path prefixed = Path("select-none.safetensors");
  ASSERT_EQ(Convert(ShellQuote(Path("training.pt")) + " -o " + ShellQuote(prefixed)).exit_code, 0);
  for (const std::string& name : SafetensorsNames(prefixed)) EXPECT_TRUE(name.starts_with("model.")) << name;
  // A prefix nothing is under is refused, and nothing is written.
  const fs::path none = Path("select-nothing.safetensors");
  run = Convert(ShellQuote(Path("training.pt")) + " --select decoder. -o " + ShellQuote(none));
  EXPECT_EQ(run.exit_code, 1) << run.output;
  EXPECT_TRUE(Has(run.output, "error: No tensor of the checkpoint is named 'decoder.'...: --select chose nothing"))
      << run.output;
  EXPECT_FALSE(fs::exists(none));
  // -q: nothing printed when the output is written.
  const fs::path quiet = Path("select-quiet.safetensors");
  run = Convert("-q " + ShellQuote(Path("zip.pt")) + " -o " + ShellQuote(quiet));
  EXPECT_EQ(run.exit_code, 0);
  EXPECT_EQ(run.output, "");
  EXPECT_TRUE(fs::exists(quiet));
  // A destination folder that does not exist: said first, exit 2, no audit report.
  run = Convert(ShellQuote(Path("zip.pt")) + " -o " + ShellQuote(Path("no-such-folder") / "out.safetensors"));
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_EQ(run.output.rfind("ckpt-convert: cannot write '" + (Path("no-such-folder") / "out.safetensors").string() +
                                 "': the folder '" + Path("no-such-folder").string() + "' does not exist\n",
                             0),
            0u)
      << run.output;
  EXPECT_FALSE(Has(run.output, "not audited")) << run.output;
}

TEST_F(ConvertTorch, TwoConversionsGiveTheSameBytesAndRecord) {
  if (std::system("openssl version >/dev/null 2>&1") != 0) CKPT_MISSING_PREREQUISITE() << "openssl is missing";
  ASSERT_EQ(RunCommand("openssl genpkey -algorithm ed25519 -out " + ShellQuote(Path("key.pem")) + " && chmod 600 " +
                       ShellQuote(Path("key.pem")) + " && openssl pkey -in " + ShellQuote(Path("key.pem")) +
                       " -pubout -out " + ShellQuote(Path("pub.pem")))
                .exit_code,
            0);
  // Two runs into two folders, the same file names: byte-identical outputs and records.
  for (const char* folder : {"one", "two"}) {
    fs::create_directories(Path(folder));
    const CommandResult run =
        Convert(ShellQuote(Path("training.pt")) + " -o " + ShellQuote(Path(folder) / "model.st") + " --attest " +
                ShellQuote(Path("key.pem")) + " --record " + ShellQuote(Path(folder) / "model.dsse.json"));
    ASSERT_EQ(run.exit_code, 0) << run.output;
  }
  EXPECT_EQ(ReadText(Path("one/model.st")), ReadText(Path("two/model.st")));
  EXPECT_EQ(ReadText(Path("one/model.dsse.json")), ReadText(Path("two/model.dsse.json")));
  // A destination folder that does not exist is a tool error; nothing is written.
  EXPECT_EQ(Convert(ShellQuote(Path("training.pt")) + " -o " + ShellQuote(Path("absent/model.st"))).exit_code, 2);
  EXPECT_FALSE(fs::exists(Path("absent")));

  // The record verifies, against the output alone and with the input; it lists what is not carried.
  CommandResult verified = Audit("--verify-derivation " + ShellQuote(Path("one/model.dsse.json")) + " --trusted-key " +
                                 ShellQuote(Path("pub.pem")) + " " + ShellQuote(Path("one/model.st")) +
                                 " --derived-from " + ShellQuote(Path("training.pt")));
  EXPECT_EQ(verified.exit_code, 0) << verified.output;
  EXPECT_EQ(Audit("--verify-derivation " + ShellQuote(Path("one/model.dsse.json")) + " --trusted-key " +
                  ShellQuote(Path("pub.pem")) + " " + ShellQuote(Path("two/model.st")))
                .exit_code,
            0);
  const boost::json::value record = boost::json::parse(ReadText(Path("one/model.dsse.json")));
  const boost::json::value statement =
      boost::json::parse(Base64Decode(std::string(record.at("payload").as_string())).value());
  const boost::json::value expected = boost::json::parse(ReadText(Path("expected.json")));
  EXPECT_EQ(statement.at("predicate").at("not_carried"), expected.at("training.pt").at("not_carried"));
  EXPECT_EQ(statement.at("predicate").at("aliases").at("model.tied.embedding").as_string(), "model.encoder.weight");
  EXPECT_EQ(statement.at("subject").at(0).at("name").as_string(), "model.st");
  // Any DSSE/Ed25519 verifier accepts it: openssl over the pre-authentication encoding.
  const std::string payload = Base64Decode(std::string(record.at("payload").as_string())).value();
  const std::string type = "application/vnd.in-toto+json";
  WriteText(Path("pae.bin"), "DSSEv1 " + std::to_string(type.size()) + " " + type + " " +
                                 std::to_string(payload.size()) + " " + payload);
  WriteText(Path("sig.bin"), Base64Decode(std::string(record.at("signatures").at(0).at("sig").as_string())).value());
  const CommandResult openssl =
      RunCommand("openssl pkeyutl -verify -pubin -inkey " + ShellQuote(Path("pub.pem")) + " -rawin -in " +
                 ShellQuote(Path("pae.bin")) + " -sigfile " + ShellQuote(Path("sig.bin")) + " 2>&1");
  EXPECT_TRUE(Has(openssl.output, "Signature Verified Successfully")) << openssl.output;

  // A Lensemble output's record names every file of the artifact.
  const CommandResult artifact = Convert(
      ShellQuote(Path("round.pt")) + " --lensemble " + ShellQuote(Path("signed-artifact")) +
      " --round 0 --parent none --wmcp w --config-hash " + std::string(64, '0') + " --shard-size 4000 --attest " +
      ShellQuote(Path("key.pem")) + " --record " + ShellQuote(Path("artifact.dsse.json")));
  ASSERT_EQ(artifact.exit_code, 0) << artifact.output;
  const boost::json::value artifact_record = boost::json::parse(
      Base64Decode(std::string(boost::json::parse(ReadText(Path("artifact.dsse.json"))).at("payload").as_string()))
          .value());
  std::set<std::string> named;
  for (const boost::json::value& s : artifact_record.at("subject").as_array())
    named.insert(std::string(s.at("name").as_string()));
  std::set<std::string> present;
  for (const auto& entry : fs::directory_iterator(Path("signed-artifact")))
    present.insert(entry.path().filename().string());
  EXPECT_EQ(named, present);
}

// A Hugging Face model folder of .bin shards (issue 51): a new folder of safetensors shards
// named as the Hub's conversion names them, the same tensors in the same shards, byte for byte
// what torch.load gives and laid out as the reference serializer lays them (tied weights copied
// under each name, which is what a transformers load needs), an index save_pretrained's way,
// a derivation record per shard that verifies against its .bin, and ckpt-audit passing it.
TEST_F(ConvertTorch, AShardedBinFolderBecomesSafetensorsShardsWithAnIndex) {
  if (std::system("openssl version >/dev/null 2>&1") != 0) CKPT_MISSING_PREREQUISITE() << "openssl is missing";
  ASSERT_EQ(RunCommand("openssl genpkey -algorithm ed25519 -out " + ShellQuote(Path("folder-key.pem")) +
                       " && chmod 600 " + ShellQuote(Path("folder-key.pem")) + " && openssl pkey -in " +
                       ShellQuote(Path("folder-key.pem")) + " -pubout -out " + ShellQuote(Path("folder-pub.pem")))
                .exit_code,
            0);
  const fs::path out = Path("sharded-safetensors");
  const fs::path records = Path("sharded-records");
  const CommandResult run = Convert(ShellQuote(Path("sharded")) + " -o " + ShellQuote(out) + " --attest " +
                                    ShellQuote(Path("folder-key.pem")) + " --record " + ShellQuote(records));
  ASSERT_EQ(run.exit_code, 0) << run.output;
  EXPECT_TRUE(Has(run.output, "ckpt-convert: wrote " + out.string() +
                                  " (model-00001-of-00002.safetensors, model-00002-of-00002.safetensors, "
                                  "model.safetensors.index.json: 7 tensors, 0 aliases) and a derivation record for "
                                  "each file in " +
                                  records.string()))
      << run.output;
  std::set<std::string> written;
  for (const auto& entry : fs::directory_iterator(out)) written.insert(entry.path().filename().string());
  EXPECT_EQ(written, (std::set<std::string>{"model-00001-of-00002.safetensors", "model-00002-of-00002.safetensors",
                                            "model.safetensors.index.json"}));
  // Byte for byte against torch.load and the reference layout, each shard from its own .bin;
  // the tied pair is two tensors here, each with the bytes torch gives for it.
  ASSERT_EQ(RunCommand("/usr/bin/python3 - " + ShellQuote(Path("expected.json")) + " " +
                       ShellQuote(Path("expected-folder.json")) +
                       " <<'PY'\n"
                       "import json, sys\n"
                       "cases = json.load(open(sys.argv[1]))\n"
                       "for name, case in cases.items():\n"
                       "    for alias, kept in case['aliases'].items():\n"
                       "        case['tensors'][alias] = case['tensors'][kept]\n"
                       "    case['aliases'] = {}\n"
                       "json.dump(cases, open(sys.argv[2], 'w'))\n"
                       "PY")
                .exit_code,
            0);
  std::map<std::string, std::string> shard_of;
  for (const char* k : {"00001", "00002"}) {
    const std::string bin = std::string("pytorch_model-") + k + "-of-00002.bin";
    const std::string safetensors = std::string("model-") + k + "-of-00002.safetensors";
    const CommandResult checked =
        RunCommand("/usr/bin/python3 tests/torch/check_converted.py " + ShellQuote(Path("expected-folder.json")) + " " +
                   ShellQuote("sharded/" + bin) + " " + ShellQuote(out / safetensors) + " 2>&1");
    EXPECT_EQ(checked.exit_code, 0) << bin << ": " << checked.output;
    const boost::json::value expected = boost::json::parse(ReadText(Path("expected-folder.json")));
    for (const auto& tensor : expected.at("sharded/" + bin).at("tensors").as_object()) {
      shard_of[std::string(tensor.key())] = safetensors;
    }
    // Its record verifies against its output and the .bin it came from.
    const CommandResult verified =
        Audit("--verify-derivation " + ShellQuote(records / (safetensors + ".dsse.json")) + " --trusted-key " +
              ShellQuote(Path("folder-pub.pem")) + " " + ShellQuote(out / safetensors) + " --derived-from " +
              ShellQuote(Path("sharded") / bin));
    EXPECT_EQ(verified.exit_code, 0) << verified.output;
  }
  // The index: every tensor to the file that holds it, the total of their bytes, two-space JSON.
  const std::string index_text = ReadText(out / "model.safetensors.index.json");
  const boost::json::value index = boost::json::parse(index_text);
  std::map<std::string, std::string> mapped;
  for (const auto& entry : index.at("weight_map").as_object()) {
    mapped[std::string(entry.key())] = std::string(entry.value().as_string());
  }
  EXPECT_EQ(mapped, shard_of);
  std::int64_t tensor_bytes = 0;  // each file's size less its length prefix and header
  for (const char* f : {"model-00001-of-00002.safetensors", "model-00002-of-00002.safetensors"}) {
    const std::string bytes = ReadText(out / f);
    std::uint64_t header = 0;
    for (int i = 7; i >= 0; --i)
      header = (header << 8) | static_cast<unsigned char>(bytes[static_cast<std::size_t>(i)]);
    tensor_bytes += static_cast<std::int64_t>(bytes.size() - 8 - header);
  }
  EXPECT_EQ(index.at("metadata").at("total_size").as_int64(), tensor_bytes);
  EXPECT_TRUE(index_text.starts_with("{\n  \"metadata\": {\n    \"total_size\": ")) << index_text;
  // What was written is a model folder the audit passes.
  const CommandResult audited = Audit(ShellQuote(out));
  EXPECT_EQ(audited.exit_code, 0) << audited.output;

  // Near misses: an existing destination is a usage error; a folder whose second shard is not
  // what its index says is refused with the folder's finding, and nothing is left at either
  // destination; --select is for one file.
  EXPECT_EQ(Convert(ShellQuote(Path("sharded")) + " -o " + ShellQuote(out)).exit_code, 2);
  const fs::path bad = Path("sharded-bad");
  fs::create_directories(bad);
  for (const auto& entry : fs::directory_iterator(Path("sharded")))
    fs::copy(entry.path(), bad / entry.path().filename());
  fs::copy(Path("zip.pt"), bad / "pytorch_model-00002-of-00002.bin", fs::copy_options::overwrite_existing);
  const CommandResult refused =
      Convert(ShellQuote(bad) + " -o " + ShellQuote(Path("bad-out")) + " --attest " +
              ShellQuote(Path("folder-key.pem")) + " --record " + ShellQuote(Path("bad-records")));
  EXPECT_EQ(refused.exit_code, 1) << refused.output;
  EXPECT_FALSE(fs::exists(Path("bad-out")));
  EXPECT_FALSE(fs::exists(Path("bad-records")));
  EXPECT_EQ(Convert(ShellQuote(Path("sharded")) + " -o " + ShellQuote(Path("x")) + " --select model.").exit_code, 2);
}

TEST_F(ConvertTorch, RefusalsNameTheTensorAndLeaveNothing) {
  struct Case {
    const char* input;
    const char* line;
  };
  for (const Case& c :
       {Case{"noncontiguous.pt",
             "error: Tensor 'transposed' [4,3] has strides [1,4], not row-major: its values are not one "
             "run of bytes. [convert-not-contiguous CHECKPOINT_INTEGRITY]"},
        Case{"overlap.pt",
             "error: Tensor 'b' overlaps tensor 'a' in one storage without being an exact "
             "alias of it. [convert-views-overlap CHECKPOINT_INTEGRITY]"}}) {
    const fs::path output = Path(std::string(c.input) + ".out");
    const CommandResult run = Convert(ShellQuote(Path(c.input)) + " -o " + ShellQuote(output));
    EXPECT_EQ(run.exit_code, 1) << run.output;
    EXPECT_TRUE(Has(run.output, c.line)) << run.output;
    EXPECT_FALSE(fs::exists(output));
    for (const auto& entry : fs::directory_iterator(dir_->path())) {
      EXPECT_EQ(entry.path().filename().string().find(".tmp."), std::string::npos) << entry.path();
    }
  }
}

TEST_F(ConvertTorch, LensembleArtifactsPassTheAuditWithTheIndependentContentHash) {
  const std::string parent(64, 'a');
  const std::string config(64, '0');
  const CommandResult expected =
      RunCommand("/usr/bin/python3 tests/torch/lensemble_hash.py " + ShellQuote(Path("round.pt")) + " wmcp-1.0 3 " +
                 parent + " encoder,predictor 2>&1");
  ASSERT_EQ(expected.exit_code, 0) << expected.output;
  const std::string hash = expected.output.substr(0, 64);
  for (const char* shards : {"", " --shard-size 4000"}) {
    SCOPED_TRACE(shards);
    const fs::path dir = Path(std::string("artifact") + (shards[0] ? "-sharded" : ""));
    std::string args = ShellQuote(Path("round.pt"));
    args.append(" --lensemble ").append(ShellQuote(dir)).append(" --round 3 --parent ").append(parent);
    args.append(" --wmcp wmcp-1.0 --config-hash ").append(config).append(" --created-at 2026-11-30T00:00:00Z");
    const CommandResult run = Convert(args.append(shards));
    ASSERT_EQ(run.exit_code, 0) << run.output;
    EXPECT_TRUE(Has(run.output, "content_hash " + hash)) << run.output;
    const CommandResult audited = Audit("--expect-hash " + hash + " " + ShellQuote(dir));
    EXPECT_EQ(audited.exit_code, 0) << audited.output;
    EXPECT_TRUE(Has(audited.output, "content_hash " + hash + " (recomputed, matches header.json)")) << audited.output;
    const boost::json::value header = boost::json::parse(ReadText(dir / "header.json"));
    EXPECT_EQ(header.at("schema_version").as_int64(), 2);
    EXPECT_EQ(header.at("hash_algorithm").as_string(), "sha256");
    EXPECT_EQ(header.at("round_index").as_int64(), 3);
    EXPECT_EQ(header.at("created_at").as_string(), "2026-11-30T00:00:00Z");
    EXPECT_EQ(header.at("tensor_manifest").as_array().size(), 4u);  // the tied weight once
  }
  EXPECT_TRUE(fs::exists(Path("artifact-sharded/weights-00000-of-00003.safetensors")));
  EXPECT_TRUE(fs::exists(Path("artifact-sharded/weights.index.json")));
  // Refused before anything is written: an action head, a group outside the set.
  for (const auto& [input, line] : std::vector<std::pair<std::string, std::string>>{
           {"actionhead.pt",
            "error: Tensor 'predictor.action_head.weight' is a per-embodiment action head; it must "
            "never appear in a shared artifact. [convert-group-refused CHECKPOINT_INTEGRITY]"},
           {"othergroup.pt",
            "error: Tensor 'decoder.w' is in group 'decoder', not one of the artifact's param "
            "groups. [convert-group-refused CHECKPOINT_INTEGRITY]"},
           {"zip.pt",
            "error: Tensor 'predictor.steps' is I64; a Lensemble artifact carries F32, BF16 and F16 tensors "
            "only. [convert-group-refused CHECKPOINT_INTEGRITY]"}}) {
    const fs::path dir = Path(input + ".artifact");
    const CommandResult run = Convert(ShellQuote(Path(input)) + " --lensemble " + ShellQuote(dir) +
                                      " --round 0 --parent none --wmcp w --config-hash " + config);
    EXPECT_EQ(run.exit_code, 1) << run.output;
    EXPECT_TRUE(Has(run.output, line)) << run.output;
    EXPECT_FALSE(fs::exists(dir));
  }
  // The near miss: the same group widened on the command line converts.
  EXPECT_EQ(Convert(ShellQuote(Path("othergroup.pt")) + " --lensemble " + ShellQuote(Path("widened")) +
                    " --round 0 --parent none --wmcp w --config-hash " + config + " --groups encoder,decoder")
                .exit_code,
            0);
}

// Refusals built byte by byte (torch 1.13 cannot write them): a neg bit, big-endian data, a
// hostile pickle.
TEST(ConvertRefusals, MathBitBigEndianAndPayloadsAreRefused) {
  TempDir dir;
  using namespace pk;
  const std::string negated = LazyBitTensorPickle("neg");
  WriteText(dir.path() / "neg.pt", TorchZip(negated, {{"0", OneTensorRecord()}}));
  const std::string conjugated = LazyBitTensorPickle("conj");
  WriteText(dir.path() / "conj.pt", TorchZip(conjugated, {{"0", OneTensorRecord()}}));
  std::vector<ZipEntry> entries = TorchZipEntries(OneTensorPickle(), {{"0", OneTensorRecord()}});
  for (ZipEntry& e : entries) {
    if (e.name.ends_with("byteorder")) e.data = "big";
  }
  WriteText(dir.path() / "big.pt", BuildZip(entries));
  WriteText(dir.path() / "payload.pt",
            TorchZip(StateDictPickle({{"w", "FloatStorage", "0", 6, 0, {2, 3}, {}}}, false,
                                     Cat({Global("posix", "system"), Str("id"), kTuple1, kReduce, kPop})),
                     {{"0", OneTensorRecord()}}));
  struct Case {
    const char* input;
    const char* line;
  };
  for (const Case& c : {Case{"neg.pt",
                             "error: Tensor 'n' carries torch's negative bit: its stored bytes are not its "
                             "values. [convert-math-bit CHECKPOINT_INTEGRITY]"},
                        Case{"conj.pt",
                             "error: Tensor 'n' carries torch's conjugate bit: its stored bytes are not "
                             "its values. [convert-math-bit CHECKPOINT_INTEGRITY]"},
                        Case{"big.pt",
                             "error: Tensor 'w' is stored big-endian (the byteorder record says so): its "
                             "bytes are not what safetensors means. [convert-big-endian CHECKPOINT_INTEGRITY]"},
                        Case{"payload.pt", "[pickle-global-unsafe CHECKPOINT_INTEGRITY]"}}) {
    const fs::path output = dir.path() / (std::string(c.input) + ".safetensors");
    const CommandResult run = Convert(ShellQuote(dir.path() / c.input) + " -o " + ShellQuote(output));
    EXPECT_EQ(run.exit_code, 1) << c.input << run.output;
    EXPECT_TRUE(Has(run.output, c.line)) << c.input << run.output;
    EXPECT_FALSE(fs::exists(output)) << c.input;
  }
  // The near miss: the same checkpoint without the bit converts.
  const CommandResult plain =
      Convert(ShellQuote(dir.path() / "plain.pt") + " -o " + ShellQuote(dir.path() / "plain.st"));
  EXPECT_EQ(plain.exit_code, 2);  // missing input: a tool error, not a refusal
  WriteText(dir.path() / "plain.pt", OneTensorZip());
  EXPECT_EQ(Convert(ShellQuote(dir.path() / "plain.pt") + " -o " + ShellQuote(dir.path() / "plain.st")).exit_code, 0);
  EXPECT_TRUE(fs::exists(dir.path() / "plain.st"));
}

// Another file moved over the checkpoint once it is open (MemorySource::ReplaceOnOpen): the
// audit's own identity check refuses it, deterministically, and nothing is written.
TEST(ConvertRefusals, AFileChangedWhileReadIsRefused) {
  TempDir dir;
  MemorySource source;
  source.AddFile("model.pt", pk::OneTensorZip());
  source.ReplaceOnOpen("model.pt");
  ConvertOptions options;
  options.output = (dir.path() / "model.safetensors").string();
  const ConvertResult run = ConvertCheckpoint("model.pt", source, InputKind::kTorchZip, options);
  EXPECT_FALSE(run.written);
  EXPECT_TRUE(HasFinding(run.input, "layout-file-changed", "'model.pt' changed while being audited"))
      << Describe(run.input);
  EXPECT_FALSE(fs::exists(options.output));
  EXPECT_TRUE(fs::is_empty(dir.path()));  // no temporary file left beside it either
  // The near miss: the same bytes, left alone, convert.
  MemorySource steady;
  steady.AddFile("model.pt", pk::OneTensorZip());
  const ConvertResult kept = ConvertCheckpoint("model.pt", steady, InputKind::kTorchZip, options);
  EXPECT_TRUE(kept.written) << Describe(kept.input);
  EXPECT_TRUE(fs::exists(options.output));
}

TEST(ConvertUsage, OutputsThatWouldOverwriteOrEscapeAreUsageErrors) {
  TempDir dir;
  WriteText(dir.path() / "plain.pt", pk::OneTensorZip());
  EXPECT_EQ(Convert(ShellQuote(dir.path() / "plain.pt") + " -o " + ShellQuote(dir.path() / "plain.pt")).exit_code, 2);
  EXPECT_EQ(Convert(ShellQuote(dir.path() / "plain.pt")).exit_code, 2);
  EXPECT_EQ(Convert(ShellQuote(dir.path() / "plain.pt") + " -o x.st --attest k.pem").exit_code, 2);
  // The output given as cp takes it: said how to name it, and nothing is written.
  const CommandResult as_cp = Convert(ShellQuote(dir.path() / "plain.pt") + " " + ShellQuote(dir.path() / "o.st"));
  EXPECT_EQ(as_cp.exit_code, 2);
  EXPECT_NE(as_cp.output.find("ckpt-convert: ckpt-convert takes one INPUT, and 2 were given; name the output with -o "
                              "(ckpt-convert '" +
                              (dir.path() / "plain.pt").string() + "' -o '" + (dir.path() / "o.st").string() + "')"),
            std::string::npos)
      << as_cp.output;
  EXPECT_FALSE(fs::exists(dir.path() / "o.st"));
  // An existing file is never replaced.
  WriteText(dir.path() / "taken.st", "keep me");
  const CommandResult taken =
      Convert(ShellQuote(dir.path() / "plain.pt") + " -o " + ShellQuote(dir.path() / "taken.st"));
  EXPECT_EQ(taken.exit_code, 2) << taken.output;
  EXPECT_NE(taken.output.find("exists; ckpt-convert only writes new files"), std::string::npos) << taken.output;
  EXPECT_EQ(ReadText(dir.path() / "taken.st"), "keep me");
  WriteText(dir.path() / "model.safetensors", ReadText(dir.path() / "plain.pt").substr(0, 0) + std::string(16, '\0'));
  const CommandResult not_pickle =
      Convert(ShellQuote(dir.path() / "model.safetensors") + " -o " + ShellQuote(dir.path() / "out.st"));
  EXPECT_NE(not_pickle.exit_code, 0) << not_pickle.output;
  EXPECT_FALSE(fs::exists(dir.path() / "out.st"));
  // The output, the record and the input are three different paths, folders resolved.
  fs::create_directories(dir.path() / "sub");
  TempDir keys;
  ASSERT_EQ(std::system(("openssl genpkey -algorithm ed25519 -out " + ShellQuote(keys.path() / "k.pem")).c_str()), 0);
  const std::string attest = " --attest " + ShellQuote(keys.path() / "k.pem");
  const CommandResult same = Convert(ShellQuote(dir.path() / "plain.pt") + " -o " + ShellQuote(dir.path() / "x.st") +
                                     attest + " --record " + ShellQuote(dir.path() / "sub" / ".." / "x.st"));
  EXPECT_EQ(same.exit_code, 2) << same.output;
  EXPECT_NE(same.output.find("names the output itself; give the record its own path"), std::string::npos)
      << same.output;
  EXPECT_FALSE(fs::exists(dir.path() / "x.st"));
  const CommandResult record_input =
      Convert(ShellQuote(dir.path() / "plain.pt") + " -o " + ShellQuote(dir.path() / "y.st") + attest + " --record " +
              ShellQuote(dir.path() / "sub" / ".." / "plain.pt"));
  EXPECT_EQ(record_input.exit_code, 2) << record_input.output;
}

// The move into place never replaces what appeared at the destination meanwhile (the
// check at option parsing cannot see a file created after it): files and folders alike.
TEST(ConvertUsage, PlacingNeverReplacesADestinationCreatedMeanwhile) {
  TempDir dir;
  WriteText(dir.path() / "new.tmp", "converted");
  WriteText(dir.path() / "out.st", "created meanwhile");
  EXPECT_EQ(PlaceNew((dir.path() / "new.tmp").string(), (dir.path() / "out.st").string()), EEXIST);
  EXPECT_EQ(ReadText(dir.path() / "out.st"), "created meanwhile");
  EXPECT_EQ(ReadText(dir.path() / "new.tmp"), "converted");
  fs::create_directories(dir.path() / "artifact.tmp");
  fs::create_directories(dir.path() / "artifact");  // empty: rename(2) alone would replace it
  EXPECT_EQ(PlaceNew((dir.path() / "artifact.tmp").string(), (dir.path() / "artifact").string()), EEXIST);
  EXPECT_TRUE(fs::exists(dir.path() / "artifact.tmp"));
  // Near miss: a free destination is taken.
  EXPECT_EQ(PlaceNew((dir.path() / "new.tmp").string(), (dir.path() / "free.st").string()), 0);
  EXPECT_EQ(ReadText(dir.path() / "free.st"), "converted");
  EXPECT_FALSE(fs::exists(dir.path() / "new.tmp"));
}

}  // namespace
}  // namespace ckpt::testing
