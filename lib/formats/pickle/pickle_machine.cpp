#include "lib/formats/pickle/pickle_machine.h"

#include <algorithm>
#include <set>

#include "lib/core/checked_math.h"
#include "lib/core/text.h"
#include "lib/formats/pickle/compat_pickle_names.inc"

namespace ckpt::pickle {

namespace {

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

}  // namespace

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
  if (key < dense_memo_limit_) {
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
  if (key < dense_memo_limit_) {
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
              OpName() + " writes a memo key past " +
                  (dense_memo_limit_ == kDenseMemoFloor ? std::string("2^22") : std::to_string(dense_memo_limit_)) +
                  " for the " + std::to_string(sparse_memo_.size()) +
                  "th time; no pickler numbers its memo so: analysis stops here.");
    throw Stop{};
  }
}

}  // namespace ckpt::pickle
