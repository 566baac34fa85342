#include "tests/support/gguf_builder.h"

#include <cstdio>
#include <cstring>
#include <fstream>
#include <vector>

#include "lib/formats/gguf/gguf_reader.h"

namespace ckpt::testing::gg {
namespace {

std::string Le(std::uint64_t v, int bytes) {
  std::string out;
  for (int i = 0; i < bytes; ++i) out.push_back(i < 8 ? static_cast<char>((v >> (8 * i)) & 0xFF) : '\0');
  return out;
}

std::string String(const std::string& s) { return Le(s.size(), 8) + s; }

std::uint64_t AlignUp(std::uint64_t v, std::uint64_t a) { return (v + a - 1) / a * a; }

}  // namespace

Kv U32(const std::string& key, std::uint32_t v) { return {key, 4, Le(v, 4)}; }
Kv U64(const std::string& key, std::uint64_t v) { return {key, 10, Le(v, 8)}; }
Kv U16(const std::string& key, std::uint16_t v) { return {key, 2, Le(v, 2)}; }
Kv I32(const std::string& key, std::int32_t v) { return {key, 5, Le(static_cast<std::uint32_t>(v), 4)}; }
Kv F32(const std::string& key, float v) {
  std::uint32_t bits = 0;
  std::memcpy(&bits, &v, sizeof bits);
  return {key, 6, Le(bits, 4)};
}
Kv Bool(const std::string& key, std::uint8_t v) { return {key, 7, std::string(1, static_cast<char>(v))}; }
Kv Str(const std::string& key, const std::string& v) { return {key, 8, String(v)}; }
Kv StrArray(const std::string& key, const std::vector<std::string>& items) {
  std::string value = Le(8, 4) + Le(items.size(), 8);
  for (const std::string& s : items) value += String(s);
  return {key, 9, value};
}
Kv NestedArray(const std::string& key) {
  const std::string inner1 = Le(0, 4) + Le(2, 8) + "\x01\x02";
  const std::string inner2 = Le(0, 4) + Le(1, 8) + "\x03";
  return {key, 9, Le(9, 4) + Le(2, 8) + inner1 + inner2};
}

std::uint64_t TensorBytes(const Tensor& t) {
  if (t.data_bytes) return *t.data_bytes;
  const GgmlType* type = FindGgmlType(t.type);
  if (type == nullptr) return 0;
  std::uint64_t numel = 1;
  for (std::uint64_t d : t.dims) numel *= d;
  return numel / type->block_size * type->type_size;
}

std::string Build(const Spec& spec) {
  std::vector<Kv> kvs = spec.kvs;
  if (spec.alignment != 32)
    kvs.insert(kvs.begin(), U32("general.alignment", static_cast<std::uint32_t>(spec.alignment)));
  std::string out = "GGUF" + Le(spec.version, 4) + Le(spec.tensor_count.value_or(spec.tensors.size()), 8) +
                    Le(spec.kv_count.value_or(kvs.size()), 8);
  for (const Kv& kv : kvs) out += String(kv.key) + Le(kv.type, 4) + kv.value;
  std::uint64_t next = 0;
  std::vector<std::uint64_t> offsets;
  for (const Tensor& t : spec.tensors) {
    const std::uint64_t offset = t.offset.value_or(next);
    offsets.push_back(offset);
    out += String(t.name) + Le(t.dims.size(), 4);
    for (std::uint64_t d : t.dims) out += Le(d, 8);
    out += Le(t.type, 4) + Le(offset, 8);
    next = AlignUp(offset + TensorBytes(t), spec.alignment);
  }
  if (!spec.tensors.empty()) {
    out.resize(AlignUp(out.size(), spec.alignment), '\0');
    const std::size_t data_start = out.size();
    for (std::size_t i = 0; i < spec.tensors.size(); ++i) {
      const std::uint64_t bytes = TensorBytes(spec.tensors[i]);
      if (data_start + offsets[i] + bytes > out.size()) out.resize(data_start + offsets[i] + bytes, '\0');
      for (std::uint64_t b = 0; b < bytes; ++b) {
        out[data_start + offsets[i] + b] = static_cast<char>((i * 31 + b * 7 + 1) & 0x7F);
      }
    }
    out.resize(AlignUp(out.size(), spec.alignment), '\0');
  }
  return out + spec.trailing;
}

std::vector<std::pair<std::string, std::string>> SplitSet(const std::string& prefix, std::uint32_t count) {
  const Spec all = Several();
  std::vector<std::pair<std::string, std::string>> out;
  for (std::uint32_t i = 0; i < count; ++i) {
    Spec part;
    part.kvs = {U16("split.no", static_cast<std::uint16_t>(i)), U16("split.count", static_cast<std::uint16_t>(count)),
                I32("split.tensors.count", static_cast<std::int32_t>(all.tensors.size()))};
    if (i == 0) part.kvs.insert(part.kvs.end(), all.kvs.begin(), all.kvs.end());
    for (std::size_t t = i; t < all.tensors.size(); t += count) part.tensors.push_back(all.tensors[t]);
    char name[64];
    std::snprintf(name, sizeof name, "-%05u-of-%05u.gguf", i + 1, count);
    out.emplace_back(prefix + name, Build(part));
  }
  return out;
}

void WriteF32File(const std::string& path, std::size_t count, std::uint64_t elements) {
  Spec spec;
  spec.kvs = {Str("general.architecture", "llama")};
  for (std::size_t i = 0; i < count; ++i)
    spec.tensors.push_back({"blk." + std::to_string(i) + ".weight", {elements}, 0, {}, {}});
  // The header as Build writes it, then the data streamed (every tensor is a multiple of 32 bytes).
  Spec header = spec;
  for (Tensor& t : header.tensors) t.data_bytes = 0;
  std::string bytes = Build(header);
  std::uint64_t offset = 0;
  for (std::size_t i = 0; i < count; ++i) {  // rewrite the offsets Build laid out for empty tensors
    const std::string name = spec.tensors[i].name;
    const std::size_t at = bytes.find(Le(name.size(), 8) + name) + 8 + name.size() + 4 + 8 + 4;
    bytes.replace(at, 8, Le(offset, 8));
    offset += elements * 4;
  }
  bytes.resize(AlignUp(bytes.size(), spec.alignment), '\0');
  std::ofstream out(path, std::ios::binary);
  out << bytes;
  const std::vector<char> chunk(1 << 20, '\x01');
  for (std::uint64_t left = offset; left > 0;) {
    const auto n = static_cast<std::streamsize>(std::min<std::uint64_t>(chunk.size(), left));
    out.write(chunk.data(), n);
    left -= static_cast<std::uint64_t>(n);
  }
}

Spec Several() {
  Spec s;
  s.kvs = {Str("general.architecture", "llama"),
           U32("general.quantization_version", 2),
           StrArray("tokenizer.ggml.tokens", {"<s>", "</s>", "a", "b", "c", "d", "e"}),
           Str("tokenizer.chat_template", "{% for m in messages %}{{ m['content'] }}{% endfor %}"),
           F32("llama.attention.layer_norm_rms_epsilon", 1e-5F),
           Bool("general.flag", 1)};
  s.tensors = {{"token_embd.weight", {64, 2}, 0, {}, {}}, {"blk.0.attn_q.weight", {64, 2}, 1, {}, {}},
               {"blk.0.ffn.weight", {32, 3}, 30, {}, {}}, {"blk.0.q8.weight", {64, 2}, 8, {}, {}},
               {"blk.0.q4.weight", {32, 1}, 2, {}, {}},   {"pos.ids", {5}, 26, {}, {}},
               {"rank4.weight", {2, 3, 4, 5}, 0, {}, {}}};
  return s;
}

}  // namespace ckpt::testing::gg
