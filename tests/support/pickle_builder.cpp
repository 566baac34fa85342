#include "tests/support/pickle_builder.h"

#include <bzlib.h>
#include <zlib.h>

#include <fstream>
#include <functional>
#include <span>
#include <vector>

#include "lib/hashing/crc32.h"

namespace ckpt::testing::pk {
namespace {

std::string Le(std::uint64_t v, int bytes) {
  std::string out;
  for (int i = 0; i < bytes; ++i) out.push_back(i < 8 ? static_cast<char>((v >> (8 * i)) & 0xFF) : '\0');
  return out;
}

std::uint32_t CrcOf(const std::string& data) {
  Crc32 crc;
  crc.Update(std::as_bytes(std::span(data.data(), data.size())));
  return crc.value();
}

std::string IntTuple(const std::vector<std::uint64_t>& values) {
  std::string out = kMark;
  for (std::uint64_t v : values) out += Int(static_cast<std::int64_t>(v));
  return out + kTuple;
}

}  // namespace

std::string Cat(std::initializer_list<std::string_view> parts) {
  std::string out;
  for (std::string_view p : parts) out.append(p);
  return out;
}

std::string Proto(int protocol) { return std::string("\x80", 1) + static_cast<char>(protocol); }

std::string Global(const std::string& module, const std::string& name) { return "c" + module + "\n" + name + "\n"; }

std::string Str(const std::string& text) { return "X" + Le(text.size(), 4) + text; }

std::string ShortStr(const std::string& text) { return "\x8c" + Le(text.size(), 1) + text; }

std::string Int(std::int64_t n) {
  if (n >= 0 && n < 256) return "K" + Le(static_cast<std::uint64_t>(n), 1);
  if (n >= 0 && n < 65536) return "M" + Le(static_cast<std::uint64_t>(n), 2);
  return "J" + Le(static_cast<std::uint64_t>(n), 4);
}

std::string BinPut(int key) { return "q" + Le(static_cast<std::uint64_t>(key), 1); }
std::string BinGet(int key) { return "h" + Le(static_cast<std::uint64_t>(key), 1); }

std::string CallWithStr(const std::string& module, const std::string& name, const std::string& argument) {
  return Global(module, name) + Str(argument) + kTuple1 + kReduce;
}

std::string SystemPickle(const std::string& command) {
  return Proto(2) + CallWithStr("posix", "system", command) + kStop;
}

std::string StateDictPickle(const std::vector<TensorSpec>& tensors, bool legacy, const std::string& payload) {
  std::string out = Proto(2) + Global("collections", "OrderedDict") + kEmptyTuple + kReduce + kMark;
  for (const TensorSpec& t : tensors) {
    std::vector<std::uint64_t> stride = t.stride;
    if (stride.empty()) {
      stride.assign(t.shape.size(), 1);
      for (std::size_t i = t.shape.size(); i-- > 1;) stride[i - 1] = stride[i] * t.shape[i];
    }
    out += Str(t.name) + Global("torch._utils", "_rebuild_tensor_v2") + kMark;
    out += Cat({kMark, Str("storage"), Global("torch", t.storage_type), Str(t.key), Str("cpu"),
                Int(static_cast<std::int64_t>(t.numel)), legacy ? kNone : "", kTuple, kBinPersId});
    out += Cat({Int(static_cast<std::int64_t>(t.offset)), IntTuple(t.shape), IntTuple(stride), kNewFalse,
                Global("collections", "OrderedDict"), kEmptyTuple, kReduce, kTuple, kReduce});
  }
  return out + kSetItems + payload + kStop;
}

std::string BuildZip(const std::vector<ZipEntry>& entries, const std::string& prefix) {
  std::string local;
  std::string central;
  for (const ZipEntry& given : entries) {
    ZipEntry e = given;
    const std::uint64_t plain_size = e.data.size();
    if (e.deflate) {
      e.method = 8;
      e.crc = e.crc.value_or(CrcOf(e.data));
      e.data = RawDeflate(e.data);
    }
    const std::uint32_t crc = e.crc.value_or(CrcOf(e.data));
    const std::uint16_t flags = static_cast<std::uint16_t>(e.flags | (e.descriptor ? 0x08 : 0));
    const std::string& local_name = e.local_name.value_or(e.name);
    const std::uint64_t offset = local.size();
    local += "PK\x03\x04" + Le(20, 2) + Le(flags, 2) + Le(e.method, 2) + Le(0, 4);
    local += e.descriptor ? Le(0, 12) : Le(crc, 4) + Le(e.data.size(), 4) + Le(plain_size, 4);
    local += Le(local_name.size(), 2) + Le(0, 2) + local_name + e.data;
    if (e.descriptor) local += "PK\x07\x08" + Le(crc, 4) + Le(e.data.size(), 4) + Le(plain_size, 4);
    central += "PK\x01\x02" + Le(20, 2) + Le(20, 2) + Le(flags, 2) + Le(e.method, 2) + Le(0, 4) + Le(crc, 4) +
               Le(e.data.size(), 4) + Le(plain_size, 4) + Le(e.name.size(), 2) + Le(0, 2) + Le(0, 2) + Le(0, 2) +
               Le(0, 2) + Le(0, 4) + Le(offset, 4) + e.name;
  }
  const std::string end = "PK\x05\x06" + Le(0, 2) + Le(0, 2) + Le(entries.size(), 2) + Le(entries.size(), 2) +
                          Le(central.size(), 4) + Le(local.size(), 4) + Le(0, 2);
  return prefix + local + central + end;
}

std::vector<ZipEntry> TorchZipEntries(const std::string& data_pkl, const std::map<std::string, std::string>& records,
                                      const std::string& top) {
  std::vector<ZipEntry> entries;
  auto add = [&](std::string name, std::string data) {
    ZipEntry e;
    e.name = std::move(name);
    e.data = std::move(data);
    entries.push_back(std::move(e));
  };
  add(top + "/data.pkl", data_pkl);
  add(top + "/byteorder", "little");
  for (const auto& [key, bytes] : records) add(Cat({top, "/data/", key}), bytes);
  add(top + "/version", "3\n");
  return entries;
}

std::string TorchZip(const std::string& data_pkl, const std::map<std::string, std::string>& records) {
  return BuildZip(TorchZipEntries(data_pkl, records));
}

std::string LegacyCheckpoint(const std::string& object_pickle,
                             const std::vector<std::pair<std::string, std::string>>& storages) {
  std::string out = Proto(2) + "\x8a\x0a" + std::string("\x6c\xfc\x9c\x46\xf9\x20\x6a\xa8\x50\x19", 10) + kStop;
  out += Proto(2) + Int(1001) + kStop;
  out += Proto(2) + kEmptyDict + kMark + Str("protocol_version") + Int(1001) + Str("little_endian") + kNewTrue +
         kSetItems + kStop;
  out += object_pickle;
  out += Proto(2) + kEmptyList + kMark;
  for (const auto& s : storages) out += Str(s.first);
  out += "e" + kStop;
  for (const auto& s : storages) {
    // The count is in elements; these fixtures use 4-byte elements (FloatStorage).
    out += Le(s.second.size() / 4, 8) + s.second;
  }
  return out;
}

std::string OneTensorPickle() { return StateDictPickle({{"w", "FloatStorage", "0", 6, 0, {2, 3}, {}}}); }
std::string OneTensorRecord() { return std::string(24, '\x01'); }
std::string LazyBitTensorPickle(const std::string& bit) {
  const std::string pid =
      Cat({kMark, Str("storage"), Global("torch", "FloatStorage"), Str("0"), Str("cpu"), Int(6), kTuple, kBinPersId});
  return Cat({Proto(2),
              kEmptyDict,
              Str("n"),
              Global("torch._utils", "_rebuild_tensor_v2"),
              kMark,
              pid,
              Int(0),
              kMark,
              Int(6),
              kTuple,
              kMark,
              Int(1),
              kTuple,
              kNewFalse,
              Global("collections", "OrderedDict"),
              kEmptyTuple,
              kReduce,
              kEmptyDict,
              Str(bit),
              kNewTrue,
              kSetItem,
              kTuple,
              kReduce,
              kSetItem,
              kStop});
}
std::string OneTensorZip() { return TorchZip(OneTensorPickle(), {{"0", OneTensorRecord()}}); }
std::string OneTensorLegacy() {
  return LegacyCheckpoint(StateDictPickle({{"w", "FloatStorage", "0", 6, 0, {2, 3}, {}}}, true),
                          {{"0", OneTensorRecord()}});
}

void WriteTorchZipFile(const std::string& path, std::size_t count, std::uint64_t elements) {
  std::vector<TensorSpec> tensors;
  for (std::size_t i = 0; i < count; ++i) {
    tensors.push_back(
        {"layer" + std::to_string(i) + ".weight", "FloatStorage", std::to_string(i), elements, 0, {elements}, {}});
  }
  const std::string pkl = StateDictPickle(tensors);
  const std::vector<char> chunk(1 << 20, '\x01');
  const std::uint64_t bytes = elements * 4;
  Crc32 record_crc;
  for (std::uint64_t at = 0; at < bytes; at += chunk.size()) {
    record_crc.Update(std::as_bytes(std::span(chunk.data(), std::min<std::uint64_t>(chunk.size(), bytes - at))));
  }
  std::ofstream out(path, std::ios::binary);
  std::string central;
  std::uint64_t offset = 0;
  auto member = [&](const std::string& name, std::uint32_t crc, std::uint64_t size, const std::function<void()>& data) {
    const std::string header = Cat({"PK\x03\x04", Le(20, 2), Le(0, 2), Le(0, 2), Le(0, 4), Le(crc, 4), Le(size, 4),
                                    Le(size, 4), Le(name.size(), 2), Le(0, 2), name});
    out << header;
    data();
    central += Cat({"PK\x01\x02", Le(20, 2), Le(20, 2), Le(0, 2), Le(0, 2), Le(0, 4), Le(crc, 4), Le(size, 4),
                    Le(size, 4), Le(name.size(), 2), Le(0, 6), Le(0, 2), Le(0, 4), Le(offset, 4), name});
    offset += header.size() + size;
  };
  member("archive/data.pkl", CrcOf(pkl), pkl.size(), [&] { out << pkl; });
  for (std::size_t i = 0; i < count; ++i) {
    member("archive/data/" + std::to_string(i), record_crc.value(), bytes, [&] {
      for (std::uint64_t at = 0; at < bytes; at += chunk.size()) {
        out.write(chunk.data(), static_cast<std::streamsize>(std::min<std::uint64_t>(chunk.size(), bytes - at)));
      }
    });
  }
  member("archive/version", CrcOf("3\n"), 2, [&] { out << "3\n"; });
  out << central
      << Cat({"PK\x05\x06", Le(0, 4), Le(count + 2, 2), Le(count + 2, 2), Le(central.size(), 4), Le(offset, 4),
              Le(0, 2)});
}

std::string Npy(const std::string& descr, const std::vector<std::uint64_t>& shape, std::size_t element_size) {
  std::string dims;  // as numpy writes it: (), (3,), (2, 3)
  std::uint64_t count = 1;
  for (std::size_t i = 0; i < shape.size(); ++i) {
    dims += (i > 0 ? ", " : "") + std::to_string(shape[i]);
    count *= shape[i];
  }
  if (shape.size() == 1) dims += ",";
  std::string header = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': (" + dims + "), }";
  while ((10 + header.size() + 1) % 64 != 0) header += ' ';
  header += '\n';
  return std::string("\x93NUMPY\x01\x00", 8) + Le(header.size(), 2) + header +
         std::string(static_cast<std::size_t>(count * element_size), '\0');
}

std::string NpzOf(const std::vector<std::pair<std::string, std::string>>& members) { return ZipOf(members); }

std::string ZipOf(const std::vector<std::pair<std::string, std::string>>& members, bool deflate) {
  std::vector<ZipEntry> entries;
  for (const auto& [name, bytes] : members) {
    ZipEntry entry;
    entry.name = name;
    entry.data = bytes;
    entry.deflate = deflate;
    entries.push_back(std::move(entry));
  }
  return BuildZip(entries);
}

std::string RawDeflate(const std::string& data) {
  z_stream z{};
  if (deflateInit2(&z, 6, Z_DEFLATED, -MAX_WBITS, 8, Z_DEFAULT_STRATEGY) != Z_OK)
    throw std::runtime_error("deflateInit2");
  std::string out(deflateBound(&z, data.size()), '\0');
  z.next_in = reinterpret_cast<Bytef*>(
      const_cast<char*>(data.data()));  // NOLINT(cppcoreguidelines-pro-type-const-cast): zlib's API
  z.avail_in = static_cast<uInt>(data.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  const int status = deflate(&z, Z_FINISH);
  out.resize(out.size() - z.avail_out);
  deflateEnd(&z);
  if (status != Z_STREAM_END) throw std::runtime_error("deflate");
  return out;
}

}  // namespace ckpt::testing::pk

namespace ckpt::testing::pk {

std::string JoblibPickle(const std::vector<JoblibArray>& arrays, const std::string& extra) {
  std::string out = Proto(2) + kEmptyDict + kMark;
  for (const JoblibArray& a : arrays) {
    out +=
        Cat({Str(a.key), Global("joblib.numpy_pickle", "NumpyArrayWrapper"), kEmptyTuple, "\x81", kEmptyDict, kMark});
    out += Cat({Str("subclass"), Global("numpy", "ndarray"), Str("shape"), kMark});
    for (std::uint64_t d : a.shape) out += Int(static_cast<std::int64_t>(d));
    out += Cat({kTuple, Str("order"), Str("C"), Str("dtype")});
    out += Cat({Global("numpy", "dtype"), kMark, Str(a.code), kNewFalse, kNewTrue, kTuple, kReduce});
    const bool one_byte = a.code == "b1" || a.code == "i1" || a.code == "u1";
    out +=
        Cat({kMark, Int(3), Str(one_byte ? "|" : "<"), kNone, kNone, kNone, Int(-1), Int(-1), Int(0), kTuple, kBuild});
    out += Cat({Str("allow_mmap"), kNewTrue, Str("numpy_array_alignment_bytes"), Int(16), kSetItems, kBuild});
    const std::size_t padding = 16 - ((out.size() + 1) % 16);
    out += static_cast<char>(padding);
    out += a.padding.value_or(std::string(padding, '\xff'));
    out += a.body;
  }
  return Cat({out, extra, kSetItems, kStop});
}

std::string ZlibOf(const std::string& data) {
  uLongf size = compressBound(data.size());
  std::string out(size, '\0');
  if (compress2(reinterpret_cast<Bytef*>(out.data()), &size, reinterpret_cast<const Bytef*>(data.data()), data.size(),
                6) != Z_OK) {
    throw std::runtime_error("compress2");
  }
  out.resize(size);
  return out;
}

std::string Bz2Of(const std::string& data) {
  auto size = static_cast<unsigned>(data.size() + data.size() / 100 + 600);
  std::string out(size, '\0');
  std::string in = data;  // libbz2 takes a non-const source
  if (BZ2_bzBuffToBuffCompress(out.data(), &size, in.data(), static_cast<unsigned>(in.size()), 9, 0, 0) != BZ_OK) {
    throw std::runtime_error("BZ2_bzBuffToBuffCompress");
  }
  out.resize(size);
  return out;
}

}  // namespace ckpt::testing::pk
