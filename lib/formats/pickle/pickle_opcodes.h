// The pickle opcodes (as pickletools.opcodes): each with its name, its family and the shape of
// its argument. One table for the three readers of a pickle stream: recognition (is this byte
// an opcode), the syntax walk (does a stream parse as pickles, without building anything) and
// the analysing machine, which dispatches on the family to one function per family (as
// _pickle.c's load_* functions).
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

namespace ckpt::pickle {

enum class OpFamily : std::uint8_t {
  kStack,      ///< MARK, STOP, POP, POP_MARK, DUP
  kNumber,     ///< ints, floats, bools, None
  kText,       ///< str, bytes and bytearray literals
  kContainer,  ///< tuples, lists, dicts, sets and the opcodes that fill them
  kMemo,       ///< GET / PUT / MEMOIZE
  kCall,       ///< imports, calls, BUILD, persistent ids, extension codes
  kFraming,    ///< PROTO, FRAME, out-of-band buffers
};

/// What a text-line argument must look like for CPython to accept it.
enum class LineSyntax : std::uint8_t {
  kNone,
  kInt,      ///< INT: a decimal int, or 00 / 01 (bools)
  kLong,     ///< LONG: a decimal int with an optional trailing L
  kMemoKey,  ///< GET / PUT: a non-negative decimal int
  kFloat,    ///< FLOAT: repr of a float
  kQuoted,   ///< STRING: a quoted Python string literal
  kName,     ///< GLOBAL / INST: module and attribute paths
  kAny,      ///< UNICODE, PERSID: any line
};

struct Opcode {
  unsigned char code;
  std::string_view name;
  OpFamily family;
  std::uint8_t fixed;   ///< bytes of a fixed-width argument (0: none)
  std::uint8_t length;  ///< bytes of a little-endian length prefix, then that many bytes (0: none)
  std::uint8_t lines;   ///< newline-terminated text lines
  LineSyntax line;
};

/// The opcode `code` stands for; nullptr when it is no pickle opcode.
const Opcode* FindOpcode(unsigned char code);
/// Every opcode, in table order.
std::span<const Opcode> Opcodes();

}  // namespace ckpt::pickle
