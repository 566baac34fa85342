#include "lib/formats/msgpack/msgpack.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <memory>
#include <set>
#include <string_view>
#include <utility>
#include <vector>

#include "lib/core/checked_math.h"
#include "lib/core/text.h"
#include "lib/formats/format_table.h"
#include "lib/io/file_cursor.h"
#include "lib/model/dtype.h"

namespace ckpt {
namespace msgpack {
namespace {

// The spec's bounds (formats.md section 8) and the reader's own for what it holds.
constexpr std::size_t kMaxDepth = 128;
constexpr std::uint64_t kMaxObjects = std::uint64_t{1} << 21;
constexpr std::uint64_t kMaxStringBytes = std::uint64_t{1} << 20;  // one key or str value
constexpr std::uint64_t kMaxKeyBytes = std::uint64_t{64} << 20;    // every key held (duplicate checks)
constexpr std::size_t kMaxDims = 64;                               // numpy 2's NPY_MAXDIMS
constexpr std::string_view kChunkedKey = "__msgpack_chunked_array__";

// An I/O failure as a walk step's result (IoResult<bool> cannot be built from an error_code
// implicitly: the code converts to bool too).
IoResult<bool> Failed(boost::system::error_code error) { return {boost::system::in_place_error, error}; }

enum class Type : std::uint8_t { kNil, kBool, kUint, kInt, kFloat, kStr, kBin, kArray, kMap, kExt, kNever };

std::string_view TypeName(Type t) {
  static constexpr std::array<std::string_view, 11> kNames = {"nil", "bool",  "int", "int", "float", "str",
                                                              "bin", "array", "map", "ext", "0xc1"};
  return kNames.at(static_cast<std::size_t>(t));
}

// "an int", "a map": the type as a message names it.
std::string WithArticle(Type t) {
  const std::string_view name = TypeName(t);
  const bool vowel = name.front() == 'a' || name.front() == 'e' || name.front() == 'i';
  return std::string(vowel ? "an " : "a ") + std::string(name);
}

// One object's head: its type and what it counts (str/bin/ext bytes, array items, map
// entries) or holds (an int).
struct Head {
  Type type = Type::kNil;
  std::uint64_t offset = 0;
  std::uint64_t length = 0;
  std::uint64_t uint_value = 0;
  std::int64_t int_value = 0;
  std::int8_t ext_type = 0;
  [[nodiscard]] bool IsNonNegativeInt() const { return type == Type::kUint || (type == Type::kInt && int_value >= 0); }
  [[nodiscard]] std::uint64_t AsCount() const {
    return type == Type::kUint ? uint_value : static_cast<std::uint64_t>(int_value);
  }
};

std::uint64_t BigEndian(std::string_view bytes) {
  std::uint64_t v = 0;
  for (char c : bytes) v = (v << 8U) | static_cast<unsigned char>(c);
  return v;
}

// Bytes taken front to back from memory, with FileCursor's interface (an ext's payload).
class MemoryCursor {
 public:
  MemoryCursor(std::string_view bytes, std::uint64_t base) : bytes_(bytes), base_(base) {}
  [[nodiscard]] std::uint64_t position() const { return base_ + at_; }
  [[nodiscard]] std::uint64_t left() const { return bytes_.size() - at_; }
  IoResult<std::optional<std::string_view>> Take(std::uint64_t n) {
    if (n > left()) return std::optional<std::string_view>();
    const std::string_view out = bytes_.substr(at_, static_cast<std::size_t>(n));
    at_ += static_cast<std::size_t>(n);
    return std::optional<std::string_view>(out);
  }

 private:
  std::string_view bytes_;
  std::uint64_t base_;
  std::size_t at_ = 0;
};

// Reads the next object's head; nullopt when the bytes end inside it. Payloads (str, bin and
// ext bytes, container items) are the caller's to take.
template <class Cursor>
IoResult<std::optional<Head>> ReadHead(Cursor& cursor) {
  Head h;
  h.offset = cursor.position();
  bool short_read = false;
  auto take = [&cursor, &short_read](std::uint64_t n) -> IoResult<std::uint64_t> {
    auto bytes = cursor.Take(n);
    if (!bytes) return bytes.error();
    if (!*bytes) {
      short_read = true;
      return std::uint64_t{0};
    }
    return BigEndian(**bytes);
  };
  auto first = take(1);
  if (!first) return first.error();
  if (short_read) return std::optional<Head>();
  const auto b = static_cast<std::uint8_t>(*first);
  auto sized = [&h, &take](Type type, std::uint64_t width) -> IoResult<void> {
    h.type = type;
    auto n = take(width);
    if (!n) return n.error();
    h.length = *n;
    return {};
  };
  IoResult<void> done{};
  if (b <= 0x7fU) {
    h.type = Type::kUint;
    h.uint_value = b;
  } else if (b <= 0x8fU) {
    h.type = Type::kMap;
    h.length = b & 0x0fU;
  } else if (b <= 0x9fU) {
    h.type = Type::kArray;
    h.length = b & 0x0fU;
  } else if (b <= 0xbfU) {
    h.type = Type::kStr;
    h.length = b & 0x1fU;
  } else if (b >= 0xe0U) {
    h.type = Type::kInt;
    h.int_value = static_cast<std::int64_t>(b) - 0x100;  // negative fixint: -32..-1
  } else if (b == 0xc0U) {
    h.type = Type::kNil;
  } else if (b == 0xc1U) {
    h.type = Type::kNever;
  } else if (b == 0xc2U || b == 0xc3U) {
    h.type = Type::kBool;
    h.uint_value = b - 0xc2U;
  } else if (b >= 0xc4U && b <= 0xc6U) {
    done = sized(Type::kBin, std::uint64_t{1} << (b - 0xc4U));
  } else if (b >= 0xc7U && b <= 0xc9U) {
    done = sized(Type::kExt, std::uint64_t{1} << (b - 0xc7U));
  } else if (b == 0xcaU || b == 0xcbU) {
    h.type = Type::kFloat;
    auto skipped = take(b == 0xcaU ? 4 : 8);
    if (!skipped) return skipped.error();
  } else if (b >= 0xccU && b <= 0xcfU) {
    h.type = Type::kUint;
    auto v = take(std::uint64_t{1} << (b - 0xccU));
    if (!v) return v.error();
    h.uint_value = *v;
  } else if (b >= 0xd0U && b <= 0xd3U) {
    h.type = Type::kInt;
    const unsigned bits = 8U << (b - 0xd0U);
    auto v = take(bits / 8);
    if (!v) return v.error();
    // Sign-extends the big-endian value of `bits` bits.
    const std::uint64_t sign = std::uint64_t{1} << (bits - 1);
    h.int_value = static_cast<std::int64_t>((*v ^ sign) - sign);
  } else if (b >= 0xd4U && b <= 0xd8U) {
    h.type = Type::kExt;
    h.length = std::uint64_t{1} << (b - 0xd4U);
  } else if (b >= 0xd9U && b <= 0xdbU) {
    done = sized(Type::kStr, std::uint64_t{1} << (b - 0xd9U));
  } else if (b == 0xdcU || b == 0xddU) {
    done = sized(Type::kArray, b == 0xdcU ? 2 : 4);
  } else {  // 0xde, 0xdf
    done = sized(Type::kMap, b == 0xdeU ? 2 : 4);
  }
  if (!done) return done.error();
  if (h.type == Type::kExt) {
    auto type = take(1);
    if (!type) return type.error();
    h.ext_type = static_cast<std::int8_t>(*type);
  }
  if (short_read) return std::optional<Head>();
  return std::optional<Head>(h);
}

// numpy's numeric dtype names as Flax writes them (arr.dtype.name), with their token and size.
struct DtypeName {
  std::string_view name;
  std::string_view token;
  std::uint64_t size;
};
const DtypeName* FindDtypeName(std::string_view name) {
  static constexpr std::array<DtypeName, 23> kNames{{
      {"bool", "BOOL", 1},
      {"int8", "I8", 1},
      {"int16", "I16", 2},
      {"int32", "I32", 4},
      {"int64", "I64", 8},
      {"uint8", "U8", 1},
      {"uint16", "U16", 2},
      {"uint32", "U32", 4},
      {"uint64", "U64", 8},
      {"float16", "F16", 2},
      {"bfloat16", "BF16", 2},
      {"float32", "F32", 4},
      {"float64", "F64", 8},
      {"complex64", "C64", 8},
      {"complex128", "C128", 16},
      {"float8_e4m3fn", "F8_E4M3", 1},
      {"float8_e5m2", "F8_E5M2", 1},
      {"float8_e4m3fnuz", "F8_E4M3FNUZ", 1},
      {"float8_e5m2fnuz", "F8_E5M2FNUZ", 1},
      {"float8_e3m4", "F8_E3M4", 1},
      {"float8_e8m0fnu", "F8_E8M0", 1},
      {"float8_e4m3b11fnuz", "float8_e4m3b11fnuz", 1},  // ml_dtypes' own: no safetensors token
      {"float8_e4m3", "float8_e4m3", 1},
  }};
  for (const DtypeName& d : kNames) {
    if (d.name == name) return &d;
  }
  return nullptr;
}

std::string JoinPath(const std::vector<std::string>& path, std::size_t count) {
  std::string out;
  for (std::size_t i = 0; i < count && i < path.size(); ++i) {
    if (i > 0) out += '.';
    out += path[i];
  }
  return out;
}

bool IsIndexKey(std::string_view key, std::uint64_t index) { return key == std::to_string(index); }

// A container being read: what is left of it, and what a chunked-array dict needs.
struct Frame {
  bool is_map = false;
  std::uint64_t offset = 0;
  std::uint64_t entries = 0;  ///< items (arrays) or entries (maps) it holds
  std::uint64_t left = 0;     ///< items or entries not yet started
  bool at_key = true;         ///< maps: the next object is a key
  std::size_t path_size = 0;  ///< its own path (the components naming it)
  std::set<std::string, std::less<>> keys;
  // flax's chunked arrays ({"__msgpack_chunked_array__": ..., "shape": ..., "chunks": ...}):
  std::size_t tensors_at = 0;  ///< the tensors listed before it began
  bool chunked = false;
  std::vector<std::uint64_t> shape;  ///< the "shape" value's ints (a list, or a dict of "0".."n-1")
  bool has_shape = false;
  bool shape_bad = false;
  std::optional<std::uint64_t> chunk_entries;  ///< the "chunks" dict's entries
  bool captures_shape = false;                 ///< this is a "shape" value: its ints go to the parent
};

class Walker {
 public:
  Walker(const RandomAccessFile& file, const FileReporter& report, std::vector<StoredTensor>& tensors)
      : cursor_(file, 0, file.size()), size_(file.size()), report_(report), tensors_(tensors) {}

  /// Reads the file's one object; false when its structure did not hold (the walk stopped).
  IoResult<bool> Run() {
    auto walked = Walk();
    if (!walked) return Failed(walked.error());
    if (!*walked) return false;
    if (cursor_.left() > 0) {
      report_(Diag::kMsgpackTrailingData, cursor_.position(),
              std::to_string(cursor_.left()) + " bytes follow the msgpack object that ends at byte " +
                  std::to_string(cursor_.position()) +
                  ": msgpack.unpackb (flax.serialization.from_bytes) refuses them, a streaming unpacker reads "
                  "them as another object.");
    }
    return !array_invalid_;
  }

 private:
  IoResult<bool> Walk() {
    auto top = NextHead();
    if (!top) return Failed(top.error());
    if (!*top) return false;
    if ((*top)->type != Type::kMap) {
      return Invalid((*top)->offset,
                     "The file's object is " + WithArticle((*top)->type) + ", not the map flax.serialization writes.");
    }
    auto opened = Open(**top, /*captures_shape=*/false);
    if (!opened) return Failed(opened.error());
    if (!*opened) return false;
    while (!frames_.empty()) {
      Frame& f = frames_.back();
      if (f.left == 0 && (!f.is_map || f.at_key)) {
        Close();
        continue;
      }
      auto head = NextHead();
      if (!head) return Failed(head.error());
      if (!*head) return false;
      if (f.is_map && f.at_key) {
        auto key = Key(**head);
        if (!key) return Failed(key.error());
        if (!*key) return false;
        continue;
      }
      std::string component = f.is_map ? std::move(pending_key_) : std::to_string(f.entries - f.left);
      if (f.is_map) f.at_key = true;
      --f.left;
      auto value = Value(**head, std::move(component));
      if (!value) return Failed(value.error());
      if (!*value) return false;
    }
    return true;
  }

  // The next head, counted against the object budget; nullopt (reported) when it cannot be read.
  IoResult<std::optional<Head>> NextHead() {
    const std::uint64_t at = cursor_.position();
    auto head = ReadHead(cursor_);
    if (!head) return head.error();
    if (!*head) {
      Truncated(at, "its head");
      return std::optional<Head>();
    }
    if (++objects_ > kMaxObjects) {
      report_(Diag::kMsgpackBudgetExceeded, at,
              "The file holds more than " + std::to_string(kMaxObjects) + " msgpack objects (the next at byte " +
                  std::to_string(at) + "): it is read no further.");
      return std::optional<Head>();
    }
    if ((*head)->type == Type::kNever) {
      Invalid(at, "Byte " + std::to_string(at) + " is 0xc1, which msgpack never uses: the file is not msgpack.");
      return std::optional<Head>();
    }
    return head;
  }

  IoResult<bool> Key(const Head& head) {
    Frame& f = frames_.back();
    if (head.type != Type::kStr) {
      return Invalid(head.offset, "The map key at byte " + std::to_string(head.offset) + " is " +
                                      WithArticle(head.type) +
                                      ", not a str: flax.serialization writes str keys, and msgpack-python refuses "
                                      "or decodes other keys differently.");
    }
    key_bytes_ += head.length;
    auto text = Text(head, key_bytes_ > kMaxKeyBytes);
    if (!text) return Failed(text.error());
    if (!*text) return false;
    if (!f.keys.insert(**text).second) {
      report_(Diag::kMsgpackDuplicateKey, head.offset,
              "Key " + QuoteForMessage(**text) + " appears again at byte " + std::to_string(head.offset) +
                  " in the map at byte " + std::to_string(f.offset) +
                  ": msgpack-python keeps the last value of a key, another reader the first.");
    }
    pending_key_ = std::move(**text);
    f.at_key = false;
    return true;
  }

  // A str's text, checked as UTF-8 and bounded; nullopt (reported) when it cannot be taken.
  IoResult<std::optional<std::string>> Text(const Head& head, bool over_budget) {
    if (head.length > kMaxStringBytes || over_budget) {
      report_(Diag::kMsgpackBudgetExceeded, head.offset,
              "The str at byte " + std::to_string(head.offset) + " holds " + std::to_string(head.length) +
                  (over_budget ? " bytes past the 64 MiB the reader holds for keys"
                               : " bytes, more than the 1 MiB a key or "
                                 "string may hold") +
                  ": the file is read no further.");
      return std::optional<std::string>();
    }
    auto bytes = cursor_.Take(head.length);
    if (!bytes) return bytes.error();
    if (!*bytes) {
      Truncated(head.offset, "its str");
      return std::optional<std::string>();
    }
    if (auto bad = FindInvalidUtf8(**bytes)) {
      Invalid(head.offset, "The str at byte " + std::to_string(head.offset) + " is not UTF-8 (its byte " +
                               std::to_string(*bad) + "): msgpack-python fails on it.");
      return std::optional<std::string>();
    }
    return std::optional<std::string>(std::string(**bytes));
  }

  IoResult<bool> Value(const Head& head, std::string component) {
    Frame& parent = frames_.back();
    if (parent.is_map && component == kChunkedKey) parent.chunked = true;
    if (parent.captures_shape) {
      Frame& owner = frames_[frames_.size() - 2];
      const bool dimension = head.IsNonNegativeInt() && owner.shape.size() < kMaxDims &&
                             (!parent.is_map || IsIndexKey(component, owner.shape.size()));
      if (dimension) {
        owner.shape.push_back(head.AsCount());
      } else {
        owner.shape_bad = true;
      }
    }
    switch (head.type) {
      case Type::kStr: {
        auto text = Text(head, false);
        if (!text) return Failed(text.error());
        return text->has_value();
      }
      case Type::kBin:
        return Skip(head, "its bin");
      case Type::kExt:
        return Ext(head, component);
      case Type::kArray:
      case Type::kMap: {
        if (parent.captures_shape) frames_[frames_.size() - 2].shape_bad = true;
        const bool shape_value = parent.is_map && component == "shape";
        if (shape_value) parent.has_shape = true;
        path_.push_back(std::move(component));
        return Open(head, shape_value);
      }
      default:
        return true;  // nil, bool, int, float: values, already read
    }
  }

  // Starts container `head`, once its count is plausible for the bytes left.
  IoResult<bool> Open(const Head& head, bool captures_shape) {
    const std::uint64_t min_bytes = head.type == Type::kMap ? head.length * 2 : head.length;  // <= 2^33
    if (min_bytes > cursor_.left()) {
      return Invalid(head.offset, "The " + std::string(TypeName(head.type)) + " at byte " +
                                      std::to_string(head.offset) + " counts " + std::to_string(head.length) +
                                      (head.type == Type::kMap ? " entries" : " items") + " but only " +
                                      std::to_string(cursor_.left()) + " bytes follow: the file is truncated.");
    }
    if (frames_.size() >= kMaxDepth) {
      report_(Diag::kMsgpackDepthExceeded, head.offset,
              "The " + std::string(TypeName(head.type)) + " at byte " + std::to_string(head.offset) +
                  " nests deeper than " + std::to_string(kMaxDepth) +
                  " levels: recursive readers overflow their stack there; the file is read no further.");
      return false;
    }
    Frame f;
    f.is_map = head.type == Type::kMap;
    f.offset = head.offset;
    f.entries = f.left = head.length;
    f.path_size = path_.size();
    f.tensors_at = tensors_.size();
    f.captures_shape = captures_shape;
    frames_.push_back(std::move(f));
    return true;
  }

  void Close() {
    Frame f = std::move(frames_.back());
    frames_.pop_back();
    if (f.chunked) Unchunk(f);
    if (frames_.empty()) return;
    Frame& parent = frames_.back();
    if (parent.is_map && !path_.empty() && path_.back() == "chunks" && f.is_map) parent.chunk_entries = f.entries;
    if (f.captures_shape && !f.is_map && f.entries != parent.shape.size()) parent.shape_bad = true;
    path_.pop_back();
  }

  IoResult<bool> Skip(const Head& head, std::string_view what) {
    if (head.length > cursor_.left()) {
      Truncated(head.offset, what);
      return false;
    }
    cursor_.Skip(head.length);
    return true;
  }

  IoResult<bool> Ext(const Head& head, const std::string& component) {
    if (head.length > cursor_.left()) {
      Truncated(head.offset, "its ext payload");
      return false;
    }
    if (head.ext_type != 1 && head.ext_type != 2 && head.ext_type != 3) {
      report_(Diag::kMsgpackExtType, head.offset,
              "The ext value at byte " + std::to_string(head.offset) + " (" + QuoteForMessage(Named(component)) +
                  ") has type " + std::to_string(head.ext_type) +
                  (head.ext_type == -1 ? " (a msgpack timestamp)" : "") +
                  ": flax.serialization writes only types 1 (ndarray), 2 (complex) and 3 (numpy scalar).");
      cursor_.Skip(head.length);
      return true;
    }
    // The payload's heads are small: [shape, dtype name, bytes] has at most ~700 bytes of them.
    const std::uint64_t prefix_length = std::min<std::uint64_t>(head.length, 1024);
    const std::uint64_t payload_at = cursor_.position();
    auto prefix = cursor_.Take(prefix_length);
    if (!prefix) return Failed(prefix.error());
    const std::string copied(prefix->value_or(std::string_view()));  // the cursor's view ends at its next Take
    MemoryCursor payload(copied, payload_at);
    std::string problem;
    std::optional<StoredTensor> tensor;
    if (head.ext_type == 2) {
      problem = Complex(payload, head.length);
    } else {
      tensor.emplace();
      problem = Array(payload, head, *tensor);
    }
    cursor_.Skip(head.length - prefix_length);
    if (!problem.empty()) {
      array_invalid_ = true;
      report_(Diag::kMsgpackArrayInvalid, head.offset,
              "The ext " + std::to_string(head.ext_type) + " value " + QuoteForMessage(Named(component)) + " at byte " +
                  std::to_string(head.offset) + " " + problem +
                  ": flax.serialization.from_bytes fails on it or reads an array no writer produced.");
      return true;
    }
    if (tensor) {
      tensor->name = Named(component);
      tensors_.push_back(std::move(*tensor));
    }
    return true;
  }

  // The name a value in the current container takes.
  [[nodiscard]] std::string Named(const std::string& component) const {
    std::string name = JoinPath(path_, path_.size());
    if (!name.empty()) name += '.';
    return name + component;
  }

  // Checks ext 2 (a complex: msgpack [real, imag]); the problem, or empty.
  static std::string Complex(MemoryCursor& payload, std::uint64_t length) {
    auto head = ReadHead(payload);
    if (!head || !*head || (*head)->type != Type::kArray || (*head)->length != 2) {
      return "is not the [real, imag] pair of a complex";
    }
    for (int i = 0; i < 2; ++i) {
      auto part = ReadHead(payload);
      if (!part || !*part ||
          ((*part)->type != Type::kFloat && (*part)->type != Type::kInt && (*part)->type != Type::kUint)) {
        return "is not the [real, imag] pair of a complex";
      }
    }
    if (payload.position() - (*head)->offset != length) return "holds bytes after its [real, imag] pair";
    return {};
  }

  // Reads ext 1/3 ([shape, dtype name, bytes]) into `tensor`; the problem, or empty.
  static std::string Array(MemoryCursor& payload, const Head& ext, StoredTensor& tensor) {
    const std::uint64_t payload_at = payload.position();
    auto outer = ReadHead(payload);
    if (!outer || !*outer || (*outer)->type != Type::kArray || (*outer)->length != 3) {
      return "is not the [shape, dtype, bytes] triple of an array";
    }
    auto shape = ReadHead(payload);
    if (!shape || !*shape || (*shape)->type != Type::kArray) return "has a shape that is not a list";
    if ((*shape)->length > kMaxDims) return "has more than 64 dimensions";
    for (std::uint64_t i = 0; i < (*shape)->length; ++i) {
      auto dim = ReadHead(payload);
      if (!dim || !*dim || !(*dim)->IsNonNegativeInt()) return "has a shape that is not a list of ints >= 0";
      tensor.shape.push_back((*dim)->AsCount());
    }
    if (ext.ext_type == 3 && !tensor.shape.empty()) return "is a numpy scalar (type 3) with a shape that is not []";
    auto dtype = ReadHead(payload);
    if (!dtype || !*dtype || (*dtype)->type != Type::kStr || (*dtype)->length > 64) {
      return "has a dtype that is not a str";
    }
    auto name = payload.Take((*dtype)->length);
    if (!name || !*name) return "has a dtype that is not a str";
    const DtypeName* known = FindDtypeName(**name);
    if (known == nullptr) return "has dtype " + QuoteForMessage(**name, 40) + ", which is not a numpy numeric dtype";
    auto body = ReadHead(payload);
    if (!body || !*body || (*body)->type != Type::kBin) return "does not hold its bytes as a bin";
    const std::uint64_t body_at = payload.position();
    std::optional<std::uint64_t> expected = known->size;
    for (std::uint64_t d : tensor.shape) {
      if (expected) expected = CheckedMul(*expected, d);
    }
    if (!expected || *expected != (*body)->length) {
      return "holds " + std::to_string((*body)->length) + " bytes, not the numel x itemsize = " +
             (expected ? std::to_string(*expected) : std::string("(overflow)")) + " of its shape and " +
             std::string(known->name);
    }
    if (body_at - payload_at + (*body)->length != ext.length) {
      return "holds bytes after its array (" + std::to_string(ext.length) + " bytes of payload)";
    }
    tensor.dtype = std::string(known->token);
    if (const DtypeInfo* info = FindSafetensorsDtype(known->token)) tensor.element = info->id;
    tensor.entry_offset = ext.offset;
    tensor.data_offset = tensor.begin = body_at;
    tensor.data_length = (*body)->length;
    tensor.end = body_at + (*body)->length;
    tensor.complete = true;
    return {};
  }

  // Turns a chunked-array dict's chunk tensors into the one array flax restores.
  void Unchunk(const Frame& f) {
    const std::string name = JoinPath(path_, f.path_size);
    const std::string prefix = (name.empty() ? std::string() : name + ".") + "chunks.";
    std::string problem;
    std::vector<const StoredTensor*> chunks;
    for (std::size_t i = f.tensors_at; i < tensors_.size(); ++i) {
      const StoredTensor& t = tensors_[i];
      if (!t.name.starts_with(prefix) || t.name.find('.', prefix.size()) != std::string::npos) {
        problem = "holds array " + QuoteForMessage(t.name) + " outside its chunks";
        break;
      }
      chunks.push_back(&t);
    }
    const bool only_its_keys = std::all_of(f.keys.begin(), f.keys.end(), [](const std::string& k) {
      return k == kChunkedKey || k == "shape" || k == "chunks";
    });
    if (problem.empty() && (!only_its_keys || f.keys.size() != 3)) {
      problem = "does not hold exactly the keys __msgpack_chunked_array__, shape and chunks";
    } else if (problem.empty() && (!f.has_shape || f.shape_bad)) {
      problem = "has a shape that is not a list of ints >= 0";
    } else if (problem.empty() && (!f.chunk_entries || *f.chunk_entries != chunks.size() || chunks.empty())) {
      problem = "has chunks that are not a dict of arrays";
    }
    std::uint64_t total = 0;
    for (std::size_t i = 0; problem.empty() && i < chunks.size(); ++i) {
      const StoredTensor& c = *chunks[i];
      if (!IsIndexKey(std::string_view(c.name).substr(prefix.size()), i)) {
        problem = "has chunks not keyed \"0\" to \"" + std::to_string(chunks.size() - 1) + "\" in order";
      } else if (c.shape.size() != 1 || c.dtype != chunks.front()->dtype) {
        problem = "has chunks that are not flat arrays of one dtype";
      } else {
        total += c.shape.front();  // each <= the chunk's byte length, so no overflow
      }
    }
    std::optional<std::uint64_t> elements = 1;
    for (std::uint64_t d : f.shape) {
      if (elements) elements = CheckedMul(*elements, d);
    }
    if (problem.empty() && (!elements || *elements != total)) {
      problem = "has chunks of " + std::to_string(total) + " elements for a shape of " +
                (elements ? std::to_string(*elements) : std::string("more than 2^64"));
    }
    StoredTensor merged;
    if (problem.empty()) {
      merged.name = name;
      merged.dtype = chunks.front()->dtype;
      merged.element = chunks.front()->element;
      merged.shape = f.shape;
      merged.entry_offset = f.offset;
      merged.complete = true;  // listed, not located: its bytes are split between chunks
    }
    tensors_.erase(tensors_.begin() + static_cast<std::ptrdiff_t>(f.tensors_at), tensors_.end());
    if (!problem.empty()) {
      array_invalid_ = true;
      report_(Diag::kMsgpackArrayInvalid, f.offset,
              "The chunked array " + QuoteForMessage(name) + " at byte " + std::to_string(f.offset) + " " + problem +
                  ": flax.serialization.from_bytes fails on it or restores an array its chunks do not hold.");
      return;
    }
    tensors_.push_back(std::move(merged));
  }

  void Truncated(std::uint64_t at, std::string_view what) {
    Invalid(at, "The msgpack value at byte " + std::to_string(at) + " ends with the file (" + std::to_string(size_) +
                    " bytes) inside " + std::string(what) + ": the file is truncated.");
  }

  bool Invalid(std::uint64_t at, std::string message) {
    report_(Diag::kMsgpackInvalid, at, std::move(message));
    return false;
  }

  FileCursor cursor_;
  std::uint64_t size_;
  const FileReporter& report_;
  std::vector<StoredTensor>& tensors_;
  std::vector<Frame> frames_;
  std::vector<std::string> path_;
  std::string pending_key_;
  std::uint64_t objects_ = 0;
  std::uint64_t key_bytes_ = 0;
  bool array_invalid_ = false;
};

IoResult<WeightFile> ReadMsgpack(std::string name, std::unique_ptr<RandomAccessFile> file, DiagnosticSink& sink) {
  WeightFile wf;
  wf.name = std::move(name);
  wf.size = file->size();
  wf.header_read = true;
  const FileReporter report(wf.name, sink);
  Walker walker(*file, report, wf.tensors);
  auto valid = walker.Run();
  if (!valid) return valid.error();
  wf.valid = *valid;
  wf.BuildNameIndex();
  wf.file = std::move(file);
  return wf;
}

std::optional<std::string> SniffHead(const FileHead& head) { return Sniff(head.bytes); }

void MsgpackInInventory(std::span<const std::byte> /*head*/, const std::string& /*description*/, InventoryItem& item) {
  item.kind = InventoryClass::kAnalysedWeights;
  item.description = "a Flax msgpack checkpoint";
}

}  // namespace

std::optional<std::string> Sniff(std::span<const std::byte> head) {
  if (head.empty()) return std::nullopt;
  const auto first = std::to_integer<std::uint8_t>(head[0]);
  std::size_t key_at = 0;
  if (first >= 0x81U && first <= 0x8fU) {
    key_at = 1;
  } else if ((first == 0xdeU && head.size() > 3) || (first == 0xdfU && head.size() > 5)) {
    key_at = first == 0xdeU ? 3 : 5;
    bool empty = true;
    for (std::size_t i = 1; i < key_at; ++i) empty &= head[i] == std::byte{0};
    if (empty) return std::nullopt;
  } else {
    return std::nullopt;
  }
  if (head.size() <= key_at) return std::nullopt;
  const auto key = std::to_integer<std::uint8_t>(head[key_at]);
  const bool str = (key >= 0xa0U && key <= 0xbfU) || (key >= 0xd9U && key <= 0xdbU);
  if (!str) return std::nullopt;
  return "a msgpack (Flax) checkpoint";
}

}  // namespace msgpack

constexpr std::array<NameSuffix, 1> kMsgpackNames{{
    {".msgpack", std::nullopt, "a Flax msgpack checkpoint"},
}};

const InputFormat formats::kMsgpackFormat{
    .kind = InputKind::kMsgpack,
    .sniff = &msgpack::SniffHead,
    .read = &msgpack::ReadMsgpack,
    .inventory = &msgpack::MsgpackInInventory,
    .container = PolyglotContainer::kMsgpack,
    .names = kMsgpackNames,
};

}  // namespace ckpt
