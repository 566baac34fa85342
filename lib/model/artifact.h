// The artifact model: what the readers found, for the rules to check. Readers fill it in
// tolerantly (a field with the wrong type is simply absent here, and reported once by
// the reader); rules only read it.
#pragma once

#include <boost/json/object.hpp>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "lib/io/artifact_source.h"
#include "lib/json/strict_parser.h"
#include "lib/model/dtype.h"
#include "lib/model/embedded_code.h"
#include "lib/model/finding.h"
#include "lib/model/weight_map.h"
#include "lib/remote/http_client.h"

namespace ckpt {

struct Gate;  // lib/gate/gate.h: the policy and baseline of a run, above this model

/// A JSON file of the artifact with its text kept, so findings can give line and column.
struct JsonFile {
  std::string name;               ///< "header.json" or "weights.index.json"
  json::Document doc;             ///< owns the text; parsed or not
  json::PositionIndex positions;  ///< built with the text, so At() costs O(4 KiB) at most
  bool parsed = false;            ///< syntax valid, root is an object, no duplicate keys

  [[nodiscard]] std::string_view text() const { return doc.text(); }

  /// Location of the token at `offset` with its JSON Pointer.
  [[nodiscard]] Location At(std::uint64_t offset, std::string pointer) const;
};

/// One tensor as a safetensors header declares it.
struct StoredTensor {
  std::string name;
  std::string dtype;  ///< safetensors token, e.g. "F32"
  std::vector<std::uint64_t> shape;
  std::uint64_t begin = 0;  ///< data_offsets, relative to the data buffer
  std::uint64_t end = 0;
  std::uint64_t entry_offset = 0;  ///< file offset of the tensor's key in the header
  bool complete = false;           ///< all fields well typed
  // Format-neutral facts (what hashing and diffing read), set when `complete`:
  Dtype element = Dtype::kUnknown;  ///< the element type the format's token names
  // torch's lazy bits (a pickle's rebuild metadata): the stored bytes are the conjugate or
  // the negation of the tensor's values. Beside `complete` and `element`, in their padding
  // (a million tensors must not grow by 8 MB).
  bool conj = false;
  bool neg = false;
  std::uint64_t data_offset = 0;  ///< absolute offset of the first element byte in the file
  std::uint64_t data_length = 0;  ///< bytes of element data
};

/// A stored zip member whose CRC-32 is checked while the file is hashed (a torch zip's
/// data records: reading them only for the CRC would read every tensor byte twice).
struct PendingCrc {
  std::string member;
  std::uint64_t offset = 0;
  std::uint64_t length = 0;
  std::uint32_t expected = 0;
};

/// What the analysis of a pickle-based file found (inputs.md section 6), for rules and reports.
struct PickleFacts {
  std::string container;      ///< "torch-zip", "torch-legacy", "pickle", "numpy"
  std::uint32_t pickles = 0;  ///< pickles analysed
  bool unsafe = false;        ///< an import, call or argument outside the allowlist
  /// A storage's bytes in the file, as derivation records name them (attestations.md
  /// section 4): a torch zip's stored data member by its name ("archive/data/0"), a legacy
  /// file's storage as "storage:<key>".
  struct Record {
    std::string name;
    std::uint64_t offset = 0;  ///< absolute offset of the first byte
    std::uint64_t length = 0;
  };
  std::vector<Record> records;  ///< the storages located, in file order
  /// How each listed tensor (parallel to WeightFile::tensors) lies in its storage: what a
  /// conversion needs to copy it, alias it or refuse it.
  struct TensorSource {
    std::optional<std::uint32_t> record;  ///< index into `records`; none: no located storage
    std::uint32_t storage = 0;            ///< the storage (views of one storage share it)
    bool has_storage = false;
    std::uint64_t offset = 0;  ///< bytes from the storage's first byte to the tensor's
    std::vector<std::uint64_t> stride;
    bool contiguous = false;  ///< as c10's _compute_contiguous (empty tensors are)
  };
  std::vector<TensorSource> sources;
  std::vector<std::string> not_tensors;  ///< paths of the values that are not tensors (not carried)
  bool big_endian = false;               ///< a byteorder record says the data is not little-endian
};

/// Key/values a GGUF file's facts list (the rest are counted): memory stays within bounds
/// whatever the count (10^6 key/values in 17 MB), in every report format.
inline constexpr std::size_t kMaxListedGgufMetadata = 10000;

/// What a GGUF file's header says besides its tensors (inputs.md section 5).
struct GgufFacts {
  std::uint32_t version = 0;
  std::uint64_t alignment = 32;
  std::uint64_t data_start = 0;  ///< absolute offset of the data section
  struct Entry {
    std::string key;
    std::string type;   ///< "u32", "string", "array<string>", ...
    std::string value;  ///< rendered; long arrays summarised
  };
  std::vector<Entry> metadata;            ///< in file order, the first kMaxListedGgufMetadata
  std::uint64_t metadata_not_listed = 0;  ///< key/values past that bound: counted, not kept
  std::optional<std::uint64_t> split_no;  ///< 0-based, as llama.cpp's gguf-split writes it
  std::optional<std::uint64_t> split_count;
  std::optional<std::uint64_t> split_tensors_count;
  bool layout_valid = false;  ///< every tensor located where ggml's loader reads it
};

/// What a format module's reader records for its own rules beyond the tensors: the module
/// derives its facts from this, and its rules read them back with WeightFile::FactsOf (a new
/// format adds no member here).
struct FormatFacts {
  FormatFacts() = default;
  FormatFacts(const FormatFacts&) = default;
  FormatFacts& operator=(const FormatFacts&) = default;
  virtual ~FormatFacts() = default;
  /// The fields a report shows for the file ("compression": "zlib", "ir_version": 8).
  virtual void Describe(boost::json::object& /*fields*/) const {}
};

struct WeightFile {
  std::string name;
  std::uint64_t size = 0;
  std::shared_ptr<const FormatFacts> format_facts;  ///< a format module's own facts, if it records any
  std::optional<PickleFacts> pickle;                ///< set for a pickle-based file (tensors listed from its analysis)
  std::optional<GgufFacts> gguf;                    ///< set for a GGUF file
  EmbeddedCode embedded_code;                       ///< templates and import targets in its metadata
  std::vector<PendingCrc> pending_crcs;
  bool header_read = false;            ///< the JSON header parsed as an object: `tensors` is complete
  bool valid = false;                  ///< strict safetensors structure holds: bytes can be located
  std::uint64_t data_start = 0;        ///< 8 + header length
  std::vector<StoredTensor> tensors;   ///< header order
  std::vector<std::uint32_t> by_name;  ///< indexes into `tensors` sorted by name (BuildNameIndex)
  bool has_metadata = false;
  // Facts for post-read rules (not structural: the bytes stay locatable).
  bool leading_whitespace = false;  ///< JSON whitespace before the header's '{'
  bool odd_padding = false;         ///< trailing header padding other than spaces
  std::vector<std::pair<std::string, std::string>> metadata;
  std::unique_ptr<RandomAccessFile> file;  ///< open while the audit runs (hashing); closed when it ends

  /// The module facts of type T, when the file's reader recorded them.
  template <class T>
  [[nodiscard]] const T* FactsOf() const {
    return dynamic_cast<const T*>(format_facts.get());
  }
  /// Sorts `by_name`; call once `tensors` is complete. Lookups are then O(log n), and no
  /// choice of names can degrade them (no hashing of attacker-chosen strings).
  void BuildNameIndex();
  [[nodiscard]] const StoredTensor* FindTensor(std::string_view name) const;
  /// Location of a tensor entry in this file.
  [[nodiscard]] Location TensorLocation(const StoredTensor& tensor) const;
};

/// One entry of header.json's tensor_manifest.
struct ManifestEntry {
  std::string name;
  std::string group;
  std::string dtype;  ///< manifest token, e.g. "float32"
  std::vector<std::uint64_t> shape;
  std::uint64_t offset = 0;      ///< offset of the entry object in header.json
  std::uint32_t index = 0;       ///< position in tensor_manifest
  std::uint32_t tape_index = 0;  ///< the entry object in header.json's parsed document
  bool complete = false;         ///< every field present and well typed

  /// "/tensor_manifest/3"
  [[nodiscard]] std::string Pointer() const { return "/tensor_manifest/" + std::to_string(index); }
};

struct Header {
  JsonFile json;
  std::optional<std::uint64_t> schema_version;  ///< as written
  std::uint64_t migrated_version = 0;           ///< after the migration chain; 0 when not reached
  bool version_supported = false;               ///< schema_version known and not newer than the reader

  // Typed fields: set only when the field is present with the right JSON type.
  std::optional<std::string> content_hash;
  std::optional<std::string> config_hash;
  bool parent_hash_present = false;
  std::optional<std::string> parent_hash;  ///< nullopt with parent_hash_present: JSON null
  std::optional<std::string> wmcp_version;
  std::optional<std::uint64_t> round_index;
  std::optional<std::vector<std::string>> param_groups;
  std::vector<std::uint64_t> param_group_offsets;  ///< offset of each param_groups item
  std::optional<std::vector<ManifestEntry>> tensor_manifest;
  std::optional<std::vector<std::string>> weight_files;
  std::vector<std::uint64_t> weight_file_offsets;  ///< offset of each weight_files item
  std::optional<std::string> created_at;
  std::optional<std::string> hash_algorithm;  ///< after migration ("sha256" for migrated v1)

  /// The top-level keys as written, in document order, with their offsets (facts for the
  /// key-set rules; read from the parsed document, so they cost no memory of their own).
  void ForEachTopLevelKey(const std::function<void(std::string_view key, std::uint64_t offset)>& fn) const;
  [[nodiscard]] bool HasTopLevelKey(std::string_view key) const;

  /// Location of a top-level field (its value token), or of the file when absent.
  [[nodiscard]] Location FieldLocation(std::string_view field) const;
};

/// weights.index.json (transformers layout).
struct ShardIndex {
  JsonFile json;
  std::optional<std::uint64_t> total_size;
  using Mapping = WeightMap::Entry;
  std::optional<WeightMap> weight_map;
};

enum class Layout { kNone, kSingle, kSharded, kMixed };

/// A Hugging Face shard index of a model folder: `<prefix>.safetensors.index.json`.
struct ModelIndex {
  JsonFile json;       ///< name: its path in the folder
  std::string folder;  ///< the folder holding it ("" or "unet")
  std::string prefix;  ///< "model" for model.safetensors.index.json
  std::optional<std::uint64_t> total_size;
  std::uint64_t total_size_offset = 0;
  /// Its files() are the distinct file names, sorted: built once when the index is read, so
  /// rules over shards cost the shard count, never shards x tensors.
  std::optional<WeightMap> weight_map;
  std::vector<std::pair<std::string, std::uint64_t>> unknown_keys;  ///< top-level keys besides metadata, weight_map
};

/// What a file of a model folder is, by content (and for configuration, by name).
enum class InventoryClass {
  kWeights,       ///< *.safetensors, read as weights
  kIndex,         ///< a shard index
  kData,          ///< anything else: listed only
  kConfig,        ///< config.json, tokenizer_config.json, ...: read for the keys that run code
  kPythonSource,  ///< *.py: remote code
  kPickleFamily,  ///< pickle, torch zip or legacy, NumPy
  kGguf,
  kExecutable,       ///< ELF, PE, Mach-O
  kArchive,          ///< zip (not torch), tar, 7z: members not inspected
  kProgram,          ///< TorchScript, torch.export: loading runs its code (read for its findings)
  kAnalysedWeights,  ///< weights of another format (.npz, ...): read by its format for its findings
  kExternalData,     ///< data another file of the folder names as its own (an ONNX model's external data)
};

struct InventoryItem {
  std::string name;
  std::uint64_t size = 0;
  std::string description;  ///< "a Python pickle (protocol 2)", "an ELF executable", ...
  InventoryClass kind = InventoryClass::kData;
};

/// What a model folder holds besides its weight files (inputs.md section 4).
struct ModelFolder {
  std::optional<std::string> repository;  ///< "models--ORG--NAME" for a hub-cache snapshot
  struct Link {
    std::string name;
    std::string target;
    std::optional<std::string> resolved;  ///< the file it names inside the repository (admitted)
    std::string refusal;
  };
  std::vector<Link> links;
  std::vector<ModelIndex> indexes;
  /// pytorch_model.bin.index.json and its like: indexes of pickle-based shards.
  std::vector<ModelIndex> pickle_indexes;
  /// Every pickle-based file analysed, with the names of the tensors the analysis listed (sorted).
  std::map<std::string, std::vector<std::string>, std::less<>> pickle_tensors;
  std::vector<InventoryItem> inventory;  ///< every regular file, in path order
  /// What makes a loader fetch or run code (code-in-metadata.md section 2).
  struct RemoteCode {
    std::string file;
    std::string why;  ///< "its auto_map names classes from the repository"
    std::string lead = "loading this model runs code from the repository";
    bool without_trust = false;  ///< runs even without trust_remote_code (an error)
  };
  std::vector<RemoteCode> remote_code;
  EmbeddedCode embedded_code;  ///< templates and import targets of its configuration files
  std::vector<std::pair<std::string, std::string>> invalid_configs;  ///< file, why it is not valid JSON
  std::vector<std::string> special_files;                            ///< devices, FIFOs, sockets: never opened
  std::vector<std::string> artifacts;   ///< sub-folders holding header.json: audited on their own
  std::vector<std::string> not_walked;  ///< folders past the depth or size bounds
  /// What the top-level config.json states of the model (for a bill of materials; nothing
  /// invented): its model_type and architectures, when they are strings.
  std::optional<std::string> model_type;
  std::vector<std::string> architectures;
  /// Files read by their own format (.npz, msgpack, ...: formats.md section 11), closed after
  /// reading: their tensors join the folder's list, each named with its file.
  std::vector<WeightFile> analysed;
  /// The pickle-based and GGUF weight files with their tensors, which join the folder's list
  /// (the safetensors files are the artifact's `weights`): open with
  /// AuditOptions::keep_all_weight_files (a diff compares their bytes), else facts only.
  std::vector<WeightFile> other_weights;
};

/// What one audit is asked to accept (artifact-format.md section 2 residency, an expected hash
/// and kinds) and how it runs (hashing, digests, read overlap, the finding cap, the gate):
/// the options of a run, not the --policy file (lib/gate/gate.h reads that).
struct AuditOptions {
  std::vector<std::string> allowed_groups{"encoder", "predictor"};
  std::vector<std::string> extra_allowed_groups;  ///< added by --allow-group: the report says so
  std::vector<std::string> action_head_patterns{"action_head", "action_heads", "act_head"};
  std::optional<std::string> expected_hash;  ///< --expect-hash
  std::vector<InputKind> expected_kinds;     ///< --expect-kind, policy expect_kinds: empty admits every kind
  bool compute_hash = true;                  ///< false with --no-hash
  std::size_t max_findings = 0;              ///< --max-findings: kept per artifact (0: no limit); the rest counted
  bool digest_files = false;                 ///< record each file's SHA-256 (SARIF artifacts[]) during the audit
  bool overlap_reads = true;  ///< read ahead (and digest) on extra threads; off when audits already run one per core
  /// Files of one input hashed at once (a model folder, a shard set without a content hash,
  /// a GGUF split set): each file on one core, read once, one bounded ring per worker.
  unsigned file_jobs = 1;
  /// ckpt-diff: a model folder's pickle-based and GGUF weight files stay open with their
  /// tensors (ModelFolder::other_weights), so their bytes can be compared too.
  bool keep_all_weight_files = false;
  /// A file given alone that is a shard of a folder audited whole in the same run (ckpt-convert
  /// of a model folder converts each shard on its own): its being alone is no fault then.
  bool shard_of_audited_folder = false;
  /// --policy severities and --baseline suppressions, applied to the findings once the rules ran.
  const Gate* gate = nullptr;
  /// How remote inputs are read (--ca-file, timeouts, HF_ENDPOINT, HF_TOKEN).
  remote::RemoteOptions remote;
  /// The run's own report files (absolute, normalised): where one lies inside a directory
  /// input it is left out of that input's audit (a second run judges what the first did).
  std::vector<std::string> excluded_outputs;

  [[nodiscard]] bool IsAllowedGroup(std::string_view group) const;
};

/// A remote file (remote.md section 9): where its bytes came from and what they cost.
struct RemoteFileFacts {
  std::string url;  ///< redacted, the hop that served
  std::string etag;
  std::string last_modified;
  std::optional<std::string> lfs_oid;
  std::optional<std::string> git_oid;
  std::uint64_t bytes_transferred = 0;
};

/// A file the audit opened, with the identity it had when admitted. After the last read
/// the audit checks that the name still resolves to that identity; `change` says what
/// differs when it does not (the file changed while being audited: never a pass).
struct AdmittedFile {
  std::string name;
  FileIdentity identity;
  std::optional<std::string> change;
  /// With AuditOptions::digest_files: SHA-256 of the whole file, from the audit's own reads
  /// (never a second open). Absent when the file was not read whole (--no-hash weights,
  /// a JSON file over its bound).
  std::optional<std::string> sha256;
  /// A hub-cache blob's name when it is a digest (64 hex: SHA-256; 40 hex: git blob SHA-1),
  /// which the file's content must hash to.
  std::optional<std::string> blob_digest;
  std::optional<std::string> git_blob_sha1;  ///< computed when blob_digest has 40 hex digits
  /// What the file's source says its content must be (a Hub listing's size; X-Linked-Size).
  std::optional<std::uint64_t> expected_size;
  std::optional<std::uint64_t> linked_size;
  std::string expected_as;                ///< "the LFS object", "the git blob": blob_digest from a listing
  std::optional<RemoteFileFacts> remote;  ///< a remote file's origin and cost (remote.md section 9)
};

/// A remote input's own facts (remote.md section 9, the report's `remote` object).
struct RemoteInput {
  std::string url;
  std::string scheme;
  std::optional<std::string> endpoint;
  std::optional<std::string> revision;
  std::optional<std::string> commit;
  std::optional<bool> listed;
  std::uint64_t bytes_transferred = 0;
  std::uint64_t requests = 0;
};

struct Artifact {
  std::string path;  ///< as given on the command line
  /// The folder its files are named in when that is not `path` itself: a GGUF split set given
  /// by its first part names its parts in that part's folder. Empty: `path`.
  std::string files_root;
  [[nodiscard]] const std::string& FilesRoot() const { return files_root.empty() ? path : files_root; }
  InputKind kind = InputKind::kLensemble;
  /// The file the input's files are members of (a tar), for reports.
  std::optional<std::pair<std::string, std::uint64_t>> container;  ///< its path and size
  /// A remote container's own identity: its members have none of their own, the container's
  /// ETag (or Last-Modified) binds every read of them.
  std::optional<RemoteFileFacts> container_remote;
  std::vector<AdmittedFile> files;  ///< every file opened, in the order admitted
  /// Paths inside the input left out of its audit: the run's own reports (sorted).
  std::vector<std::string> excluded;
  std::optional<RemoteInput> remote;  ///< set for a remote input
  AuditOptions policy;
  std::vector<DirectoryEntry> entries;
  Layout layout = Layout::kNone;
  std::optional<Header> header;      ///< nullopt when header.json is missing or unreadable
  std::vector<WeightFile> weights;   ///< weight files present, in shard order
  std::optional<ShardIndex> index;   ///< when weights.index.json is present
  std::optional<ModelFolder> model;  ///< a model folder's indexes, links and inventory
  /// What entries outside the layout look like ("a Python pickle (protocol 2)"), by name.
  std::vector<std::pair<std::string, std::string>> entry_descriptions;
  std::optional<std::string> computed_hash;
  std::string hash_not_computed_reason;  ///< why computed_hash is empty

  /// Builds the lookups below; call once `weights` is complete. Every lookup is then
  /// O(log n) in tensors and files, so 20,000 shards cost no more per tensor than one.
  void BuildIndexes();
  [[nodiscard]] const WeightFile* FindWeightFile(std::string_view name) const;
  /// The first weight file (in shard order) that declares tensor `name`, with its entry.
  struct StoredRef {
    const WeightFile* file = nullptr;
    const StoredTensor* tensor = nullptr;
  };
  [[nodiscard]] StoredRef FindStored(std::string_view name) const;
  /// Calls `visit` with the declarations of every tensor name declared more than once, in shard
  /// order, names in sorted order: one pass over the name index, no set of names built.
  void ForEachRepeatedName(const std::function<void(std::span<const StoredRef>)>& visit) const;

  /// Where tensor `name`'s bytes can be read: the first structurally valid weight file that
  /// is open and declares it (a tensor in an invalid file is never trusted for its bytes).
  struct ReadableTensor {
    const WeightFile* file = nullptr;
    const StoredTensor* tensor = nullptr;
    [[nodiscard]] std::uint64_t offset() const { return tensor->data_offset; }
    [[nodiscard]] std::uint64_t length() const { return tensor->data_length; }
  };
  [[nodiscard]] std::optional<ReadableTensor> FindReadableTensor(std::string_view name) const;
  [[nodiscard]] bool HasEntry(std::string_view name) const;

  /// What `--expect-hash` is compared with (inputs.md section 1b): a Lensemble artifact's
  /// recomputed content hash, a single file's SHA-256, a model folder's root digest.
  struct PinTarget {
    std::string_view what;             ///< "content hash", "SHA-256 of the file", "root digest"
    std::string_view key;              ///< the reports' name: "content-hash", "file-sha256", "root-digest"
    std::optional<std::string> value;  ///< nullopt when it was not computed
    std::string not_computed_reason;   ///< why, when value is nullopt
  };
  [[nodiscard]] PinTarget PinnedValue() const;

  /// Every file whose tensors the reports list: the weights, then a model folder's files read
  /// by their own format.
  [[nodiscard]] std::vector<const WeightFile*> ListedWeightFiles() const;

 private:
  struct TensorRef {
    std::uint32_t file;
    std::uint32_t tensor;
  };
  std::vector<TensorRef> tensor_index_;         ///< every declaration, by (name, shard order)
  std::vector<std::uint32_t> weights_by_name_;  ///< indexes into `weights`, by file name
  [[nodiscard]] std::pair<std::vector<TensorRef>::const_iterator, std::vector<TensorRef>::const_iterator> Declarations(
      std::string_view name) const;
  [[nodiscard]] const std::string& NameOf(const TensorRef& ref) const {
    return weights[ref.file].tensors[ref.tensor].name;
  }
};

}  // namespace ckpt
