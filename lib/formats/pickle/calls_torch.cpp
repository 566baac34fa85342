// torch.load's call models: _rebuild_tensor*, _rebuild_parameter*, persistent ids (formats.md
// section 2), beside the torch entries of pickle_policy.cpp.
#include "lib/core/checked_math.h"
#include "lib/core/text.h"
#include "lib/formats/pickle/pickle_machine.h"

namespace ckpt::pickle {

bool Analyser::Machine::IsEmptyHooks(ValueId id) const {
  const Value& v = a_.values_[id];
  return v.kind == Kind::kDict && (v.flags & kOrdered) != 0 && (v.flags & kBuilt) == 0 && a_.ItemsOf(v).empty();
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
    t.torch_dtype = std::string(s.torch_dtype);
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

namespace {

// The number a canonical decimal key spells ("0", "17"; not "017", "+1" or "1e3").
std::optional<std::uint64_t> KeyNumber(std::string_view key) {
  if (key.empty() || key.size() > 9 || (key.size() > 1 && key[0] == '0')) return std::nullopt;
  std::uint64_t n = 0;
  for (const char c : key) {
    if (c < '0' || c > '9') return std::nullopt;
    n = n * 10 + static_cast<std::uint64_t>(c - '0');
  }
  return n;
}

}  // namespace

std::optional<std::uint32_t> Analyser::FindStorage(std::string_view key) const {
  if (const auto n = KeyNumber(key); n && *n < storage_by_number_.size()) {
    if (storage_by_number_[*n] != 0) return storage_by_number_[*n] - 1;
  }
  const auto it = storage_by_key_.find(key);
  return it == storage_by_key_.end() ? std::nullopt : std::optional(it->second);
}

void Analyser::RememberStorage(std::string_view key, std::uint32_t index) {
  // Dense only up to a few times the storages seen (torch's keys count up from 0).
  const std::size_t bound = 4 * (storages_.size() + 1024);
  if (const auto n = KeyNumber(key); n && *n < bound) {
    if (*n >= storage_by_number_.size())
      storage_by_number_.resize(std::max<std::size_t>(*n + 1, storage_by_number_.size() * 2), 0);
    storage_by_number_[*n] = index + 1;
    return;
  }
  storage_by_key_.emplace(std::string(key), index);
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
  ref.type_name = st->name;
  ref.torch_dtype = st->torch_dtype;
  ref.dtype = st->token.empty() ? nullptr : FindSafetensorsDtype(st->token);
  ref.element_size = st->element_size;
  ref.numel = static_cast<std::uint64_t>(a_.number((*items)[4]));
  ref.offset = op_at_;
  if (const std::optional<std::uint32_t> known = a_.FindStorage(ref.key)) {
    const StorageRef& first = a_.storages_[*known];
    if (first.type_name != ref.type_name || first.numel != ref.numel) {
      a_.Report(Diag::kPickleStorageMismatch, op_at_,
                where + " references storage " + Quoted(ref.key, 40) + " as " + std::string(ref.type_name) + " of " +
                    std::to_string(ref.numel) + " elements, and byte " + std::to_string(first.offset) + " as " +
                    std::string(first.type_name) + " of " + std::to_string(first.numel) +
                    ": one record cannot be both.");
      return Unknown();
    }
    Value s;
    s.kind = Kind::kStorage;
    s.aux = *known;
    return a_.NewValue(s);
  }
  a_.storages_.push_back(std::move(ref));
  a_.RememberStorage(a_.storages_.back().key, static_cast<std::uint32_t>(a_.storages_.size() - 1));
  Value s;
  s.kind = Kind::kStorage;
  s.aux = static_cast<std::uint32_t>(a_.storages_.size() - 1);
  return a_.NewValue(s);
}

}  // namespace ckpt::pickle
