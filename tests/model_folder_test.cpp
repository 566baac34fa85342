// Plain safetensors files and model folders (inputs.md sections 3 and 4) end to end: the
// layouts save_pretrained, huggingface_hub and diffusers write pass; each hostile variant of
// acceptance item 2 fails with its rule; one path stands for the audits it holds (a hub
// root, models--ORG--NAME, a folder of rounds); ckpt-diff compares files and folders.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <memory>

#include "engine/audit.h"
#include "engine/diff_run.h"
#include "lib/load/input.h"
#include "tests/support/artifact_builder.h"
#include "tests/support/audit_helpers.h"
#include "tests/support/model_folder_builder.h"
#include "tests/support/pickle_builder.h"
#include "tests/support/process.h"
#include "tests/support/tar_builder.h"

namespace ckpt::testing {
namespace {

namespace fs = std::filesystem;

AuditResult AuditFolder(const Files& files, const std::string& input = "model") {
  return AuditInput(files, InputForm::kFolder, input);
}

// --expect-hash applies to every input (inputs.md 1b): a file's SHA-256 and a model folder's
// root digest, computed here independently (sha256 over the raw digests in path order,
// component by component, leaving out .git* and model.sig at the top), never silently.
TEST(ModelFolders, ExpectHashPinsAFilesSha256AndAFoldersRootDigest) {
  TempDir tmp;
  ModelFolderSpec spec;
  spec.shards = 2;
  Files files = spec.Build();
  files["a/b.txt"] = "sorted before a-b";
  files["a-b.txt"] = "sorted after a/b";
  files[".gitattributes"] = "*.safetensors filter=lfs";
  WriteFiles(files, tmp.path() / "model");
  const CommandResult digest = RunCommand(
      "cd " + ShellQuote(tmp.path() / "model") +
      " && /usr/bin/python3 -c \"import hashlib,os\n"
      "paths=[os.path.relpath(os.path.join(d,f)) for d,_,fs in os.walk('.') for f in fs]\n"
      "paths=[p for p in paths if not (p.startswith('.git') or p=='model.sig')]\n"
      "paths.sort(key=lambda p: [c.encode() for c in p.split('/')])\n"
      "print(hashlib.sha256(b''.join(hashlib.sha256(open(p,'rb').read()).digest() for p in paths)).hexdigest())\"");
  ASSERT_EQ(digest.exit_code, 0) << digest.output;
  const std::string root = digest.output.substr(0, 64);
  AuditOptions pinned;
  pinned.expected_hash = root;
  const AuditResult right = AuditPath((tmp.path() / "model").string(), pinned);
  EXPECT_TRUE(FindingsOf(right, "hash-unexpected").empty()) << Describe(right);
  EXPECT_EQ(right.artifact.PinnedValue().value.value_or(""), root);
  pinned.expected_hash = std::string(64, 'a');
  const AuditResult wrong = AuditPath((tmp.path() / "model").string(), pinned);
  ASSERT_EQ(FindingsOf(wrong, "hash-unexpected").size(), 1U) << Describe(wrong);
  EXPECT_EQ(FindingsOf(wrong, "hash-unexpected")[0]->message,
            "The root digest is " + root + " but --expect-hash pinned " + std::string(64, 'a') + ".");

  // A single safetensors file: its SHA-256.
  const fs::path file = tmp.path() / "model" / "model-00001-of-00002.safetensors";
  const std::string sha = RunCommand("sha256sum " + ShellQuote(file)).output.substr(0, 64);
  pinned.expected_hash = sha;
  EXPECT_TRUE(FindingsOf(AuditPath(file.string(), pinned), "hash-unexpected").empty());
  pinned.expected_hash = std::string(64, 'b');
  const AuditResult other = AuditPath(file.string(), pinned);
  ASSERT_EQ(FindingsOf(other, "hash-unexpected").size(), 1U) << Describe(other);
  EXPECT_EQ(FindingsOf(other, "hash-unexpected")[0]->message,
            "The SHA-256 of the file is " + sha + " but --expect-hash pinned " + std::string(64, 'b') + ".");
  // With --no-hash nothing is compared, and that is said.
  pinned.compute_hash = false;
  const AuditResult structure = AuditPath(file.string(), pinned);
  ASSERT_EQ(FindingsOf(structure, "hash-unexpected").size(), 1U) << Describe(structure);
  EXPECT_EQ(FindingsOf(structure, "hash-unexpected")[0]->message,
            "--expect-hash pinned " + std::string(64, 'b') +
                " but the SHA-256 of the file was not computed (--no-hash): the pin was not compared.");
}

// Each file a reader reads whole (configurations, a chat template, the shard index) is
// digested from that read: the folder's bytes are read once, plus the few header probes every
// file gets, and each digest is the file's SHA-256 (a large configuration is hashed on another
// core beside its parsing, a small one inline).
class CountingFile : public RandomAccessFile {
 public:
  CountingFile(std::unique_ptr<RandomAccessFile> file, std::uint64_t& bytes) : file_(std::move(file)), bytes_(bytes) {}
  [[nodiscard]] std::uint64_t size() const override { return file_->size(); }
  [[nodiscard]] IoResult<void> ReadAt(std::uint64_t offset, std::span<std::byte> out) const override {
    bytes_ += out.size();
    return file_->ReadAt(offset, out);
  }
  [[nodiscard]] FileIdentity identity() const override { return file_->identity(); }

 private:
  std::unique_ptr<RandomAccessFile> file_;
  std::uint64_t& bytes_;
};

class CountingSource : public ArtifactSource {
 public:
  CountingSource(std::unique_ptr<ArtifactSource> source, std::map<std::string, std::uint64_t>& bytes)
      : source_(std::move(source)), bytes_(bytes) {}
  [[nodiscard]] IoResult<std::vector<DirectoryEntry>> List() const override { return source_->List(); }
  [[nodiscard]] IoResult<std::unique_ptr<RandomAccessFile>> Open(const std::string& name) const override {
    auto file = source_->Open(name);
    if (!file) return file.error();
    return std::unique_ptr<RandomAccessFile>(std::make_unique<CountingFile>(std::move(*file), bytes_[name]));
  }
  [[nodiscard]] IoResult<FileIdentity> Stat(const std::string& name) const override { return source_->Stat(name); }

 private:
  std::unique_ptr<ArtifactSource> source_;
  std::map<std::string, std::uint64_t>& bytes_;
};

TEST(ModelFolders, FilesReadWholeAreDigestedFromThatOneRead) {
  TempDir tmp;
  ModelFolderSpec spec;
  spec.shards = 2;
  Files files = spec.Build();
  std::string tokens = R"({"added_tokens_decoder": {)";
  for (int i = 0; tokens.size() < 600'000; ++i) {
    tokens += (i == 0 ? "" : ",") + std::string(R"(")") + std::to_string(i) + R"(": {"content": "<|tok_)" +
              std::to_string(i) + R"(|>", "special": true})";
  }
  files["tokenizer_config.json"] = tokens + R"(}, "chat_template": "{{ messages[0]['content'] }}"})";
  files["chat_template.jinja"] = "{% for m in messages %}{{ m['role'] }}{% endfor %}";
  files["params.yaml"] = "optimizer:\n  lr: 0.1\n";
  WriteFiles(files, tmp.path() / "model");
  std::map<std::string, std::uint64_t> bytes;
  const AuditResult result = AuditPathThrough(
      (tmp.path() / "model").string(), AuditOptions{},
      [&bytes](std::unique_ptr<ArtifactSource> source, std::string&) -> std::unique_ptr<ArtifactSource> {
        return std::make_unique<CountingSource>(std::move(source), bytes);
      });
  EXPECT_TRUE(result.findings.empty()) << Describe(result);
  EXPECT_TRUE(result.tool_errors.empty()) << Describe(result);
  std::size_t checked = 0;
  for (const AdmittedFile& f : result.artifact.files) {
    const fs::path path = tmp.path() / "model" / f.name;
    const std::uint64_t size = fs::file_size(path);
    ASSERT_TRUE(f.sha256.has_value()) << f.name;
    EXPECT_EQ(*f.sha256, RunCommand("sha256sum " + ShellQuote(path)).output.substr(0, 64)) << f.name;
    if (f.name.ends_with(".safetensors")) continue;  // its header and its bytes, by the weight reader
    // Once whole, plus the header probes (the first bytes, a zip's end record): never twice.
    EXPECT_LT(bytes[f.name], size + 70'000) << f.name << " was read " << bytes[f.name] << " bytes for " << size;
    ++checked;
  }
  EXPECT_EQ(checked, 5U) << "config.json, the index, tokenizer_config.json, chat_template.jinja and params.yaml";
}

// pytorch_model.bin.index.json is read like a safetensors index (inputs.md section 4): a
// weight_map value outside the folder used to pass unread.
TEST(ModelFolders, PickleShardIndexesAreReadLikeSafetensorsIndexes) {
  auto shard = [](const std::vector<std::string>& names) {
    std::vector<pk::TensorSpec> tensors;
    std::map<std::string, std::string> records;
    for (std::size_t i = 0; i < names.size(); ++i) {
      tensors.push_back({names[i], "FloatStorage", std::to_string(i), 2, 0, {2}, {}});
      records[std::to_string(i)] = std::string(8, '\0');
    }
    return pk::TorchZip(pk::StateDictPickle(tensors), records);
  };
  auto folder = [&](const std::string& weight_map) {
    return Files{{"config.json", R"({"model_type": "bert"})"},
                 {"pytorch_model-00001-of-00002.bin", shard({"a.weight", "a.bias"})},
                 {"pytorch_model-00002-of-00002.bin", shard({"b.weight"})},
                 {"pytorch_model.bin.index.json", R"({"metadata": {}, "weight_map": {)" + weight_map + "}}"}};
  };
  const std::string good =
      R"("a.weight": "pytorch_model-00001-of-00002.bin", "a.bias": "pytorch_model-00001-of-00002.bin", )"
      R"("b.weight": "pytorch_model-00002-of-00002.bin")";
  const AuditResult clean = AuditFolder(folder(good));
  for (const char* rule :
       {"model-index-path-escape", "model-shard-missing", "model-index-wrong-shard", "model-tensor-unmapped"}) {
    EXPECT_TRUE(FindingsOf(clean, rule).empty()) << rule << "\n" << Describe(clean);
  }
  const AuditResult escape = AuditFolder(
      folder(R"("a.weight": "pytorch_model-00001-of-00002.bin", "a.bias": "pytorch_model-00001-of-00002.bin", )"
             R"("b.weight": "../outside/x.bin")"));
  ASSERT_EQ(FindingsOf(escape, "model-index-path-escape").size(), 1U) << Describe(escape);
  EXPECT_EQ(FindingsOf(escape, "model-index-path-escape")[0]->message,
            "weight_map maps tensor 'b.weight' to '../outside/x.bin', which is not a file name in the index's "
            "folder: a loader would open a file elsewhere.");
  const AuditResult unmapped = AuditFolder(
      folder(R"("a.weight": "pytorch_model-00001-of-00002.bin", "b.weight": "pytorch_model-00002-of-00002.bin")"));
  ASSERT_EQ(FindingsOf(unmapped, "model-tensor-unmapped").size(), 1U) << Describe(unmapped);
  EXPECT_EQ(FindingsOf(unmapped, "model-tensor-unmapped")[0]->message,
            "tensor 'a.bias' of 'pytorch_model-00001-of-00002.bin' is not in the weight_map of "
            "'pytorch_model.bin.index.json'.");
  const AuditResult wrong = AuditFolder(
      folder(R"("a.weight": "pytorch_model-00002-of-00002.bin", "a.bias": "pytorch_model-00001-of-00002.bin", )"
             R"("b.weight": "pytorch_model-00002-of-00002.bin", "c.weight": "pytorch_model-00003-of-00002.bin")"));
  EXPECT_TRUE(HasFinding(wrong, "model-index-wrong-shard",
                         "weight_map sends tensor 'a.weight' to 'pytorch_model-00002-of-00002.bin' but it is stored "
                         "in 'pytorch_model-00001-of-00002.bin'."))
      << Describe(wrong);
  EXPECT_TRUE(HasFinding(wrong, "model-shard-missing",
                         "'pytorch_model.bin.index.json' maps 1 tensor to 'pytorch_model-00003-of-00002.bin', which is "
                         "not in the folder."))
      << Describe(wrong);
}

TEST(ModelFolders, SaveAndHubLayoutsPassAndListEveryTensor) {
  for (std::size_t shards : {1U, 2U, 5U}) {
    ModelFolderSpec spec;
    spec.shards = shards;
    const AuditResult result = AuditFolder(spec.Build());
    SCOPED_TRACE(std::to_string(shards) + " shard(s)");
    EXPECT_EQ(result.artifact.kind, InputKind::kModelFolder);
    EXPECT_TRUE(result.findings.empty()) << Describe(result);
    EXPECT_TRUE(result.tool_errors.empty()) << Describe(result);
    std::size_t tensors = 0;
    for (const WeightFile& wf : result.artifact.weights) tensors += wf.tensors.size();
    EXPECT_EQ(tensors, spec.tensors.size());
    for (const AdmittedFile& f : result.artifact.files) EXPECT_TRUE(f.sha256.has_value()) << f.name;
  }
  const AuditResult cache = AuditFolder(HubCache(ModelFolderSpec{}.Build()), kSnapshot);
  EXPECT_TRUE(cache.findings.empty()) << Describe(cache);
  ASSERT_TRUE(cache.artifact.model.has_value());
  EXPECT_EQ(cache.artifact.model->repository, "models--org--name");
  for (const AdmittedFile& f : cache.artifact.files) EXPECT_TRUE(f.blob_digest.has_value()) << f.name;
}

TEST(ModelFolders, DiffusersComponentsAreCheckedEachOnItsOwn) {
  ModelFolderSpec unet;
  unet.shards = 2;
  unet.prefix = "diffusion_pytorch_model";
  Files pipeline = InFolder(unet.Build(), "unet");
  ModelFolderSpec vae;
  vae.prefix = "diffusion_pytorch_model";
  for (auto& [name, bytes] : InFolder(vae.Build(), "vae")) pipeline[name] = bytes;
  pipeline["model_index.json"] = R"({"_class_name": "TestPipeline"})";
  EXPECT_TRUE(AuditFolder(pipeline).findings.empty());
  // A shard of the unet gone: reported against the unet's own index, not the vae's.
  pipeline.erase("unet/diffusion_pytorch_model-00002-of-00002.safetensors");
  const AuditResult broken = AuditFolder(pipeline);
  ASSERT_EQ(FindingsOf(broken, "model-shard-missing").size(), 1U) << Describe(broken);
  EXPECT_EQ(FindingsOf(broken, "model-shard-missing")[0]->location.file,
            "unet/diffusion_pytorch_model.safetensors.index.json");
}

TEST(ModelFolders, AFolderTooDeepToWalkIsNeverASilentPass) {
  Files files = ModelFolderSpec{}.Build();
  files["a/b/c/d/e/f/g/h/i/notes.txt"] = "deep";
  const AuditResult result = AuditFolder(files);
  ASSERT_EQ(result.tool_errors.size(), 1U) << Describe(result);
  EXPECT_NE(result.tool_errors[0].find("a/b/c/d/e/f/g/h"), std::string::npos) << result.tool_errors[0];
}

TEST(FileInputs, APickleNamedSafetensorsIsAPickle) {
  const AuditResult result =
      AuditInput({{"model.safetensors", std::string("\x80\x02}q\x00.", 6)}}, InputForm::kFile, "");
  EXPECT_EQ(result.artifact.kind, InputKind::kPickle);
  ASSERT_EQ(FindingsOf(result, "input-name-mismatch").size(), 1U) << Describe(result);
  EXPECT_EQ(FindingsOf(result, "input-name-mismatch")[0]->message,
            "'model.safetensors' is named as safetensors but is a Python pickle (protocol 2): tools that trust the "
            "extension are fooled.");
}

TEST(FileInputs, EveryExtensionOfFormatsMdIsCheckedAgainstTheContent) {
  const std::string pickle("\x80\x02}q\x00.", 6);
  const AuditResult npz = AuditInput({{"weights.NPZ", pickle}}, InputForm::kFile, "");
  ASSERT_EQ(FindingsOf(npz, "input-name-mismatch").size(), 1U) << Describe(npz);
  EXPECT_EQ(FindingsOf(npz, "input-name-mismatch")[0]->message,
            "'weights.NPZ' is named as a NumPy .npz archive but is a Python pickle (protocol 2): tools that trust the "
            "extension are fooled.");
  const AuditResult flax = AuditInput({{"flax_model.msgpack", pickle}}, InputForm::kFile, "");
  EXPECT_TRUE(HasFinding(flax, "input-name-mismatch", "is named as a Flax msgpack checkpoint but is a Python pickle"))
      << Describe(flax);
  // Near misses: names that fit the content (joblib.dump of plain data is a pickle; torch.save
  // writes .pkl files too), and a name that claims nothing.
  for (const std::string name : {"model.pkl", "model.joblib", "model.bin"}) {
    const AuditResult fits = AuditInput({{name, pickle}}, InputForm::kFile, "");
    EXPECT_TRUE(FindingsOf(fits, "input-name-mismatch").empty()) << name << Describe(fits);
  }
}

TEST(FileInputs, TrailingBytesAfterTheLastTensorAreRefused) {
  std::string file = ArtifactSpec::Clean().Build().at("weights.safetensors");
  const AuditResult clean = AuditInput({{"model.safetensors", file}}, InputForm::kFile, "");
  EXPECT_EQ(clean.artifact.kind, InputKind::kSafetensors);
  EXPECT_TRUE(clean.findings.empty()) << Describe(clean);
  file += "appended";
  const AuditResult result = AuditInput({{"model.safetensors", file}}, InputForm::kFile, "");
  EXPECT_EQ(FindingsOf(result, "safetensors-buffer-size").size(), 1U) << Describe(result);
  // Every dtype of the reference reader is allowed in a plain file (not in an artifact).
  const std::string i64 =
      SafetensorsFile(R"({"step":{"dtype":"I64","shape":[1],"data_offsets":[0,8]}})", std::string(8, '\x01'));
  const AuditResult other = AuditInput({{"step.safetensors", i64}}, InputForm::kFile, "");
  EXPECT_TRUE(other.findings.empty()) << Describe(other);
}

TEST(InputExpansion, OnePathStandsForTheAuditsItHolds) {
  TempDir dir;
  WriteFiles(HubCache(ModelFolderSpec{}.Build()), dir.path() / kSnapshot);
  WriteFiles(HubCache(ModelFolderSpec{}.Build()), dir.path() / "hub/models--org--name/snapshots/ffff0000");
  const std::string hub = (dir.path() / "hub").string();
  std::vector<std::string> snapshots = ExpandInputPath(hub);
  ASSERT_EQ(snapshots.size(), 2U);
  EXPECT_EQ(fs::path(snapshots[0]).filename(), "0123abcd");
  EXPECT_EQ(ExpandInputPath(hub + "/models--org--name"), snapshots);

  const fs::path rounds = dir.path() / "rounds";
  WriteFiles(ArtifactSpec::Clean().Build(), rounds / "round-0000");
  const std::string tar = BuildTar(TarOfFiles(ArtifactSpec::Clean().Build()));
  WriteFiles({{"round-0001.tar", tar}}, rounds);
  const std::vector<std::string> audits = ExpandInputPath(rounds.string());
  ASSERT_EQ(audits.size(), 2U) << "a folder of rounds stands for its rounds only";
  EXPECT_EQ(fs::path(audits[0]).filename(), "round-0000");
  EXPECT_EQ(fs::path(audits[1]).filename(), "round-0001.tar");
  WriteFiles(ModelFolderSpec{}.Build(), rounds);  // now the folder holds a model of its own
  EXPECT_EQ(ExpandInputPath(rounds.string()).size(), 3U);
}

TEST(ModelFolders, DiffComparesFilesAndFolders) {
  TempDir dir;
  ModelFolderSpec a;
  a.shards = 2;
  ModelFolderSpec b = a;
  b.tensors[0].data = std::string(b.tensors[0].data.size(), '\0');
  WriteFiles(a.Build(), dir.path() / "a");
  ArtifactSpec filled;
  filled.tensors = b.tensors;
  filled.FillData();
  filled.tensors[0].data[0] ^= 0x10;
  b.tensors = filled.tensors;
  WriteFiles(b.Build(), dir.path() / "b");
  const DiffRun run = RunDiff((dir.path() / "a").string(), (dir.path() / "b").string(), DiffOptions{});
  std::size_t changed = 0;
  for (const TensorDiff& t : run.tensors) changed += t.status == TensorStatus::kChanged ? 1U : 0U;
  EXPECT_EQ(changed, 1U);
  EXPECT_EQ(run.tensors.size(), a.tensors.size());
  const DiffRun files = RunDiff((dir.path() / "a/model-00001-of-00002.safetensors").string(),
                                (dir.path() / "b/model-00001-of-00002.safetensors").string(), DiffOptions{});
  EXPECT_EQ(files.a.artifact.kind, InputKind::kSafetensors);
  EXPECT_FALSE(files.tensors.empty());
}

}  // namespace
}  // namespace ckpt::testing
