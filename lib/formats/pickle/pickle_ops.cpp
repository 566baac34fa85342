// The opcode families of pickle_opcodes.h, each as CPython's _pickle.c load_* functions act.
#include <bit>
#include <cstring>

#include "lib/core/checked_math.h"
#include "lib/core/text.h"
#include "lib/formats/pickle/pickle_machine.h"

namespace ckpt::pickle {

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

}  // namespace ckpt::pickle
