// numpy's call models: dtype and ndarray reconstruction, as joblib's and numpy's pickles
// write them, beside the numpy entries of pickle_policy.cpp.
#include "lib/core/checked_math.h"
#include "lib/formats/pickle/pickle_machine.h"

namespace ckpt::pickle {

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

}  // namespace ckpt::pickle
