// Fire cases of the pickle rules: each input a rule fires on (tests/support/fire_cases.h).
#include "tests/support/fire_cases/fire_case_list.h"

namespace ckpt::testing {

void AddPickleFireCases(std::vector<FireCase>& c) {
  using namespace pk;  // NOLINT(google-build-using-namespace): the opcode vocabulary
  PickleCase(c, "pickle-global-unsafe", "GLOBAL posix system", "a.pkl", [] { return SystemPickle(kTouch); });
  PickleCase(c, "pickle-call-unsafe", "REDUCE posix.system", "a.pkl", [] { return SystemPickle(kTouch); });
  PickleCase(c, "pickle-nested-loader", "torch.load", "a.pkl",
             [] { return Proto(2) + CallWithStr("torch", "load", "inner.pt") + kStop; });
  PickleCase(c, "pickle-scanner-import", "picklescan", "a.pkl",
             [] { return Proto(2) + Global("picklescan.scanner", "scan_pickle_bytes") + kStop; });
  PickleCase(c, "pickle-argument-invalid", "OrderedDict of a string", "a.pkl",
             [] { return Proto(2) + Global("collections", "OrderedDict") + Str("cmd") + kTuple1 + kReduce + kStop; });
  PickleCase(c, "pickle-build-unsafe", "BUILD on a dict", "a.pkl",
             [] { return Proto(2) + kEmptyDict + kEmptyDict + Str("x") + Int(1) + kSetItem + kBuild + kStop; });
  PickleCase(c, "pickle-stream-malformed", "truncated before STOP", "a.pkl",
             [] { return Proto(2) + kEmptyDict + Str("x"); });
  PickleCase(c, "pickle-extension-code", "EXT1", "a.pkl", [] { return Proto(2) + std::string("\x82\x07.", 3); });
  PickleCase(c, "pickle-budget-exceeded", "2^62 length prefix", "a.pkl",
             [] { return Proto(4) + "\x8d" + std::string("\x00\x00\x00\x00\x00\x00\x00\x40", 8) + kStop; });
  PickleCase(c, "pickle-trailing-data", "junk after STOP", "a.pkl",
             [] { return Proto(2) + kNone + kStop + "\xfe junk"; });
  PickleCase(c, "pickle-tensor-invalid", "quantized rebuild", "a.pkl",
             [] { return Proto(2) + Global("torch._utils", "_rebuild_qtensor") + kEmptyTuple + kReduce + kStop; });
  PickleCase(c, "pickle-storage-mismatch", "record of the wrong size", "model.pt", [] {
    return TorchZip(OneTensorPickle(), {{"0", std::string(20, '\x01')}});
  });
  PickleCase(c, "pickle-tensor-name", "two paths, one name", "model.pt", [] {
    // {'a.b': tensor0, 'a': {'b': tensor1}}: both are named a.b.
    const std::string pid =
        kMark + Str("storage") + Global("torch", "FloatStorage") + Str("0") + Str("cpu") + Int(6) + kTuple + kBinPersId;
    const std::string tensor = Global("torch._utils", "_rebuild_tensor_v2") + kMark + pid + Int(0) + kMark + Int(6) +
                               kTuple + kMark + Int(1) + kTuple + kNewFalse + Global("collections", "OrderedDict") +
                               kEmptyTuple + kReduce + kTuple + kReduce;
    const std::string data = Proto(2) + kEmptyDict + Str("a.b") + tensor + kSetItem + Str("a") + kEmptyDict + Str("b") +
                             tensor + kSetItem + kSetItem + kStop;
    return TorchZip(data, {{"0", OneTensorRecord()}});
  });
  PickleCase(c, "pickle-dtype-unsupported", "complex128 storage", "model.pt", [] {
    return TorchZip(StateDictPickle({{"w", "ComplexDoubleStorage", "0", 1, 0, {1}, {}}}),
                    {{"0", std::string(16, '\0')}});
  });
  PickleCase(c, "pickle-format-note", "clean torch zip", "model.pt", [] { return OneTensorZip(); });
  PickleCase(c, "pickle-frame-invalid", "GLOBAL straddling a FRAME boundary", "a.pkl", [] {
    return Proto(4) + std::string("\x95\x03\0\0\0\0\0\0\0", 9) + CallWithStr("posix", "system", kTouch) + kStop;
  });
}

}  // namespace ckpt::testing
