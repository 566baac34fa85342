#include "lib/formats/pickle/pickle_analyser.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cctype>
#include <cstring>
#include <set>
#include <string_view>
#include <unordered_map>

#include "lib/core/checked_math.h"
#include "lib/core/text.h"
#include "lib/formats/pickle/compat_pickle_names.inc"
#include "lib/formats/pickle/pickle_opcodes.h"
#include "lib/formats/pickle/pickle_policy.h"
#include "lib/io/file_cursor.h"

namespace ckpt::pickle {

void Budget::ScaleTo(std::uint64_t pickle_bytes) {
  const std::uint64_t p = pickle_bytes;
  auto times = [&](std::uint64_t k) { return p > UINT64_MAX / k ? UINT64_MAX : p * k; };
  max_values = std::max(max_values, times(4));
  max_text_bytes = std::max(max_text_bytes, times(2));
  max_opcodes = std::max(max_opcodes, p);
  max_path_bytes = std::max(max_path_bytes, times(8));
}

std::string DescribeLimit(std::uint64_t limit) {
  if (limit == Budget::kMinValues) return "2^21";
  if (limit == Budget::kMinOpcodes) return "2^24";
  return std::to_string(limit);
}

std::string DescribeByteLimit(std::uint64_t limit) {
  return limit == Budget::kMinTextBytes ? std::string("64 MiB") : std::to_string(limit) + " bytes";
}
namespace {

// numpy.dtype's first argument as joblib writes it: a kind letter and a size ("f4", "O8",
// "V56", "U10"), without byte order (that comes with BUILD).
std::optional<NumpyDtypeValue> ParseNumpyCode(std::string_view code) {
  if (code.size() < 2 || code.size() > 12) return std::nullopt;
  const char kind = code[0];
  const std::string_view digits = code.substr(1);
  if (digits.find_first_not_of("0123456789") != std::string_view::npos || digits[0] == '0') return std::nullopt;
  std::uint64_t n = 0;
  for (char c : digits) n = n * 10 + static_cast<std::uint64_t>(c - '0');
  NumpyDtypeValue dtype;
  dtype.code = std::string(code);
  dtype.fixed_size = true;
  if (const NumpyDescr* numeric = FindNumpyDescr(code)) {
    dtype.itemsize = numeric->size;
  } else if (kind == 'O' && n == 8) {
    dtype.itemsize = 8;
    dtype.holds_objects = true;
  } else if ((kind == 'M' || kind == 'm') && n == 8) {
    dtype.itemsize = 8;
  } else if (kind == 'V' || kind == 'S' || kind == 'a') {
    dtype.itemsize = n;
    dtype.fixed_size = false;
  } else if (kind == 'U') {
    dtype.itemsize = n * 4;  // UCS-4
    dtype.fixed_size = false;
  } else {
    return std::nullopt;
  }
  return dtype;
}

struct CompatName {
  std::string_view module, name, new_module, new_name;
};
struct CompatModule {
  std::string_view module, new_module;
};
#define CKPT_COMPAT_NAME_ROW(m, n, m2, n2) CompatName{m, n, m2, n2},
#define CKPT_COMPAT_MODULE_ROW(m, m2) CompatModule{m, m2},
constexpr CompatName kCompatNames[] = {CKPT_COMPAT_NAMES(CKPT_COMPAT_NAME_ROW)};
constexpr CompatModule kCompatModules[] = {CKPT_COMPAT_MODULES(CKPT_COMPAT_MODULE_ROW)};
#undef CKPT_COMPAT_NAME_ROW
#undef CKPT_COMPAT_MODULE_ROW

// A pickle that imports a model scanner can patch or fool it before it reports.
bool IsScannerModule(std::string_view module) {
  const std::string_view root = module.substr(0, module.find('.'));
  for (std::string_view s : {"fickling", "picklescan", "modelscan", "modelaudit", "model_audit", "saferpickle",
                             "modelscanner", "ckpt_audit", "pickle_scanner"}) {
    if (root == s) return true;
  }
  return false;
}

bool HasDunderSegment(std::string_view dotted) {
  std::size_t start = 0;
  while (start <= dotted.size()) {
    const std::size_t dot = std::min(dotted.find('.', start), dotted.size());
    const std::string_view part = dotted.substr(start, dot - start);
    if (part.size() > 4 && part.starts_with("__") && part.ends_with("__")) return true;
    start = dot + 1;
  }
  return false;
}

std::string Escaped(std::string_view text, char quote) {
  std::string out;
  for (const char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    if (c == '\\' || c == static_cast<unsigned char>(quote)) {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c < 0x20 || c >= 0x7f) {
      static constexpr char kHex[] = "0123456789abcdef";
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 15];
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

std::string Quoted(std::string_view text, std::size_t limit = 80) {
  const bool cut = text.size() > limit;
  return "'" + Escaped(text.substr(0, limit), '\'') + (cut ? "...'" : "'");
}

bool ValidUtf8(std::string_view s) {
  std::size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<unsigned char>(s[i]);
    std::size_t extra = 0;
    std::uint32_t cp = 0;
    if (c < 0x80) {
      ++i;
      continue;
    }
    if ((c & 0xE0) == 0xC0) {
      extra = 1;
      cp = c & 0x1F;
    } else if ((c & 0xF0) == 0xE0) {
      extra = 2;
      cp = c & 0x0F;
    } else if ((c & 0xF8) == 0xF0) {
      extra = 3;
      cp = c & 0x07;
    } else {
      return false;
    }
    if (i + extra >= s.size()) return false;
    for (std::size_t k = 1; k <= extra; ++k) {
      const auto cc = static_cast<unsigned char>(s[i + k]);
      if ((cc & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (cc & 0x3F);
    }
    if ((extra == 1 && cp < 0x80) || (extra == 2 && cp < 0x800) || (extra == 3 && (cp < 0x10000 || cp > 0x10FFFF))) {
      return false;
    }
    i += extra + 1;  // surrogates pass: CPython decodes with 'surrogatepass'
  }
  return true;
}

// The STRING opcode's argument: a quoted repr, escapes decoded (latin-1 bytes as code points).
std::optional<std::string> DecodeStringLiteral(std::string_view line) {
  if (line.size() < 2 || (line.front() != '\'' && line.front() != '"') || line.back() != line.front()) {
    return std::nullopt;  // CPython: "the STRING opcode argument must be quoted"
  }
  line = line.substr(1, line.size() - 2);
  std::string out;
  for (std::size_t i = 0; i < line.size(); ++i) {
    char c = line[i];
    if (c != '\\' || i + 1 == line.size()) {
      AppendUtf8(out, static_cast<unsigned char>(c));
      continue;
    }
    c = line[++i];
    switch (c) {
      case 'n':
        out += '\n';
        break;
      case 't':
        out += '\t';
        break;
      case 'r':
        out += '\r';
        break;
      case '\\':
        out += '\\';
        break;
      case '\'':
        out += '\'';
        break;
      case '"':
        out += '"';
        break;
      case 'a':
        out += '\a';
        break;
      case 'b':
        out += '\b';
        break;
      case 'f':
        out += '\f';
        break;
      case 'v':
        out += '\v';
        break;
      case '\n':
        break;
      case 'x': {
        if (i + 2 >= line.size()) return std::nullopt;
        const int hi = HexDigit(line[i + 1]);
        const int lo = HexDigit(line[i + 2]);
        if (hi < 0 || lo < 0) return std::nullopt;
        AppendUtf8(out, static_cast<std::uint32_t>(hi * 16 + lo));
        i += 2;
        break;
      }
      default:
        if (c >= '0' && c <= '7') {
          auto v = static_cast<std::uint32_t>(c - '0');
          for (int k = 0; k < 2 && i + 1 < line.size() && line[i + 1] >= '0' && line[i + 1] <= '7'; ++k) {
            v = v * 8 + static_cast<std::uint32_t>(line[++i] - '0');
          }
          AppendUtf8(out, v & 0xFF);
        } else {
          out += '\\';
          AppendUtf8(out, static_cast<unsigned char>(c));
        }
    }
  }
  return out;
}

// The UNICODE opcode's argument: raw-unicode-escape (\uXXXX, \UXXXXXXXX; other bytes latin-1).
std::optional<std::string> DecodeRawUnicodeEscape(std::string_view line) {
  std::string out;
  for (std::size_t i = 0; i < line.size(); ++i) {
    if (line[i] == '\\' && i + 1 < line.size() && (line[i + 1] == 'u' || line[i + 1] == 'U')) {
      const std::size_t digits = line[i + 1] == 'u' ? 4 : 8;
      if (i + 1 + digits >= line.size()) return std::nullopt;
      std::uint32_t cp = 0;
      for (std::size_t k = 0; k < digits; ++k) {
        const int d = HexDigit(line[i + 2 + k]);
        if (d < 0) return std::nullopt;
        cp = cp * 16 + static_cast<std::uint32_t>(d);
      }
      if (cp > 0x10FFFF) return std::nullopt;
      AppendUtf8(out, cp);
      i += 1 + digits;
      continue;
    }
    AppendUtf8(out, static_cast<unsigned char>(line[i]));
  }
  return out;
}

// An integer as Python's int() reads the lines of INT and LONG (base 0: 0x, 0o, 0b
// prefixes; a decimal number has no leading zero unless it is all zeros) and of GET and PUT
// (base 10). Whitespace around it and single underscores between digits are allowed.
struct ParsedInt {
  bool ok = false;
  bool big = false;  // past int64
  std::int64_t value = 0;
};
ParsedInt ParseInt(std::string_view text, bool base_zero) {
  auto space = [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v'; };
  while (!text.empty() && space(text.front())) text.remove_prefix(1);
  while (!text.empty() && space(text.back())) text.remove_suffix(1);
  ParsedInt out;
  bool negative = false;
  if (!text.empty() && (text.front() == '-' || text.front() == '+')) {
    negative = text.front() == '-';
    text.remove_prefix(1);
  }
  unsigned base = 10;
  if (base_zero && text.size() >= 2 && text[0] == '0') {
    const char p = static_cast<char>(text[1] | 0x20);
    base = p == 'x' ? 16 : p == 'o' ? 8 : p == 'b' ? 2 : 10;
    if (base != 10) {
      text.remove_prefix(2);
      if (!text.empty() && text.front() == '_') text.remove_prefix(1);  // 0x_1f
    } else if (text.find_first_not_of("0_") != std::string_view::npos) {
      return out;  // int("010", 0) is an error
    }
  }
  if (text.empty() || text.front() == '_' || text.back() == '_' || text.find("__") != std::string_view::npos) {
    return out;
  }
  std::uint64_t v = 0;
  for (char c : text) {
    if (c == '_') continue;
    const int d = HexDigit(c);
    if (d < 0 || static_cast<unsigned>(d) >= base) return out;
    auto next = CheckedMul(v, base);
    next = next ? CheckedAdd(*next, static_cast<std::uint64_t>(d)) : std::nullopt;
    if (!next) out.big = true;
    if (!out.big) v = *next;
  }
  out.ok = true;
  const std::uint64_t limit = static_cast<std::uint64_t>(INT64_MAX) + (negative ? 1U : 0U);
  if (v > limit) out.big = true;
  if (!out.big) out.value = negative ? static_cast<std::int64_t>(0 - v) : static_cast<std::int64_t>(v);
  return out;
}

}  // namespace

bool IsOpcode(std::byte byte) { return FindOpcode(std::to_integer<unsigned char>(byte)) != nullptr; }

namespace {

bool IsFloatLine(std::string_view line) {
  return !line.empty() && line.find_first_not_of("0123456789+-.eEinfatyINFATY") == std::string_view::npos;
}

// A module or attribute path: dotted identifiers (ASCII, or UTF-8 beyond it).
bool IsNameLine(std::string_view line) {
  if (line.empty()) return false;
  for (char c : line) {
    const auto u = static_cast<unsigned char>(c);
    if (!(std::isalnum(u) != 0 || c == '_' || c == '.' || u >= 0x80)) return false;
  }
  return true;
}

// Whether CPython accepts `t` as a text-line argument of this syntax.
bool LineParses(LineSyntax syntax, const std::string& t) {
  switch (syntax) {
    case LineSyntax::kInt:
      return t == "00" || t == "01" || ParseInt(t, true).ok;
    case LineSyntax::kLong:
      return ParseInt(t.ends_with('L') ? t.substr(0, t.size() - 1) : t, true).ok;
    case LineSyntax::kMemoKey:
      return ParseInt(t, false).ok;
    case LineSyntax::kFloat:
      return IsFloatLine(t);
    case LineSyntax::kQuoted:
      return t.size() >= 2 && (t.front() == '\'' || t.front() == '"') && t.back() == t.front();
    case LineSyntax::kName:
      return IsNameLine(t);
    case LineSyntax::kAny:
      return true;
    case LineSyntax::kNone:
      break;
  }
  return false;
}

}  // namespace

IoResult<bool> ParsesAsPickles(const RandomAccessFile& file, std::uint64_t max_bytes) {
  const auto Failed = [](const boost::system::error_code& e) {
    return IoResult<bool>(boost::system::in_place_error, e);
  };
  const std::uint64_t size = file.size();
  const std::uint64_t limit = std::min(size, max_bytes);
  FileCursor cursor(file, 0, size);
  auto take = [&](std::size_t n) { return cursor.Take(n); };
  // A text line into `out`; false when it does not end (or runs past 4 KiB).
  auto line = [&](std::string& out) -> IoResult<bool> {
    out.clear();
    while (true) {
      auto c = take(1);
      if (!c) return Failed(c.error());
      if (!*c || out.size() > 4096) return false;
      if ((**c)[0] == '\n') return true;
      out += (**c)[0];
    }
  };
  auto le = [](std::string_view b) {
    std::uint64_t v = 0;
    for (std::size_t i = b.size(); i-- > 0;) v = (v << 8) | static_cast<unsigned char>(b[i]);
    return v;
  };
  while (cursor.position() < limit) {
    auto code = take(1);
    if (!code) return Failed(code.error());
    if (!*code) return false;
    const Opcode* opcode = FindOpcode(static_cast<unsigned char>((**code)[0]));
    if (opcode == nullptr) return false;
    const unsigned char op = opcode->code;
    if (opcode->fixed > 0) {
      auto arg = take(opcode->fixed);
      if (!arg) return Failed(arg.error());
      if (!*arg) return false;
      if (op == 0x80 && static_cast<unsigned char>((**arg)[0]) > 5) return false;
    } else if (opcode->length > 0) {
      auto prefix = take(opcode->length);
      if (!prefix) return Failed(prefix.error());
      if (!*prefix) return false;
      const std::uint64_t n = le(**prefix);
      if (n > cursor.left()) return false;
      cursor.Skip(n);  // skipped, not read
    } else {
      std::string t;
      for (std::size_t k = 0; k < opcode->lines; ++k) {
        auto l = line(t);
        if (!l) return Failed(l.error());
        if (!*l) return false;
        if (!LineParses(opcode->line, t)) return false;
      }
    }
    // CPython's unpickler returns at the first STOP, having imported and called whatever came
    // before it: a pickle up to there, whatever follows (its trailing bytes are a finding).
    if (op == '.') return true;
  }
  return cursor.position() >= limit && limit < size;  // no refusal within the walk's bound
}

Analyser::Analyser(std::string file, DiagnosticSink& sink, StorageMode mode, const FindClassPolicy& policy)
    : report_(std::move(file), sink), mode_(mode), policy_(policy) {}

void Analyser::Report(Diag kind, std::uint64_t offset, std::string message) {
  Report(kind, offset, std::move(message), std::nullopt, std::nullopt);
}

void Analyser::Report(Diag kind, std::uint64_t offset, std::string message, std::optional<std::string> global,
                      std::optional<std::string> call) {
  switch (kind) {
    case Diag::kPickleGlobalUnsafe:
    case Diag::kPickleCallUnsafe:
    case Diag::kPickleNestedLoader:
    case Diag::kPickleScannerImport:
    case Diag::kPickleArgumentInvalid:
    case Diag::kPickleBuildUnsafe:
    case Diag::kPickleExtensionCode:
      unsafe_ = true;
      break;
    default:
      break;
  }
  report_(kind, offset, std::move(message), std::move(global), std::move(call));
}

std::optional<std::string> Analyser::GlobalOf(ValueId id) const {
  const Value* v = &values_[id];
  if (v->kind == Kind::kObject && v->aux < calls_.size()) v = &values_[calls_[v->aux].callee];
  if (v->kind != Kind::kGlobal) return std::nullopt;
  const GlobalName& g = globals_[v->aux];
  return Escaped(g.module + "." + g.name, 0);
}

std::optional<std::string> Analyser::RenderedCallOf(ValueId id) const {
  if (values_[id].kind != Kind::kObject) return std::nullopt;
  return Render(id);
}

ValueId Analyser::NewValue(Value v) {
  values_.push_back(v);
  return static_cast<ValueId>(values_.size() - 1);
}

ValueId Analyser::NewText(Kind kind, std::string text) {
  texts_.push_back(std::move(text));
  Value v;
  v.kind = kind;
  v.aux = static_cast<std::uint32_t>(texts_.size() - 1);
  return NewValue(v);
}

ValueId Analyser::NewNumber(Kind kind, std::int64_t n) {
  Value v;
  v.kind = kind;
  if (kind != Kind::kFloat && n >= INT32_MIN && n <= INT32_MAX) {
    v.flags = kInline;
    v.aux = static_cast<std::uint32_t>(static_cast<std::int32_t>(n));
  } else {
    numbers_.push_back(n);
    v.aux = static_cast<std::uint32_t>(numbers_.size() - 1);
  }
  return NewValue(v);
}

ValueId Analyser::NewContainer(Kind kind, std::vector<ValueId> items) {
  Value v;
  v.kind = kind;
  v.aux = kNoItems;  // an empty container costs no span (an EMPTY_LIST storm is 16 bytes a value)
  if (!items.empty()) {
    const auto size = static_cast<std::uint32_t>(items.size());
    spans_.push_back({static_cast<std::uint32_t>(pool_.size()), size, size});
    pool_.insert(pool_.end(), items.begin(), items.end());
    v.aux = static_cast<std::uint32_t>(spans_.size() - 1);
  }
  return NewValue(v);
}

std::span<const ValueId> Analyser::ItemsOf(const Value& v) const {
  const bool container = v.kind == Kind::kTuple || v.kind == Kind::kList || v.kind == Kind::kDict ||
                         v.kind == Kind::kSet || v.kind == Kind::kFrozenSet;
  if (!container || v.aux == kNoItems) return {};  // `aux` of other kinds indexes other pools
  const ItemSpan& s = spans_[v.aux];
  return std::span<const ValueId>(pool_).subspan(s.begin, s.size);
}

void Analyser::AppendItems(Value& container, std::span<const ValueId> items) {
  if (items.empty()) return;
  if (container.aux == kNoItems) {
    container.aux = static_cast<std::uint32_t>(spans_.size());
    spans_.push_back({static_cast<std::uint32_t>(pool_.size()), 0, 0});
  }
  ItemSpan& s = spans_[container.aux];
  const auto n = static_cast<std::uint32_t>(items.size());
  if (s.begin + s.size == pool_.size()) {  // the last span: grow in place
    pool_.insert(pool_.end(), items.begin(), items.end());
    s.size += n;
    s.capacity = s.size;
  } else if (s.capacity - s.size >= n) {  // room reserved when it last moved
    std::copy(items.begin(), items.end(), pool_.begin() + s.begin + s.size);
    s.size += n;
  } else {  // move to the end with twice the room: appends stay amortised O(1)
    const std::uint32_t capacity = std::max<std::uint32_t>(4, 2 * (s.size + n));
    const auto begin = static_cast<std::uint32_t>(pool_.size());
    pool_.resize(pool_.size() + capacity);
    std::copy_n(pool_.begin() + s.begin, s.size, pool_.begin() + begin);
    std::copy(items.begin(), items.end(), pool_.begin() + begin + s.size);
    s = {begin, s.size + n, capacity};
  }
}

std::string Analyser::Render(ValueId id) const {
  std::string out;
  RenderInto(id, 0, out);
  return out;
}

void Analyser::RenderInto(ValueId id, int depth, std::string& out) const {
  constexpr std::size_t kLimit = 240;
  if (out.size() > kLimit) return;
  const Value& v = values_[id];
  auto list = [&](const char* open, const char* close, bool dict) {
    out += open;
    const auto& items = ItemsOf(v);
    if (depth >= 3 && !items.empty()) {
      out += "...";
    } else {
      for (std::size_t i = 0; i < items.size(); ++i) {
        if (out.size() > kLimit) {
          out += "...";
          break;
        }
        if (i > 0) out += dict && i % 2 == 1 ? ": " : ", ";
        RenderInto(items[i], depth + 1, out);
      }
      if (v.kind == Kind::kTuple && items.size() == 1) out += ",";
    }
    out += close;
  };
  switch (v.kind) {
    case Kind::kUnknown:
      out += "<unknown>";
      break;
    case Kind::kNone:
      out += "None";
      break;
    case Kind::kBool:
      out += NumberOf(v) != 0 ? "True" : "False";
      break;
    case Kind::kInt:
      out += std::to_string(NumberOf(v));
      break;
    case Kind::kBigInt:
      out += "<int of " + std::to_string(texts_[v.aux].size()) + " bytes>";
      break;
    case Kind::kFloat: {
      char buf[32];
      std::snprintf(buf, sizeof buf, "%.17g", std::bit_cast<double>(NumberOf(v)));
      out += buf;
      break;
    }
    case Kind::kStr:
      out += Quoted(texts_[v.aux]);
      break;
    case Kind::kBytes:
      out += "b" + Quoted(texts_[v.aux]);
      break;
    case Kind::kByteArray:
      out += "bytearray(b" + Quoted(texts_[v.aux]) + ")";
      break;
    case Kind::kTuple:
      list("(", ")", false);
      break;
    case Kind::kList:
      list("[", "]", false);
      break;
    case Kind::kDict:
      list((v.flags & kOrdered) != 0 ? "OrderedDict({" : "{", (v.flags & kOrdered) != 0 ? "})" : "}", true);
      break;
    case Kind::kSet:
      list("{", "}", false);
      break;
    case Kind::kFrozenSet:
      list("frozenset({", "})", false);
      break;
    case Kind::kGlobal:
      out += Escaped(globals_[v.aux].module + "." + globals_[v.aux].name, 0);
      break;
    case Kind::kObject: {
      const Call& call = calls_[v.aux];
      RenderInto(call.callee, depth + 1, out);
      const Value& args = values_[call.args];
      if (args.kind == Kind::kTuple) {
        out += "(";
        const auto& items = ItemsOf(args);
        for (std::size_t i = 0; i < items.size() && out.size() <= kLimit; ++i) {
          if (i > 0) out += ", ";
          if (depth >= 3) {
            out += "...";
            break;
          }
          RenderInto(items[i], depth + 1, out);
        }
        out += ")";
      } else {
        out += "(*";
        RenderInto(call.args, depth + 1, out);
        out += ")";
      }
      break;
    }
    case Kind::kStorage:
      out += "<storage " + Quoted(storages_[v.aux].key, 40) + ">";
      break;
    case Kind::kTensor:
      out += "<tensor>";
      break;
    case Kind::kDevice:
      out += "device(" + Quoted(texts_[v.aux], 40) + ")";
      break;
    case Kind::kJoblibWrapper:
      out += "joblib.numpy_pickle.NumpyArrayWrapper()";
      break;
    case Kind::kNumpyDtype:
      out += "dtype(" + Quoted(numpy_dtypes_[v.aux].Descr(), 40) + ")";
      break;
    case Kind::kEstimator:
      out += "<" + Escaped(estimators_[v.aux].module + "." + estimators_[v.aux].name, 0) + " object>";
      break;
    case Kind::kNdarrayPending:
      out += "numpy.ndarray()";
      break;
  }
}

// The interpreter for one pickle: its stack, marks and memo; the values live in the Analyser.
class Analyser::Machine {
 public:
  Machine(Analyser& a, const RandomAccessFile& file, std::uint64_t begin, std::uint64_t end)
      : Machine(a, file, begin, end, a.policy_) {}
  // A pickle read by another loader's find_class (an object array's, inside a joblib file).
  Machine(Analyser& a, const RandomAccessFile& file, std::uint64_t begin, std::uint64_t end,
          const FindClassPolicy& policy)
      : a_(a), policy_(policy), file_(file), pos_(begin), end_(end) {}

  IoResult<PickleEnd> Run();

 private:
  // A failure that ends this pickle (CPython raises); reported once.
  struct Stop {};

  // The next opcode (charged to the opcode budget); Stop at the stream's end or an unknown byte.
  const Opcode& NextOpcode();
  // One function per opcode family (pickle_opcodes.h). StackOp: true at STOP.
  bool StackOp(unsigned char op, PickleEnd& result);
  void NumberOp(unsigned char op);
  void TextOp(unsigned char op);
  void ContainerOp(unsigned char op);
  void MemoOp(unsigned char op);
  void CallOp(unsigned char op);
  void FramingOp(unsigned char op);
  // Argument readers: each reports a truncation and throws Stop (or a read error).
  std::string_view Need(std::size_t n);
  std::string NextLine();
  static std::uint64_t Le(std::string_view b);
  void PushText(Kind kind, std::uint64_t n);
  ValueId PopOrStop();
  std::vector<ValueId> PopMarkOrStop();
  std::uint64_t LineKey();  // GET and PUT (protocol 0): the memo key as a decimal line
  void MemoGet(std::uint64_t key);
  void MemoPut(std::uint64_t key);

  // Its own buffered read, not FileCursor: this is the per-opcode path, and the shared
  // cursor measured 40% slower here (a DUP storm: 26 ms against 37 ms).
  IoResult<bool> Fill(std::size_t n);
  IoResult<std::optional<std::string_view>> Take(std::size_t n);
  IoResult<std::optional<std::string>> Line();
  bool ChargeText(std::uint64_t n, std::uint64_t at);
  bool ChargeValue();

  void Push(ValueId id);
  std::optional<ValueId> Pop();
  std::optional<std::vector<ValueId>> PopMark();
  ValueId Top();
  ValueId Unknown() { return a_.NewValue(Value{}); }
  ValueId Int(std::int64_t n) { return a_.NewNumber(Kind::kInt, n); }

  void Malformed(const std::string& message) { a_.Report(Diag::kPickleStreamMalformed, op_at_, message); }
  // Whether CPython could hash `id`: a list, dict, set or bytearray cannot, nor a tuple or
  // frozenset holding one (walked without recursion; each value visited inside one is
  // charged to the values budget, so a shared huge tuple used as a key cannot stall it).
  bool Unhashable(ValueId id);
  // Reports the first unhashable key (every `step`-th of `items`) of what `opcode` builds
  // or fills (`target`, when it exists already); true when one was found.
  bool RefuseUnhashable(std::span<const ValueId> items, std::size_t step, std::optional<ValueId> target, bool dict,
                        const char* opcode);
  ValueId Global(std::string module, std::string name, const char* opcode);
  ValueId CallOf(ValueId callee, ValueId args, const char* opcode);
  ValueId PersistentLoad(ValueId pid);
  // BUILD: the value that replaces the target on the stack, when BUILD makes a new one
  // (joblib's wrapper becomes its array, numpy's _reconstruct its ndarray).
  std::optional<ValueId> Build(ValueId target, ValueId state);
  // joblib's models (formats.md section 3).
  ValueId JoblibCall(Known known, const std::vector<ValueId>& argv, ValueId call, ValueId callee, const char* opcode);
  ValueId NewEstimator(ValueId cls, bool internal);
  void BuildNumpyDtype(NumpyDtypeValue& dtype, ValueId state);
  std::optional<ValueId> BuildJoblibArray(ValueId state);
  std::optional<ValueId> BuildNdarray(ValueId state);
  bool StateHoldsGlobal(ValueId state);
  void ArrayInvalid(const std::string& why) {
    a_.Report(Diag::kJoblibArrayInvalid, op_at_, OpName() + " builds a joblib NumpyArrayWrapper " + why + ".");
  }
  void AddItems(ValueId target, const std::vector<ValueId>& items, const char* opcode);

  // Call models.
  ValueId RebuildTensor(Known which, const std::vector<ValueId>& args, ValueId call);
  ValueId RebuildParameter(Known which, const std::vector<ValueId>& args, ValueId call);
  bool IsEmptyHooks(ValueId id) const;
  std::optional<std::vector<std::uint64_t>> IntTuple(ValueId id) const;
  std::optional<std::uint64_t> NonNegative(ValueId id) const;
  void Invalid(ValueId call, const std::string& why) {
    a_.Report(Diag::kPickleArgumentInvalid, op_at_, OpName() + " calls " + a_.Render(call) + ": " + why + ".");
  }
  std::string OpName() const { return std::string(op_name_) + " at byte " + std::to_string(op_at_); }

  Analyser& a_;
  const FindClassPolicy& policy_;
  const RandomAccessFile& file_;
  std::uint64_t pos_;
  std::uint64_t end_;
  std::vector<std::byte> buffer_;
  std::uint64_t buffer_at_ = 0;
  std::vector<ValueId> stack_;
  std::vector<std::size_t> marks_;
  // The memo: keys below kDenseMemo in a vector (picklers number keys from 0), the rest in a
  // map bounded by kMaxSparseMemo (no pickler writes them; each costs a map node).
  static constexpr std::uint64_t kDenseMemo = std::uint64_t{1} << 22;
  static constexpr std::size_t kMaxSparseMemo = 1 << 16;
  static constexpr ValueId kEmptySlot = 0xFFFFFFFFU;
  std::vector<ValueId> dense_memo_;
  std::unordered_map<std::uint64_t, ValueId> sparse_memo_;
  std::uint64_t memo_count_ = 0;  ///< len(memo): the keys written
  int proto_ = 0;
  std::uint64_t op_at_ = 0;
  // The current FRAME's end (0: none yet) and whether a framing finding was reported.
  std::uint64_t frame_end_ = 0;
  std::uint64_t resume_at_ = 0;  // where the file read goes on once the current frame is read (0: none)
  bool frame_reported_ = false;
  void FrameInvalid(std::uint64_t at, const std::string& message) {
    if (frame_reported_) return;
    frame_reported_ = true;
    a_.Report(Diag::kPickleFrameInvalid, at, message);
  }
  const char* op_name_ = "";
};

IoResult<bool> Analyser::Machine::Fill(std::size_t n) {
  // The buffer holds [buffer_at_, buffer_at_ + size); refill from pos_ when short.
  const std::uint64_t have_end = buffer_at_ + buffer_.size();
  if (pos_ >= buffer_at_ && pos_ <= have_end && n <= have_end - pos_) return true;
  if (n > end_ - pos_) return false;
  const std::uint64_t want = std::max<std::uint64_t>(n, std::min<std::uint64_t>(1 << 20, end_ - pos_));
  buffer_.resize(static_cast<std::size_t>(want));
  buffer_at_ = pos_;
  if (auto read = file_.ReadAt(pos_, buffer_); !read)
    return IoResult<bool>(boost::system::in_place_error, read.error());
  return true;
}

IoResult<std::optional<std::string_view>> Analyser::Machine::Take(std::size_t n) {
  auto filled = Fill(n);
  if (!filled) return filled.error();
  if (!*filled) return std::optional<std::string_view>();
  const auto* data = reinterpret_cast<const char*>(buffer_.data()) + (pos_ - buffer_at_);
  pos_ += n;
  return std::optional<std::string_view>(std::string_view(data, n));
}

IoResult<std::optional<std::string>> Analyser::Machine::Line() {
  std::string out;
  while (true) {
    auto byte = Take(1);
    if (!byte) return byte.error();
    if (!*byte) return std::optional<std::string>();
    if ((**byte)[0] == '\n') return std::optional<std::string>(std::move(out));
    if (!ChargeText(1, op_at_)) return std::optional<std::string>();
    out += (**byte)[0];
  }
}

bool Analyser::Machine::ChargeText(std::uint64_t n, std::uint64_t at) {
  Budget& b = a_.budget_;
  if (b.exceeded) return false;
  if (n > b.max_text_bytes - b.text_bytes) {
    b.exceeded = true;
    a_.Report(Diag::kPickleBudgetExceeded, at,
              "The pickle asks for " + std::to_string(n) + " more bytes of strings (" + std::to_string(b.text_bytes) +
                  " so far) at byte " + std::to_string(at) + ", past the budget of " +
                  DescribeByteLimit(b.max_text_bytes) + " per file: analysis stops here.");
    return false;
  }
  b.text_bytes += n;
  return true;
}

bool Analyser::Machine::ChargeValue() {
  Budget& b = a_.budget_;
  if (b.exceeded) return false;
  if (++b.values > b.max_values) {
    b.exceeded = true;
    a_.Report(Diag::kPickleBudgetExceeded, op_at_,
              "The pickle makes more than " + DescribeLimit(b.max_values) +
                  " values (pushes, DUP, GET and memo copies) by byte " + std::to_string(op_at_) +
                  " (an expansion attack?): analysis stops here.");
    return false;
  }
  return true;
}

void Analyser::Machine::Push(ValueId id) {
  if (!ChargeValue()) throw Stop{};
  stack_.push_back(id);
}

std::optional<ValueId> Analyser::Machine::Pop() {
  const std::size_t fence = marks_.empty() ? 0 : marks_.back();
  if (stack_.size() <= fence) {
    Malformed(OpName() + " pops from an empty stack (unpickling stack underflow).");
    return std::nullopt;
  }
  const ValueId v = stack_.back();
  stack_.pop_back();
  return v;
}

ValueId Analyser::Machine::Top() {
  const std::size_t fence = marks_.empty() ? 0 : marks_.back();
  if (stack_.size() <= fence) {
    Malformed(OpName() + " needs a value on the stack, and there is none (unpickling stack underflow).");
    throw Stop{};
  }
  return stack_.back();
}

std::optional<std::vector<ValueId>> Analyser::Machine::PopMark() {
  if (marks_.empty()) {
    Malformed(OpName() + " needs a MARK, and none is open (could not find MARK).");
    return std::nullopt;
  }
  const std::size_t at = marks_.back();
  marks_.pop_back();
  std::vector<ValueId> items(stack_.begin() + static_cast<std::ptrdiff_t>(at), stack_.end());
  stack_.resize(at);
  return items;
}

ValueId Analyser::Machine::Global(std::string module, std::string name, const char* opcode) {
  // find_class: protocol 0-2 names are renamed as _compat_pickle says (fix_imports).
  if (proto_ < 3) {
    bool renamed = false;
    for (const CompatName& c : kCompatNames) {
      if (c.module == module && c.name == name) {
        module = std::string(c.new_module);
        name = std::string(c.new_name);
        renamed = true;
        break;
      }
    }
    if (!renamed) {
      for (const CompatModule& c : kCompatModules) {
        if (c.module == module) {
          module = std::string(c.new_module);
          break;
        }
      }
    }
  }
  a_.globals_.push_back({module, name, op_at_});
  Value v;
  v.kind = Kind::kGlobal;
  v.aux = static_cast<std::uint32_t>(a_.globals_.size() - 1);
  const ValueId id = a_.NewValue(v);
  const std::string dotted = Escaped(module + "." + name, 0);
  const std::string where = std::string(opcode) + " at byte " + std::to_string(op_at_);
  if (IsScannerModule(module)) {
    a_.Report(Diag::kPickleScannerImport, op_at_,
              where + " imports " + dotted +
                  ", a module of a model scanner: a pickle that reaches into its scanner can patch or fool it.");
  } else if (policy_.IsNestedLoader(module, name)) {
    a_.Report(Diag::kPickleNestedLoader, op_at_,
              where + " imports " + dotted +
                  ", a nested loader: whatever bytes it is given are unpickled (and run) in turn, out of this "
                  "analysis' sight.");
  } else if (policy_.Classify(module, name) == Known::kNotAllowed) {
    std::string why(policy_.NotAdmittedWhy());
    if (HasDunderSegment(module + "." + name)) why = "a dunder attribute, which reaches interpreter internals";
    a_.Report(Diag::kPickleGlobalUnsafe, op_at_,
              where + " imports " + dotted + " (" + why + "); loading the file imports it.", dotted, std::nullopt);
  }
  return id;
}

bool Analyser::Machine::IsEmptyHooks(ValueId id) const {
  const Value& v = a_.values_[id];
  return v.kind == Kind::kDict && (v.flags & kOrdered) != 0 && (v.flags & kBuilt) == 0 && a_.ItemsOf(v).empty();
}

std::optional<std::uint64_t> Analyser::Machine::NonNegative(ValueId id) const {
  const Value& v = a_.values_[id];
  if (v.kind != Kind::kInt || a_.NumberOf(v) < 0) return std::nullopt;
  return static_cast<std::uint64_t>(a_.NumberOf(v));
}

std::optional<std::vector<std::uint64_t>> Analyser::Machine::IntTuple(ValueId id) const {
  const Value& v = a_.values_[id];
  if (v.kind != Kind::kTuple && v.kind != Kind::kList) return std::nullopt;
  std::vector<std::uint64_t> out;
  for (ValueId item : a_.ItemsOf(v)) {
    auto n = NonNegative(item);
    if (!n) return std::nullopt;
    out.push_back(*n);
  }
  return out;
}

ValueId Analyser::Machine::RebuildTensor(Known which, const std::vector<ValueId>& args, ValueId call) {
  const std::size_t min_args = which == Known::kRebuildTensor ? 4 : which == Known::kRebuildTensorV3 ? 7 : 6;
  const std::size_t max_args = which == Known::kRebuildTensor ? 4 : min_args + 1;
  if (which == Known::kRebuildMeta) {
    // _rebuild_meta_tensor_no_storage(dtype, size, stride, requires_grad)
    if (args.size() != 4 || a_.values_[args[0]].kind != Kind::kGlobal) {
      Invalid(call, "it takes (dtype, size, stride, requires_grad)");
      return Unknown();
    }
  } else if (args.size() < min_args || args.size() > max_args) {
    Invalid(call, "it takes " + std::to_string(min_args) +
                      (max_args != min_args ? " or " + std::to_string(max_args) : std::string()) + " arguments, not " +
                      std::to_string(args.size()));
    return Unknown();
  }
  RebuiltTensor t;
  t.offset = op_at_;
  std::size_t shape_arg = 2;
  if (which == Known::kRebuildMeta) {
    const auto& g = a_.globals_[a_.values_[args[0]].aux];
    const TorchDtype* d = g.module == "torch" ? FindTorchDtype(g.name) : nullptr;
    if (d == nullptr) {
      Invalid(call, "its dtype is not a torch dtype");
      return Unknown();
    }
    t.torch_dtype = std::string(d->name);
    t.dtype = d->token.empty() ? nullptr : FindSafetensorsDtype(d->token);
    t.element_size = d->element_size;
    shape_arg = 1;
  } else {
    const Value& storage = a_.values_[args[0]];
    if (storage.kind != Kind::kStorage) {
      Invalid(call, "its first argument is not a storage reference");
      return Unknown();
    }
    const StorageRef& s = a_.storages_[storage.aux];
    t.storage = storage.aux;
    t.torch_dtype = s.torch_dtype;
    t.dtype = s.dtype;
    t.element_size = s.element_size;
    auto offset = NonNegative(args[1]);
    if (!offset) {
      Invalid(call, "its storage offset is not a non-negative int");
      return Unknown();
    }
    t.storage_offset = *offset;
    if (which == Known::kRebuildTensorV3) {
      const Value& dtype = a_.values_[args[6]];
      const TorchDtype* d = nullptr;
      if (dtype.kind == Kind::kGlobal && a_.globals_[dtype.aux].module == "torch") {
        d = FindTorchDtype(a_.globals_[dtype.aux].name);
      }
      if (d == nullptr || s.type_name != "UntypedStorage") {
        Invalid(call, "_rebuild_tensor_v3 takes an UntypedStorage and a torch dtype");
        return Unknown();
      }
      t.torch_dtype = std::string(d->name);
      t.dtype = d->token.empty() ? nullptr : FindSafetensorsDtype(d->token);
      t.element_size = d->element_size;
    }
  }
  auto shape = IntTuple(args[shape_arg]);
  auto stride = IntTuple(args[shape_arg + 1]);
  if (!shape || !stride || shape->size() != stride->size()) {
    Invalid(call, "its size and stride are not tuples of non-negative ints of one length");
    return Unknown();
  }
  t.shape = *shape;
  t.stride = *stride;
  if (which == Known::kRebuildTensorV2 || which == Known::kRebuildTensorV3) {
    if (a_.values_[args[4]].kind != Kind::kBool) {
      Invalid(call, "its requires_grad is not a bool");
      return Unknown();
    }
    if (!IsEmptyHooks(args[5])) {
      Invalid(call, "its backward hooks are not an empty OrderedDict");
      return Unknown();
    }
    const std::size_t metadata_arg = which == Known::kRebuildTensorV2 ? 6 : 7;
    if (args.size() > metadata_arg) {
      const Value& m = a_.values_[args[metadata_arg]];
      bool ok = m.kind == Kind::kDict || m.kind == Kind::kNone;
      if (m.kind == Kind::kDict) {
        const auto& kv = a_.ItemsOf(m);
        for (std::size_t i = 0; ok && i + 1 < kv.size(); i += 2) {
          ok = a_.values_[kv[i]].kind == Kind::kStr && a_.values_[kv[i + 1]].kind == Kind::kBool;
          // torch's lazy conjugate and negative bits: the stored bytes are not the values.
          if (ok && a_.number(kv[i + 1]) != 0) {
            t.conj |= a_.text(kv[i]) == "conj";
            t.neg |= a_.text(kv[i]) == "neg";
          }
        }
      }
      if (!ok) {
        Invalid(call, "its metadata is not a dict of str to bool");
        return Unknown();
      }
    }
  } else if (which == Known::kRebuildMeta && a_.values_[args[3]].kind != Kind::kBool) {
    Invalid(call, "its requires_grad is not a bool");
    return Unknown();
  }
  // The extent: offset + 1 + sum((size_i - 1) * stride_i) elements, every step checked.
  bool empty = false;
  for (std::uint64_t d : t.shape) empty |= d == 0;
  std::optional<std::uint64_t> extent = empty ? std::optional<std::uint64_t>(0) : std::optional<std::uint64_t>(1);
  for (std::size_t i = 0; !empty && extent && i < t.shape.size(); ++i) {
    auto step = CheckedMul(t.shape[i] - 1, t.stride[i]);
    extent = step ? CheckedAdd(*extent, *step) : std::nullopt;
  }
  std::optional<std::uint64_t> expected = 1;  // row-major strides
  t.contiguous = true;
  for (std::size_t i = t.shape.size(); i-- > 0;) {
    if (t.shape[i] != 1 && expected && t.stride[i] != *expected) t.contiguous = false;
    expected = expected ? CheckedMul(*expected, t.shape[i]) : std::nullopt;
  }
  if (!expected) t.contiguous = false;
  if (t.storage) {
    const StorageRef& s = a_.storages_[*t.storage];
    // numel is in elements of the storage's type (bytes for an untyped one)
    std::optional<std::uint64_t> capacity = s.numel;
    if (s.type_name == "UntypedStorage" && t.element_size > 0) capacity = s.numel / t.element_size;
    auto needed = extent ? CheckedAdd(t.storage_offset, *extent) : std::nullopt;
    if (!needed || (!empty && *needed > *capacity) || (empty && t.storage_offset > *capacity)) {
      Invalid(call, "its offset, size and stride reach element " +
                        (needed ? std::to_string(*needed) : std::string("past 2^64")) + " of storage " +
                        Quoted(s.key, 40) + ", which holds " + std::to_string(*capacity));
      return Unknown();
    }
  }
  t.valid = true;
  a_.tensors_.push_back(std::move(t));
  Value v;
  v.kind = Kind::kTensor;
  v.aux = static_cast<std::uint32_t>(a_.tensors_.size() - 1);
  return a_.NewValue(v);
}

ValueId Analyser::Machine::RebuildParameter(Known which, const std::vector<ValueId>& args, ValueId call) {
  const std::size_t want = which == Known::kRebuildParameter ? 3 : 4;
  if (args.size() != want || a_.values_[args[0]].kind != Kind::kTensor || a_.values_[args[1]].kind != Kind::kBool ||
      !IsEmptyHooks(args[2])) {
    Invalid(call,
            "it takes (tensor, requires_grad, empty backward hooks" + std::string(want == 4 ? ", empty state)" : ")"));
    return Unknown();
  }
  if (want == 4) {
    const Value& state = a_.values_[args[3]];
    const bool empty = state.kind == Kind::kNone ||
                       ((state.kind == Kind::kDict || state.kind == Kind::kTuple) && a_.ItemsOf(state).empty());
    if (!empty) {
      Invalid(call, "a Parameter's state must be empty");
      return Unknown();
    }
  }
  Value v = a_.values_[args[0]];
  v.flags |= kParameter;
  return a_.NewValue(v);
}

ValueId Analyser::Machine::CallOf(ValueId callee, ValueId args, const char* opcode) {
  a_.calls_.push_back({callee, args});
  Value object;
  object.kind = Kind::kObject;
  object.aux = static_cast<std::uint32_t>(a_.calls_.size() - 1);
  const ValueId call = a_.NewValue(object);
  const Value& f = a_.values_[callee];
  const Known known = f.kind == Kind::kGlobal ? policy_.Classify(a_.globals_[f.aux].module, a_.globals_[f.aux].name)
                                              : Known::kNotAllowed;
  const std::string where = std::string(opcode) + " at byte " + std::to_string(op_at_);
  if (known == Known::kNotAllowed || a_.values_[args].kind != Kind::kTuple) {
    a_.Report(Diag::kPickleCallUnsafe, op_at_, where + " calls " + a_.Render(call) + ".", a_.GlobalOf(callee),
              a_.Render(call));
    return call;
  }
  const std::span<const ValueId> arg_items = a_.ItemsOf(a_.values_[args]);
  const std::vector<ValueId> argv(arg_items.begin(), arg_items.end());
  auto kinds = [&](std::initializer_list<Kind> want) {
    if (argv.size() != want.size()) return false;
    std::size_t i = 0;
    for (Kind k : want) {
      if (a_.values_[argv[i++]].kind != k) return false;
    }
    return true;
  };
  switch (known) {
    case Known::kOrderedDict: {
      // OrderedDict() or OrderedDict(pairs): never a string, a mapping or anything else.
      std::vector<ValueId> kv;
      bool ok = argv.empty();
      if (argv.size() == 1) {
        const Value& arg = a_.values_[argv[0]];
        ok = arg.kind == Kind::kList || arg.kind == Kind::kTuple;
        for (std::size_t i = 0; ok && i < a_.ItemsOf(arg).size(); ++i) {
          const Value& pair = a_.values_[a_.ItemsOf(arg)[i]];
          ok = (pair.kind == Kind::kTuple || pair.kind == Kind::kList) && a_.ItemsOf(pair).size() == 2;
          if (ok) {
            kv.push_back(a_.ItemsOf(pair)[0]);
            kv.push_back(a_.ItemsOf(pair)[1]);
          }
        }
      }
      if (!ok) {
        Invalid(call, "OrderedDict takes nothing or (key, value) pairs");
        return Unknown();
      }
      const ValueId d = a_.NewContainer(Kind::kDict, std::move(kv));
      a_.values_[d].flags |= kOrdered;
      return d;
    }
    case Known::kRebuildTensor:
    case Known::kRebuildTensorV2:
    case Known::kRebuildTensorV3:
    case Known::kRebuildMeta:
      return RebuildTensor(known, argv, call);
    case Known::kRebuildParameter:
    case Known::kRebuildParameterWithState:
      return RebuildParameter(known, argv, call);
    case Known::kRebuildFromTypeV2: {
      // _rebuild_from_type_v2(func, new_type, args, state): only Tensor or Parameter, empty state.
      if (argv.size() != 4 || a_.values_[argv[0]].kind != Kind::kGlobal || a_.values_[argv[1]].kind != Kind::kGlobal ||
          a_.values_[argv[2]].kind != Kind::kTuple) {
        Invalid(call, "it takes (function, Tensor or Parameter, args, state)");
        return Unknown();
      }
      const auto& fn = a_.globals_[a_.values_[argv[0]].aux];
      const auto& type = a_.globals_[a_.values_[argv[1]].aux];
      const Known inner = policy_.Classify(fn.module, fn.name);
      const Known type_kind = policy_.Classify(type.module, type.name);
      const Value& state = a_.values_[argv[3]];
      const bool empty_state = state.kind == Kind::kNone || (state.kind == Kind::kDict && a_.ItemsOf(state).empty());
      if ((type_kind != Known::kTensorType && type_kind != Known::kParameterType) || !empty_state ||
          (inner != Known::kRebuildTensor && inner != Known::kRebuildTensorV2 && inner != Known::kRebuildTensorV3 &&
           inner != Known::kRebuildMeta && inner != Known::kRebuildParameter)) {
        Invalid(call, "only a Tensor or Parameter rebuilt by a modelled function, with empty state, is accepted");
        return Unknown();
      }
      const std::span<const ValueId> inner_span = a_.ItemsOf(a_.values_[argv[2]]);
      const std::vector<ValueId> inner_args(inner_span.begin(), inner_span.end());
      ValueId made = inner == Known::kRebuildParameter ? RebuildParameter(inner, inner_args, call)
                                                       : RebuildTensor(inner, inner_args, call);
      if (type_kind == Known::kParameterType && a_.values_[made].kind == Kind::kTensor) {
        Value p = a_.values_[made];
        p.flags |= kParameter;
        made = a_.NewValue(p);
      }
      return made;
    }
    case Known::kSize:
      if (argv.size() == 1 && IntTuple(argv[0])) return argv[0];
      Invalid(call, "torch.Size takes one tuple of non-negative ints");
      return Unknown();
    case Known::kDevice:
      if (kinds({Kind::kStr}) || kinds({Kind::kStr, Kind::kInt})) {
        ValueId d = a_.NewText(Kind::kDevice, a_.texts_[a_.values_[argv[0]].aux]);
        return d;
      }
      Invalid(call, "torch.device takes a device name (and an index)");
      return Unknown();
    case Known::kCodecsEncode:
      // Protocol 2 writes bytes as _codecs.encode(text, 'latin1').
      if (kinds({Kind::kStr, Kind::kStr}) &&
          (a_.texts_[a_.values_[argv[1]].aux] == "latin1" || a_.texts_[a_.values_[argv[1]].aux] == "latin-1")) {
        return a_.NewText(Kind::kBytes, a_.texts_[a_.values_[argv[0]].aux]);
      }
      Invalid(call, "only _codecs.encode(str, 'latin1') is accepted");
      return Unknown();
    case Known::kSet:
    case Known::kFrozenSet: {
      const Kind kind = known == Known::kSet ? Kind::kSet : Kind::kFrozenSet;
      if (argv.empty()) return a_.NewContainer(kind, {});
      const Value& arg = a_.values_[argv[0]];
      if (argv.size() == 1 && (arg.kind == Kind::kList || arg.kind == Kind::kTuple)) {
        const std::span<const ValueId> members = a_.ItemsOf(arg);
        return a_.NewContainer(kind, std::vector<ValueId>(members.begin(), members.end()));
      }
      Invalid(call, "a set takes nothing or a list of values");
      return Unknown();
    }
    case Known::kByteArray:
      if (argv.empty()) return a_.NewText(Kind::kByteArray, "");
      if (kinds({Kind::kBytes})) return a_.NewText(Kind::kByteArray, a_.texts_[a_.values_[argv[0]].aux]);
      Invalid(call, "bytearray takes nothing or bytes");
      return Unknown();
    case Known::kComplex: {
      bool ok = !argv.empty() && argv.size() <= 2;
      for (ValueId x : argv) ok = ok && (a_.values_[x].kind == Kind::kFloat || a_.values_[x].kind == Kind::kInt);
      if (ok) return call;
      Invalid(call, "complex takes one or two numbers");
      return Unknown();
    }
    case Known::kJoblibArrayWrapper:
    case Known::kNumpyDtype:
    case Known::kNumpyReconstruct:
    case Known::kNumpyScalar:
    case Known::kCopyregReconstructor:
    case Known::kEstimator:
    case Known::kEstimatorInternal:
      return JoblibCall(known, argv, call, callee, opcode);
    case Known::kUnmodelledRebuild:
      a_.Report(Diag::kPickleTensorInvalid, op_at_,
                where + " calls " + a_.Render(call) +
                    ": torch accepts this rebuild (quantized, sparse, nested, device or subclass tensors), but the "
                    "analyser does not model it, so it fails closed.");
      return Unknown();
    default:
      // Types and values (storage types, dtypes, torch.Tensor) are never called by torch.save.
      a_.Report(Diag::kPickleCallUnsafe, op_at_, where + " calls " + a_.Render(call) + ".", a_.GlobalOf(callee),
                a_.Render(call));
      return call;
  }
}

ValueId Analyser::Machine::PersistentLoad(ValueId pid) {
  const std::string where = OpName();
  if (a_.mode_ == StorageMode::kNone) {
    Malformed(where + " asks for a persistent id (" + a_.Render(pid) +
              "), which only torch's loaders resolve; this file is not a torch checkpoint.");
    return Unknown();
  }
  const Value& v = a_.values_[pid];
  const std::size_t want = a_.mode_ == StorageMode::kTorchZip ? 5 : 6;
  const std::span<const ValueId> fields = a_.ItemsOf(v);
  const auto* items = v.kind == Kind::kTuple ? &fields : nullptr;
  auto is = [&](std::size_t i, Kind k) { return a_.values_[(*items)[i]].kind == k; };
  if (items == nullptr || items->size() != want || !is(0, Kind::kStr) ||
      a_.texts_[a_.values_[(*items)[0]].aux] != "storage" || !is(1, Kind::kGlobal) || !is(2, Kind::kStr) ||
      !is(3, Kind::kStr) || !is(4, Kind::kInt) || a_.number((*items)[4]) < 0) {
    a_.Report(Diag::kPickleStorageMismatch, op_at_,
              where + " gives the persistent id " + a_.Render(pid) + ", not ('storage', storage type, key, location, " +
                  (want == 5 ? "numel)" : "numel, view metadata)") + " as torch.save writes it.");
    return Unknown();
  }
  if (want == 6 && !is(5, Kind::kNone)) {
    a_.Report(Diag::kPickleTensorInvalid, op_at_,
              where + " gives a legacy storage view (" + a_.Render(pid) + "), which the analyser does not model.");
    return Unknown();
  }
  const auto& type = a_.globals_[a_.values_[(*items)[1]].aux];
  const StorageType* st = type.module == "torch" ? FindStorageType(type.name) : nullptr;
  if (st == nullptr) {
    a_.Report(
        Diag::kPickleStorageMismatch, op_at_,
        where + " names the storage type " + Escaped(type.module + "." + type.name, 0) + ", not a torch storage type.");
    return Unknown();
  }
  StorageRef ref;
  ref.key = a_.texts_[a_.values_[(*items)[2]].aux];
  ref.type_name = std::string(st->name);
  ref.torch_dtype = std::string(st->torch_dtype);
  ref.dtype = st->token.empty() ? nullptr : FindSafetensorsDtype(st->token);
  ref.element_size = st->element_size;
  ref.numel = static_cast<std::uint64_t>(a_.number((*items)[4]));
  ref.offset = op_at_;
  if (auto it = a_.storage_by_key_.find(ref.key); it != a_.storage_by_key_.end()) {
    const StorageRef& first = a_.storages_[it->second];
    if (first.type_name != ref.type_name || first.numel != ref.numel) {
      a_.Report(Diag::kPickleStorageMismatch, op_at_,
                where + " references storage " + Quoted(ref.key, 40) + " as " + ref.type_name + " of " +
                    std::to_string(ref.numel) + " elements, and byte " + std::to_string(first.offset) + " as " +
                    first.type_name + " of " + std::to_string(first.numel) + ": one record cannot be both.");
      return Unknown();
    }
    Value s;
    s.kind = Kind::kStorage;
    s.aux = it->second;
    return a_.NewValue(s);
  }
  a_.storages_.push_back(std::move(ref));
  a_.storage_by_key_[a_.storages_.back().key] = static_cast<std::uint32_t>(a_.storages_.size() - 1);
  Value s;
  s.kind = Kind::kStorage;
  s.aux = static_cast<std::uint32_t>(a_.storages_.size() - 1);
  return a_.NewValue(s);
}

std::optional<ValueId> Analyser::Machine::Build(ValueId target, ValueId state) {
  Value& t = a_.values_[target];
  const Value& s = a_.values_[state];
  switch (t.kind) {
    case Kind::kJoblibWrapper:
      return BuildJoblibArray(state);
    case Kind::kNdarrayPending:
      return BuildNdarray(state);
    case Kind::kNumpyDtype:
      BuildNumpyDtype(a_.numpy_dtypes_[t.aux], state);
      return std::nullopt;
    case Kind::kEstimator: {
      EstimatorValue& e = a_.estimators_[t.aux];
      bool ok = s.kind == Kind::kDict && !e.state;
      const auto& kv = a_.ItemsOf(s);
      for (std::size_t i = 0; ok && i < kv.size(); i += 2) ok = a_.values_[kv[i]].kind == Kind::kStr;
      if (!ok) {
        a_.Report(Diag::kPickleBuildUnsafe, op_at_,
                  OpName() + " gives " + a_.Render(target) + " the state " + a_.Render(state) +
                      ": scikit-learn's objects take one dict of attributes named by str keys.",
                  a_.GlobalOf(target), a_.RenderedCallOf(target));
        return std::nullopt;
      }
      if (StateHoldsGlobal(state)) return std::nullopt;
      e.state = state;
      return std::nullopt;
    }
    default:
      break;
  }
  if (t.kind == Kind::kDict && (t.flags & kOrdered) != 0 && s.kind == Kind::kDict) {
    // A state dict's `_metadata`: attributes named by plain str keys.
    bool ok = true;
    const auto& kv = a_.ItemsOf(s);
    for (std::size_t i = 0; ok && i < kv.size(); i += 2) {
      const Value& key = a_.values_[kv[i]];
      ok = key.kind == Kind::kStr && !HasDunderSegment(a_.texts_[key.aux]);
    }
    if (ok) {
      t.flags |= kBuilt;
      return std::nullopt;
    }
  }
  if (t.kind == Kind::kTensor && (t.flags & kParameter) != 0) {
    const bool empty =
        s.kind == Kind::kNone || ((s.kind == Kind::kDict || s.kind == Kind::kTuple) && a_.ItemsOf(s).empty());
    if (empty) return std::nullopt;
  }
  if (t.kind == Kind::kObject || t.kind == Kind::kUnknown) {
    // The object is already a finding; BUILD would call its __setstate__ or set attributes.
    a_.Report(Diag::kPickleBuildUnsafe, op_at_,
              OpName() + " gives " + a_.Render(target) + " the state " + a_.Render(state) +
                  " (its __setstate__ or attributes run with it).",
              a_.GlobalOf(target), a_.RenderedCallOf(target));
    return std::nullopt;
  }
  a_.Report(Diag::kPickleBuildUnsafe, op_at_,
            OpName() + " gives state " + a_.Render(state) + " to " + a_.Render(target) +
                ": BUILD is accepted only on an OrderedDict (its _metadata, plain str keys) and on a Parameter with "
                "empty state.",
            a_.GlobalOf(target), a_.RenderedCallOf(target));
  return std::nullopt;
}

// The call models of joblib's and numpy's policy (formats.md section 3).
ValueId Analyser::Machine::JoblibCall(Known known, const std::vector<ValueId>& argv, ValueId call, ValueId callee,
                                      const char* opcode) {
  switch (known) {
    case Known::kJoblibArrayWrapper:
      // joblib writes NumpyArrayWrapper as NEWOBJ of no arguments, then BUILD.
      if (std::string_view(opcode) != "NEWOBJ" || !argv.empty() || !policy_.InlineArrays()) {
        Invalid(call, policy_.InlineArrays()
                          ? "joblib makes a NumpyArrayWrapper by NEWOBJ with no arguments"
                          : "a NumpyArrayWrapper read by Python's own unpickler (an object array's pickle, a "
                            "joblib ZF file) is a plain object there: no array is read after it");
        return Unknown();
      }
      return a_.NewValue(Value{Kind::kJoblibWrapper, 0, 0});
    case Known::kNumpyDtype: {
      // numpy.dtype(descr, align, copy): its byte order and fields come with BUILD.
      const bool shaped = argv.size() == 3 && a_.values_[argv[0]].kind == Kind::kStr &&
                          a_.values_[argv[1]].kind == Kind::kBool && a_.values_[argv[2]].kind == Kind::kBool;
      const auto parsed = shaped ? ParseNumpyCode(a_.texts_[a_.values_[argv[0]].aux]) : std::nullopt;
      if (!parsed) {
        Invalid(call, "numpy.dtype takes a dtype code ('f4', 'i8', 'O8', 'V16', ...) and two bools");
        return Unknown();
      }
      a_.numpy_dtypes_.push_back(*parsed);
      return a_.NewValue(Value{Kind::kNumpyDtype, 0, static_cast<std::uint32_t>(a_.numpy_dtypes_.size() - 1)});
    }
    case Known::kNumpyReconstruct: {
      // _reconstruct(numpy.ndarray, (0,), b'b'): an empty ndarray that BUILD fills.
      const bool shaped = argv.size() == 3 && a_.values_[argv[0]].kind == Kind::kGlobal &&
                          policy_.Classify(a_.globals_[a_.values_[argv[0]].aux].module,
                                           a_.globals_[a_.values_[argv[0]].aux].name) == Known::kNumpyArrayType &&
                          IntTuple(argv[1]) && a_.values_[argv[2]].kind == Kind::kBytes;
      if (!shaped) {
        Invalid(call, "numpy's _reconstruct takes (numpy.ndarray, a shape tuple, bytes)");
        return Unknown();
      }
      return a_.NewValue(Value{Kind::kNdarrayPending, 0, 0});
    }
    case Known::kNumpyScalar: {
      // scalar(dtype, bytes): one value of the dtype (a number, not a tensor).
      const bool shaped =
          argv.size() == 2 && a_.values_[argv[0]].kind == Kind::kNumpyDtype && a_.values_[argv[1]].kind == Kind::kBytes;
      if (!shaped || a_.numpy_dtypes_[a_.values_[argv[0]].aux].holds_objects ||
          a_.texts_[a_.values_[argv[1]].aux].size() != a_.numpy_dtypes_[a_.values_[argv[0]].aux].itemsize) {
        Invalid(call, "numpy's scalar takes a numeric dtype and bytes of its size");
        return Unknown();
      }
      return argv[1];
    }
    case Known::kCopyregReconstructor: {
      // copyreg._reconstructor(cls, builtins.object, None) is object.__new__(cls) (protocols 0, 1).
      auto known_global = [&](ValueId id) {
        const Value& g = a_.values_[id];
        return g.kind == Kind::kGlobal ? policy_.Classify(a_.globals_[g.aux].module, a_.globals_[g.aux].name)
                                       : Known::kNotAllowed;
      };
      if (argv.size() == 3 && known_global(argv[1]) == Known::kBuiltinsObject &&
          a_.values_[argv[2]].kind == Kind::kNone &&
          (known_global(argv[0]) == Known::kEstimator || known_global(argv[0]) == Known::kEstimatorInternal)) {
        return NewEstimator(argv[0], known_global(argv[0]) == Known::kEstimatorInternal);
      }
      Invalid(call, "copyreg._reconstructor is accepted only as (a scikit-learn estimator class, object, None)");
      return Unknown();
    }
    case Known::kEstimator:
      // NEWOBJ cls() (protocol 2 on) is object.__new__(cls); BUILD gives the attributes.
      if (std::string_view(opcode) == "NEWOBJ" && argv.empty()) return NewEstimator(callee, false);
      Invalid(call, "a scikit-learn estimator is made by NEWOBJ with no arguments, as pickle writes it");
      return Unknown();
    case Known::kEstimatorInternal:
      // Its __reduce__ gives plain data and arrays (Tree(n_features, n_classes, n_outputs)).
      return NewEstimator(callee, true);
    default:
      break;
  }
  Invalid(call, "it is not a call joblib or numpy writes");
  return Unknown();
}

ValueId Analyser::Machine::NewEstimator(ValueId cls, bool internal) {
  const GlobalName& g = a_.globals_[a_.values_[cls].aux];
  a_.estimators_.push_back({g.module, g.name, std::nullopt, internal});
  const std::string dotted = Escaped(g.module + "." + g.name, 0);
  if (a_.estimators_reported_.insert(dotted).second) {
    a_.Report(Diag::kJoblibEstimator, op_at_,
              OpName() + " makes a " + dotted + ": loading runs scikit-learn's __setstate__ for " + dotted +
                  "; loading needs scikit-learn and trusts its publisher; prefer skops.");
  }
  return a_.NewValue(Value{Kind::kEstimator, 0, static_cast<std::uint32_t>(a_.estimators_.size() - 1)});
}

// A global as a value of an object's state (a FunctionTransformer's func): setting it calls
// nothing, but the object calls it later. Walked without recursion, each visit charged.
bool Analyser::Machine::StateHoldsGlobal(ValueId state) {
  std::vector<ValueId> todo{state};
  std::set<ValueId> seen;
  while (!todo.empty()) {
    const ValueId id = todo.back();
    todo.pop_back();
    if (!seen.insert(id).second) continue;
    if (!ChargeValue()) throw Stop{};
    const Value& v = a_.values_[id];
    if (v.kind == Kind::kGlobal) {
      const GlobalName& g = a_.globals_[v.aux];
      a_.Report(Diag::kPickleGlobalUnsafe, op_at_,
                OpName() + " stores " + Escaped(g.module + "." + g.name, 0) + " (imported at byte " +
                    std::to_string(g.offset) +
                    ") as a value of an object's state: the object calls it once loaded (fail closed).",
                Escaped(g.module + "." + g.name, 0), std::nullopt);
      return true;
    }
    if (v.kind == Kind::kDict || v.kind == Kind::kList || v.kind == Kind::kTuple || v.kind == Kind::kSet ||
        v.kind == Kind::kFrozenSet) {
      for (ValueId item : a_.ItemsOf(v)) todo.push_back(item);
    }
  }
  return false;
}

void Analyser::Machine::BuildNumpyDtype(NumpyDtypeValue& dtype, ValueId state) {
  // (version, byteorder, subarray, names, fields, elsize, alignment, flags[, metadata]).
  const Value& s = a_.values_[state];
  const auto items = a_.ItemsOf(s);
  const bool shaped = s.kind == Kind::kTuple && (items.size() == 8 || items.size() == 9) &&
                      a_.values_[items[0]].kind == Kind::kInt && a_.values_[items[1]].kind == Kind::kStr &&
                      a_.values_[items[5]].kind == Kind::kInt && a_.values_[items[7]].kind == Kind::kInt;
  const std::string order = shaped ? a_.texts_[a_.values_[items[1]].aux] : std::string();
  if (!shaped || (order != "<" && order != ">" && order != "|" && order != "=") ||
      a_.values_[items[2]].kind != Kind::kNone) {
    a_.Report(Diag::kPickleArgumentInvalid, op_at_,
              OpName() + " gives numpy.dtype the state " + a_.Render(state) +
                  ", not (version, byte order, None, names, fields, elsize, alignment, flags) as numpy writes it.");
    dtype.holds_objects = true;  // never an array the audit lists
    return;
  }
  dtype.byte_order = order[0];
  // numpy's __setstate__ takes elsize for flexible types only (what joblib reads after the
  // wrapper is numel x that size); a fixed-size type keeps its code's size.
  const std::int64_t elsize = a_.number(items[5]);
  if (!dtype.fixed_size && elsize > 0) {
    dtype.itemsize = static_cast<std::uint64_t>(elsize);
  } else if (dtype.fixed_size && elsize != -1 && elsize != static_cast<std::int64_t>(dtype.itemsize)) {
    dtype.conflicting_elsize = elsize;
  }
  if ((a_.number(items[7]) & 1) != 0) dtype.holds_objects = true;  // NPY_ITEM_REFCOUNT: an object field
  dtype.structured = a_.values_[items[4]].kind == Kind::kDict;
}

std::optional<ValueId> Analyser::Machine::BuildJoblibArray(ValueId state) {
  // The state joblib gives it: subclass, shape, order, dtype, allow_mmap and (joblib 1.2 on)
  // numpy_array_alignment_bytes, which puts a padding-length byte and padding before the data.
  const Value& s = a_.values_[state];
  if (s.kind != Kind::kDict) {
    ArrayInvalid("with the state " + a_.Render(state) + ", not a dict");
    throw Stop{};
  }
  std::optional<ValueId> subclass, shape, order, dtype, alignment;
  const auto kv = a_.ItemsOf(s);
  for (std::size_t i = 0; i < kv.size(); i += 2) {
    const Value& key = a_.values_[kv[i]];
    const std::string name = key.kind == Kind::kStr ? a_.texts_[key.aux] : std::string();
    std::optional<ValueId>* slot = name == "subclass"                      ? &subclass
                                   : name == "shape"                       ? &shape
                                   : name == "order"                       ? &order
                                   : name == "dtype"                       ? &dtype
                                   : name == "numpy_array_alignment_bytes" ? &alignment
                                                                           : nullptr;
    if (name == "allow_mmap" && a_.values_[kv[i + 1]].kind == Kind::kBool) continue;
    if (slot == nullptr) {
      ArrayInvalid("with the state key " + a_.Render(kv[i]) + ", which joblib does not write");
      throw Stop{};
    }
    *slot = kv[i + 1];
  }
  const auto dims = shape ? IntTuple(*shape) : std::nullopt;
  const Value* sub = subclass ? &a_.values_[*subclass] : nullptr;
  const bool subclass_ok =
      sub != nullptr && sub->kind == Kind::kGlobal &&
      policy_.Classify(a_.globals_[sub->aux].module, a_.globals_[sub->aux].name) == Known::kNumpyArrayType;
  const std::string order_text =
      order && a_.values_[*order].kind == Kind::kStr ? a_.texts_[a_.values_[*order].aux] : std::string();
  if (!subclass_ok || !dims || (order_text != "C" && order_text != "F") || !dtype ||
      a_.values_[*dtype].kind != Kind::kNumpyDtype) {
    ArrayInvalid("with the state " + a_.Render(state) +
                 ": it needs subclass numpy.ndarray or numpy.memmap, shape a tuple of ints, order 'C' or 'F' and a "
                 "numpy.dtype");
    throw Stop{};
  }
  const NumpyDtypeValue& dt = a_.numpy_dtypes_[a_.values_[*dtype].aux];
  if (dt.conflicting_elsize) {
    ArrayInvalid("whose dtype " + Quoted(dt.Descr(), 40) + " has the size field " +
                 std::to_string(*dt.conflicting_elsize) + " in its state: numpy ignores it and reads " +
                 std::to_string(dt.itemsize) +
                 "-byte items, so the bytes after the array are not where the field says");
    // Read on where joblib reads: what follows the array is still judged.
  }
  if (dt.holds_objects) {
    // An object array: joblib hands the file to Python's pickle.load, which reads one whole
    // pickle (numpy's _reconstruct and the objects) and stops after its STOP.
    // That file read starts where the unpickler's file is: after the frame it read whole.
    const bool inside_frame = frame_end_ != 0 && pos_ < frame_end_;
    const std::uint64_t nested_at = inside_frame ? frame_end_ : pos_;
    if (inside_frame) {
      FrameInvalid(op_at_,
                   OpName() + " builds a joblib object array inside its FRAME (up to byte " +
                       std::to_string(frame_end_) + "): joblib's pickle.load reads the array's pickle from byte " +
                       std::to_string(frame_end_) + ", after the frame, not from byte " + std::to_string(pos_) + ".");
    }
    Machine nested(a_, file_, nested_at, end_, JoblibFindClass(false));
    auto run = nested.Run();
    if (!run) throw run.error();
    if (!run->stopped) throw Stop{};
    if (inside_frame) {
      resume_at_ = run->end;  // the rest of the frame is read first, then the file from here
    } else {
      pos_ = run->end;
      frame_end_ = 0;
    }
    return run->root ? *run->root : Unknown();
  }
  if (frame_end_ != 0 && pos_ < frame_end_) {
    ArrayInvalid("whose data lies inside its FRAME (up to byte " + std::to_string(frame_end_) +
                 "): joblib reads an array's bytes from the file after the frame, pickle.loads from the frame");
    throw Stop{};
  }
  frame_end_ = 0;  // joblib ends the frame before the data; the next opcode starts a new one
  if (alignment && a_.values_[*alignment].kind != Kind::kNone) {
    const std::uint64_t padding_at = pos_;
    const std::string_view length = Need(1);
    const auto padding = static_cast<unsigned char>(length[0]);
    const std::string_view pad = Need(padding);
    if (pad.find_first_not_of('\xff') != std::string_view::npos) {
      ArrayInvalid("whose padding at byte " + std::to_string(padding_at + 1) + " is not all 0xff bytes");
      throw Stop{};
    }
  }
  std::optional<std::uint64_t> numel = 1;
  for (std::uint64_t d : *dims) numel = numel ? CheckedMul(*numel, d) : std::nullopt;
  const auto bytes = numel ? CheckedMul(*numel, dt.itemsize) : std::nullopt;
  if (!bytes || *bytes > end_ - pos_) {
    ArrayInvalid("of shape " + a_.Render(*shape) + " and dtype " + Quoted(dt.Descr(), 40) + ": its " +
                 (bytes ? std::to_string(*bytes) : std::string("more than 2^64")) +
                 " bytes of data run past the end (" + std::to_string(end_ - pos_) + " bytes are left at byte " +
                 std::to_string(pos_) + ")");
    throw Stop{};
  }
  RebuiltTensor t;
  t.shape = *dims;
  t.element_size = dt.itemsize;
  const NumpyDescr* descr = FindNumpyDescr(dt.code);
  t.torch_dtype = dt.structured || descr == nullptr ? std::string("OTHER") : dt.Descr();
  t.dtype = descr != nullptr && !dt.structured && !descr->token.empty() ? FindSafetensorsDtype(descr->token) : nullptr;
  t.valid = true;
  t.contiguous = order_text == "C";
  t.offset = op_at_;
  a_.tensors_.push_back(std::move(t));
  a_.joblib_arrays_.push_back({static_cast<std::uint32_t>(a_.tensors_.size() - 1), pos_, *bytes, order_text == "F"});
  pos_ += *bytes;
  return a_.NewValue(Value{Kind::kTensor, 0, static_cast<std::uint32_t>(a_.tensors_.size() - 1)});
}

std::optional<ValueId> Analyser::Machine::BuildNdarray(ValueId state) {
  // (version, shape, dtype, is_fortran, data): data is the raw bytes, or a list of the
  // objects of an object array. A value of the object, not a tensor of the file.
  const Value& s = a_.values_[state];
  const auto items = a_.ItemsOf(s);
  const bool shaped = s.kind == Kind::kTuple && items.size() == 5 && a_.values_[items[0]].kind == Kind::kInt &&
                      IntTuple(items[1]) && a_.values_[items[2]].kind == Kind::kNumpyDtype &&
                      a_.values_[items[3]].kind == Kind::kBool &&
                      (a_.values_[items[4]].kind == Kind::kBytes || a_.values_[items[4]].kind == Kind::kList);
  if (!shaped) {
    a_.Report(Diag::kPickleArgumentInvalid, op_at_,
              OpName() + " gives a numpy array the state " + a_.Render(state) +
                  ", not (version, shape, dtype, is_fortran, data) as numpy writes it.");
    return Unknown();
  }
  return items[4];
}

void Analyser::Machine::AddItems(ValueId target, const std::vector<ValueId>& items, const char* opcode) {
  Value& t = a_.values_[target];
  const bool fits = (std::string_view(opcode) == "SETITEM" || std::string_view(opcode) == "SETITEMS")
                        ? t.kind == Kind::kDict
                    : std::string_view(opcode) == "ADDITEMS" ? t.kind == Kind::kSet
                                                             : t.kind == Kind::kList;
  if (!fits) {
    // CPython calls the object's own append / extend / __setitem__ / add.
    const bool sets_items = std::string_view(opcode) == "SETITEM" || std::string_view(opcode) == "SETITEMS";
    if (t.kind == Kind::kObject || t.kind == Kind::kUnknown) {
      a_.Report(Diag::kPickleCallUnsafe, op_at_,
                OpName() + " (" + opcode + ") calls a method of " + a_.Render(target) + " with its items.",
                a_.GlobalOf(target), a_.RenderedCallOf(target));
    } else if (sets_items && (t.kind == Kind::kTensor || t.kind == Kind::kStorage)) {
      // Tensors and storages take item assignment, and torch's weights-only unpickler applies
      // SETITEM to whatever is on the stack (CVE-2026-24747: a write through the storage).
      a_.Report(Diag::kPickleCallUnsafe, op_at_,
                OpName() + " assigns items of " + (t.kind == Kind::kTensor ? "a rebuilt tensor" : "a storage") +
                    ": loading calls its __setitem__, which writes into its memory (the CVE-2026-24747 primitive, "
                    "which torch.load applies even with weights_only=True).");
    } else {
      Malformed(OpName() + " (" + opcode + ") adds items to " + a_.Render(target) + ", which has no such method.");
    }
    return;
  }
  // Keys and set members must be hashable: CPython raises TypeError for a list, dict, set or
  // bytearray (a dict or set added to itself among them), so the stream has no meaning past here.
  if ((t.kind == Kind::kDict || t.kind == Kind::kSet) &&
      RefuseUnhashable(items, t.kind == Kind::kDict ? 2 : 1, target, t.kind == Kind::kDict, opcode)) {
    return;
  }
  a_.AppendItems(a_.values_[target], items);
}

bool Analyser::Machine::Unhashable(ValueId id) {
  std::vector<ValueId> todo{id};
  while (!todo.empty()) {
    const Value& v = a_.values_[todo.back()];
    todo.pop_back();
    if (v.kind == Kind::kList || v.kind == Kind::kDict || v.kind == Kind::kSet || v.kind == Kind::kByteArray) {
      return true;
    }
    if (v.kind == Kind::kTuple || v.kind == Kind::kFrozenSet) {
      for (ValueId item : a_.ItemsOf(v)) {
        if (!ChargeValue()) return false;  // the budget's own finding fails the file
        todo.push_back(item);
      }
    }
  }
  return false;
}

bool Analyser::Machine::RefuseUnhashable(std::span<const ValueId> items, std::size_t step,
                                         std::optional<ValueId> target, bool dict, const char* opcode) {
  for (std::size_t i = 0; i < items.size(); i += step) {
    if (!Unhashable(items[i])) continue;
    Malformed(OpName() + " (" + opcode + ") uses " + a_.Render(items[i]) +
              (target && items[i] == *target ? " (the container itself)" : "") + " as a " +
              (dict ? "dict key" : "set member") + ": it is unhashable, so CPython's unpickler fails here.");
    return true;
  }
  return false;
}

IoResult<PickleEnd> Analyser::Machine::Run() {
  PickleEnd result;
  try {
    while (true) {
      // The previous opcode's bytes must lie inside its frame or wholly outside it: CPython
      // reads a file's frames whole, and an opcode running past one reads differently.
      if (frame_end_ != 0 && op_at_ < frame_end_ && pos_ > frame_end_) {
        FrameInvalid(op_at_, OpName() + " runs past the end of its FRAME (byte " + std::to_string(frame_end_) +
                                 "): pickle.load from a file and pickle.loads read different opcodes from here.");
      }
      if (resume_at_ != 0 && pos_ == frame_end_) {  // the frame an object array's pickle followed is read
        pos_ = resume_at_;
        resume_at_ = 0;
        frame_end_ = 0;
      }
      op_at_ = pos_;
      const Opcode& op = NextOpcode();
      op_name_ = op.name.data();
      switch (op.family) {
        case OpFamily::kStack:
          if (StackOp(op.code, result)) return result;
          break;
        case OpFamily::kNumber:
          NumberOp(op.code);
          break;
        case OpFamily::kText:
          TextOp(op.code);
          break;
        case OpFamily::kContainer:
          ContainerOp(op.code);
          break;
        case OpFamily::kMemo:
          MemoOp(op.code);
          break;
        case OpFamily::kCall:
          CallOp(op.code);
          break;
        case OpFamily::kFraming:
          FramingOp(op.code);
          break;
      }
    }
  } catch (const Stop&) {
    result.end = op_at_;
    return result;
  } catch (const boost::system::error_code& error) {
    return error;
  }
}

const Opcode& Analyser::Machine::NextOpcode() {
  Budget& budget = a_.budget_;
  if (++budget.opcodes > budget.max_opcodes) {
    budget.exceeded = true;
    a_.Report(Diag::kPickleBudgetExceeded, op_at_,
              "The pickle runs past " + DescribeLimit(budget.max_opcodes) + " opcodes by byte " +
                  std::to_string(op_at_) + ": analysis stops here.");
    throw Stop{};
  }
  auto code = Take(1);
  if (!code) throw code.error();
  if (!*code) {
    Malformed("The pickle ends at byte " + std::to_string(op_at_) +
              " before its STOP opcode (pickle data was truncated).");
    throw Stop{};
  }
  op_name_ = "";
  const auto byte = static_cast<unsigned char>((**code)[0]);
  const Opcode* op = FindOpcode(byte);
  if (op == nullptr) {
    char hex[8];
    std::snprintf(hex, sizeof hex, "0x%02x", byte);
    Malformed("Byte " + std::to_string(op_at_) + " holds " + hex + ", not a pickle opcode.");
    throw Stop{};
  }
  return *op;
}

std::string_view Analyser::Machine::Need(std::size_t n) {
  auto bytes = Take(n);
  if (!bytes) throw bytes.error();
  if (!*bytes) {
    Malformed(OpName() + " needs " + std::to_string(n) + " more bytes than the stream holds (truncated).");
    throw Stop{};
  }
  return **bytes;
}

std::string Analyser::Machine::NextLine() {
  auto l = Line();
  if (!l) throw l.error();
  if (!*l) {
    if (!a_.budget_.exceeded) Malformed(OpName() + " reads a line that never ends (truncated).");
    throw Stop{};
  }
  return std::move(**l);
}

std::uint64_t Analyser::Machine::Le(std::string_view b) {
  std::uint64_t v = 0;
  for (std::size_t i = b.size(); i-- > 0;) v = (v << 8) | static_cast<unsigned char>(b[i]);
  return v;
}

void Analyser::Machine::PushText(Kind kind, std::uint64_t n) {
  if (!ChargeText(n, op_at_)) throw Stop{};
  if (n > end_ - pos_) {
    Malformed(OpName() + " declares " + std::to_string(n) + " bytes, more than the " + std::to_string(end_ - pos_) +
              " left in the stream (truncated).");
    throw Stop{};
  }
  std::string s(Need(static_cast<std::size_t>(n)));
  if (kind == Kind::kStr && !ValidUtf8(s)) {
    Malformed(OpName() + " holds a string that is not valid UTF-8.");
    throw Stop{};
  }
  Push(a_.NewText(kind, std::move(s)));
}

ValueId Analyser::Machine::PopOrStop() {
  auto v = Pop();
  if (!v) throw Stop{};
  return *v;
}

std::vector<ValueId> Analyser::Machine::PopMarkOrStop() {
  auto v = PopMark();
  if (!v) throw Stop{};
  return std::move(*v);
}

std::uint64_t Analyser::Machine::LineKey() {
  const ParsedInt n = ParseInt(NextLine(), false);
  if (!n.ok || n.big || n.value < 0) {
    Malformed(OpName() + " holds a memo key that is not a non-negative int.");
    throw Stop{};
  }
  return static_cast<std::uint64_t>(n.value);
}

void Analyser::Machine::MemoGet(std::uint64_t key) {
  std::optional<ValueId> found;
  if (key < kDenseMemo) {
    if (key < dense_memo_.size() && dense_memo_[key] != kEmptySlot) found = dense_memo_[key];
  } else if (auto it = sparse_memo_.find(key); it != sparse_memo_.end()) {
    found = it->second;
  }
  if (!found) {
    Malformed(OpName() + " reads memo key " + std::to_string(key) +
              ", which was never written (CPython fails here; what follows is analysed as unknown).");
    Push(Unknown());
    return;
  }
  Push(*found);
}

void Analyser::Machine::MemoPut(std::uint64_t key) {
  const ValueId top = Top();
  if (!ChargeValue()) throw Stop{};
  if (key < kDenseMemo) {
    if (key >= dense_memo_.size()) dense_memo_.resize(static_cast<std::size_t>(key) + 1, kEmptySlot);
    memo_count_ += dense_memo_[key] == kEmptySlot ? 1U : 0U;
    dense_memo_[key] = top;
    return;
  }
  auto [it, inserted] = sparse_memo_.try_emplace(key, top);
  if (!inserted) {
    it->second = top;
    return;
  }
  ++memo_count_;
  if (sparse_memo_.size() > kMaxSparseMemo) {
    a_.budget_.exceeded = true;
    a_.Report(Diag::kPickleBudgetExceeded, op_at_,
              OpName() + " writes a memo key past 2^22 for the " + std::to_string(sparse_memo_.size()) +
                  "th time; no pickler numbers its memo so: analysis stops here.");
    throw Stop{};
  }
}

bool Analyser::Machine::StackOp(unsigned char op, PickleEnd& result) {
  switch (op) {
    case '(':
      marks_.push_back(stack_.size());
      break;
    case '.': {
      const ValueId v = PopOrStop();
      result.stopped = true;
      result.root = v;
      if (!stack_.empty() || !marks_.empty()) {
        Malformed("STOP at byte " + std::to_string(op_at_) + " leaves " + std::to_string(stack_.size()) +
                  " values and " + std::to_string(marks_.size()) + " open marks on the stack.");
      }
      // A file reader goes on after what it has read: past an object array's pickle that
      // joblib read after this frame, when there was one.
      result.end = resume_at_ != 0 ? resume_at_ : pos_;
      if (frame_end_ > pos_) {
        FrameInvalid(op_at_, "The FRAME holding STOP at byte " + std::to_string(op_at_) + " runs on to byte " +
                                 std::to_string(frame_end_) +
                                 ": a file reader has read past this pickle's end, a bytes reader has not.");
      }
      return true;
    }
    case '0': {
      const std::size_t fence = marks_.empty() ? 0 : marks_.back();
      if (stack_.size() > fence) {
        stack_.pop_back();
      } else if (!marks_.empty()) {
        marks_.pop_back();  // CPython pops the mark itself
      } else {
        PopOrStop();
      }
      break;
    }
    case '1':
      PopMarkOrStop();
      break;
    case '2':
      Push(Top());
      break;
    default:
      break;
  }
  return false;
}

void Analyser::Machine::NumberOp(unsigned char op) {
  switch (op) {
    case 'F': {
      const std::string l = NextLine();
      char* end = nullptr;
      const auto bits = std::bit_cast<std::int64_t>(std::strtod(l.c_str(), &end));
      if (l.empty() || end != l.c_str() + l.size()) {
        Malformed(OpName() + " holds " + Quoted(l, 40) + ", not a float.");
        throw Stop{};
      }
      Push(a_.NewNumber(Kind::kFloat, bits));
      break;
    }
    case 'I':
    case 'L': {
      std::string l = NextLine();
      if (op == 'I' && (l == "00" || l == "01")) {
        Push(a_.NewNumber(Kind::kBool, l == "01" ? 1 : 0));
        break;
      }
      if (op == 'L' && !l.empty() && l.back() == 'L') l.pop_back();
      const ParsedInt n = ParseInt(l, true);
      if (!n.ok) {
        Malformed(OpName() + " holds " + Quoted(l, 40) + ", not an int.");
        throw Stop{};
      }
      Push(n.big ? a_.NewText(Kind::kBigInt, l) : Int(n.value));
      break;
    }
    case 'J':
      Push(Int(static_cast<std::int32_t>(Le(Need(4)))));
      break;
    case 'K':
      Push(Int(static_cast<std::int64_t>(Le(Need(1)))));
      break;
    case 'M':
      Push(Int(static_cast<std::int64_t>(Le(Need(2)))));
      break;
    case 0x8a:
    case 0x8b: {
      std::uint64_t n = op == 0x8a ? Le(Need(1)) : Le(Need(4));
      if (op == 0x8b && (n & 0x80000000U) != 0) {
        Malformed(OpName() + " declares a negative byte count (LONG pickle has negative byte count).");
        throw Stop{};
      }
      if (n > end_ - pos_) {
        Malformed(OpName() + " declares " + std::to_string(n) + " bytes, more than the stream holds (truncated).");
        throw Stop{};
      }
      if (!ChargeText(n, op_at_)) throw Stop{};
      const std::string_view b = Need(static_cast<std::size_t>(n));
      if (n <= 8) {
        std::uint64_t u = Le(b);
        if (n > 0 && n < 8 && (static_cast<unsigned char>(b[n - 1]) & 0x80) != 0) u |= ~std::uint64_t{0} << (8 * n);
        Push(Int(static_cast<std::int64_t>(u)));
      } else {
        Push(a_.NewText(Kind::kBigInt, std::string(b)));
      }
      break;
    }
    case 'G': {
      const std::string_view b = Need(8);
      std::uint64_t bits = 0;
      for (char c : b) bits = (bits << 8) | static_cast<unsigned char>(c);
      Push(a_.NewNumber(Kind::kFloat, static_cast<std::int64_t>(bits)));
      break;
    }
    case 'N': {
      Value v;
      v.kind = Kind::kNone;
      Push(a_.NewValue(v));
    } break;
    case 0x88:
    case 0x89: {
      Push(a_.NewNumber(Kind::kBool, op == 0x88 ? 1 : 0));
      break;
    }
    default:
      break;
  }
}

void Analyser::Machine::TextOp(unsigned char op) {
  switch (op) {
    case 'S': {
      auto s = DecodeStringLiteral(NextLine());
      if (!s) {
        Malformed(OpName() + " holds an argument that is not a quoted string.");
        throw Stop{};
      }
      Push(a_.NewText(Kind::kStr, std::move(*s)));
      break;
    }
    case 'V': {
      auto s = DecodeRawUnicodeEscape(NextLine());
      if (!s) {
        Malformed(OpName() + " holds a malformed \\u escape.");
        throw Stop{};
      }
      Push(a_.NewText(Kind::kStr, std::move(*s)));
      break;
    }
    case 'T': {
      const auto n = static_cast<std::int32_t>(Le(Need(4)));
      if (n < 0) {
        Malformed(OpName() + " declares a negative length (BINSTRING pickle has negative byte count).");
        throw Stop{};
      }
      std::uint64_t len = static_cast<std::uint64_t>(n);
      if (len > end_ - pos_) {
        Malformed(OpName() + " declares " + std::to_string(len) + " bytes, more than the stream holds (truncated).");
        throw Stop{};
      }
      if (!ChargeText(len, op_at_)) throw Stop{};
      std::string raw(Need(static_cast<std::size_t>(len)));
      std::string s;
      for (char c : raw) AppendUtf8(s, static_cast<unsigned char>(c));
      Push(a_.NewText(Kind::kStr, std::move(s)));
      break;
    }
    case 'U': {
      const std::uint64_t len = Le(Need(1));
      if (!ChargeText(len, op_at_)) throw Stop{};
      std::string raw(Need(static_cast<std::size_t>(len)));
      std::string s;
      for (char c : raw) AppendUtf8(s, static_cast<unsigned char>(c));
      Push(a_.NewText(Kind::kStr, std::move(s)));
      break;
    }
    case 'X':
      PushText(Kind::kStr, Le(Need(4)));
      break;
    case 0x8c:
      PushText(Kind::kStr, Le(Need(1)));
      break;
    case 0x8d:
      PushText(Kind::kStr, Le(Need(8)));
      break;
    case 'B':
      PushText(Kind::kBytes, Le(Need(4)));
      break;
    case 'C':
      PushText(Kind::kBytes, Le(Need(1)));
      break;
    case 0x8e:
      PushText(Kind::kBytes, Le(Need(8)));
      break;
    case 0x96:
      PushText(Kind::kByteArray, Le(Need(8)));
      break;
    default:
      break;
  }
}

void Analyser::Machine::ContainerOp(unsigned char op) {
  switch (op) {
    case ')':
      Push(a_.NewContainer(Kind::kTuple, {}));
      break;
    case 't':
      Push(a_.NewContainer(Kind::kTuple, PopMarkOrStop()));
      break;
    case 0x85:
    case 0x86:
    case 0x87: {
      const std::size_t n = op - 0x84;
      std::vector<ValueId> items(n);
      for (std::size_t i = n; i-- > 0;) items[i] = PopOrStop();
      Push(a_.NewContainer(Kind::kTuple, std::move(items)));
      break;
    }
    case ']':
      Push(a_.NewContainer(Kind::kList, {}));
      break;
    case 'l':
      Push(a_.NewContainer(Kind::kList, PopMarkOrStop()));
      break;
    case '}':
      Push(a_.NewContainer(Kind::kDict, {}));
      break;
    case 'd': {
      std::vector<ValueId> items = PopMarkOrStop();
      if (items.size() % 2 != 0) {
        Malformed(OpName() + " has an odd number of items (a key without a value).");
        throw Stop{};
      }
      RefuseUnhashable(items, 2, std::nullopt, true, "DICT");
      Push(a_.NewContainer(Kind::kDict, std::move(items)));
      break;
    }
    case 0x8f:
      Push(a_.NewContainer(Kind::kSet, {}));
      break;
    case 0x91: {
      std::vector<ValueId> items = PopMarkOrStop();
      RefuseUnhashable(items, 1, std::nullopt, false, "FROZENSET");
      Push(a_.NewContainer(Kind::kFrozenSet, std::move(items)));
    } break;
    case 'a': {
      const ValueId v = PopOrStop();
      AddItems(Top(), {v}, "APPEND");
      break;
    }
    case 'e': {
      std::vector<ValueId> items = PopMarkOrStop();
      AddItems(Top(), items, "APPENDS");
      break;
    }
    case 's': {
      const ValueId v = PopOrStop();
      const ValueId k = PopOrStop();
      AddItems(Top(), {k, v}, "SETITEM");
      break;
    }
    case 'u': {
      std::vector<ValueId> items = PopMarkOrStop();
      if (items.size() % 2 != 0) {
        Malformed(OpName() + " has an odd number of items (a key without a value).");
        throw Stop{};
      }
      AddItems(Top(), items, "SETITEMS");
      break;
    }
    case 0x90: {
      std::vector<ValueId> items = PopMarkOrStop();
      AddItems(Top(), items, "ADDITEMS");
      break;
    }
    default:
      break;
  }
}

void Analyser::Machine::MemoOp(unsigned char op) {
  switch (op) {
    case 'g':
      MemoGet(LineKey());
      break;
    case 'h':
      MemoGet(Le(Need(1)));
      break;
    case 'j':
      MemoGet(Le(Need(4)));
      break;
    case 'p':
      MemoPut(LineKey());
      break;
    case 'q':
      MemoPut(Le(Need(1)));
      break;
    case 'r':
      MemoPut(Le(Need(4)));
      break;
    case 0x94:
      MemoPut(memo_count_);
      break;  // len(memo): keys written, not the largest
    default:
      break;
  }
}

void Analyser::Machine::CallOp(unsigned char op) {
  switch (op) {
    case 'c': {
      std::string module = NextLine();
      std::string name = NextLine();
      if (!ValidUtf8(module) || !ValidUtf8(name)) {
        Malformed(OpName() + " names a module or attribute that is not valid UTF-8.");
        throw Stop{};
      }
      Push(Global(std::move(module), std::move(name), "GLOBAL"));
      break;
    }
    case 0x93: {
      const ValueId name = PopOrStop();
      const ValueId module = PopOrStop();
      if (a_.values_[name].kind != Kind::kStr || a_.values_[module].kind != Kind::kStr) {
        // Operands that are not known strings (a missing memo key, a call result): the
        // import cannot be named, which is never safe.
        a_.Report(Diag::kPickleGlobalUnsafe, op_at_,
                  OpName() + " imports " + a_.Render(module) + "." + a_.Render(name) +
                      ", a global whose module or name is not a known string: whatever it resolves to is "
                      "imported.");
        Push(Unknown());
        break;
      }
      Push(Global(a_.texts_[a_.values_[module].aux], a_.texts_[a_.values_[name].aux], "STACK_GLOBAL"));
      break;
    }
    case 'i': {
      std::string module = NextLine();
      std::string name = NextLine();
      const ValueId cls = Global(std::move(module), std::move(name), "INST");  // find_class runs first
      std::vector<ValueId> args = PopMarkOrStop();
      Push(CallOf(cls, a_.NewContainer(Kind::kTuple, std::move(args)), "INST"));
      break;
    }
    case 'o': {
      std::vector<ValueId> items = PopMarkOrStop();
      if (items.empty()) {
        Malformed(OpName() + " has no class after its MARK.");
        throw Stop{};
      }
      const ValueId cls = items.front();
      items.erase(items.begin());
      Push(CallOf(cls, a_.NewContainer(Kind::kTuple, std::move(items)), "OBJ"));
      break;
    }
    case 'R': {
      const ValueId args = PopOrStop();
      const ValueId callee = PopOrStop();
      Push(CallOf(callee, args, "REDUCE"));
      break;
    }
    case 0x81: {
      const ValueId args = PopOrStop();
      const ValueId cls = PopOrStop();
      Push(CallOf(cls, args, "NEWOBJ"));
      break;
    }
    case 0x92: {
      const ValueId kwargs = PopOrStop();
      const ValueId args = PopOrStop();
      const ValueId cls = PopOrStop();
      if (a_.values_[kwargs].kind != Kind::kDict || !a_.ItemsOf(a_.values_[kwargs]).empty()) {
        a_.calls_.push_back({cls, args});
        a_.Report(Diag::kPickleCallUnsafe, op_at_,
                  OpName() + " calls " + a_.Render(cls) + ".__new__ with arguments " + a_.Render(args) +
                      " and keywords " + a_.Render(kwargs) + ".",
                  a_.GlobalOf(cls), a_.Render(cls) + ".__new__(*" + a_.Render(args) + ", **" + a_.Render(kwargs) + ")");
        Push(Unknown());
        break;
      }
      Push(CallOf(cls, args, "NEWOBJ_EX"));
      break;
    }
    case 'b': {
      const ValueId state = PopOrStop();
      if (auto made = Build(Top(), state)) stack_.back() = *made;
      break;
    }
    case 'P': {
      const std::string id = NextLine();
      Push(PersistentLoad(a_.NewText(Kind::kStr, id)));
      break;
    }
    case 'Q':
      Push(PersistentLoad(PopOrStop()));
      break;
    case 0x82:
    case 0x83:
    case 0x84: {
      const std::uint64_t ext = Le(Need(op == 0x82 ? 1 : op == 0x83 ? 2 : 4));
      a_.Report(Diag::kPickleExtensionCode, op_at_,
                OpName() + " imports extension code " + std::to_string(ext) +
                    ", which copyreg's registry resolves at load time to a global this analysis cannot name.");
      Push(Unknown());
      break;
    }
    default:
      break;
  }
}

void Analyser::Machine::FramingOp(unsigned char op) {
  switch (op) {
    case 0x80: {
      const auto p = static_cast<int>(Le(Need(1)));
      if (p > 5) {
        Malformed(OpName() + " asks for protocol " + std::to_string(p) + " (unsupported pickle protocol).");
        throw Stop{};
      }
      proto_ = p;
      break;
    }
    case 0x95: {
      const std::uint64_t n = Le(Need(8));
      if (n > end_ - pos_) {
        Malformed(OpName() + " declares a frame of " + std::to_string(n) + " bytes, more than the " +
                  std::to_string(end_ - pos_) + " left (pickle data was truncated).");
        throw Stop{};
      }
      if (frame_end_ > op_at_) {
        FrameInvalid(op_at_, OpName() + " starts a new frame inside the previous one, which runs to byte " +
                                 std::to_string(frame_end_) + ": frame lengths must end where the next FRAME starts.");
      }
      frame_end_ = pos_ + n;
      break;
    }
    case 0x97:
      Malformed(OpName() + " refers to out-of-band data, which a file cannot carry (no buffers are given).");
      Push(Unknown());
      break;
    case 0x98:
      Top();
      break;

    default:
      break;
  }
}

// Whether a further pickle may start here (after a STOP): PROTO or a protocol 0/1 opcode.
IoResult<bool> PickleFollows(const RandomAccessFile& file, std::uint64_t at) {
  if (at >= file.size()) return false;
  std::array<std::byte, 1> b{};
  if (auto read = file.ReadAt(at, b); !read) return IoResult<bool>(boost::system::in_place_error, read.error());
  return pickle::IsOpcode(b[0]);
}

// Runs pickles from `begin` until `end`: each STOP followed by more bytes starts another
// pickle (a loader reading in a loop would run it), bytes that are not one are a finding.
// Returns the first pickle's result.
IoResult<std::optional<PickleEnd>> AnalyseStream(Analyser& analyser, const RandomAccessFile& file, std::uint64_t begin,
                                                 std::uint64_t end, const FileReporter& report,
                                                 std::uint32_t& pickles) {
  std::optional<PickleEnd> first;
  std::uint64_t at = begin;
  while (at < end) {
    if (pickles > 0) {
      auto follows = PickleFollows(file, at);
      if (!follows) return follows.error();
      if (!*follows) {
        report(Diag::kPickleTrailingData, at,
               std::to_string(end - at) + " bytes after the pickle's STOP at byte " + std::to_string(at) +
                   " are not a further pickle: one loader ignores them, another reads them.");
        break;
      }
    }
    auto run = analyser.Run(file, at, end);
    if (!run) return run.error();
    ++pickles;
    if (!first) first = *run;
    if (!run->stopped || analyser.budget().exceeded) break;
    at = run->end;
  }
  return first;
}

IoResult<PickleEnd> Analyser::Run(const RandomAccessFile& file, std::uint64_t begin, std::uint64_t end) {
  budget_.ScaleTo(end - begin);
  Machine machine(*this, file, begin, end);
  return machine.Run();
}

std::vector<NamedTensor> Analyser::ListTensors(ValueId root, std::uint64_t offset, std::vector<std::string>* others) {
  constexpr std::size_t kMaxDepth = 256;
  constexpr std::size_t kMaxOthers = 100'000;
  // A path is a chain of parts kept by reference (a str key of the pickle, an int key, a list
  // index) and spelled only for what is listed, in a second walk once the first has measured
  // every name: tied values under long memoized keys would otherwise spell gigabytes of names
  // from a few kilobytes of pickle, and a listing past its budget spells none.
  enum class PartKind : std::uint8_t { kRoot, kText, kIntKey, kIndex };
  struct Part {
    std::uint64_t length = 0;  ///< of the whole path this part ends
    std::uint32_t parent = 0;  ///< index into `entered` (0: before the root)
    std::uint32_t part = 0;    ///< a text index, an int key's ValueId, or a list index
    PartKind kind = PartKind::kRoot;
  };
  std::vector<Part> entered;  // the containers on the current path, each with its path (a stack)
  auto spell_part = [&](const Part& p) -> std::string {
    switch (p.kind) {
      case PartKind::kText:
        return texts_[p.part];
      case PartKind::kIntKey:
        return std::to_string(NumberOf(values_[p.part]));
      case PartKind::kIndex:
        return std::to_string(p.part);
      case PartKind::kRoot:
        break;
    }
    return "";
  };
  auto with_length = [&](Part p) {
    const Part& parent = entered[p.parent];
    const std::uint64_t own = p.kind == PartKind::kText ? texts_[p.part].size() : spell_part(p).size();
    p.length = parent.length + (parent.kind == PartKind::kRoot ? 0 : 1) + own;  // the root's children: no dot
    return p;
  };
  auto spell = [&](const Part& last) {
    std::string path;
    path.reserve(static_cast<std::size_t>(last.length));
    std::vector<const Part*> chain;
    for (const Part* at = &last; at->kind != PartKind::kRoot; at = &entered[at->parent]) chain.push_back(at);
    for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
      if (it != chain.rbegin()) path += '.';
      path += spell_part(**it);
    }
    return path;
  };
  std::vector<NamedTensor> out;
  std::unordered_map<std::size_t, std::vector<std::uint32_t>> listed;  // name hash -> indexes into out
  std::size_t reported = 0;
  auto report = [&](std::string message) {
    if (reported++ < 16) Report(Diag::kPickleTensorName, offset, std::move(message));
  };
  // One walk of the object: the first measures (values visited, bytes of the names it would
  // spell) against the budgets, the second spells the names and judges them.
  auto walk = [&](bool measuring) {
    entered.assign(1, Part{});
    struct Frame {
      ValueId id;
      Part path;
      bool exit;  // leaving a container: it is no longer on the path
    };
    std::vector<Frame> todo{{root, Part{}, false}};
    std::set<ValueId> on_path;  // cycles are cut: a container is not entered inside itself
    std::size_t others_listed = 0;
    auto charge = [&](std::uint64_t length) {
      budget_.path_bytes += length;
      if (budget_.path_bytes <= budget_.max_path_bytes) return true;
      budget_.exceeded = true;
      Report(Diag::kPickleBudgetExceeded, offset,
             "Listing tensors spells more than " + DescribeByteLimit(budget_.max_path_bytes) +
                 " of path names (values reached many ways under long names): nothing is listed.");
      return false;
    };
    while (!todo.empty()) {
      Frame f = todo.back();
      todo.pop_back();
      if (f.exit) {  // its children were all walked: its path is no longer referred to
        on_path.erase(f.id);
        entered.pop_back();
        continue;
      }
      if (measuring && ++budget_.values > budget_.max_values) {
        budget_.exceeded = true;
        Report(Diag::kPickleBudgetExceeded, offset,
               "Listing tensors visits more than " + DescribeLimit(budget_.max_values) +
                   " (path, value) pairs (shared values reached many ways): nothing is listed.");
        return false;
      }
      if (values_[f.id].kind == Kind::kEstimator) {
        // A scikit-learn object's arrays are its attributes: named by them, as a dict's by keys.
        const EstimatorValue& e = estimators_[values_[f.id].aux];
        if (!e.state) continue;
        f.id = *e.state;
      }
      const Value& v = values_[f.id];
      const bool container = v.kind == Kind::kDict || v.kind == Kind::kList || v.kind == Kind::kTuple;
      if (v.kind == Kind::kTensor || (!container && others != nullptr && others_listed < kMaxOthers)) {
        if (v.kind != Kind::kTensor) ++others_listed;
        if (measuring) {
          if (!charge(f.path.length)) return false;
        } else if (v.kind != Kind::kTensor) {
          others->push_back(spell(f.path));
        } else {
          std::string name = spell(f.path);
          auto& same_hash = listed[std::hash<std::string>{}(name)];
          const auto same =
              std::find_if(same_hash.begin(), same_hash.end(), [&](std::uint32_t i) { return out[i].name == name; });
          if (same == same_hash.end()) {
            same_hash.push_back(static_cast<std::uint32_t>(out.size()));
            out.push_back({std::move(name), v.aux});
          } else if (out[*same].tensor != v.aux) {
            report("Two paths in the object give the tensor name " + Quoted(name) +
                   " to different tensors: a loader keeps one of them.");
          }
        }
      }
      if (!container || on_path.contains(f.id)) continue;
      if (on_path.size() >= kMaxDepth) {
        if (!measuring) {
          report("The object nests deeper than " + std::to_string(kMaxDepth) + " levels under " +
                 Quoted(spell(f.path)) + ": tensors below are not listed.");
        }
        continue;
      }
      on_path.insert(f.id);
      todo.push_back({f.id, Part{}, true});
      const auto here = static_cast<std::uint32_t>(entered.size());
      entered.push_back(f.path);
      const auto& items = ItemsOf(v);
      if (v.kind == Kind::kDict) {
        for (std::size_t i = items.size(); i >= 2; i -= 2) {
          const Value& key = values_[items[i - 2]];
          if (key.kind == Kind::kStr) {
            todo.push_back({items[i - 1], with_length({0, here, key.aux, PartKind::kText}), false});
          } else if (key.kind == Kind::kInt) {
            todo.push_back({items[i - 1], with_length({0, here, items[i - 2], PartKind::kIntKey}), false});
          } else if (!measuring) {
            report("The object has a dict key " + Render(items[i - 2]) + " under " + Quoted(spell(f.path)) +
                   ", neither a str nor an int: tensors under it have no name.");
          }
        }
      } else {
        for (std::size_t i = items.size(); i-- > 0;) {
          todo.push_back({items[i], with_length({0, here, static_cast<std::uint32_t>(i), PartKind::kIndex}), false});
        }
      }
    }
    return true;
  };
  if (budget_.exceeded || !walk(/*measuring=*/true)) return out;
  walk(/*measuring=*/false);
  return out;
}

}  // namespace ckpt::pickle
