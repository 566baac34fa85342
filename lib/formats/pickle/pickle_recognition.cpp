// Recognition: whether bytes are pickles as CPython's unpickler would read them, without
// building values (classification, and whether another pickle follows a STOP).
#include <array>

#include "lib/formats/pickle/pickle_analyser.h"
#include "lib/formats/pickle/pickle_opcodes.h"
#include "lib/formats/pickle/pickle_text.h"
#include "lib/io/file_cursor.h"

namespace ckpt::pickle {

bool IsOpcode(std::byte byte) { return FindOpcode(std::to_integer<unsigned char>(byte)) != nullptr; }

IoResult<bool> ParsesAsPickles(const RandomAccessFile& file, std::uint64_t max_bytes) {
  const auto Failed = [](const boost::system::error_code& e) {
    return IoResult<bool>(boost::system::in_place_error, e);
  };
  const std::uint64_t size = file.size();
  const std::uint64_t limit = std::min(size, max_bytes);
  FileCursor cursor(file, 0, size);
  auto take = [&](std::size_t n) { return cursor.Take(n); };
  // A text line into `out`; false when it does not end (or runs past 4 KiB).
  auto line = [&](std::string& out) -> IoResult<bool> {
    out.clear();
    while (true) {
      auto c = take(1);
      if (!c) return Failed(c.error());
      if (!*c || out.size() > 4096) return false;
      if ((**c)[0] == '\n') return true;
      out += (**c)[0];
    }
  };
  auto le = [](std::string_view b) {
    std::uint64_t v = 0;
    for (std::size_t i = b.size(); i-- > 0;) v = (v << 8) | static_cast<unsigned char>(b[i]);
    return v;
  };
  while (cursor.position() < limit) {
    auto code = take(1);
    if (!code) return Failed(code.error());
    if (!*code) return false;
    const Opcode* opcode = FindOpcode(static_cast<unsigned char>((**code)[0]));
    if (opcode == nullptr) return false;
    const unsigned char op = opcode->code;
    if (opcode->fixed > 0) {
      auto arg = take(opcode->fixed);
      if (!arg) return Failed(arg.error());
      if (!*arg) return false;
      if (op == 0x80 && static_cast<unsigned char>((**arg)[0]) > 5) return false;
    } else if (opcode->length > 0) {
      auto prefix = take(opcode->length);
      if (!prefix) return Failed(prefix.error());
      if (!*prefix) return false;
      const std::uint64_t n = le(**prefix);
      if (n > cursor.left()) return false;
      cursor.Skip(n);  // skipped, not read
    } else {
      std::string t;
      for (std::size_t k = 0; k < opcode->lines; ++k) {
        auto l = line(t);
        if (!l) return Failed(l.error());
        if (!*l) return false;
        if (!LineParses(opcode->line, t)) return false;
      }
    }
    // CPython's unpickler returns at the first STOP, having imported and called whatever came
    // before it: a pickle up to there, whatever follows (its trailing bytes are a finding).
    if (op == '.') return true;
  }
  return cursor.position() >= limit && limit < size;  // no refusal within the walk's bound
}

// Whether a further pickle may start here (after a STOP): PROTO or a protocol 0/1 opcode.
IoResult<bool> PickleFollows(const RandomAccessFile& file, std::uint64_t at) {
  if (at >= file.size()) return false;
  std::array<std::byte, 1> b{};
  if (auto read = file.ReadAt(at, b); !read) return IoResult<bool>(boost::system::in_place_error, read.error());
  return pickle::IsOpcode(b[0]);
}

}  // namespace ckpt::pickle
