// joblib's call models: NumpyArrayWrapper and its inline arrays, estimators (formats.md
// section 3), beside the joblib entries of pickle_policy.cpp.
#include "lib/core/checked_math.h"
#include "lib/core/text.h"
#include "lib/formats/pickle/pickle_machine.h"

namespace ckpt::pickle {

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

}  // namespace ckpt::pickle
