// A static model of CPython's unpickler (inputs.md section 6): every opcode of protocols
// 0-5 runs on typed values (stack, mark stack, memo with CPython's exact semantics), and
// nothing is ever imported or called. Globals are resolved as find_class would name them
// (_compat_pickle renames below protocol 3, dotted names), and every global and call is
// judged against what torch.save writes and torch's weights-only unpickler accepts, with
// the arguments each takes. Everything else is a diagnostic naming the import and the call,
// with the opcode's byte offset. Budgets bound values, text and opcodes per file.
#pragma once

#include <bit>
#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "lib/formats/pickle/pickle_policy.h"
#include "lib/io/artifact_source.h"
#include "lib/model/diagnostic.h"
#include "lib/model/dtype.h"

namespace ckpt::pickle {

/// Per-file budgets (inputs.md section 6), scaled by the size P of the pickle they bound so
/// that real checkpoints of any size pass and a small file cannot buy large work. Exceeding one
/// ends the analysis with a failing diagnostic.
struct Budget {
  static constexpr std::uint64_t kMinValues = std::uint64_t{1} << 21;
  static constexpr std::uint64_t kMinTextBytes = std::uint64_t{64} << 20;
  static constexpr std::uint64_t kMinOpcodes = std::uint64_t{1} << 24;
  static constexpr std::uint64_t kMinPathBytes = std::uint64_t{64} << 20;
  std::uint64_t max_values = kMinValues;         ///< max(2^21, 4P): pushes, DUP, GET and memo copies included
  std::uint64_t max_text_bytes = kMinTextBytes;  ///< max(64 MiB, 2P): string and bytes lengths, in total
  std::uint64_t max_opcodes = kMinOpcodes;       ///< max(2^24, P)
  std::uint64_t max_path_bytes = kMinPathBytes;  ///< max(64 MiB, 8P): tensor path names, in total
  std::uint64_t path_bytes = 0;
  std::uint64_t values = 0;
  std::uint64_t text_bytes = 0;
  std::uint64_t opcodes = 0;
  bool exceeded = false;
  /// Raises the limits to those of a pickle of `pickle_bytes` (never lowers them).
  void ScaleTo(std::uint64_t pickle_bytes);
};

/// A budget limit as a message says it: "2^21" or "2^24" for the floors, else the number.
std::string DescribeLimit(std::uint64_t limit);
/// A byte budget: "64 MiB" for the floor, else "N bytes".
std::string DescribeByteLimit(std::uint64_t limit);

/// Which persistent ids the container gives meaning to.
enum class StorageMode : std::uint8_t {
  kNone,         ///< a plain pickle: a persistent id has no loader
  kTorchZip,     ///< ('storage', type, key, location, numel)
  kTorchLegacy,  ///< ('storage', type, key, location, numel, view_metadata)
};

using ValueId = std::uint32_t;

enum class Kind : std::uint8_t {
  kUnknown,  ///< what an unmodelled call or a failed operation would give
  kNone,
  kBool,
  kInt,
  kBigInt,  ///< an int past 64 bits (its little-endian two's complement bytes kept)
  kFloat,
  kStr,
  kBytes,
  kByteArray,
  kTuple,
  kList,
  kDict,  ///< dict or OrderedDict (flag kOrdered)
  kSet,
  kFrozenSet,
  kGlobal,   ///< a name find_class would import
  kObject,   ///< the result of a call the analyser does not model (never trusted)
  kStorage,  ///< a torch storage reference (persistent id)
  kTensor,   ///< a rebuilt tensor or parameter
  kDevice,
  // joblib (formats.md section 3):
  kJoblibWrapper,   ///< NumpyArrayWrapper() before its BUILD
  kNumpyDtype,      ///< numpy.dtype(...), index into Analyser::numpy_dtypes()
  kEstimator,       ///< a scikit-learn object, index into Analyser::estimators()
  kNdarrayPending,  ///< numpy's _reconstruct(ndarray, ...) before its BUILD
};

/// 8 bytes: a budget's worth of values (2^21) is 16 MiB. Numbers live in the value itself
/// when they fit in 32 bits (kInline), else in a pool.
struct Value {
  Kind kind = Kind::kUnknown;
  std::uint8_t flags = 0;
  std::uint32_t aux = 0;  ///< index into the pool of its kind, or an inline int
};
inline constexpr std::uint8_t kOrdered = 1;    ///< a dict made by collections.OrderedDict
inline constexpr std::uint8_t kBuilt = 2;      ///< BUILD gave it state
inline constexpr std::uint8_t kParameter = 4;  ///< a tensor rebuilt as a Parameter
inline constexpr std::uint8_t kInline = 8;     ///< an int or bool held in `aux` (as int32)

/// A storage reference from a persistent id.
struct StorageRef {
  std::string key;
  std::string_view type_name;        ///< "FloatStorage", "UntypedStorage" (the static storage table's)
  const DtypeInfo* dtype = nullptr;  ///< nullptr: no safetensors token (complex128, quantized)
  std::string_view torch_dtype;      ///< "float32" (the static storage table's)
  std::uint64_t element_size = 1;
  std::uint64_t numel = 0;   ///< in elements (bytes for an untyped storage)
  std::uint64_t offset = 0;  ///< the persistent-id opcode
};

/// A tensor a rebuild function would make.
struct RebuiltTensor {
  std::optional<std::uint32_t> storage;  ///< none: a meta tensor
  std::uint64_t storage_offset = 0;      ///< in elements
  std::vector<std::uint64_t> shape;
  std::vector<std::uint64_t> stride;
  const DtypeInfo* dtype = nullptr;
  std::string torch_dtype;
  std::uint64_t element_size = 1;
  bool valid = false;        ///< arguments checked and inside the storage
  bool contiguous = false;   ///< row-major strides: the bytes are one region of the storage
  bool conj = false;         ///< metadata sets torch's conjugate bit (the bytes are the conjugate)
  bool neg = false;          ///< metadata sets torch's negative bit (the bytes are negated)
  std::uint64_t offset = 0;  ///< the REDUCE opcode
};

/// A tensor reachable from a pickle's result, by its path (section 6 naming).
struct NamedTensor {
  std::string name;
  std::uint32_t tensor = 0;  ///< index into Analyser::tensors()
};

/// A numpy dtype a joblib pickle builds: numpy.dtype(descr, ...) and its BUILD state.
struct NumpyDtypeValue {
  std::string code;       ///< "f4", "O8", "V56": the descr without its byte order
  char byte_order = '|';  ///< '<', '>', '|', '=' (BUILD state[1])
  std::uint64_t itemsize = 0;
  bool holds_objects = false;  ///< "O", or a structured dtype with an object field (flags & 1)
  bool structured = false;     ///< fields given in its state
  /// numeric, object and datetime codes: numpy keeps the code's size whatever the state says
  /// (only flexible codes, S, U and V, take the state's elsize).
  bool fixed_size = false;
  /// A fixed-size code's state elsize that is neither -1 (numpy's own) nor the code's size.
  std::optional<std::int64_t> conflicting_elsize;
  /// The descr numpy prints ("<f4").
  [[nodiscard]] std::string Descr() const { return std::string(1, byte_order) + code; }
};

/// An array a joblib file holds: a NumpyArrayWrapper whose bytes follow its BUILD.
struct JoblibArray {
  std::uint32_t tensor = 0;       ///< index into Analyser::tensors()
  std::uint64_t body_offset = 0;  ///< the first byte of its data in the stream analysed
  std::uint64_t body_length = 0;  ///< numel x itemsize
  bool fortran = false;           ///< order 'F': the bytes are the transpose's
};

/// A scikit-learn object a joblib file makes.
struct EstimatorValue {
  std::string module;
  std::string name;
  std::optional<ValueId> state;  ///< its BUILD's dict
  bool internal = false;         ///< a class an estimator pickles inside it (a Tree), not an estimator
};

struct PickleEnd {
  bool stopped = false;         ///< reached STOP
  std::uint64_t end = 0;        ///< offset after STOP, or where the analysis ended
  std::optional<ValueId> root;  ///< the value STOP returned
};

/// Whether `byte` is an opcode of some protocol (0-5): what a pickle can start with.
bool IsOpcode(std::byte byte);

/// Whether `file` from offset 0 is a pickle up to its first STOP (within `max_bytes`; a walk
/// that reaches the bound without a refusal counts as yes): opcodes with well-formed
/// arguments (decimal INT/LONG/GET/PUT lines, quoted STRING lines, identifier-like
/// GLOBAL/INST lines, lengths that fit), then STOP, whatever follows it, as CPython's
/// unpickler reads a file. Recognises pickles without a PROTO header (protocols 0 and 1)
/// without mistaking text for one. No semantics: the Analyser does those.
IoResult<bool> ParsesAsPickles(const RandomAccessFile& file, std::uint64_t max_bytes);

class Analyser {
 public:
  /// Diagnostics name `file` and absolute offsets in it. Pickles are read for the loader
  /// `policy` stands for (find_class): torch.load's by default.
  Analyser(std::string file, DiagnosticSink& sink, StorageMode mode, const FindClassPolicy& policy = TorchFindClass());

  /// Runs one pickle starting at `begin` (bytes up to `end` are its to read). An I/O
  /// failure of the tool is the error; everything about the bytes is a diagnostic.
  IoResult<PickleEnd> Run(const RandomAccessFile& file, std::uint64_t begin, std::uint64_t end);

  /// The persistent ids the next Run resolves (legacy files: only the object pickle has them).
  void set_mode(StorageMode mode) { mode_ = mode; }

  /// Tensors reachable from `root` by path; non-str keys and name collisions are reported.
  /// With `others`, the paths of the leaves that are not tensors too (at most 100,000).
  std::vector<NamedTensor> ListTensors(ValueId root, std::uint64_t offset, std::vector<std::string>* others = nullptr);

  [[nodiscard]] const Value& value(ValueId id) const { return values_[id]; }
  [[nodiscard]] const std::string& text(ValueId id) const { return texts_[values_[id].aux]; }
  /// An int's or bool's value (a float's bits).
  [[nodiscard]] std::int64_t NumberOf(const Value& v) const {
    return (v.flags & kInline) != 0 ? static_cast<std::int32_t>(v.aux) : numbers_[v.aux];
  }
  [[nodiscard]] std::int64_t number(ValueId id) const { return NumberOf(values_[id]); }
  [[nodiscard]] std::span<const ValueId> items(ValueId id) const { return ItemsOf(values_[id]); }
  [[nodiscard]] const std::vector<StorageRef>& storages() const { return storages_; }
  [[nodiscard]] const std::vector<RebuiltTensor>& tensors() const { return tensors_; }
  [[nodiscard]] const std::vector<JoblibArray>& joblib_arrays() const { return joblib_arrays_; }
  [[nodiscard]] const std::vector<EstimatorValue>& estimators() const { return estimators_; }
  [[nodiscard]] const std::vector<NumpyDtypeValue>& numpy_dtypes() const { return numpy_dtypes_; }
  [[nodiscard]] const Budget& budget() const { return budget_; }
  /// A security diagnostic was reported: an import or call outside the allowlist.
  [[nodiscard]] bool unsafe() const { return unsafe_; }
  /// Python's repr of a value, bounded and with every non-printable byte escaped.
  [[nodiscard]] std::string Render(ValueId id) const;

 private:
  class Machine;
  friend class Machine;
  ValueId NewValue(Value v);
  ValueId NewText(Kind kind, std::string text);
  ValueId NewNumber(Kind kind, std::int64_t n);
  ValueId NewContainer(Kind kind, std::vector<ValueId> items);
  /// A container's items (none for a container that never had one). Valid until the next
  /// container is made or grown.
  [[nodiscard]] std::span<const ValueId> ItemsOf(const Value& v) const;
  /// Appends to a container's items (APPEND, SETITEMS, ...), growing its span as a vector would.
  void AppendItems(Value& container, std::span<const ValueId> items);
  static constexpr std::uint32_t kNoItems = 0xFFFFFFFFU;
  void RenderInto(ValueId id, int depth, std::string& out) const;
  void Report(Diag kind, std::uint64_t offset, std::string message);
  /// Report() naming the global (and call) the finding is about.
  void Report(Diag kind, std::uint64_t offset, std::string message, std::optional<std::string> global,
              std::optional<std::string> call);
  /// The global a value was made from: itself, or the callee of the call that made it.
  [[nodiscard]] std::optional<std::string> GlobalOf(ValueId id) const;
  /// The call that made a value, rendered, when it was made by one.
  [[nodiscard]] std::optional<std::string> RenderedCallOf(ValueId id) const;

  FileReporter report_;
  StorageMode mode_;
  const FindClassPolicy& policy_;
  Budget budget_;
  bool unsafe_ = false;
  std::deque<Value> values_;  // chunked: growing never copies (a budget of values is 32 MiB, not twice that)
  std::deque<std::string> texts_;
  std::deque<std::int64_t> numbers_;
  // Container items, packed: one pool, and per container a span of it with room to grow
  // (12 bytes a container instead of a vector and its heap block).
  struct ItemSpan {
    std::uint32_t begin = 0;
    std::uint32_t size = 0;
    std::uint32_t capacity = 0;
  };
  std::vector<ValueId> pool_;
  std::deque<ItemSpan> spans_;
  struct GlobalName {
    std::string module;
    std::string name;
    std::uint64_t offset = 0;
  };
  std::vector<GlobalName> globals_;
  struct Call {
    ValueId callee = 0;
    ValueId args = 0;
  };
  std::vector<Call> calls_;
  std::vector<StorageRef> storages_;
  // Storage keys to indexes into storages_. torch.save numbers its keys "0", "1", ...: those
  // are found by number in a dense table (4 bytes a key; a tree node each was 72 MB at 10^6
  // tensors), any other key in the map. The table grows only as far as the storages seen
  // allow, so a key of 4000000000 in a small pickle cannot buy memory.
  std::vector<std::uint32_t> storage_by_number_;  // number -> index + 1; 0: none
  std::map<std::string, std::uint32_t, std::less<>> storage_by_key_;
  [[nodiscard]] std::optional<std::uint32_t> FindStorage(std::string_view key) const;
  void RememberStorage(std::string_view key, std::uint32_t index);
  std::vector<RebuiltTensor> tensors_;
  std::vector<JoblibArray> joblib_arrays_;
  std::vector<EstimatorValue> estimators_;
  std::vector<NumpyDtypeValue> numpy_dtypes_;
  std::set<std::string> estimators_reported_;  ///< one joblib-estimator finding per class and file
};

/// Whether a further pickle may start at `at` (after a STOP): PROTO or a protocol 0/1 opcode.
IoResult<bool> PickleFollows(const RandomAccessFile& file, std::uint64_t at);

/// Runs pickles of `file` from `begin` until `end`: each STOP followed by more bytes starts
/// another pickle (a loader reading in a loop would run it); bytes that are not one are
/// pickle-trailing-data. Returns the first pickle's end; counts the pickles run in `pickles`.
IoResult<std::optional<PickleEnd>> AnalyseStream(Analyser& analyser, const RandomAccessFile& file, std::uint64_t begin,
                                                 std::uint64_t end, const FileReporter& report, std::uint32_t& pickles);

}  // namespace ckpt::pickle
