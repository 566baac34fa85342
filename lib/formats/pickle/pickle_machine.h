// The interpreter for one pickle (Analyser::Machine): its stack, marks, memo and reads, in
// pickle_machine.cpp; the opcode families in pickle_ops.cpp; the call models beside the
// policy that admits them in calls_torch.cpp, calls_joblib.cpp and calls_numpy.cpp. Internal to
// lib/formats/pickle.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "lib/formats/pickle/pickle_analyser.h"
#include "lib/formats/pickle/pickle_opcodes.h"
#include "lib/formats/pickle/pickle_policy.h"
#include "lib/formats/pickle/pickle_text.h"

namespace ckpt::pickle {

/// numpy.dtype's first argument as joblib writes it ("f4", "O8", "V56"), without byte order.
std::optional<NumpyDtypeValue> ParseNumpyCode(std::string_view code);

// The interpreter for one pickle: its stack, marks and memo; the values live in the Analyser.
class Analyser::Machine {
 public:
  Machine(Analyser& a, const RandomAccessFile& file, std::uint64_t begin, std::uint64_t end)
      : Machine(a, file, begin, end, a.policy_) {}
  // A pickle read by another loader's find_class (an object array's, inside a joblib file).
  Machine(Analyser& a, const RandomAccessFile& file, std::uint64_t begin, std::uint64_t end,
          const FindClassPolicy& policy)
      : a_(a),
        policy_(policy),
        file_(file),
        pos_(begin),
        end_(end),
        dense_memo_limit_(std::max<std::uint64_t>(kDenseMemoFloor, end > begin ? end - begin : 0)) {}

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
  // The memo: keys below dense_memo_limit_ in a vector (picklers number keys from 0, and each
  // key written costs at least a byte of the pickle, so a pickle of P bytes writes keys below
  // P: a torch.save of 10^6 tensors numbers past 2^22), the rest in a map bounded by
  // kMaxSparseMemo (no pickler writes them; each costs a map node).
  static constexpr std::uint64_t kDenseMemoFloor = std::uint64_t{1} << 22;
  static constexpr std::size_t kMaxSparseMemo = 1 << 16;
  static constexpr ValueId kEmptySlot = 0xFFFFFFFFU;
  std::uint64_t dense_memo_limit_;  ///< max(2^22, P)
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

}  // namespace ckpt::pickle
