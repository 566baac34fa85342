// The static pickle analyser (inputs.md section 6): CPython's semantics opcode by opcode,
// every row of pickle-bypasses.md as a test (each fails, naming the import and call), and
// the containers (torch zip, legacy, plain, .npy). Fixtures are built in code; nothing is
// ever unpickled here.
#include "lib/formats/pickle/pickle_analyser.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cstdio>
#include <random>
#include <set>
#include <string>

#include "engine/audit.h"
#include "engine/diff_run.h"
#include "lib/formats/pickle/pickle_text.h"
#include "lib/io/memory_source.h"
#include "tests/support/audit_helpers.h"
#include "tests/support/model_folder_builder.h"
#include "tests/support/pickle_builder.h"
#include "tests/support/prerequisite.h"
#include "tests/support/process.h"
#include "tests/support/tar_builder.h"

namespace ckpt::testing {
namespace {

using namespace pk;  // NOLINT(google-build-using-namespace): the opcode vocabulary

AuditResult AuditBytes(const std::string& name, const std::string& bytes) {
  return AuditInput({{name, bytes}}, InputForm::kFile, "");
}

bool Fails(const AuditResult& r) {
  for (const Finding& f : r.findings) {
    if (f.rule->severity == Severity::kError) return true;
  }
  return false;
}

const std::string kTouch = "touch /tmp/ckpt-audit-sentinel";
const std::string kCall = "posix.system('touch /tmp/ckpt-audit-sentinel')";

// The one-tensor state dict with posix.system(...) called and popped before STOP.
std::string StateDictWithPayload() {
  return StateDictPickle({{"w", "FloatStorage", "0", 6, 0, {2, 3}, {}}}, false,
                         CallWithStr("posix", "system", kTouch) + kPop);
}

// The import and the call are both named, with their offsets.
void ExpectSystemCall(const AuditResult& r) {
  EXPECT_TRUE(Fails(r));
  EXPECT_TRUE(HasFinding(r, "pickle-global-unsafe", "imports posix.system"));
  EXPECT_TRUE(HasFinding(r, "pickle-call-unsafe", "calls " + kCall));
}

// --- what passes --------------------------------------------------------------------------

TEST(PickleContainers, TorchZipLegacyAndNpyBuiltLikeTorchPass) {
  for (const auto& [name, bytes] : std::vector<std::pair<std::string, std::string>>{{"model.pt", OneTensorZip()},
                                                                                    {"model.bin", OneTensorLegacy()}}) {
    const AuditResult r = AuditBytes(name, bytes);
    EXPECT_EQ(ErrorCount(r), 0U) << name << "\n" << Describe(r);
    ASSERT_EQ(r.artifact.weights.size(), 1U);
    ASSERT_EQ(r.artifact.weights[0].tensors.size(), 1U) << name;
    const StoredTensor& t = r.artifact.weights[0].tensors[0];
    EXPECT_EQ(t.name, "w");
    EXPECT_EQ(t.dtype, "F32");
    EXPECT_EQ(t.shape, (std::vector<std::uint64_t>{2, 3}));
    EXPECT_EQ(t.data_length, 24U);
    EXPECT_EQ(FindingsOf(r, "pickle-format-note").size(), 1U) << Describe(r);
  }
  const AuditResult zip = AuditBytes("model.pt", OneTensorZip());
  EXPECT_EQ(zip.artifact.kind, InputKind::kTorchZip);
  EXPECT_EQ(AuditBytes("model.bin", OneTensorLegacy()).artifact.kind, InputKind::kTorchLegacy);
  const AuditResult npy = AuditBytes("a.npy", Npy("<f4", {3, 4}));
  EXPECT_EQ(npy.artifact.kind, InputKind::kNumpy);
  EXPECT_EQ(ErrorCount(npy), 0U) << Describe(npy);
  ASSERT_EQ(npy.artifact.weights[0].tensors.size(), 1U);
  EXPECT_EQ(npy.artifact.weights[0].tensors[0].name, "");
  EXPECT_EQ(npy.artifact.weights[0].tensors[0].shape, (std::vector<std::uint64_t>{3, 4}));
  // Plain data of every protocol passes as a pickle.
  const std::string plain = Proto(4) + kEmptyDict + ShortStr("epoch") + Int(3) + kSetItem + kStop;
  const AuditResult p = AuditBytes("state.pkl", plain);
  EXPECT_EQ(p.artifact.kind, InputKind::kPickle);
  EXPECT_EQ(ErrorCount(p), 0U) << Describe(p);
  const AuditResult p0 = AuditBytes("state.pkl", "(dp0\nS'epoch'\np1\nI3\ns.");
  EXPECT_EQ(p0.artifact.kind, InputKind::kPickle);
  EXPECT_EQ(ErrorCount(p0), 0U) << Describe(p0);
}

// --- CPython's semantics ------------------------------------------------------------------

TEST(PickleSemantics, PutStoresTheTopAndGetOfAMissingKeyFails) {
  // PUT keeps the stack top (the module); the memo then gives it back under its key.
  const std::string put_get = Proto(2) + ShortStr("posix") + BinPut(7) + kPop + ShortStr("x") + kPop + BinGet(7) +
                              ShortStr("system") + kStackGlobal + kPop + kNone + kStop;
  EXPECT_TRUE(HasFinding(AuditBytes("a.pkl", put_get), "pickle-global-unsafe", "imports posix.system"));
  // GET of a key never written: a finding, and what depends on it is an unknown import.
  const std::string missing = Proto(4) + BinGet(3) + ShortStr("system") + kStackGlobal + kPop + kNone + kStop;
  const AuditResult r = AuditBytes("a.pkl", missing);
  EXPECT_TRUE(HasFinding(r, "pickle-stream-malformed", "reads memo key 3, which was never written"));
  EXPECT_TRUE(HasFinding(r, "pickle-global-unsafe", "not a known string"));
}

// Values CPython cannot load are refused (inputs.md 6): a list as a dict key, a set added to
// itself; a tuple key and a dict holding itself as a value are fine.
TEST(PickleSemantics, UnhashableKeysAndSelfInsertedSetsAreRefused) {
  const AuditResult list_key = AuditBytes("a.pkl", Proto(2) + kEmptyDict + kEmptyList + Int(1) + kSetItem + kStop);
  EXPECT_TRUE(HasFinding(list_key, "pickle-stream-malformed",
                         "SETITEM at byte 6 (SETITEM) uses [] as a dict key: it is unhashable, so CPython's "
                         "unpickler fails here."))
      << Describe(list_key);
  const AuditResult self_set =
      AuditBytes("a.pkl", Proto(4) + "\x8f" + kMemoize + kMark + std::string("h\0", 2) + "\x90" + kStop);
  EXPECT_TRUE(HasFinding(self_set, "pickle-stream-malformed", "(the container itself) as a set member"))
      << Describe(self_set);
  // DICT and FROZENSET build from a mark; a tuple holding a list is unhashable too.
  EXPECT_TRUE(HasFinding(AuditBytes("a.pkl", Proto(2) + kMark + kEmptyList + Int(1) + "d" + kStop),
                         "pickle-stream-malformed", "(DICT) uses [] as a dict key"));
  EXPECT_TRUE(HasFinding(AuditBytes("a.pkl", Proto(4) + kMark + kEmptyList + "\x91" + kStop), "pickle-stream-malformed",
                         "(FROZENSET) uses [] as a set member"));
  EXPECT_TRUE(HasFinding(AuditBytes("a.pkl", Proto(2) + kMark + kEmptyList + kTuple1 + Int(1) + "d" + kStop),
                         "pickle-stream-malformed", "as a dict key: it is unhashable"));
  const AuditResult fine =
      AuditBytes("a.pkl", Proto(2) + kEmptyDict + BinPut(0) + Int(1) + kTuple1 + BinGet(0) + kSetItem + kStop);
  EXPECT_FALSE(Fails(fine)) << Describe(fine);
}

// Path names are budgeted (inputs.md 6: 64 MiB in total): a small pickle of one value tied
// under two long memoized keys at each of 12 levels spells gigabytes of names.
TEST(PickleSemantics, TensorPathNamesAreBudgeted) {
  std::string p = Proto(2) + Str(std::string(60000, 'k')) + BinPut(0) + kPop + Str(std::string(60000, 'j')) +
                  BinPut(1) + kPop + kNone + BinPut(2) + kPop;
  for (int level = 0; level < 12; ++level) {
    p.append(kEmptyDict).append(kMark).append(BinGet(0)).append(BinGet(2 + level)).append(BinGet(1));
    p.append(BinGet(2 + level)).append(kSetItems).append(BinPut(3 + level));
    if (level < 11) p += kPop;
  }
  p += kStop;
  ASSERT_LT(p.size(), 130000U);
  const AuditResult result = AuditBytes("tied.pt", TorchZip(p, {}));  // perf_test bounds its time
  EXPECT_TRUE(HasFinding(result, "pickle-budget-exceeded", "Listing tensors spells more than 64 MiB of path names"))
      << Describe(result);
}

// A pickler numbers its memo from 0, one key per MEMOIZE or PUT, so a pickle of P bytes writes
// keys below P: a torch.save of 10^6 tensors writes keys past 2^22 (the fixed bound of earlier
// versions refused it, inputs.md section 6). Keys no pickler writes, past max(2^22, P), are
// still bounded (a map node each).
TEST(PickleSemantics, MemoKeysScaleWithThePickle) {
  constexpr int kItems = (1 << 22) + (1 << 17);  // 131,072 keys past 2^22: more than a map may hold
  std::string sequential = Proto(4) + kEmptyList + kMemoize;
  sequential.reserve(sequential.size() + std::size_t{3} * kItems + 2);
  for (int i = 0; i < kItems; ++i) sequential.append(kNone).append(kMemoize).append(kAppend);
  sequential += kStop;
  const AuditResult many = AuditBytes("many.pkl", sequential);
  EXPECT_TRUE(FindingsOf(many, "pickle-budget-exceeded").empty()) << Describe(many);
  EXPECT_EQ(ErrorCount(many), 0U) << Describe(many);

  std::string sparse = Proto(2) + kEmptyList;
  for (std::uint32_t key = 0; key <= (1U << 16); ++key) {
    const std::uint32_t written = (1U << 23) + key;  // LONG_BINPUT's 4-byte little-endian key
    sparse.append(kNone).append("r");
    for (int b = 0; b < 4; ++b) sparse.push_back(static_cast<char>((written >> (8 * b)) & 0xFFU));
    sparse.append(kAppend);
  }
  sparse += kStop;
  EXPECT_TRUE(HasFinding(AuditBytes("sparse.pkl", sparse), "pickle-budget-exceeded", "LONG_BINPUT at byte"))
      << "65,537 keys past max(2^22, P) are refused";
}

// Storage keys torch numbers from "0" are found in a dense table; every other spelling is its
// own key ("07" is not "7"), and a number far past the storages seen ("4000000000") is kept
// without a table that large. Sizes differ per record, so a key found as another would be a
// storage mismatch.
TEST(PickleSemantics, StorageKeysAreExactWhateverTheirSpelling) {
  const std::vector<pk::TensorSpec> tensors = {{"a", "FloatStorage", "7", 1, 0, {1}, {}},
                                               {"b", "FloatStorage", "07", 2, 0, {2}, {}},
                                               {"c", "FloatStorage", "4000000000", 3, 0, {3}, {}},
                                               {"tied", "FloatStorage", "7", 1, 0, {1}, {}}};
  const std::map<std::string, std::string> records = {
      {"7", std::string(4, '\0')}, {"07", std::string(8, '\0')}, {"4000000000", std::string(12, '\0')}};
  const AuditResult result = AuditBytes("model.pt", TorchZip(StateDictPickle(tensors), records));
  EXPECT_TRUE(FindingsOf(result, "pickle-storage-mismatch").empty()) << Describe(result);
  EXPECT_TRUE(FindingsOf(result, "zip-member-unexpected").empty()) << Describe(result);
  EXPECT_EQ(ErrorCount(result), 0U) << Describe(result);
  // The near miss: "07" declared with the size of "7" is a mismatch against its own record.
  std::vector<pk::TensorSpec> wrong = tensors;
  wrong[1].numel = 1;
  wrong[1].shape = {1};
  EXPECT_TRUE(HasFinding(AuditBytes("model.pt", TorchZip(StateDictPickle(wrong), records)), "pickle-storage-mismatch",
                         "holds 8 bytes, but its storage is FloatStorage of 1 elements"));
}

TEST(PickleSemantics, MemoizeUsesTheNumberOfKeysWritten) {
  // PUT 5 makes len(memo) 1: MEMOIZE then writes keys 1 and 2, not 6 and 7.
  const std::string s = Proto(4) + ShortStr("x") + BinPut(5) + kPop + ShortStr("posix") + kMemoize + kPop +
                        ShortStr("system") + kMemoize + kPop + BinGet(1) + BinGet(2) + kStackGlobal + kPop + kNone +
                        kStop;
  EXPECT_TRUE(HasFinding(AuditBytes("a.pkl", s), "pickle-global-unsafe", "imports posix.system"));
}

TEST(PickleSemantics, ProtocolTwoNamesAreRenamedAsFindClassDoes) {
  const std::string p2 = Proto(2) + CallWithStr("__builtin__", "eval", "1+1") + kStop;
  const AuditResult r2 = AuditBytes("a.pkl", p2);
  EXPECT_TRUE(HasFinding(r2, "pickle-global-unsafe", "imports builtins.eval"));
  EXPECT_TRUE(HasFinding(r2, "pickle-call-unsafe", "calls builtins.eval('1+1')"));
  // No renaming from protocol 3 on: the name stays as written.
  const std::string p3 = Proto(3) + CallWithStr("__builtin__", "eval", "1+1") + kStop;
  EXPECT_TRUE(HasFinding(AuditBytes("a.pkl", p3), "pickle-global-unsafe", "imports __builtin__.eval"));
  // Module renames: commands -> subprocess, and name renames: __builtin__.reduce -> functools.reduce.
  EXPECT_TRUE(HasFinding(AuditBytes("a.pkl", Proto(2) + CallWithStr("commands", "getoutput", "id") + kStop),
                         "pickle-call-unsafe", "calls subprocess.getoutput('id')"));
  EXPECT_TRUE(HasFinding(AuditBytes("a.pkl", Proto(2) + Global("__builtin__", "reduce") + kStop),
                         "pickle-global-unsafe", "imports functools.reduce"));
  EXPECT_TRUE(HasFinding(AuditBytes("a.pkl", Proto(0).substr(0, 0) + Global("httplib", "HTTPConnection") + kStop),
                         "pickle-global-unsafe", "imports http.client.HTTPConnection"));
}

TEST(PickleSemantics, ValuesOrMarksLeftAtStopAreAFinding) {
  EXPECT_TRUE(HasFinding(AuditBytes("a.pkl", Proto(2) + kNone + kNone + kStop), "pickle-stream-malformed",
                         "leaves 1 values and 0 open marks"));
  EXPECT_TRUE(HasFinding(AuditBytes("a.pkl", Proto(2) + kMark + kNone + kStop), "pickle-stream-malformed",
                         "leaves 0 values and 1 open marks"));
}

TEST(PickleSemantics, OutOfBandBuffersAndUnknownOpcodesFail) {
  EXPECT_TRUE(HasFinding(AuditBytes("a.pkl", Proto(5) + "\x97" + kStop), "pickle-stream-malformed", "out-of-band"));
  EXPECT_TRUE(
      HasFinding(AuditBytes("a.pkl", Proto(2) + "\xff" + kStop), "pickle-stream-malformed", "not a pickle opcode"));
  EXPECT_TRUE(HasFinding(AuditBytes("a.pkl", Proto(2) + kNone + kPop + Proto(6) + kNone + kStop),
                         "pickle-stream-malformed", "protocol 6"));
  // A stream that starts with PROTO 6 is no pickle CPython reads at all.
  EXPECT_EQ(AuditBytes("a.pkl", Proto(6) + kNone + kStop).artifact.kind, InputKind::kUnknown);
}

// --- pickle-bypasses.md, row by row -------------------------------------------------------

TEST(PickleBypasses, Row01PickleRenamedSafetensorsOrBin) {
  const AuditResult st = AuditBytes("model.safetensors", SystemPickle(kTouch));
  EXPECT_EQ(st.artifact.kind, InputKind::kPickle);
  EXPECT_TRUE(HasFinding(st, "input-name-mismatch", "is named as safetensors but is a Python pickle (protocol 2)"));
  ExpectSystemCall(st);
  ExpectSystemCall(AuditBytes("pytorch_model.bin", SystemPickle(kTouch)));
  ExpectSystemCall(AuditBytes("config.p", SystemPickle(kTouch)));
}

// A protocol 0/1 pickle is a pickle up to its first STOP whatever follows (CPython's
// unpickler stops there, having imported and called): one byte more used to make it
// "unknown", and a model folder of such .bin files passed with no finding.
TEST(PickleBypasses, AProtocolZeroPickleFollowedByOneByteIsStillAPickle) {
  const std::string protocol0 = "cposix\nsystem\n(S'" + kTouch + "'\ntR.";
  const AuditResult file = AuditBytes("model.bin", protocol0 + "x");
  EXPECT_EQ(file.artifact.kind, InputKind::kPickle) << Describe(file);
  ExpectSystemCall(file);
  EXPECT_TRUE(HasFinding(file, "pickle-trailing-data", "")) << Describe(file);
  const AuditResult folder =
      AuditInput({{"config.json", "{}"}, {"pytorch_model.bin", protocol0 + "\n"}, {"optimizer.bin", protocol0 + "x"}},
                 InputForm::kFolder, "model");
  EXPECT_EQ(FindingsOf(folder, "pickle-call-unsafe").size(), 2U) << Describe(folder);
  // Text that starts with an opcode letter is not one: nothing parses up to a STOP.
  const AuditResult text = AuditBytes("notes.bin", "hello, world.\n");
  EXPECT_EQ(text.artifact.kind, InputKind::kUnknown) << Describe(text);
}

TEST(PickleBypasses, Row02LocalNameDiffersFromCentralName) {
  std::vector<ZipEntry> entries = TorchZipEntries(StateDictWithPayload(), {{"0", OneTensorRecord()}});
  entries[0].local_name = "archive/data.pkx";
  const AuditResult r = AuditBytes("model.pt", BuildZip(entries));
  EXPECT_TRUE(HasFinding(r, "zip-header-mismatch", "name 'archive/data.pkx'"));
  ExpectSystemCall(r);
}

TEST(PickleBypasses, Row03FlagBits) {
  for (const std::uint16_t flag : {std::uint16_t{0x1}, std::uint16_t{0x20}, std::uint16_t{0x40}}) {
    std::vector<ZipEntry> entries = TorchZipEntries(StateDictWithPayload(), {{"0", OneTensorRecord()}});
    entries[0].flags = flag;
    const AuditResult r = AuditBytes("model.pt", BuildZip(entries));
    EXPECT_TRUE(HasFinding(r, "zip-structure", "flag bits")) << flag;
    ExpectSystemCall(r);
  }
}

TEST(PickleBypasses, Row04BadCrc) {
  std::vector<ZipEntry> entries = TorchZipEntries(StateDictWithPayload(), {{"0", OneTensorRecord()}});
  entries[0].crc = 0x12345678;
  const AuditResult r = AuditBytes("model.pt", BuildZip(entries));
  EXPECT_TRUE(HasFinding(r, "zip-crc-mismatch", "archive/data.pkl"));
  ExpectSystemCall(r);
  // A data record's CRC is checked while the file is hashed.
  std::vector<ZipEntry> data = TorchZipEntries(OneTensorPickle(), {{"0", OneTensorRecord()}});
  data[2].crc = 1;
  EXPECT_TRUE(HasFinding(AuditBytes("model.pt", BuildZip(data)), "zip-crc-mismatch", "archive/data/0"));
}

TEST(PickleBypasses, Row05PayloadInAnotherMemberEveryMemberClassified) {
  for (const std::string member : {"archive/extra.pkl", "archive/notes.txt", "other/data.pkl"}) {
    std::vector<ZipEntry> entries = TorchZipEntries(OneTensorPickle(), {{"0", OneTensorRecord()}});
    ZipEntry e;
    e.name = member;
    e.data = "cposix\nsystem\n(S'" + kTouch + "'\ntR.";  // protocol 0
    entries.push_back(e);
    const AuditResult r = AuditBytes("model.pt", BuildZip(entries));
    EXPECT_TRUE(HasFinding(r, "zip-member-unexpected", "'" + member + "' is not one torch.save writes")) << member;
    ExpectSystemCall(r);
  }
}

TEST(PickleBypasses, Row06BytesBeforeTheZip) {
  for (const std::string& prefix : {std::string("junk junk junk"), std::string("PK\x07\x08", 4)}) {
    const AuditResult r =
        AuditBytes("model.pt", BuildZip(TorchZipEntries(StateDictWithPayload(), {{"0", OneTensorRecord()}}), prefix));
    EXPECT_EQ(r.artifact.kind, InputKind::kTorchZip);
    EXPECT_TRUE(HasFinding(r, "zip-structure", std::to_string(prefix.size()) + " bytes precede the zip archive"));
    ExpectSystemCall(r);
  }
}

TEST(PickleBypasses, Row07OtherContainersFail) {
  const AuditResult seven = AuditBytes("model.7z", std::string("7z\xbc\xaf\x27\x1c\x00\x04", 8) + "rest");
  EXPECT_EQ(seven.artifact.kind, InputKind::kUnknown);
  EXPECT_EQ(FindingsOf(seven, "input-unrecognised").size(), 1U);
  const AuditResult gz = AuditBytes("model.pt.gz", std::string("\x1f\x8b\x08\x00", 4) + "rest");
  EXPECT_EQ(FindingsOf(gz, "input-compressed").size(), 1U);
  // torch's old tar format: a tar of pickles is no checkpoint the audit accepts.
  TarSpec tar;
  tar.members.push_back(Member("pickle", SystemPickle(kTouch)));
  tar.members.push_back(Member("storages", std::string(8, '\0')));
  const AuditResult t = AuditBytes("model.tar", BuildTar(tar));
  EXPECT_TRUE(Fails(t)) << Describe(t);
}

TEST(PickleBypasses, Row08PayloadBeforeABreak) {
  // Truncated before STOP, and an unknown opcode after the call: the import is still named.
  ExpectSystemCall(AuditBytes("a.pkl", Proto(2) + CallWithStr("posix", "system", kTouch)));
  const AuditResult broken = AuditBytes("a.pkl", Proto(2) + CallWithStr("posix", "system", kTouch) + "\xfe" + kStop);
  ExpectSystemCall(broken);
  EXPECT_TRUE(HasFinding(broken, "pickle-stream-malformed", "not a pickle opcode"));
  // Junk after STOP.
  const AuditResult junk = AuditBytes("a.pkl", SystemPickle(kTouch) + "\xfe\xfd junk");
  ExpectSystemCall(junk);
  EXPECT_TRUE(HasFinding(junk, "pickle-trailing-data", "are not a further pickle"));
}

TEST(PickleBypasses, Row09ConcatenatedPicklesAllScanned) {
  const std::string benign = Proto(2) + kNone + kStop;
  for (int position = 1; position < 5; ++position) {
    std::string file;
    for (int i = 0; i < 5; ++i) file += i == position ? SystemPickle(kTouch) : benign;
    ExpectSystemCall(AuditBytes("a.pkl", file));
  }
  // Legacy torch: a payload in the key list pickle, after the object.
  std::string legacy = OneTensorLegacy();
  const std::string keys = Proto(2) + kEmptyList + kMark + Str("0") + "e" + kStop;
  const std::size_t at = legacy.find(keys);
  ASSERT_NE(at, std::string::npos);
  legacy.replace(
      at, keys.size(),
      Proto(2) + kEmptyList + kMark + Str("0") + "e" + CallWithStr("posix", "system", kTouch) + kPop + kStop);
  const AuditResult r = AuditBytes("model.bin", legacy);
  EXPECT_EQ(r.artifact.kind, InputKind::kTorchLegacy);
  ExpectSystemCall(r);
}

TEST(PickleBypasses, Row10LegacyMagicMadeByEval) {
  std::string legacy = OneTensorLegacy();
  const std::string magic = Proto(2) + "\x8a\x0a" + std::string("\x6c\xfc\x9c\x46\xf9\x20\x6a\xa8\x50\x19", 10) + kStop;
  ASSERT_EQ(legacy.compare(0, magic.size(), magic), 0);
  legacy.replace(0, magic.size(),
                 Proto(2) + CallWithStr("builtins", "eval", "0x1950a86a20f9469cfc6c") + kStop + SystemPickle(kTouch));
  const AuditResult r = AuditBytes("model.bin", legacy);
  EXPECT_EQ(r.artifact.kind, InputKind::kPickle);
  EXPECT_TRUE(HasFinding(r, "pickle-call-unsafe", "calls builtins.eval('0x1950a86a20f9469cfc6c')"));
  ExpectSystemCall(r);
}

TEST(PickleBypasses, Row11StackGlobalFromOffsetZeroAndStringOpcodes) {
  // No PROTO: the module string is the stream's first byte.
  const std::string first = ShortStr("os") + ShortStr("system") + kStackGlobal + Str("id") + kTuple1 + kReduce + kStop;
  const AuditResult r = AuditBytes("a.pkl", first);
  EXPECT_EQ(r.artifact.kind, InputKind::kPickle);
  EXPECT_TRUE(HasFinding(r, "pickle-call-unsafe", "calls os.system('id')"));
  const std::string strings = Proto(4) + "S'os'\nS'system'\n" + kStackGlobal + Str("id") + kTuple1 + kReduce + kStop;
  EXPECT_TRUE(HasFinding(AuditBytes("a.pkl", strings), "pickle-call-unsafe", "calls os.system('id')"));
}

TEST(PickleBypasses, Row12StackGlobalThroughAMissingMemoKey) {
  const std::string s = Proto(4) + ShortStr("os") + BinGet(9) + kStackGlobal + Str("id") + kTuple1 + kReduce + kStop;
  const AuditResult r = AuditBytes("a.pkl", s);
  EXPECT_TRUE(HasFinding(r, "pickle-global-unsafe", "not a known string"));
  EXPECT_TRUE(HasFinding(r, "pickle-call-unsafe", "calls <unknown>('id')"));
}

TEST(PickleBypasses, Row13MemoTypeConfusionAndRewrite) {
  // Slot 0 first holds an int, then is rewritten with the module name: CPython uses the last.
  const std::string s = Proto(4) + Int(7) + BinPut(0) + kPop + ShortStr("posix") + BinPut(0) + kPop +
                        ShortStr("system") + BinPut(1) + kPop + BinGet(0) + BinGet(1) + kStackGlobal + Str(kTouch) +
                        kTuple1 + kReduce + kStop;
  ExpectSystemCall(AuditBytes("a.pkl", s));
}

TEST(PickleBypasses, Row14BuildMutatedValueAndDottedGlobal) {
  // numpy prod.a: a dotted name, resolved attribute by attribute from protocol 4.
  const AuditResult dotted = AuditBytes("a.pkl", Proto(4) + Global("numpy", "prod.a") + kPop + kNone + kStop);
  EXPECT_TRUE(HasFinding(dotted, "pickle-global-unsafe", "imports numpy.prod.a"));
  // BUILD on a plain dict stored in the memo: flagged, naming its state.
  const std::string build = Proto(2) + kEmptyDict + BinPut(0) + kEmptyDict + Str("__reduce__") + Int(1) + kSetItem +
                            kBuild + kPop + BinGet(0) + kStop;
  EXPECT_TRUE(HasFinding(AuditBytes("a.pkl", build), "pickle-build-unsafe", "gives state {'__reduce__': 1} to {}"));
}

TEST(PickleBypasses, Row15DunderAttributeThroughStackGlobal) {
  const std::string s = Proto(4) + ShortStr("numpy") + ShortStr("__builtins__") + kStackGlobal + kEmptyDict +
                        Str("eval") + Str("x") + kSetItem + kBuild + kStop;
  const AuditResult r = AuditBytes("a.pkl", s);
  EXPECT_TRUE(HasFinding(r, "pickle-global-unsafe", "imports numpy.__builtins__ (a dunder attribute"));
  EXPECT_TRUE(HasFinding(r, "pickle-build-unsafe", "numpy.__builtins__"));
}

TEST(PickleBypasses, Row16AllowlistedCallableWithHostileArgument) {
  const std::string s = Proto(2) + Global("collections", "OrderedDict") + Str("cmd") + kTuple1 + kReduce + kStop;
  EXPECT_TRUE(HasFinding(AuditBytes("a.pkl", s), "pickle-argument-invalid",
                         "calls collections.OrderedDict('cmd'): OrderedDict takes nothing or (key, value) pairs"));
  // A rebuilt tensor that reaches past its storage.
  const std::string big = StateDictPickle({{"w", "FloatStorage", "0", 6, 2, {2, 3}, {}}});
  EXPECT_TRUE(HasFinding(AuditBytes("model.pt", TorchZip(big, {{"0", OneTensorRecord()}})), "pickle-argument-invalid",
                         "reach element 8 of storage '0', which holds 6"));
}

TEST(PickleBypasses, Row17InstAndObj) {
  const AuditResult inst = AuditBytes("a.pkl", "(S'print(1)'\ni__builtin__\nexec\n.");
  EXPECT_TRUE(HasFinding(inst, "pickle-call-unsafe", "INST at byte 13 calls builtins.exec('print(1)')"));
  const std::string obj = Proto(2) + kMark + Global("posix", "system") + Str(kTouch) + "o" + kStop;
  EXPECT_TRUE(HasFinding(AuditBytes("a.pkl", obj), "pickle-call-unsafe", "OBJ at byte 52 calls " + kCall));
}

TEST(PickleBypasses, Row18SubmoduleOfABlockedModule) {
  const std::string s =
      Proto(4) + Global("asyncio.unix_events", "_UnixSubprocessTransport._start") + kPop + kNone + kStop;
  EXPECT_TRUE(HasFinding(AuditBytes("a.pkl", s), "pickle-global-unsafe",
                         "imports asyncio.unix_events._UnixSubprocessTransport._start"));
}

TEST(PickleBypasses, Row19IndirectionGadgets) {
  for (const auto& [module, name] :
       std::vector<std::pair<std::string, std::string>>{{"importlib", "import_module"},
                                                        {"pkgutil", "resolve_name"},
                                                        {"pydoc", "locate"},
                                                        {"operator", "methodcaller"},
                                                        {"operator", "attrgetter"},
                                                        {"functools", "partial"},
                                                        {"types", "CodeType"},
                                                        {"marshal", "loads"},
                                                        {"cloudpickle.cloudpickle", "_make_function"}}) {
    const AuditResult r = AuditBytes("a.pkl", Proto(2) + CallWithStr(module, name, "os") + kStop);
    EXPECT_TRUE(HasFinding(r, "pickle-call-unsafe", Cat({"calls ", module, ".", name, "('os')"})))
        << module << "." << name;
  }
}

TEST(PickleBypasses, Row20NestedLoaders) {
  for (const auto& [module, name] : std::vector<std::pair<std::string, std::string>>{
           {"pickle", "loads"}, {"torch", "load"}, {"torch.storage", "_load_from_bytes"}, {"numpy", "load"}}) {
    const AuditResult r = AuditBytes("a.pkl", Proto(2) + CallWithStr(module, name, "payload") + kStop);
    EXPECT_TRUE(HasFinding(r, "pickle-nested-loader", Cat({"imports ", module, ".", name, ", a nested loader"})));
    EXPECT_TRUE(HasFinding(r, "pickle-call-unsafe", Cat({"calls ", module, ".", name, "('payload')"})));
  }
}

TEST(PickleBypasses, Row21StdlibGadgetsNamed) {
  for (const auto& [module, name] : std::vector<std::pair<std::string, std::string>>{{"runpy", "_run_code"},
                                                                                     {"pip", "main"},
                                                                                     {"timeit", "timeit"},
                                                                                     {"cProfile", "run"},
                                                                                     {"bdb", "Bdb.run"},
                                                                                     {"uuid", "_get_command_stdout"},
                                                                                     {"imaplib", "IMAP4_stream"},
                                                                                     {"ctypes", "CDLL"},
                                                                                     {"_io", "FileIO"},
                                                                                     {"logging", "FileHandler"}}) {
    const AuditResult r = AuditBytes("a.pkl", Proto(4) + CallWithStr(module, name, "x") + kStop);
    EXPECT_TRUE(HasFinding(r, "pickle-global-unsafe", Cat({"imports ", module, ".", name}))) << module << "." << name;
    EXPECT_TRUE(HasFinding(r, "pickle-call-unsafe", Cat({"calls ", module, ".", name, "('x')"})));
  }
}

TEST(PickleBypasses, Row22ExtensionCodesAndCompatNames) {
  for (const std::string& ext :
       {std::string("\x82\x01", 2), std::string("\x83\x01\x02", 3), std::string("\x84\x01\x02\x03\x04", 5)}) {
    const AuditResult r = AuditBytes("a.pkl", Cat({Proto(2), ext, Str("id"), kTuple1, kReduce, kStop}));
    EXPECT_TRUE(HasFinding(r, "pickle-extension-code", "imports extension code"));
    EXPECT_TRUE(HasFinding(r, "pickle-call-unsafe", "calls <unknown>('id')"));
  }
  EXPECT_TRUE(HasFinding(AuditBytes("a.pkl", Proto(2) + CallWithStr("commands", "getoutput", "id") + kStop),
                         "pickle-global-unsafe", "imports subprocess.getoutput"));
  EXPECT_TRUE(HasFinding(AuditBytes("a.pkl", Proto(2) + Global("httplib", "HTTPSConnection") + kStop),
                         "pickle-global-unsafe", "imports http.client.HTTPSConnection"));
  EXPECT_TRUE(HasFinding(AuditBytes("a.pkl", Proto(2) + Global("__builtin__", "reduce") + kStop),
                         "pickle-global-unsafe", "imports functools.reduce"));
}

TEST(PickleBypasses, Row23ExpansionAndHugeLengthsAreBounded) {
  // A DUP storm of 3 million opcodes is within the 4 x P values its 3 MB may make (inputs.md
  // section 6: budgets scale with the pickle): it is read to its STOP and fails for what it leaves.
  const std::string storm = Proto(2) + kEmptyList + std::string(3'000'000, '2') + kStop;
  const AuditResult r = AuditBytes("a.pkl", storm);  // perf_test bounds these runs' time
  EXPECT_TRUE(FindingsOf(r, "pickle-budget-exceeded").empty()) << Describe(r);
  EXPECT_TRUE(HasFinding(r, "pickle-stream-malformed", "STOP at byte 3000003 leaves 3000000 values"));
  // A 2^62 length prefix: a finding before any allocation.
  const std::string huge = Proto(4) + "\x8d" + std::string("\x00\x00\x00\x00\x00\x00\x00\x40", 8) + kStop;
  EXPECT_TRUE(HasFinding(AuditBytes("a.pkl", huge), "pickle-budget-exceeded", "4611686018427387904 more bytes"));
  // Billion laughs: ten levels of lists holding the level below ten times, in a torch
  // checkpoint whose tensors are listed by path. The walk ends at the budget.
  std::string laughs = Proto(2) + kEmptyList + BinPut(0);
  for (int level = 1; level < 10; ++level) {
    laughs += kEmptyList + kMark;
    for (int k = 0; k < 10; ++k) laughs += BinGet(level - 1);
    laughs += "e" + BinPut(level) + kPop;
  }
  laughs += kPop + BinGet(9) + kStop;
  EXPECT_TRUE(HasFinding(AuditBytes("model.pt", TorchZip(laughs, {})), "pickle-budget-exceeded",
                         "Listing tensors visits more than 2^21"));
}

// Issue 46: SETITEM on a rebuilt tensor is item assignment into tensor memory (the
// CVE-2026-24747 primitive), which torch's weights-only unpickler applies: a security
// finding, not a malformed stream. SETITEM on a tuple (no __setitem__) stays malformed, and
// SETITEM on the state dict (the near miss) passes.
TEST(PickleBypasses, SetItemOnARebuiltTensorIsACall) {
  const std::string pid =
      Cat({kMark, Str("storage"), Global("torch", "FloatStorage"), Str("0"), Str("cpu"), Int(6), kTuple, kBinPersId});
  const std::string tensor =
      Cat({Global("torch._utils", "_rebuild_tensor_v2"), kMark, pid, Int(0), kMark, Int(6), kTuple, kMark, Int(1),
           kTuple, kNewFalse, Global("collections", "OrderedDict"), kEmptyTuple, kReduce, kTuple, kReduce});
  const std::string record = std::string(24, '\x01');
  const std::string write = Cat({Proto(2), kEmptyDict, Str("w"), tensor, Int(7), Int(0), kSetItem, kSetItem, kStop});
  const AuditResult r = AuditBytes("model.pt", TorchZip(write, {{"0", record}}));
  const auto found = FindingsOf(r, "pickle-call-unsafe");
  ASSERT_EQ(found.size(), 1U) << Describe(r);
  EXPECT_EQ(found[0]->message,
            "SETITEM at byte 184 assigns items of a rebuilt tensor: loading calls its __setitem__, which writes into "
            "its memory (the CVE-2026-24747 primitive, which torch.load applies even with weights_only=True).");
  EXPECT_TRUE(FindingsOf(r, "pickle-stream-malformed").empty()) << Describe(r);
  const std::string on_tuple = Cat({Proto(2), kEmptyTuple, Int(7), Int(0), kSetItem, kStop});
  EXPECT_TRUE(HasFinding(AuditBytes("a.pkl", on_tuple), "pickle-stream-malformed", "which has no such method"));
  const std::string plain = Cat({Proto(2), kEmptyDict, Str("w"), tensor, kSetItem, kStop});
  EXPECT_EQ(ErrorCount(AuditBytes("model.pt", TorchZip(plain, {{"0", record}}))), 0U);
}

TEST(PickleBypasses, Row24ScannerImport) {
  for (const std::string module : {"fickling.analysis", "picklescan.scanner", "modelscan.modelscan"}) {
    const AuditResult r = AuditBytes("a.pkl", Cat({Proto(2), Global(module, "scan"), kPop, kNone, kStop}));
    EXPECT_TRUE(
        HasFinding(r, "pickle-scanner-import", Cat({"imports ", module, ".scan, a module of a model scanner"})));
  }
}

TEST(PickleBypasses, Row25ACorruptEntryBeforeDataPklDoesNotStopTheWalk) {
  std::vector<ZipEntry> entries = TorchZipEntries(StateDictWithPayload(), {{"0", OneTensorRecord()}});
  ZipEntry bad;
  bad.name = "archive/.data/version";
  bad.data = "3\n";
  bad.crc = 0xdeadbeef;
  entries.insert(entries.begin(), bad);
  std::string zip = BuildZip(entries);
  zip[0] = 'X';  // the first local header's signature broken
  const AuditResult r = AuditBytes("model.pt", zip);
  EXPECT_TRUE(HasFinding(r, "zip-structure", "has no local header signature"));
  ExpectSystemCall(r);
}

TEST(PickleBypasses, Row26BytesAfterTheLastSafetensorsTensor) {
  const std::string file =
      SafetensorsFile(R"({"w":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}})", std::string(4, '\0'));
  EXPECT_EQ(ErrorCount(AuditBytes("model.safetensors", file)), 0U);
  EXPECT_EQ(FindingsOf(AuditBytes("model.safetensors", file + "PAYLOAD"), "safetensors-buffer-size").size(), 1U);
  const std::string hole = SafetensorsFile(
      R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},"b":{"dtype":"F32","shape":[1],"data_offsets":[8,12]}})",
      std::string(12, '\0'));
  EXPECT_FALSE(FindingsOf(AuditBytes("model.safetensors", hole), "safetensors-offsets-not-contiguous").empty());
}

// --- hostile structure --------------------------------------------------------------------

TEST(PickleHostile, EveryTruncationOfAZipAndALegacyCheckpointIsAFinding) {
  for (const std::string& whole : {OneTensorZip(), OneTensorLegacy()}) {
    for (std::size_t n = 1; n < whole.size(); ++n) {
      const AuditResult r = AuditBytes("model.pt", whole.substr(0, n));
      EXPECT_TRUE(Fails(r) || !r.tool_errors.empty()) << n << "\n" << Describe(r);
      EXPECT_TRUE(r.tool_errors.empty()) << n << "\n" << Describe(r);
    }
  }
}

TEST(PickleHostile, DeepNestingIsBounded) {
  std::string deep = Proto(2);
  for (int i = 0; i < 1000; ++i) deep += kEmptyList;
  for (int i = 0; i < 999; ++i) deep += kAppend;
  deep += kStop;
  const AuditResult r = AuditBytes("a.pkl", deep);
  EXPECT_EQ(ErrorCount(r), 0U) << Describe(r);  // nesting alone is data; the listing walk is bounded
  std::string marks = Proto(2) + std::string(100000, '(') + kStop;
  EXPECT_TRUE(Fails(AuditBytes("a.pkl", marks)));
}

// --- pickles inside other inputs ----------------------------------------------------------

TEST(PickleElsewhere, APickleWhereLensembleWeightsBelongStaysAnErrorAndSaysWhatItDoes) {
  Files files = ArtifactSpec::Clean().Build();
  files["weights.safetensors"] = SystemPickle(kTouch);
  const AuditResult r = AuditFiles(files);
  EXPECT_EQ(FindingsOf(r, "weights-format-pickle").size(), 1U) << Describe(r);
  ExpectSystemCall(r);
  EXPECT_EQ(FindingsOf(r, "pickle-call-unsafe").at(0)->location.file, "weights.safetensors");
  // A clean torch.save where weights belong is still refused (CHECKPOINT_INTEGRITY).
  files["weights.safetensors"] = OneTensorZip();
  const AuditResult clean = AuditFiles(files);
  EXPECT_EQ(FindingsOf(clean, "weights-format-zip").size(), 1U) << Describe(clean);
}

TEST(PickleElsewhere, PickleFilesOfAModelFolderAreAnalysed) {
  Files folder = ModelFolderSpec{}.Build();
  folder["pytorch_model.bin"] = OneTensorZip();
  folder["optimizer.pt"] = SystemPickle(kTouch);
  const AuditResult r = AuditInput(folder, InputForm::kFolder, "model");
  ExpectSystemCall(r);
  EXPECT_EQ(FindingsOf(r, "pickle-call-unsafe").at(0)->location.file, "optimizer.pt");
  EXPECT_EQ(FindingsOf(r, "pickle-format-note").size(), 2U) << Describe(r);
  folder.erase("optimizer.pt");
  EXPECT_EQ(ErrorCount(AuditInput(folder, InputForm::kFolder, "model")), 0U);
  // A protocol 0 pickle (no PROTO header), a zip whose first member is not data.pkl and a
  // zip behind junk are analysed too: torch would load them.
  folder["training_args.bin"] = "cposix\nsystem\n(S'id'\ntR.";
  std::vector<ZipEntry> entries = TorchZipEntries(StateDictWithPayload(), {{"0", OneTensorRecord()}});
  std::rotate(entries.begin(), entries.begin() + 1, entries.end());
  folder["reordered.pt"] = BuildZip(entries);
  folder["prefixed.pt"] = BuildZip(TorchZipEntries(StateDictWithPayload(), {{"0", OneTensorRecord()}}), "junk");
  const AuditResult more = AuditInput(folder, InputForm::kFolder, "model");
  std::set<std::string> files;
  for (const Finding* f : FindingsOf(more, "pickle-call-unsafe")) files.insert(f->location.file);
  EXPECT_EQ(files, (std::set<std::string>{"prefixed.pt", "reordered.pt", "training_args.bin"})) << Describe(more);
}

TEST(PickleSemantics, APersistentIdThatIsAStringIsNotAStorage) {
  // Found by a mutation run: a legacy object pickle whose PERSID gives a str.
  std::string legacy = OneTensorLegacy();
  const std::string object = StateDictPickle({{"w", "FloatStorage", "0", 6, 0, {2, 3}, {}}}, true);
  legacy.replace(legacy.find(object), object.size(), Proto(2) + "P0\n" + kStop);
  const AuditResult r = AuditBytes("model.bin", legacy);
  EXPECT_TRUE(HasFinding(r, "pickle-storage-mismatch", "gives the persistent id '0', not ('storage'"));
}

TEST(PickleSemantics, ConjugateAndNegativeBitsAreRecorded) {
  // _rebuild_tensor_v2's 7th argument, as torch 2 writes it for a lazy negative view.
  const std::string data = LazyBitTensorPickle("neg");
  const AuditResult r = AuditBytes("model.pt", TorchZip(data, {{"0", OneTensorRecord()}}));
  EXPECT_EQ(ErrorCount(r), 0U) << Describe(r);
  ASSERT_EQ(r.artifact.weights.at(0).tensors.size(), 1U);
  EXPECT_TRUE(r.artifact.weights[0].tensors[0].neg);
  EXPECT_FALSE(r.artifact.weights[0].tensors[0].conj);
  // Metadata that is not a dict of str to bool is refused.
  std::string bad = data;
  bad.replace(bad.find(kNewTrue + kSetItem), 1, Int(1));
  EXPECT_TRUE(HasFinding(AuditBytes("model.pt", TorchZip(bad, {{"0", OneTensorRecord()}})), "pickle-argument-invalid",
                         "its metadata is not a dict of str to bool"));
}

TEST(PickleSemantics, RenderedCallsEscapeEveryByteAnAttackerChooses) {
  const AuditResult r = AuditBytes("a.pkl", SystemPickle("printf '\x1b[2J\r\n' # \xe2\x80\xae"));
  for (const Finding* f : FindingsOf(r, "pickle-call-unsafe")) {
    EXPECT_EQ(f->message.find('\x1b'), std::string::npos);
    EXPECT_EQ(f->message.find('\r'), std::string::npos);
    EXPECT_NE(f->message.find("\\x1b[2J\\r\\n"), std::string::npos) << f->message;
    EXPECT_NE(f->message.find("\\xe2\\x80\\xae"), std::string::npos) << f->message;  // no bidi override
  }
  EXPECT_EQ(FindingsOf(r, "pickle-call-unsafe").size(), 1U);
}

TEST(PickleElsewhere, CkptDiffChecksTheDataRecordsToo) {
  TempDir dir;
  std::vector<ZipEntry> entries = TorchZipEntries(OneTensorPickle(), {{"0", OneTensorRecord()}});
  WriteFiles({{"a.pt", BuildZip(entries)}}, dir.path());
  entries[2].data[0] = '\x02';  // a tensor byte changed after the CRC-32 was recorded
  entries[2].crc = 0;
  std::string b = BuildZip(entries);
  WriteFiles({{"b.pt", b}}, dir.path());
  const DiffRun run = RunDiff((dir.path() / "a.pt").string(), (dir.path() / "b.pt").string(), DiffOptions{});
  ASSERT_EQ(run.tensors.size(), 1U);
  EXPECT_EQ(run.tensors[0].status, TensorStatus::kChanged);
  EXPECT_TRUE(HasFinding(run.b, "zip-crc-mismatch", "archive/data/0"));
  EXPECT_TRUE(FindingsOf(run.a, "zip-crc-mismatch").empty());
  // With each file's digest wanted (SARIF), the record is still checked, and its digest taken
  // by the same read.
  DiffOptions digests;
  digests.policy.digest_files = true;
  const DiffRun sarif = RunDiff((dir.path() / "a.pt").string(), (dir.path() / "b.pt").string(), digests);
  EXPECT_TRUE(HasFinding(sarif.b, "zip-crc-mismatch", "archive/data/0"));
  ASSERT_FALSE(sarif.b.artifact.files.empty());
  EXPECT_TRUE(sarif.b.artifact.files[0].sha256.has_value());
}

TEST(PickleRecognition, AHeaderlessPickleIsConfirmedByItsSyntaxNotGuessedFromText) {
  // Protocol 0 and 1 write no PROTO: an opcode first and STOP last, and every argument well
  // formed, is a pickle; text with the same first and last bytes is not.
  for (const std::string& text :
       {std::string("Load with modeling_bert.py from transformers."), std::string("I am here.\n."),
        std::string("(see the README)."), std::string("cfg = 1\nx = 2\n.")}) {
    EXPECT_EQ(AuditBytes("notes.txt", text).artifact.kind, InputKind::kUnknown) << text;
  }
  for (const std::string& pickle : {std::string("(dp0\nS'a'\np1\nI1\ns."), std::string("I42\n."), std::string("I01\n."),
                                    std::string("cposix\nsystem\n(S'id'\ntR."),
                                    std::string("]q\x00(K\x01K\x02"
                                                "e.",
                                                10)}) {
    EXPECT_EQ(AuditBytes("state.pkl", pickle).artifact.kind, InputKind::kPickle) << pickle;
  }
}

TEST(PickleRecognition, TheOpcodeTableIsPickletoolsOwn) {
  // pickletools.opcodes of CPython 3.11: 68 opcodes, 43 printable and 0x80-0x98.
  const std::string printable = "().012BCFGIJKLMNPQRSTUVX]abcdeghijlopqrstu}";
  std::size_t count = 0;
  for (int b = 0; b < 256; ++b) {
    const bool expected =
        (b >= 0x80 && b <= 0x98) || (b < 0x80 && printable.find(static_cast<char>(b)) != std::string::npos);
    EXPECT_EQ(pickle::IsOpcode(static_cast<std::byte>(b)), expected) << b;
    count += expected ? 1U : 0U;
  }
  EXPECT_EQ(count, 68U);
}

TEST(PickleSemantics, IntLinesAreReadAsPythonsIntWithBaseZero) {
  // INT and LONG lines go through int(line, 0): prefixes and underscores, no leading zero.
  for (const auto& [line, shown] : std::vector<std::pair<std::string, std::string>>{{"I0x10", "16"},
                                                                                    {"I0o17", "15"},
                                                                                    {"I0b101", "5"},
                                                                                    {"I1_000", "1000"},
                                                                                    {"I-7", "-7"},
                                                                                    {"L123L", "123"},
                                                                                    {"I 42 ", "42"},
                                                                                    {"I000", "0"}}) {
    const AuditResult r = AuditBytes("a.pkl", Cat({"cposix\nsystem\n(", line, "\ntR."}));
    EXPECT_TRUE(HasFinding(r, "pickle-call-unsafe", Cat({"calls posix.system(", shown, ")"}))) << line;
  }
  for (const std::string line : {"I010", "I0x", "I1__0", "I_1", "Ione"}) {
    const AuditResult r = AuditBytes("a.pkl", Cat({Proto(2), Global("posix", "system"), kMark, line, "\ntR."}));
    EXPECT_TRUE(HasFinding(r, "pickle-stream-malformed", "not an int")) << line;
  }
}

TEST(PickleSemantics, RebuildTensorV3OverAnUntypedStorage) {
  // torch 2 writes dtypes without a typed storage class (uint16, float8, ...) this way:
  // an UntypedStorage of numel bytes, the dtype as the 7th argument.
  const std::string pid = Cat(
      {kMark, Str("storage"), Global("torch", "UntypedStorage"), Str("0"), Str("cpu"), Int(10), kTuple, kBinPersId});
  auto v3 = [&](int offset, int size) {
    return Cat({Global("torch._utils", "_rebuild_tensor_v3"), kMark, pid, Int(offset), kMark, Int(size), kTuple, kMark,
                Int(1), kTuple, kNewFalse, Global("collections", "OrderedDict"), kEmptyTuple, kReduce,
                Global("torch", "uint16"), kTuple, kReduce});
  };
  const std::string data = Cat({Proto(2), kEmptyDict, Str("a"), v3(1, 4), kSetItem, kStop});
  const std::string zip = TorchZip(data, {{"0", std::string(10, '\x07')}});
  const AuditResult r = AuditBytes("model.pt", zip);
  EXPECT_EQ(ErrorCount(r), 0U) << Describe(r);
  ASSERT_EQ(r.artifact.weights.at(0).tensors.size(), 1U);
  const StoredTensor& t = r.artifact.weights[0].tensors[0];
  EXPECT_EQ(t.dtype, "U16");
  EXPECT_EQ(t.shape, (std::vector<std::uint64_t>{4}));
  EXPECT_EQ(t.data_length, 8U);
  EXPECT_EQ(t.data_offset, zip.find(std::string(10, '\x07')) + 2);  // element 1 of uint16: 2 bytes in
  // Five uint16 elements do not fit in 10 bytes after an offset of 1.
  const std::string past = Cat({Proto(2), kEmptyDict, Str("a"), v3(1, 5), kSetItem, kStop});
  EXPECT_TRUE(HasFinding(AuditBytes("model.pt", TorchZip(past, {{"0", std::string(10, '\x07')}})),
                         "pickle-argument-invalid", "reach element 6 of storage '0', which holds 5"));
}

// The machine asks its find_class policy and names no module itself: a policy that admits
// only collections.OrderedDict refuses torch's rebuild function with its own reason, and the
// torch policy (the near miss) admits the same stream.
TEST(PicklePolicy, TheMachineAsksItsPolicy) {
  class OrderedDictOnly final : public pickle::FindClassPolicy {
   public:
    [[nodiscard]] pickle::Known Classify(std::string_view module, std::string_view name) const override {
      return module == "collections" && name == "OrderedDict" ? pickle::Known::kOrderedDict
                                                              : pickle::Known::kNotAllowed;
    }
    [[nodiscard]] bool IsNestedLoader(std::string_view, std::string_view) const override { return false; }
    [[nodiscard]] std::string_view NotAdmittedWhy() const override { return "not an OrderedDict"; }
  };
  const std::string stream = Proto(2) + Global("torch._utils", "_rebuild_tensor_v2") + kStop;
  MemorySource source;
  source.AddFile("a.pkl", stream);
  auto file = source.Open("a.pkl");
  ASSERT_TRUE(file);
  const OrderedDictOnly only;
  DiagnosticList strict;
  pickle::Analyser custom("a.pkl", strict, pickle::StorageMode::kNone, only);
  ASSERT_TRUE(custom.Run(**file, 0, stream.size()));
  ASSERT_EQ(strict.items.size(), 1U);
  EXPECT_EQ(strict.items[0].kind, Diag::kPickleGlobalUnsafe);
  EXPECT_EQ(strict.items[0].message,
            "GLOBAL at byte 2 imports torch._utils._rebuild_tensor_v2 (not an OrderedDict); loading the file imports "
            "it.");
  DiagnosticList torch;
  pickle::Analyser standard("a.pkl", torch, pickle::StorageMode::kNone);
  ASSERT_TRUE(standard.Run(**file, 0, stream.size()));
  EXPECT_TRUE(torch.items.empty());
}

// Issue 51 papercut: a call's bytes argument of 2,560 bytes is shown as Python writes the
// literal, cut after 80 bytes with "...", so the finding stays one readable line (and the call
// an acceptance names stays the same short text); a short one is shown whole (the near miss).
TEST(PickleText, ALongBytesArgumentIsCutInTheFinding) {
  for (const std::size_t length : {std::size_t{2560}, std::size_t{5}}) {
    std::string data;
    for (std::size_t i = 0; i < length; ++i) data += static_cast<char>(i % 256);
    std::string bin_bytes = "B";  // BINBYTES: a 4-byte length, then the bytes
    for (int i = 0; i < 4; ++i) bin_bytes += static_cast<char>((data.size() >> (8 * i)) & 0xFF);
    const std::string stream = Cat({Proto(3), Global("posix", "system"), bin_bytes, data, kTuple1, kReduce, kStop});
    MemorySource source;
    source.AddFile("a.pkl", stream);
    auto file = source.Open("a.pkl");
    ASSERT_TRUE(file);
    DiagnosticList found;
    pickle::Analyser analyser("a.pkl", found, pickle::StorageMode::kNone);
    ASSERT_TRUE(analyser.Run(**file, 0, stream.size()));
    const auto call = std::find_if(found.items.begin(), found.items.end(),
                                   [](const auto& d) { return d.kind == Diag::kPickleCallUnsafe; });
    ASSERT_NE(call, found.items.end());
    if (length == 5) {
      EXPECT_NE(call->message.find("calls posix.system(b'\\x00\\x01\\x02\\x03\\x04')."), std::string::npos)
          << call->message;
    } else {
      EXPECT_NE(call->message.find("calls posix.system(b'\\x00\\x01"), std::string::npos) << call->message;
      EXPECT_NE(call->message.find("NO...')."), std::string::npos) << call->message;  // byte 79 is 'O'
      EXPECT_LT(call->message.size(), 400U) << call->message;
    }
  }
}

// Issue 51 papercut: floats in findings read as Python's repr (5e-05, not
// 5.0000000000000002e-05), judged against Debian's python3 on edge values and random doubles.
TEST(PickleText, FloatsReadAsPythonsRepr) {
  if (RunCommand("/usr/bin/python3 -c 'pass' 2>&1").exit_code != 0) CKPT_MISSING_PREREQUISITE() << "python3 missing";
  std::vector<double> values = {5e-05,
                                0.1,
                                1.0,
                                -2.5,
                                0.0,
                                -0.0,
                                1e16,
                                1e15,
                                123456789012345680.0,
                                1e-4,
                                1e-5,
                                1.5e300,
                                5e-324,
                                2.2250738585072014e-308,
                                1.7976931348623157e308,
                                100.0,
                                0.3,
                                std::numeric_limits<double>::infinity(),
                                -std::numeric_limits<double>::infinity()};
  std::mt19937_64 random(51);
  while (values.size() < 2000) {
    const double v = std::bit_cast<double>(random());
    if (!std::isnan(v)) values.push_back(v);
  }
  TempDir dir;
  std::string hex;
  for (const double v : values) {
    char line[32];
    std::snprintf(line, sizeof line, "%016llx\n", static_cast<unsigned long long>(std::bit_cast<std::uint64_t>(v)));
    hex += line;
  }
  WriteText(dir.path() / "values.txt", hex);
  const CommandResult python = RunCommand(
      "/usr/bin/python3 -c 'import struct,sys\nfor l in open(sys.argv[1]): "
      "print(repr(struct.unpack(\"<d\", bytes.fromhex(l.strip())[::-1])[0]))' " +
      ShellQuote(dir.path() / "values.txt"));
  ASSERT_EQ(python.exit_code, 0) << python.output;
  std::size_t at = 0;
  for (const double v : values) {
    const std::size_t end = python.output.find('\n', at);
    ASSERT_NE(end, std::string::npos);
    EXPECT_EQ(pickle::PythonFloatRepr(v), python.output.substr(at, end - at)) << std::bit_cast<std::uint64_t>(v);
    at = end + 1;
  }
  EXPECT_EQ(pickle::PythonFloatRepr(std::numeric_limits<double>::quiet_NaN()), "nan");
}

}  // namespace
}  // namespace ckpt::testing
