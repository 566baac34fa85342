// Near misses of the pickle rules: inputs as close to firing as each rule allows (tests/support/near_misses.h).
#include "tests/support/near_misses/near_miss_list.h"

namespace ckpt::testing {

void AddPickleNearMisses(std::vector<NearMiss>& n) {
  using namespace pk;  // NOLINT(google-build-using-namespace): the opcode vocabulary
  PickleNear(n, "pickle-global-unsafe", "every global torch.save writes", "model.pt", [] {
    return TorchZip(TorchLikeStateDict(), {{"0", OneTensorRecord()}});
  });
  PickleNear(n, "pickle-call-unsafe", "_codecs.encode(str, 'latin1')", "a.pkl", [] {
    return Proto(2) + Global("_codecs", "encode") + Str("abc") + Str("latin1") + kTuple2 + kReduce + kStop;
  });
  PickleNear(n, "pickle-nested-loader", "pickle.dumps is not a loader", "a.pkl",
             [] { return Proto(2) + Global("pickle", "dumps") + kStop; });
  PickleNear(n, "pickle-scanner-import", "a module named like a scanner", "a.pkl",
             [] { return Proto(2) + Global("fickle", "x") + kStop; });
  PickleNear(n, "pickle-argument-invalid", "OrderedDict of pairs", "a.pkl", [] {
    return Proto(2) + Global("collections", "OrderedDict") + kMark + kMark + Str("a") + Int(1) + kTuple + kTuple +
           kTuple1 + kReduce + kStop;
  });
  PickleNear(n, "pickle-build-unsafe", "_metadata given to a state dict", "model.pt", [] {
    return TorchZip(TorchLikeStateDict(), {{"0", OneTensorRecord()}});
  });
  PickleNear(n, "pickle-stream-malformed", "memo slot rewritten, stack emptied", "a.pkl",
             [] { return Proto(2) + Int(1) + BinPut(0) + kPop + Str("x") + BinPut(0) + kPop + BinGet(0) + kStop; });
  PickleNear(n, "pickle-extension-code", "EXT1 bytes inside a string", "a.pkl",
             [] { return Proto(2) + Str(std::string("\x82\x07", 2)) + kStop; });
  PickleNear(n, "pickle-budget-exceeded", "100,000 appends", "a.pkl", [] {
    std::string s = Proto(2) + kEmptyList;
    for (int i = 0; i < 100000; ++i) s += Int(1) + kAppend;
    return s + kStop;
  });
  PickleNear(n, "pickle-trailing-data", "a second pickle after STOP", "a.pkl",
             [] { return Proto(2) + kNone + kStop + Proto(4) + kEmptyDict + kStop; });
  PickleNear(n, "pickle-tensor-invalid", "a view ending at the storage's last element", "model.pt", [] {
    return TorchZip(StateDictPickle({{"w", "FloatStorage", "0", 6, 2, {4}, {}}}), {{"0", OneTensorRecord()}});
  });
  PickleNear(n, "pickle-storage-mismatch", "two views of one record", "model.pt", [] {
    return TorchZip(
        StateDictPickle({{"a", "FloatStorage", "0", 6, 0, {3}, {}}, {"b", "FloatStorage", "0", 6, 3, {3}, {}}}),
        {{"0", OneTensorRecord()}});
  });
  PickleNear(n, "pickle-tensor-name", "one tensor under two names (tied)", "model.pt", [] {
    return TorchZip(TorchLikeStateDict(), {{"0", OneTensorRecord()}});
  });
  PickleNear(n, "pickle-dtype-unsupported", "bfloat16, int64 and bool", "model.pt", [] {
    return TorchZip(StateDictPickle({{"h", "BFloat16Storage", "0", 2, 0, {2}, {}},
                                     {"i", "LongStorage", "1", 1, 0, {}, {}},
                                     {"b", "BoolStorage", "2", 4, 0, {4}, {}}}),
                    {{"0", std::string(4, '\0')}, {"1", std::string(8, '\0')}, {"2", std::string(4, '\0')}});
  });
  PickleNear(
      n, "pickle-format-note", "safetensors file", "model.safetensors",
      [] { return Clean().at("weights.safetensors"); }, true);
  PickleNear(n, "pickle-frame-invalid", "one frame ending right after STOP", "a.pkl",
             [] { return Proto(4) + std::string("\x95\x02\0\0\0\0\0\0\0", 9) + kEmptyDict + kStop; });
}

}  // namespace ckpt::testing
