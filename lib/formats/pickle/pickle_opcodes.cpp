#include "lib/formats/pickle/pickle_opcodes.h"

#include <array>

namespace ckpt::pickle {
namespace {

using F = OpFamily;
using L = LineSyntax;

constexpr std::array<Opcode, 68> kOpcodes{{
    // Stack.
    {'(', "MARK", F::kStack, 0, 0, 0, L::kNone},
    {'.', "STOP", F::kStack, 0, 0, 0, L::kNone},
    {'0', "POP", F::kStack, 0, 0, 0, L::kNone},
    {'1', "POP_MARK", F::kStack, 0, 0, 0, L::kNone},
    {'2', "DUP", F::kStack, 0, 0, 0, L::kNone},
    // Numbers.
    {'F', "FLOAT", F::kNumber, 0, 0, 1, L::kFloat},
    {'I', "INT", F::kNumber, 0, 0, 1, L::kInt},
    {'L', "LONG", F::kNumber, 0, 0, 1, L::kLong},
    {'J', "BININT", F::kNumber, 4, 0, 0, L::kNone},
    {'K', "BININT1", F::kNumber, 1, 0, 0, L::kNone},
    {'M', "BININT2", F::kNumber, 2, 0, 0, L::kNone},
    {0x8a, "LONG1", F::kNumber, 0, 1, 0, L::kNone},
    {0x8b, "LONG4", F::kNumber, 0, 4, 0, L::kNone},
    {'G', "BINFLOAT", F::kNumber, 8, 0, 0, L::kNone},
    {'N', "NONE", F::kNumber, 0, 0, 0, L::kNone},
    {0x88, "NEWTRUE", F::kNumber, 0, 0, 0, L::kNone},
    {0x89, "NEWFALSE", F::kNumber, 0, 0, 0, L::kNone},
    // Text.
    {'S', "STRING", F::kText, 0, 0, 1, L::kQuoted},
    {'V', "UNICODE", F::kText, 0, 0, 1, L::kAny},
    {'T', "BINSTRING", F::kText, 0, 4, 0, L::kNone},
    {'U', "SHORT_BINSTRING", F::kText, 0, 1, 0, L::kNone},
    {'X', "BINUNICODE", F::kText, 0, 4, 0, L::kNone},
    {0x8c, "SHORT_BINUNICODE", F::kText, 0, 1, 0, L::kNone},
    {0x8d, "BINUNICODE8", F::kText, 0, 8, 0, L::kNone},
    {'B', "BINBYTES", F::kText, 0, 4, 0, L::kNone},
    {'C', "SHORT_BINBYTES", F::kText, 0, 1, 0, L::kNone},
    {0x8e, "BINBYTES8", F::kText, 0, 8, 0, L::kNone},
    {0x96, "BYTEARRAY8", F::kText, 0, 8, 0, L::kNone},
    // Containers.
    {')', "EMPTY_TUPLE", F::kContainer, 0, 0, 0, L::kNone},
    {'t', "TUPLE", F::kContainer, 0, 0, 0, L::kNone},
    {0x85, "TUPLE1", F::kContainer, 0, 0, 0, L::kNone},
    {0x86, "TUPLE2", F::kContainer, 0, 0, 0, L::kNone},
    {0x87, "TUPLE3", F::kContainer, 0, 0, 0, L::kNone},
    {']', "EMPTY_LIST", F::kContainer, 0, 0, 0, L::kNone},
    {'l', "LIST", F::kContainer, 0, 0, 0, L::kNone},
    {'}', "EMPTY_DICT", F::kContainer, 0, 0, 0, L::kNone},
    {'d', "DICT", F::kContainer, 0, 0, 0, L::kNone},
    {0x8f, "EMPTY_SET", F::kContainer, 0, 0, 0, L::kNone},
    {0x91, "FROZENSET", F::kContainer, 0, 0, 0, L::kNone},
    {'a', "APPEND", F::kContainer, 0, 0, 0, L::kNone},
    {'e', "APPENDS", F::kContainer, 0, 0, 0, L::kNone},
    {'s', "SETITEM", F::kContainer, 0, 0, 0, L::kNone},
    {'u', "SETITEMS", F::kContainer, 0, 0, 0, L::kNone},
    {0x90, "ADDITEMS", F::kContainer, 0, 0, 0, L::kNone},
    // Memo.
    {'g', "GET", F::kMemo, 0, 0, 1, L::kMemoKey},
    {'h', "BINGET", F::kMemo, 1, 0, 0, L::kNone},
    {'j', "LONG_BINGET", F::kMemo, 4, 0, 0, L::kNone},
    {'p', "PUT", F::kMemo, 0, 0, 1, L::kMemoKey},
    {'q', "BINPUT", F::kMemo, 1, 0, 0, L::kNone},
    {'r', "LONG_BINPUT", F::kMemo, 4, 0, 0, L::kNone},
    {0x94, "MEMOIZE", F::kMemo, 0, 0, 0, L::kNone},
    // Imports and calls.
    {'c', "GLOBAL", F::kCall, 0, 0, 2, L::kName},
    {0x93, "STACK_GLOBAL", F::kCall, 0, 0, 0, L::kNone},
    {'i', "INST", F::kCall, 0, 0, 2, L::kName},
    {'o', "OBJ", F::kCall, 0, 0, 0, L::kNone},
    {'R', "REDUCE", F::kCall, 0, 0, 0, L::kNone},
    {0x81, "NEWOBJ", F::kCall, 0, 0, 0, L::kNone},
    {0x92, "NEWOBJ_EX", F::kCall, 0, 0, 0, L::kNone},
    {'b', "BUILD", F::kCall, 0, 0, 0, L::kNone},
    {'P', "PERSID", F::kCall, 0, 0, 1, L::kAny},
    {'Q', "BINPERSID", F::kCall, 0, 0, 0, L::kNone},
    {0x82, "EXT1", F::kCall, 1, 0, 0, L::kNone},
    {0x83, "EXT2", F::kCall, 2, 0, 0, L::kNone},
    {0x84, "EXT4", F::kCall, 4, 0, 0, L::kNone},
    // Framing and buffers.
    {0x80, "PROTO", F::kFraming, 1, 0, 0, L::kNone},
    {0x95, "FRAME", F::kFraming, 8, 0, 0, L::kNone},
    {0x97, "NEXT_BUFFER", F::kFraming, 0, 0, 0, L::kNone},
    {0x98, "READONLY_BUFFER", F::kFraming, 0, 0, 0, L::kNone},
}};

// Opcode byte -> index into kOpcodes + 1 (0: not an opcode).
constexpr std::array<std::uint8_t, 256> kIndexByCode = [] {
  std::array<std::uint8_t, 256> index{};
  for (std::size_t i = 0; i < kOpcodes.size(); ++i) index[kOpcodes[i].code] = static_cast<std::uint8_t>(i + 1);
  return index;
}();

}  // namespace

const Opcode* FindOpcode(unsigned char code) {
  const std::uint8_t i = kIndexByCode[code];
  return i == 0 ? nullptr : &kOpcodes[i - 1];
}

std::span<const Opcode> Opcodes() { return kOpcodes; }

}  // namespace ckpt::pickle
