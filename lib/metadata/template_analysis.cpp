#include "lib/metadata/template_analysis.h"

#include <unicode/locid.h>
#include <unicode/unistr.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <map>
#include <set>
#include <utility>

#include "lib/core/text.h"

namespace ckpt {
namespace {

using jinja::kNoNode;
using jinja::Node;
using jinja::NodeKind;

constexpr std::size_t kMaxAlternatives = 32;
constexpr std::size_t kMaxFoldedBytes = 4096;
constexpr std::size_t kMaxItems = 256;
constexpr int kMaxPasses = 6;
constexpr std::size_t kMaxHazards = 1000;

// Jinja's globals that are callables whose attributes lead to Python internals.
constexpr std::array<std::string_view, 6> kGlobalCallables = {"lipsum",    "cycler", "joiner",
                                                              "namespace", "range",  "dict"};
// Attributes Jinja's sandbox refuses besides those starting with '_'.
constexpr std::array<std::string_view, 10> kSandboxUnsafe = {"func_globals", "f_globals", "gi_frame", "gi_code",
                                                             "cr_frame",     "cr_code",   "ag_frame", "ag_code",
                                                             "mro",          "format_map"};
// Names that run code when called.
constexpr std::array<std::string_view, 10> kCodeCalls = {"import",     "eval", "exec",       "open",  "getattr",
                                                         "__import__", "os",   "subprocess", "popen", "system"};

template <std::size_t N>
bool OneOf(const std::array<std::string_view, N>& list, std::string_view name) {
  return std::find(list.begin(), list.end(), name) != list.end();
}

// What folding knows of an expression's value.
struct Folded {
  std::vector<std::string> strings;          ///< the constant strings it may be (sorted, unique)
  std::vector<std::string> numbers;          ///< the constant numbers it may be, as Python prints them
  bool other = false;                        ///< it may be a value folding cannot name
  bool computed = false;                     ///< a string made by string operations from a part it cannot name
  bool stringish = false;                    ///< a string literal or a string operation made it
  std::vector<std::string> globals;          ///< the global callables it may be, not called
  std::vector<std::string> accessors;        ///< the attribute or item names it was read by
  std::optional<std::vector<Folded>> items;  ///< a constant list, tuple or dict (key, value, ...)
  std::vector<std::string> contained;        ///< every constant string inside its items

  [[nodiscard]] bool Constant() const {
    return !other && !computed && globals.empty() && !items && strings.size() + numbers.size() == 1;
  }
  [[nodiscard]] std::optional<std::string> Single() const {
    if (!Constant()) return std::nullopt;
    return strings.empty() ? numbers.front() : strings.front();
  }
  [[nodiscard]] bool StringContent() const { return stringish || computed || !contained.empty(); }
  bool operator==(const Folded&) const = default;
};

Folded Other() {
  Folded f;
  f.other = true;
  return f;
}

Folded Computed() {
  Folded f;
  f.computed = true;
  f.stringish = true;
  return f;
}

void Merge(std::vector<std::string>& into, const std::vector<std::string>& more, bool& overflow) {
  std::vector<std::string> merged;
  std::set_union(into.begin(), into.end(), more.begin(), more.end(), std::back_inserter(merged));
  if (merged.size() > kMaxAlternatives) {
    overflow = true;
    merged.clear();
  }
  into = std::move(merged);
}

void Normalize(std::vector<std::string>& values, bool& overflow) {
  std::sort(values.begin(), values.end());
  values.erase(std::unique(values.begin(), values.end()), values.end());
  for (const std::string& v : values) overflow = overflow || v.size() > kMaxFoldedBytes;
  if (values.size() > kMaxAlternatives || overflow) {
    overflow = true;
    values.clear();
  }
}

Folded StringsOf(std::vector<std::string> values) {
  Folded f;
  f.stringish = true;
  bool overflow = false;
  Normalize(values, overflow);
  f.strings = std::move(values);
  f.computed = overflow;
  return f;
}

Folded Union(Folded a, const Folded& b) {
  bool overflow = false;
  Merge(a.strings, b.strings, overflow);
  Merge(a.numbers, b.numbers, overflow);
  Merge(a.globals, b.globals, overflow);
  Merge(a.accessors, b.accessors, overflow);
  Merge(a.contained, b.contained, overflow);
  a.other = a.other || b.other;
  a.stringish = a.stringish || b.stringish;
  a.computed = a.computed || b.computed || (overflow && a.stringish);
  if (a.items && b.items && a.items->size() == b.items->size()) {
    for (std::size_t i = 0; i < a.items->size(); ++i) (*a.items)[i] = Union(std::move((*a.items)[i]), (*b.items)[i]);
  } else if (b.items && !a.items && !a.Constant() && a.strings.empty() && a.numbers.empty()) {
    a.items = b.items;
  } else if (a.items && b.items) {
    a.items.reset();
    a.other = true;
  }
  return a;
}

Folded ListOf(std::vector<Folded> items) {
  Folded f;
  bool overflow = false;
  for (const Folded& item : items) {
    Merge(f.contained, item.strings, overflow);
    Merge(f.contained, item.contained, overflow);
    f.computed = f.computed || item.computed;
  }
  if (items.size() > kMaxItems) {
    f.other = true;
  } else {
    f.items = std::move(items);
  }
  f.computed = f.computed || overflow;
  return f;
}

// ---- String operations on code points ----

std::vector<std::uint32_t> CodePoints(std::string_view s) {
  std::vector<std::uint32_t> out;
  for (std::size_t i = 0; i < s.size();) {
    std::uint32_t cp = 0;
    std::size_t len = DecodeUtf8(s, i, cp);
    if (len == 0) {
      cp = static_cast<unsigned char>(s[i]);
      len = 1;
    }
    out.push_back(cp);
    i += len;
  }
  return out;
}

std::string FromCodePoints(const std::vector<std::uint32_t>& cps) {
  std::string out;
  for (std::uint32_t cp : cps) AppendUtf8(out, cp);
  return out;
}

std::optional<long long> ToInteger(std::string_view s) {
  long long v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return v;
}

// Python's slice of a sequence of `n` items: the indices it selects.
std::optional<std::vector<std::size_t>> SliceIndices(std::size_t n, std::optional<long long> start,
                                                     std::optional<long long> stop, std::optional<long long> step) {
  const long long s = step.value_or(1);
  if (s == 0) return std::nullopt;
  const auto size = static_cast<long long>(n);
  const auto clamp = [&](std::optional<long long> v, long long fallback, long long low, long long high) {
    if (!v) return fallback;
    long long x = *v < 0 ? *v + size : *v;
    return std::clamp(x, low, high);
  };
  std::vector<std::size_t> out;
  if (s > 0) {
    const long long from = clamp(start, 0, 0, size);
    const long long to = clamp(stop, size, 0, size);
    for (long long i = from; i < to; i += s) out.push_back(static_cast<std::size_t>(i));
  } else {
    const long long from = clamp(start, size - 1, -1, size - 1);
    const long long to = clamp(stop, -1, -1, size - 1);
    for (long long i = from; i > to; i += s) out.push_back(static_cast<std::size_t>(i));
  }
  return out;
}

std::string CaseMapped(const std::string& s, bool upper) {
  icu::UnicodeString text = icu::UnicodeString::fromUTF8(s);
  if (upper) {
    text.toUpper(icu::Locale::getRoot());
  } else {
    text.toLower(icu::Locale::getRoot());
  }
  std::string out;
  text.toUTF8String(out);
  return out;
}

std::string Reversed(std::string_view s) {
  std::vector<std::uint32_t> cps = CodePoints(s);
  std::reverse(cps.begin(), cps.end());
  return FromCodePoints(cps);
}

std::string Replaced(std::string s, const std::string& from, const std::string& to, long long count) {
  if (from.empty()) return s;  // Python inserts `to` between characters; no name comes of it here
  std::string out;
  std::size_t at = 0;
  for (long long done = 0; count < 0 || done < count; ++done) {
    const std::size_t found = s.find(from, at);
    if (found == std::string::npos) break;
    out.append(s, at, found - at);
    out += to;
    at = found + from.size();
    if (out.size() > kMaxFoldedBytes) break;
  }
  out.append(s, at);
  return out;
}

std::string Stripped(std::string_view s) {
  const auto space = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; };
  while (!s.empty() && space(s.front())) s.remove_prefix(1);
  while (!s.empty() && space(s.back())) s.remove_suffix(1);
  return std::string(s);
}

// One argument of a format: a string, or a number as Python prints it.
struct FormatArg {
  std::string text;
  bool number = false;
};

// Python's `fmt % args` for the conversions a name can come from (s r a d i u c x X o %),
// with flags and width; nullopt for anything else.
std::optional<std::string> PercentFormat(std::string_view fmt, const std::vector<FormatArg>& args) {
  std::string out;
  std::size_t next = 0;
  for (std::size_t i = 0; i < fmt.size(); ++i) {
    if (fmt[i] != '%') {
      out += fmt[i];
      continue;
    }
    if (++i >= fmt.size()) return std::nullopt;
    if (fmt[i] == '%') {
      out += '%';
      continue;
    }
    if (fmt[i] == '(') return std::nullopt;  // mapping keys: not folded
    bool left = false;
    bool zero = false;
    while (i < fmt.size() && (fmt[i] == '-' || fmt[i] == '0' || fmt[i] == ' ' || fmt[i] == '+' || fmt[i] == '#')) {
      left = left || fmt[i] == '-';
      zero = zero || fmt[i] == '0';
      ++i;
    }
    std::size_t width = 0;
    while (i < fmt.size() && fmt[i] >= '0' && fmt[i] <= '9' && width < 1000)
      width = width * 10 + static_cast<std::size_t>(fmt[i++] - '0');
    if (i < fmt.size() && (fmt[i] == '.' || fmt[i] == '*')) return std::nullopt;
    while (i < fmt.size() && (fmt[i] == 'l' || fmt[i] == 'h' || fmt[i] == 'L')) ++i;
    if (i >= fmt.size() || next >= args.size()) return std::nullopt;
    const FormatArg& arg = args[next++];
    const char type = fmt[i];
    std::string piece;
    if (type == 's') {
      piece = arg.text;
    } else if (type == 'r' || type == 'a') {
      if (arg.number) {
        piece = arg.text;
      } else {
        const char quote =
            arg.text.find('\'') != std::string::npos && arg.text.find('"') == std::string::npos ? '"' : '\'';
        piece = quote + arg.text + quote;
      }
    } else if (type == 'c') {
      if (arg.number) {
        const auto cp = ToInteger(arg.text);
        if (!cp || *cp < 0 || *cp > 0x10FFFF) return std::nullopt;
        AppendUtf8(piece, static_cast<std::uint32_t>(*cp));
      } else {
        if (CodePoints(arg.text).size() != 1) return std::nullopt;
        piece = arg.text;
      }
    } else if (type == 'd' || type == 'i' || type == 'u' || type == 'x' || type == 'X' || type == 'o') {
      const auto value = arg.number ? ToInteger(arg.text) : std::nullopt;
      if (!value) return std::nullopt;
      const int base = type == 'o' ? 8 : (type == 'x' || type == 'X') ? 16 : 10;
      std::array<char, 72> digits{};
      const auto [end, ec] = std::to_chars(digits.data(), digits.data() + digits.size(), *value, base);
      if (ec != std::errc()) return std::nullopt;
      piece.assign(digits.data(), end);
      if (type == 'X')
        std::transform(piece.begin(), piece.end(), piece.begin(), [](char c) { return std::toupper(c); });
    } else {
      return std::nullopt;
    }
    const std::size_t length = CodePoints(piece).size();
    if (length < width) {
      const std::string pad(width - length, zero && !left && type != 's' && type != 'c' ? '0' : ' ');
      if (left) {
        piece += pad;
      } else {
        piece.insert(0, pad);
      }
    }
    out += piece;
    if (out.size() > kMaxFoldedBytes) return std::nullopt;
  }
  if (next != args.size()) return std::nullopt;  // Python: not all arguments converted
  return out;
}

// The fields of a str.format string (`{0.attr[key]!r:spec}`): each attribute and item name.
std::vector<std::string> FormatFieldAccessors(std::string_view fmt) {
  std::vector<std::string> names;
  for (std::size_t i = 0; i < fmt.size(); ++i) {
    if (fmt[i] != '{') continue;
    if (i + 1 < fmt.size() && fmt[i + 1] == '{') {
      ++i;
      continue;
    }
    std::size_t end = i + 1;
    while (end < fmt.size() && fmt[end] != '}' && fmt[end] != '!' && fmt[end] != ':') ++end;
    const std::string_view field = fmt.substr(i + 1, end - i - 1);
    for (std::size_t at = 0; at < field.size(); ++at) {
      if (field[at] == '.') {
        std::size_t stop = at + 1;
        while (stop < field.size() && field[stop] != '.' && field[stop] != '[') ++stop;
        names.emplace_back(field.substr(at + 1, stop - at - 1));
        at = stop - 1;
      } else if (field[at] == '[') {
        const std::size_t stop = field.find(']', at);
        names.emplace_back(field.substr(at + 1, (stop == std::string_view::npos ? field.size() : stop) - at - 1));
        if (stop == std::string_view::npos) break;
        at = stop;
      }
    }
    i = end;
  }
  return names;
}

// str.format with `{}`, `{0}` and `{name}` fields and nothing else in them.
std::optional<std::string> BraceFormat(std::string_view fmt, const std::vector<FormatArg>& args,
                                       const std::map<std::string, FormatArg>& kwargs) {
  std::string out;
  std::size_t auto_index = 0;
  for (std::size_t i = 0; i < fmt.size(); ++i) {
    const char c = fmt[i];
    if ((c == '{' || c == '}') && i + 1 < fmt.size() && fmt[i + 1] == c) {
      out += c;
      ++i;
      continue;
    }
    if (c == '}') return std::nullopt;
    if (c != '{') {
      out += c;
      continue;
    }
    const std::size_t close = fmt.find('}', i);
    if (close == std::string_view::npos) return std::nullopt;
    const std::string field(fmt.substr(i + 1, close - i - 1));
    const FormatArg* arg = nullptr;
    if (field.empty()) {
      if (auto_index >= args.size()) return std::nullopt;
      arg = &args[auto_index++];
    } else if (const auto index = ToInteger(field)) {
      if (*index < 0 || static_cast<std::size_t>(*index) >= args.size()) return std::nullopt;
      arg = &args[static_cast<std::size_t>(*index)];
    } else if (auto it = kwargs.find(field); it != kwargs.end()) {
      arg = &it->second;
    } else {
      return std::nullopt;
    }
    out += arg->text;
    if (out.size() > kMaxFoldedBytes) return std::nullopt;
    i = close;
  }
  return out;
}

// ---- The analysis ----

class Analysis {
 public:
  explicit Analysis(const std::vector<Node>& nodes) : nodes_(nodes), folded_(nodes.size()) { CollectBindings(); }

  std::vector<TemplateHazard> Run() {
    bool settled = false;
    for (int pass = 0; pass < kMaxPasses && !settled; ++pass) {
      FoldAll();
      settled = UpdateNames().empty();
    }
    // Names still changing are accumulators (`{% set s = s ~ 'x' %}` in a loop): what they hold
    // is computed. Only they are; the rest settle around them.
    for (int pass = 0; pass < kMaxPasses && !settled; ++pass) {
      FoldAll();
      const std::set<std::string> changed = UpdateNames();
      accumulators_.insert(changed.begin(), changed.end());
      settled = changed.empty();
      if (!settled) {
        for (const std::string& name : accumulators_) names_[name] = Union(std::move(names_[name]), Computed());
      }
    }
    FoldAll();
    for (std::uint32_t i = 0; i < nodes_.size(); ++i) Check(i);
    return std::move(hazards_);
  }

 private:
  // What a name may be bound to: a value node, the elements of an iterable, or a set block's body.
  struct Binding {
    enum class Source : std::uint8_t { kValue, kElements, kBlockBody, kUnknown } source = Source::kValue;
    std::uint32_t node = kNoNode;
  };

  [[nodiscard]] const Node& At(std::uint32_t i) const { return nodes_[i]; }
  [[nodiscard]] std::uint32_t Child(std::uint32_t i, std::size_t k) const {
    const auto& c = nodes_[i].children;
    return k < c.size() ? c[k] : kNoNode;
  }
  [[nodiscard]] const Folded& F(std::uint32_t i) const {
    static const Folded kOther = Other();
    return i == kNoNode || i >= folded_.size() ? kOther : folded_[i];
  }

  void Bind(const std::string& name, Binding binding) { bindings_[name].push_back(binding); }

  // Binds every name of an assignment target (a name, a tuple of names, `ns.attr`).
  void BindTarget(std::uint32_t target, Binding binding) {
    if (target == kNoNode) return;
    const Node& t = At(target);
    if (t.kind == NodeKind::kName) {
      Bind(t.text, binding);
    } else if (t.kind == NodeKind::kTuple) {
      if (binding.source == Binding::Source::kValue) binding.source = Binding::Source::kElements;
      for (std::uint32_t c : t.children) BindTarget(c, binding);
    } else if (t.kind == NodeKind::kGetattr) {
      const std::uint32_t object = Child(target, 0);
      if (object != kNoNode && At(object).kind == NodeKind::kName) Bind(At(object).text + "." + t.text, binding);
    }
  }

  void CollectBindings() {
    std::map<std::string, std::vector<std::string>> macro_params;
    std::vector<std::vector<std::string>> caller_params;
    for (std::uint32_t i = 0; i < nodes_.size(); ++i) {
      const Node& n = At(i);
      switch (n.kind) {
        case NodeKind::kSet: {
          BindTarget(Child(i, 0), {Binding::Source::kValue, Child(i, 1)});
          // namespace(a=...) binds ns.a
          const std::uint32_t value = Child(i, 1);
          const std::uint32_t target = Child(i, 0);
          if (value != kNoNode && target != kNoNode && At(target).kind == NodeKind::kName &&
              At(value).kind == NodeKind::kCall && At(Child(value, 0)).kind == NodeKind::kName &&
              At(Child(value, 0)).text == "namespace") {
            for (std::size_t k = 1; k < At(value).children.size(); ++k) {
              const std::uint32_t arg = At(value).children[k];
              if (At(arg).kind == NodeKind::kKeyword) {
                Bind(At(target).text + "." + At(arg).text, {Binding::Source::kValue, Child(arg, 0)});
              }
            }
          }
          break;
        }
        case NodeKind::kSetBlock:
          BindTarget(Child(i, 0),
                     {Child(i, 2) == kNoNode ? Binding::Source::kBlockBody : Binding::Source::kUnknown, Child(i, 1)});
          break;
        case NodeKind::kFor:
          BindTarget(Child(i, 0), {Binding::Source::kElements, Child(i, 1)});
          break;
        case NodeKind::kWith:
          for (std::size_t k = 1; k < n.children.size(); ++k) {
            const std::uint32_t assignment = n.children[k];
            BindTarget(Child(assignment, 1), {Binding::Source::kValue, Child(assignment, 0)});
          }
          break;
        case NodeKind::kMacro: {
          macros_.insert(n.text);
          std::vector<std::string>& params = macro_params[n.text];
          for (std::size_t k = 1; k < n.children.size(); ++k) {
            const Node& p = At(n.children[k]);
            params.push_back(p.text);
            if (p.kind == NodeKind::kKeyword) Bind(p.text, {Binding::Source::kValue, Child(n.children[k], 0)});
          }
          break;
        }
        case NodeKind::kCallBlock: {
          std::vector<std::string> params;
          for (std::size_t k = 2; k < n.children.size(); ++k) {
            const Node& p = At(n.children[k]);
            params.push_back(p.text);
            if (p.kind == NodeKind::kKeyword) Bind(p.text, {Binding::Source::kValue, Child(n.children[k], 0)});
          }
          caller_params.push_back(std::move(params));
          break;
        }
        case NodeKind::kStatement:
          if (n.text == "import" || n.text == "from") {
            for (std::size_t k = 1; k < n.children.size(); ++k) BindTarget(n.children[k], {Binding::Source::kUnknown});
          }
          break;
        default:
          break;
      }
    }
    // Arguments at call sites bind the parameters of the macro (or caller) called.
    for (std::uint32_t i = 0; i < nodes_.size(); ++i) {
      const Node& n = At(i);
      if (n.kind != NodeKind::kCall || At(n.children.front()).kind != NodeKind::kName) continue;
      const std::string& callee = At(n.children.front()).text;
      std::vector<const std::vector<std::string>*> signatures;
      if (auto it = macro_params.find(callee); it != macro_params.end()) signatures.push_back(&it->second);
      if (callee == "caller") {
        for (const auto& params : caller_params) signatures.push_back(&params);
      }
      for (const std::vector<std::string>* params : signatures) {
        std::size_t position = 0;
        for (std::size_t k = 1; k < n.children.size(); ++k) {
          const std::uint32_t arg = n.children[k];
          const NodeKind kind = At(arg).kind;
          if (kind == NodeKind::kKeyword) {
            Bind(At(arg).text, {Binding::Source::kValue, Child(arg, 0)});
          } else if (kind == NodeKind::kStarArgs || kind == NodeKind::kStarKwargs) {
            for (const std::string& p : *params) Bind(p, {Binding::Source::kElements, Child(arg, 0)});
          } else if (position < params->size()) {
            Bind((*params)[position++], {Binding::Source::kValue, arg});
          }
        }
      }
    }
  }

  // Recomputes every bound name from its bindings; returns the names that changed.
  std::set<std::string> UpdateNames() {
    std::set<std::string> changed;
    for (const auto& [name, bindings] : bindings_) {
      Folded value;
      bool first = true;
      for (const Binding& b : bindings) {
        Folded one;
        switch (b.source) {
          case Binding::Source::kValue:
            one = F(b.node);
            break;
          case Binding::Source::kElements:
            one = Elements(F(b.node));
            break;
          case Binding::Source::kBlockBody:
            one = BlockValue(b.node);
            break;
          case Binding::Source::kUnknown:
            one = Computed();
            one.other = true;
            break;
        }
        value = first ? std::move(one) : Union(std::move(value), one);
        first = false;
      }
      if (accumulators_.contains(name)) value = Union(std::move(value), Computed());
      auto it = names_.find(name);
      if (it == names_.end()) {
        names_.emplace(name, std::move(value));
        changed.insert(name);
      } else if (!(it->second == value)) {
        it->second = std::move(value);
        changed.insert(name);
      }
    }
    return changed;
  }

  // What iterating `f` yields (any item, for unpacking too: an over-approximation).
  static Folded Elements(const Folded& f) {
    Folded out;
    bool first = true;
    const auto add = [&](Folded one) {
      out = first ? std::move(one) : Union(std::move(out), one);
      first = false;
    };
    if (f.items) {
      for (const Folded& item : *f.items) {
        add(item);
        if (item.items) add(Elements(item));
      }
    }
    std::vector<std::string> chars;
    for (const std::string& s : f.strings) {
      for (std::uint32_t cp : CodePoints(s)) {
        std::string one;
        AppendUtf8(one, cp);
        chars.push_back(std::move(one));
      }
    }
    if (!chars.empty()) add(StringsOf(std::move(chars)));
    if (!f.contained.empty()) add(StringsOf(f.contained));
    if (f.other || f.computed || first) {
      Folded unknown = Other();
      unknown.computed = f.computed;
      unknown.stringish = f.computed;
      add(std::move(unknown));
    }
    return out;
  }

  // The text a `{% set x %}...{% endset %}` body renders, when only data and outputs make it.
  Folded BlockValue(std::uint32_t body) const {
    Folded value = StringsOf({""});
    if (body == kNoNode) return Computed();
    for (std::uint32_t part : At(body).children) {
      const Node& p = At(part);
      if (p.kind == NodeKind::kData) {
        value = Concat(value, StringsOf({p.text}));
      } else if (p.kind == NodeKind::kOutput) {
        value = Concat(value, F(Child(part, 0)));
      } else {
        return Computed();
      }
    }
    return value;
  }

  static std::vector<std::string> Texts(const Folded& f) {
    std::vector<std::string> all = f.strings;
    all.insert(all.end(), f.numbers.begin(), f.numbers.end());
    return all;
  }

  // `a ~ b`: every pair of alternatives; computed when a part cannot be named.
  static Folded Concat(const Folded& a, const Folded& b) {
    const std::vector<std::string> left = Texts(a);
    const std::vector<std::string> right = Texts(b);
    std::vector<std::string> out;
    bool overflow = left.size() * right.size() > kMaxAlternatives;
    if (!overflow) {
      for (const std::string& l : left) {
        for (const std::string& r : right) out.push_back(l + r);
      }
    }
    Folded f = StringsOf(std::move(out));
    const auto unnamed = [](const Folded& x) {
      return x.other || x.computed || !x.globals.empty() || x.items || (x.strings.empty() && x.numbers.empty());
    };
    f.computed = f.computed || overflow || unnamed(a) || unnamed(b);
    return f;
  }

  static std::vector<FormatArg> SingleArgs(const std::vector<Folded>& values, bool& known) {
    std::vector<FormatArg> args;
    for (const Folded& v : values) {
      const auto single = v.Single();
      if (!single) {
        known = false;
        return {};
      }
      args.push_back({*single, !v.numbers.empty()});
    }
    return args;
  }

  // `fmt % args` or `fmt|format(args)`.
  static Folded Percent(const Folded& fmt, const std::vector<Folded>& values) {
    bool known = true;
    const std::vector<FormatArg> args = SingleArgs(values, known);
    std::vector<std::string> out;
    for (const std::string& f : fmt.strings) {
      auto formatted = known ? PercentFormat(f, args) : std::nullopt;
      if (!formatted) {
        known = false;
        break;
      }
      out.push_back(std::move(*formatted));
    }
    Folded result = StringsOf(std::move(out));
    result.computed = result.computed || !known || fmt.other || fmt.computed;
    return result;
  }

  // `items|join(separator)`.
  static Folded Join(const Folded& sequence, const Folded& separator) {
    const auto sep = separator.Single();
    if (!sep) return Computed();
    if (sequence.Constant() && !sequence.strings.empty()) return sequence;  // a string joins its characters back
    if (!sequence.items || sequence.other || sequence.computed) return Computed();
    std::vector<std::string> parts{""};
    bool first = true;
    for (const Folded& item : *sequence.items) {
      const std::vector<std::string> texts = Texts(item);
      if (texts.empty() || item.other || item.computed || item.items) return Computed();
      std::vector<std::string> next;
      for (const std::string& p : parts) {
        for (const std::string& t : texts) {
          std::string joined = p;
          if (!first) joined += *sep;
          joined += t;
          next.push_back(std::move(joined));
        }
      }
      if (next.size() > kMaxAlternatives) return Computed();
      parts = std::move(next);
      first = false;
    }
    return StringsOf(std::move(parts));
  }

  // A string transformation applied to every alternative; computed when the operand is not constant.
  template <class Transform>
  static Folded MapStrings(const Folded& f, Transform transform) {
    std::vector<std::string> out;
    for (const std::string& s : f.strings) out.push_back(transform(s));
    Folded result = StringsOf(std::move(out));
    result.computed = result.computed || f.other || f.computed || !f.numbers.empty() || f.items.has_value();
    if (f.strings.empty() && !f.StringContent()) {
      result = Other();
      result.stringish = false;
    }
    return result;
  }

  // A value folding cannot name, computed when string content went into it.
  static Folded Opaque(const Folded& input) {
    if (input.StringContent()) return Computed();
    return Other();
  }

  [[nodiscard]] std::vector<Folded> Arguments(std::uint32_t call, std::size_t first,
                                              std::map<std::string, Folded>* keywords = nullptr) const {
    std::vector<Folded> args;
    const Node& n = At(call);
    for (std::size_t k = first; k < n.children.size(); ++k) {
      const std::uint32_t a = n.children[k];
      const NodeKind kind = At(a).kind;
      if (kind == NodeKind::kKeyword) {
        if (keywords != nullptr) keywords->emplace(At(a).text, F(Child(a, 0)));
      } else if (kind == NodeKind::kStarArgs || kind == NodeKind::kStarKwargs) {
        args.push_back(Computed());
      } else {
        args.push_back(F(a));
      }
    }
    return args;
  }

  [[nodiscard]] bool HasStar(std::uint32_t call) const {
    return std::any_of(At(call).children.begin() + 1, At(call).children.end(), [&](std::uint32_t a) {
      return At(a).kind == NodeKind::kStarArgs || At(a).kind == NodeKind::kStarKwargs;
    });
  }

  Folded FoldFilter(std::uint32_t i) const {
    const Node& n = At(i);
    const Folded& operand = F(Child(i, 0));
    std::map<std::string, Folded> keywords;
    const std::vector<Folded> args = Arguments(i, 1, &keywords);
    const std::string& name = n.text;
    const auto arg = [&](std::size_t k, std::string_view keyword, Folded fallback) -> Folded {
      if (k < args.size()) return args[k];
      if (auto it = keywords.find(std::string(keyword)); it != keywords.end()) return it->second;
      return fallback;
    };
    if (HasStar(i)) return Opaque(operand);
    if (name == "format") return Percent(operand, args);
    if (name == "join") return Join(operand, arg(0, "d", StringsOf({""})));
    if (name == "string" || name == "safe") return operand;
    if (name == "lower") return MapStrings(operand, [](const std::string& s) { return CaseMapped(s, false); });
    if (name == "upper") return MapStrings(operand, [](const std::string& s) { return CaseMapped(s, true); });
    if (name == "trim") return MapStrings(operand, [](const std::string& s) { return Stripped(s); });
    if (name == "reverse") {
      if (operand.items) {
        std::vector<Folded> items(operand.items->rbegin(), operand.items->rend());
        return ListOf(std::move(items));
      }
      return MapStrings(operand, [](const std::string& s) { return Reversed(s); });
    }
    if (name == "replace") {
      const auto from = arg(0, "old", Computed()).Single();
      const auto to = arg(1, "new", Computed()).Single();
      const auto count = ToInteger(arg(2, "count", StringsOf({"-1"})).Single().value_or("x"));
      if (!from || !to || !count) return Opaque(operand);
      return MapStrings(operand, [&](const std::string& s) { return Replaced(s, *from, *to, *count); });
    }
    if (name == "first" || name == "last") {
      if (operand.items && !operand.items->empty())
        return name == "first" ? operand.items->front() : operand.items->back();
      return MapStrings(operand, [&](const std::string& s) {
        const std::vector<std::uint32_t> cps = CodePoints(s);
        if (cps.empty()) return std::string();
        return FromCodePoints({name == "first" ? cps.front() : cps.back()});
      });
    }
    if (name == "list" || name == "items" || name == "dictsort" || name == "batch" || name == "slice" ||
        name == "unique" || name == "sort") {
      Folded out = operand.items ? ListOf(*operand.items) : Elements(operand);
      if (!operand.items) out.items.reset();
      if (name == "sort" || name == "unique" || name == "batch" || name == "slice") out.items.reset();
      out.contained = operand.contained;
      Merge(out.contained, operand.strings, out.computed);
      out.other = out.other || !operand.items;
      return out;
    }
    if (name == "length" || name == "count" || name == "wordcount" || name == "int" || name == "float" ||
        name == "abs" || name == "round" || name == "tojson" || name == "filesizeformat") {
      // Numbers and JSON text: JSON's quotes and escapes keep it from folding to a name, and
      // any slicing of it back into one is computed from string content below.
      if (name == "tojson") return Opaque(operand);
      return Other();
    }
    return Opaque(operand);
  }

  Folded FoldCall(std::uint32_t i) const {
    const std::uint32_t callee = Child(i, 0);
    const Node& c = At(callee);
    std::map<std::string, Folded> keywords;
    const std::vector<Folded> args = Arguments(i, 1, &keywords);
    if (c.kind == NodeKind::kName && c.text == "dict" && bindings_.find("dict") == bindings_.end() && !HasStar(i)) {
      // dict(a=1, b=2): iterating or joining it gives its keys, in the call's order.
      std::vector<Folded> keys;
      std::vector<std::string> values;
      for (std::size_t k = 1; k < At(i).children.size(); ++k) {
        const std::uint32_t a = At(i).children[k];
        if (At(a).kind != NodeKind::kKeyword) continue;
        keys.push_back(StringsOf({At(a).text}));
        values.insert(values.end(), F(Child(a, 0)).strings.begin(), F(Child(a, 0)).strings.end());
      }
      Folded out = ListOf(std::move(keys));
      std::sort(values.begin(), values.end());
      values.erase(std::unique(values.begin(), values.end()), values.end());
      Merge(out.contained, values, out.computed);
      return out;
    }
    if (c.kind != NodeKind::kGetattr) {
      // A macro's output, namespace(), range(), cycler(), ...: nothing to name.
      Folded out = Other();
      out.computed = F(callee).computed;
      out.stringish = out.computed;
      return out;
    }
    // A method of a constant: str and dict methods fold.
    const Folded& object = F(Child(callee, 0));
    const std::string& method = c.text;
    if (HasStar(i)) return Opaque(object);
    if (method == "lower" || method == "casefold") {
      return MapStrings(object, [](const std::string& s) { return CaseMapped(s, false); });
    }
    if (method == "upper") return MapStrings(object, [](const std::string& s) { return CaseMapped(s, true); });
    if (method == "strip" && args.empty()) return MapStrings(object, [](const std::string& s) { return Stripped(s); });
    if (method == "replace" && args.size() >= 2) {
      const auto from = args[0].Single();
      const auto to = args[1].Single();
      const auto count = args.size() > 2 ? ToInteger(args[2].Single().value_or("x")) : std::optional<long long>(-1);
      if (from && to && count) {
        return MapStrings(object, [&](const std::string& s) { return Replaced(s, *from, *to, *count); });
      }
      return Opaque(object);
    }
    if (method == "join" && args.size() == 1) {
      if (object.Constant() && !object.strings.empty()) return Join(args[0], object);
      return Computed();
    }
    if (method == "format" && object.Constant() && !object.strings.empty()) {
      bool known = true;
      const std::vector<FormatArg> positional = SingleArgs(args, known);
      std::map<std::string, FormatArg> named;
      for (const auto& [key, value] : keywords) {
        if (auto single = value.Single()) {
          named.emplace(key, FormatArg{*single, !value.numbers.empty()});
        } else {
          known = false;
        }
      }
      if (auto out = known ? BraceFormat(object.strings.front(), positional, named) : std::nullopt) {
        return StringsOf({std::move(*out)});
      }
      return Computed();
    }
    if (method == "keys" && object.items) return object;
    if ((method == "items" || method == "values") && object.items) {
      // The values of a dict literal are among its contained strings, not its items (its keys).
      Folded out = Other();
      out.contained = object.contained;
      return out;
    }
    if (method == "get" && object.items && !args.empty()) return Elements(object);
    return Opaque(object);
  }

  Folded FoldGetitem(std::uint32_t i) const {
    const Folded& object = F(Child(i, 0));
    const std::uint32_t index = Child(i, 1);
    Folded out;
    if (index != kNoNode && At(index).kind == NodeKind::kSlice) {
      std::array<std::optional<long long>, 3> bounds{};
      bool known = true;
      for (std::size_t k = 0; k < 3; ++k) {
        const std::uint32_t part = Child(index, k);
        if (part == kNoNode) continue;
        const Folded& p = F(part);
        const auto single = p.Single();
        bounds[k] = single && !p.numbers.empty() ? ToInteger(*single) : std::nullopt;
        known = known && bounds[k].has_value();
      }
      if (!known) return Opaque(object);
      if (object.items) {
        const auto picked = SliceIndices(object.items->size(), bounds[0], bounds[1], bounds[2]);
        if (!picked) return Other();
        std::vector<Folded> items;
        for (std::size_t k : *picked) items.push_back((*object.items)[k]);
        return ListOf(std::move(items));
      }
      return MapStrings(object, [&](const std::string& s) {
        const std::vector<std::uint32_t> cps = CodePoints(s);
        std::vector<std::uint32_t> picked;
        for (std::size_t k :
             SliceIndices(cps.size(), bounds[0], bounds[1], bounds[2]).value_or(std::vector<std::size_t>{})) {
          picked.push_back(cps[k]);
        }
        return FromCodePoints(picked);
      });
    }
    const Folded& key = F(index);
    const auto single = key.Single();
    if (single && object.items) {
      // A constant list by position, or a dict literal by key.
      if (!key.numbers.empty()) {
        if (auto position = ToInteger(*single)) {
          const auto size = static_cast<long long>(object.items->size());
          const long long at = *position < 0 ? *position + size : *position;
          if (at >= 0 && at < size) return (*object.items)[static_cast<std::size_t>(at)];
        }
      }
      return Elements(object);  // a dict literal's value by key: any of its strings
    }
    if (single && !key.numbers.empty() && !object.strings.empty()) {
      if (auto position = ToInteger(*single)) {
        return MapStrings(object, [&](const std::string& s) {
          const std::vector<std::uint32_t> cps = CodePoints(s);
          const auto size = static_cast<long long>(cps.size());
          const long long at = *position < 0 ? *position + size : *position;
          return at >= 0 && at < size ? FromCodePoints({cps[static_cast<std::size_t>(at)]}) : std::string();
        });
      }
    }
    // ns['x'] and ns.x are one binding
    if (single && At(Child(i, 0)).kind == NodeKind::kName) {
      if (auto it = names_.find(At(Child(i, 0)).text + "." + *single); it != names_.end()) return it->second;
    }
    out = Opaque(object);
    out.accessors = key.strings;
    return out;
  }

  Folded Fold(std::uint32_t i) const {
    const Node& n = At(i);
    switch (n.kind) {
      case NodeKind::kString:
        return StringsOf({n.text});
      case NodeKind::kNumber: {
        Folded f;
        f.numbers.push_back(n.text);
        return f;
      }
      case NodeKind::kName: {
        Folded f;
        if (auto it = names_.find(n.text); it != names_.end()) {
          f = it->second;
        } else if (OneOf(kGlobalCallables, n.text)) {
          f.globals.push_back(n.text);
        } else {
          f.other = true;
        }
        return f;
      }
      case NodeKind::kTuple:
      case NodeKind::kList:
      case NodeKind::kDict: {
        std::vector<Folded> items;
        items.reserve(n.children.size());
        for (std::uint32_t c : n.children) items.push_back(F(c));
        if (n.kind != NodeKind::kDict) return ListOf(std::move(items));
        Folded f = ListOf(std::move(items));
        // Iterating a dict gives its keys: they stay the items, its values are in `contained`.
        if (f.items) {
          std::vector<Folded> keys;
          for (std::size_t k = 0; k < f.items->size(); k += 2) keys.push_back(std::move((*f.items)[k]));
          f.items = std::move(keys);
        }
        return f;
      }
      case NodeKind::kGetattr: {
        const std::uint32_t object = Child(i, 0);
        // ns.x of a namespace the template made and assigned: what it was assigned.
        if (object != kNoNode && At(object).kind == NodeKind::kName) {
          if (auto it = names_.find(At(object).text + "." + n.text); it != names_.end()) {
            Folded f = it->second;
            f.accessors.push_back(n.text);
            return f;
          }
        }
        Folded f = Opaque(F(object));
        f.accessors.push_back(n.text);
        return f;
      }
      case NodeKind::kUnary: {
        const Folded& operand = F(Child(i, 0));
        if (n.text == "-" && operand.Constant() && !operand.numbers.empty()) {
          Folded f;
          const std::string& v = operand.numbers.front();
          f.numbers.push_back(v.starts_with('-') ? v.substr(1) : "-" + v);
          return f;
        }
        if (n.text == "+" && operand.Constant() && !operand.numbers.empty()) return operand;
        return Other();
      }
      case NodeKind::kGetitem:
        return FoldGetitem(i);
      case NodeKind::kCall:
        return FoldCall(i);
      case NodeKind::kFilter:
        return FoldFilter(i);
      case NodeKind::kCondExpr: {
        Folded f = Union(F(Child(i, 0)), F(Child(i, 2)));
        if (Child(i, 2) == kNoNode) f.other = true;
        return f;
      }
      case NodeKind::kBinary: {
        const Folded& a = F(Child(i, 0));
        const Folded& b = F(Child(i, 1));
        if (n.text == "~") return Concat(a, b);
        if (n.text == "or" || n.text == "and") return Union(a, b);
        const bool strings = a.stringish || b.stringish;
        if (n.text == "+") return strings ? Concat(a, b) : Other();
        if (n.text == "%") {
          if (!a.stringish) return Other();
          if (b.items && At(Child(i, 1)).kind == NodeKind::kTuple) return Percent(a, *b.items);
          return Percent(a, {b});
        }
        if (n.text == "*") {
          const Folded& text = a.stringish ? a : b;
          const Folded& times = a.stringish ? b : a;
          if (!text.stringish) return Other();
          const auto count = times.Single() ? ToInteger(*times.Single()) : std::nullopt;
          if (!count || *count < 0 || *count > static_cast<long long>(kMaxFoldedBytes)) return Computed();
          return MapStrings(text, [&](const std::string& s) {
            std::string out;
            for (long long k = 0; k < *count && out.size() <= kMaxFoldedBytes; ++k) out += s;
            return out;
          });
        }
        return Other();
      }
      default:
        return Other();
    }
  }

  void FoldAll() {
    for (std::uint32_t i = 0; i < nodes_.size(); ++i) folded_[i] = Fold(i);
  }

  void Report(std::uint32_t at, std::string what, std::string name) {
    const Node& n = At(at);
    // One finding per place (its first reason), and a bound on how many places are kept: a
    // megabyte of injections costs a set lookup per access, not a scan of all before it.
    if (hazards_.size() >= kMaxHazards || !places_.emplace(n.line, n.column).second) return;
    hazards_.push_back(TemplateHazard{n.line, n.column, std::move(what), std::move(name)});
  }

  // An attribute or item name the template reads.
  void CheckName(std::uint32_t at, const std::string& name, std::string_view as) {
    if (name.starts_with('_')) {
      Report(at, "reads the " + std::string(as) + " " + QuoteForMessage(name, 60) + ", a name starting with '_'", name);
    } else if (OneOf(kSandboxUnsafe, name)) {
      Report(at, "reads the " + std::string(as) + " " + QuoteForMessage(name, 60) + ", which Jinja's sandbox refuses",
             name);
    }
  }

  // A name given as a value (an item key, |attr's argument, attribute=...).
  void CheckNameValue(std::uint32_t at, const Folded& value, std::string_view as, bool dotted) {
    for (const std::string& s : value.strings) {
      if (!dotted) {
        CheckName(at, s, as);
        continue;
      }
      for (std::size_t from = 0;;) {  // Jinja's attribute= paths: "a.b.0"
        const std::size_t dot = s.find('.', from);
        CheckName(at, s.substr(from, dot == std::string::npos ? std::string::npos : dot - from), as);
        if (dot == std::string::npos) break;
        from = dot + 1;
      }
    }
    if (value.computed) Report(at, "reads an " + std::string(as) + " whose name is computed by string operations", "");
  }

  void CheckGlobalObject(std::uint32_t at, std::uint32_t object, const std::string& member) {
    for (const std::string& g : F(object).globals) {
      std::string name = g;
      if (!member.empty()) name.append(".").append(member);
      Report(at,
             "reads " + (member.empty() ? std::string("an attribute") : QuoteForMessage(member, 60)) +
                 " of the global callable " + QuoteForMessage(g),
             std::move(name));
    }
  }

  void Check(std::uint32_t i) {
    const Node& n = At(i);
    switch (n.kind) {
      case NodeKind::kGetattr:
        CheckName(i, n.text, "attribute");
        CheckGlobalObject(i, Child(i, 0), n.text);
        break;
      case NodeKind::kGetitem: {
        const std::uint32_t index = Child(i, 1);
        if (index != kNoNode && At(index).kind != NodeKind::kSlice) {
          CheckNameValue(i, F(index), "item", false);
          const auto single = F(index).Single();
          CheckGlobalObject(i, Child(i, 0), single.value_or(""));
        }
        break;
      }
      case NodeKind::kFilter:
        CheckFilter(i);
        break;
      case NodeKind::kCall:
        CheckCall(i);
        break;
      default:
        break;
    }
  }

  void CheckFilter(std::uint32_t i) {
    const Node& n = At(i);
    std::vector<std::uint32_t> positional;
    for (std::size_t k = 1; k < n.children.size(); ++k) {
      const std::uint32_t a = n.children[k];
      if (At(a).kind == NodeKind::kKeyword) {
        if (At(a).text == "attribute") CheckNameValue(i, F(Child(a, 0)), "attribute", true);
      } else {
        positional.push_back(a);
      }
    }
    if (n.text == "attr") {
      if (positional.empty()) return;
      const Folded& name = F(positional.front());
      CheckNameValue(i, name, "attribute", false);
      if (!name.computed && (name.other || name.strings.empty())) {
        Report(i, "reads an attribute through |attr with a name that is not a constant", "");
      }
      const auto single = name.Single();
      CheckGlobalObject(i, Child(i, 0), single.value_or(""));
    } else if ((n.text == "selectattr" || n.text == "rejectattr" || n.text == "groupby") && !positional.empty()) {
      CheckNameValue(i, F(positional.front()), "attribute", true);
    } else if (n.text == "map" && positional.size() >= 2 && F(positional.front()).Single() == "attr") {
      CheckNameValue(i, F(positional[1]), "attribute", false);
    }
  }

  void CheckCall(std::uint32_t i) {
    const std::uint32_t callee = Child(i, 0);
    const Node& c = At(callee);
    std::vector<std::string> names = F(callee).accessors;
    // A macro the template defines runs the template's own code, whatever its name ({% macro system() %}).
    if (c.kind == NodeKind::kName && !macros_.contains(c.text)) names.push_back(c.text);
    if (c.kind == NodeKind::kGetattr) names.push_back(c.text);
    if (c.kind == NodeKind::kGetitem) {
      const Folded& key = F(Child(callee, 1));
      names.insert(names.end(), key.strings.begin(), key.strings.end());
    }
    if (c.kind == NodeKind::kFilter && c.text == "attr" && c.children.size() > 1) {
      const Folded& key = F(c.children[1]);
      names.insert(names.end(), key.strings.begin(), key.strings.end());
    }
    std::sort(names.begin(), names.end());
    names.erase(std::unique(names.begin(), names.end()), names.end());
    for (const std::string& name : names) {
      if (OneOf(kCodeCalls, name)) Report(i, "calls " + QuoteForMessage(name, 60), name);
    }
    if (c.kind == NodeKind::kGetattr && (c.text == "format" || c.text == "format_map")) {
      const Folded& fmt = F(Child(callee, 0));
      for (const std::string& s : fmt.strings) {
        for (const std::string& field : FormatFieldAccessors(s)) CheckName(i, field, "format field");
      }
      if (fmt.computed) Report(i, "formats with str.format a string computed by string operations", "");
    }
  }

  const std::vector<Node>& nodes_;
  std::vector<Folded> folded_;
  std::map<std::string, std::vector<Binding>> bindings_;
  std::map<std::string, Folded> names_;
  std::set<std::string> macros_;
  std::set<std::string> accumulators_;                        ///< names whose value grew past the passes
  std::set<std::pair<std::uint32_t, std::uint32_t>> places_;  ///< line, column of each hazard kept
  std::vector<TemplateHazard> hazards_;
};

}  // namespace

TemplateReading ReadTemplate(std::string_view text) {
  TemplateReading reading;
  jinja::Template parsed = jinja::Parse(text);
  if (parsed.error) {
    reading.invalid = std::move(parsed.error);
    return reading;
  }
  reading.hazards = Analysis(parsed.nodes).Run();
  std::sort(reading.hazards.begin(), reading.hazards.end(), [](const TemplateHazard& a, const TemplateHazard& b) {
    return std::tie(a.line, a.column) < std::tie(b.line, b.column);
  });
  return reading;
}

}  // namespace ckpt
