// Writes pickles, torch zip checkpoints and legacy torch files for tests, opcode by opcode
// and byte by byte: valid ones shaped as torch.save writes them, and every hostile variant
// of pickle-bypasses.md. Nothing here is ever unpickled.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ckpt::testing::pk {

// Opcodes, as strings to concatenate.
inline const std::string kMark = "(";
inline const std::string kStop = ".";
inline const std::string kTuple = "t";
inline const std::string kTuple1 = "\x85";
inline const std::string kTuple2 = "\x86";
inline const std::string kEmptyTuple = ")";
inline const std::string kEmptyDict = "}";
inline const std::string kEmptyList = "]";
inline const std::string kReduce = "R";
inline const std::string kBuild = "b";
inline const std::string kSetItem = "s";
inline const std::string kSetItems = "u";
inline const std::string kAppend = "a";
inline const std::string kNewFalse = "\x89";
inline const std::string kNewTrue = "\x88";
inline const std::string kNone = "N";
inline const std::string kDup = "2";
inline const std::string kPop = "0";
inline const std::string kBinPersId = "Q";
inline const std::string kStackGlobal = "\x93";
inline const std::string kMemoize = "\x94";

/// The parts joined (appended in place: the building blocks below are joined in loops).
std::string Cat(std::initializer_list<std::string_view> parts);

std::string Proto(int protocol);
std::string Global(const std::string& module, const std::string& name);  ///< GLOBAL 'module name'
std::string Str(const std::string& text);                                ///< BINUNICODE
std::string ShortStr(const std::string& text);                           ///< SHORT_BINUNICODE
std::string Int(std::int64_t n);                                         ///< BININT1 / BININT2 / BININT
std::string BinPut(int key);
std::string BinGet(int key);
/// posix.system(command), protocol 2, a whole pickle.
std::string SystemPickle(const std::string& command);
/// A call of module.name(argument) (a str argument), as opcodes without PROTO or STOP.
std::string CallWithStr(const std::string& module, const std::string& name, const std::string& argument);

struct TensorSpec {
  std::string name;
  std::string storage_type = "FloatStorage";
  std::string key;
  std::uint64_t numel = 0;  ///< of the storage
  std::uint64_t offset = 0;
  std::vector<std::uint64_t> shape;
  std::vector<std::uint64_t> stride;  ///< empty: row-major
};

/// A state dict as torch.save writes it (protocol 2): OrderedDict of _rebuild_tensor_v2
/// calls over persistent-id storages. `legacy` adds the legacy format's 6th pid field.
/// `payload` is spliced in before STOP (it must leave the stack as it found it).
std::string StateDictPickle(const std::vector<TensorSpec>& tensors, bool legacy = false,
                            const std::string& payload = "");

struct ZipEntry {
  std::string name;
  std::string data;
  std::optional<std::string> local_name;  ///< the local header's name when it differs
  std::uint16_t flags = 0;
  std::uint16_t method = 0;
  std::optional<std::uint32_t> crc;  ///< the CRC-32 recorded (default: the data's)
  bool descriptor = false;           ///< sizes and CRC in a data descriptor after the data (flag 0x08)
  bool deflate = false;              ///< written with method 8, `data` raw-deflated by zlib
};
/// A zip with the entries stored in order; `prefix` is written before it (offsets then
/// count from the archive's start, as a zip appended to other bytes records them).
std::string BuildZip(const std::vector<ZipEntry>& entries, const std::string& prefix = "");

/// The members torch.save writes: <top>/data.pkl, <top>/data/<key>..., version, byteorder.
std::vector<ZipEntry> TorchZipEntries(const std::string& data_pkl, const std::map<std::string, std::string>& records,
                                      const std::string& top = "archive");
std::string TorchZip(const std::string& data_pkl, const std::map<std::string, std::string>& records);

/// A legacy torch file: magic, 1001, sys_info, the object pickle, the key list, storages.
std::string LegacyCheckpoint(const std::string& object_pickle,
                             const std::vector<std::pair<std::string, std::string>>& storages);

/// A valid one-tensor checkpoint of each container, and its record.
std::string OneTensorPickle();  ///< 'w': FloatStorage '0' of 6, shape [2, 3]
std::string OneTensorRecord();  ///< 24 bytes
/// 'n': FloatStorage '0' of 6, shape [6], whose _rebuild_tensor_v2 metadata sets torch's lazy
/// `bit` ("neg" or "conj") to True, as torch 2 writes a lazy view.
std::string LazyBitTensorPickle(const std::string& bit);
std::string OneTensorZip();
std::string OneTensorLegacy();

/// Writes to `path` a torch zip of `count` float32 tensors `layer<i>.weight` of `elements`
/// each, streaming the records (perf tests: no copy of a gigabyte in memory).
void WriteTorchZipFile(const std::string& path, std::size_t count, std::uint64_t elements);

/// An .npz as numpy.savez writes it: the members (name, .npy bytes) stored in order.
std::string NpzOf(const std::vector<std::pair<std::string, std::string>>& members);
/// One array of a joblib file: a NumpyArrayWrapper of `code` ("f4") and `shape`, with
/// `body` as its bytes (`padding` replaces the 0xff padding joblib writes when given).
struct JoblibArray {
  std::string key;
  std::string code = "f4";
  std::vector<std::uint64_t> shape;
  std::string body;
  std::optional<std::string> padding;
};
/// What joblib.dump writes for a dict of arrays (protocol 2, alignment 16), with `extra`
/// opcodes (key and value pairs) spliced into the dict.
std::string JoblibPickle(const std::vector<JoblibArray>& arrays, const std::string& extra = "");
/// `data` as a zlib stream (zlib's compress2), as joblib's zlib compressor writes it.
std::string ZlibOf(const std::string& data);
/// `data` as one bzip2 stream (level 9), as joblib's bz2 compressor writes it.
std::string Bz2Of(const std::string& data);

/// A zip of `members` (name, bytes) in order, stored or deflated.
std::string ZipOf(const std::vector<std::pair<std::string, std::string>>& members, bool deflate = false);
/// `data` as a raw deflate stream (zlib level 6, no header), as zipfile writes method 8.
std::string RawDeflate(const std::string& data);
/// A .npy file of float32 (or the descr given) with `shape` and matching zero bytes.
std::string Npy(const std::string& descr, const std::vector<std::uint64_t>& shape, std::size_t element_size = 4);

}  // namespace ckpt::testing::pk
