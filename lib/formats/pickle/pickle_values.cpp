// The analyser's values: creation, containers and their Python repr in findings.
#include <algorithm>

#include "lib/core/checked_math.h"
#include "lib/formats/pickle/pickle_analyser.h"
#include "lib/formats/pickle/pickle_text.h"

namespace ckpt::pickle {

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
    case Kind::kFloat:
      out += PythonFloatRepr(std::bit_cast<double>(NumberOf(v)));
      break;
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

}  // namespace ckpt::pickle
