// Writes ONNX protobuf bytes for tests (proto2 wire format, field by field): just enough of
// ModelProto, GraphProto, NodeProto and TensorProto for the reader's fire cases and near misses.
#pragma once

#include <cstdint>
#include <string>

namespace ckpt::testing::ox {

inline std::string Varint(std::uint64_t v) {
  std::string out;
  while (v >= 0x80) {
    out += static_cast<char>((v & 0x7fU) | 0x80U);
    v >>= 7U;
  }
  return out + static_cast<char>(v);
}
/// A length-delimited field (a string, bytes or a message).
inline std::string Bytes(std::uint32_t field, const std::string& payload) {
  return Varint((std::uint64_t{field} << 3U) | 2U) + Varint(payload.size()) + payload;
}
inline std::string Int(std::uint32_t field, std::uint64_t v) { return Varint(std::uint64_t{field} << 3U) + Varint(v); }

/// ModelProto: ir_version 8, then `rest` (fields 2..).
inline std::string Model(const std::string& rest) { return Int(1, 8) + rest; }
inline std::string Opset(const std::string& domain, std::uint64_t version) {
  return Bytes(8, Bytes(1, domain) + Int(2, version));
}
inline std::string Graph(const std::string& body) { return Bytes(7, body); }
/// NodeProto (GraphProto field 1): inputs, one output, op type, domain.
inline std::string Node(const std::string& op, const std::string& domain, const std::string& input,
                        const std::string& output) {
  return Bytes(1, (input.empty() ? "" : Bytes(1, input)) + Bytes(2, output) + Bytes(4, op) +
                      (domain.empty() ? "" : Bytes(7, domain)));
}
/// An initializer (GraphProto field 5): FLOAT of dims {n}, its raw_data given.
inline std::string FloatInitializer(const std::string& name, std::uint64_t n, const std::string& raw) {
  return Bytes(5, Int(1, n) + Int(2, 1) + Bytes(8, name) + Bytes(9, raw));
}
/// An initializer whose data is external at `location`.
inline std::string ExternalInitializer(const std::string& name, std::uint64_t n, const std::string& location) {
  return Bytes(
      5, Int(1, n) + Int(2, 1) + Bytes(8, name) + Bytes(13, Bytes(1, "location") + Bytes(2, location)) + Int(14, 1));
}

}  // namespace ckpt::testing::ox
