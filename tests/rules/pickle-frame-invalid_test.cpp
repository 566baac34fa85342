// pickle-frame-invalid: an opcode straddling a FRAME boundary, a frame inside a frame, or a
// frame running past STOP is refused; pickles framed as CPython frames them stay quiet.
#include <gtest/gtest.h>

#include "tests/support/audit_helpers.h"
#include "tests/support/pickle_builder.h"

namespace ckpt::testing {
namespace {

using namespace pk;

std::string Frame(std::uint64_t length) {
  std::string out = "\x95";
  for (int i = 0; i < 8; ++i, length >>= 8) out += static_cast<char>(length & 0xFF);
  return out;
}

const std::string kCall = CallWithStr("posix", "system", "touch /tmp/framed") + kStop;

AuditResult AuditPickle(const std::string& bytes) { return AuditInput({{"model.pkl", bytes}}, InputForm::kFile, ""); }

TEST(Rule_pickle_frame_invalid, AnOpcodeStraddlingAFrameBoundaryIsRefused) {
  // fickling's test_frame_boundary_divergence: the frame ends 3 bytes into GLOBAL.
  const AuditResult result = AuditPickle(Proto(4) + Frame(3) + kCall);
  const auto found = FindingsOf(result, "pickle-frame-invalid");
  ASSERT_EQ(found.size(), 1U) << Describe(result);
  EXPECT_EQ(found[0]->message,
            "GLOBAL at byte 11 runs past the end of its FRAME (byte 14): pickle.load from a file and pickle.loads "
            "read different opcodes from here.");
  // The call is still named: the analysis goes on.
  EXPECT_TRUE(HasFinding(result, "pickle-call-unsafe", "posix.system")) << Describe(result);
}

TEST(Rule_pickle_frame_invalid, AFrameInsideAFrameOrPastStopIsRefused) {
  const std::string inner = Frame(2) + kNone + kStop;
  const AuditResult nested = AuditPickle(Proto(4) + Frame(inner.size() + 1) + inner + "N");
  EXPECT_TRUE(HasFinding(nested, "pickle-frame-invalid",
                         "FRAME at byte 11 starts a new frame inside the previous one, which runs to byte 23"))
      << Describe(nested);
  const AuditResult past = AuditPickle(Proto(4) + Frame(4) + kNone + kStop + "NN");
  EXPECT_TRUE(HasFinding(past, "pickle-frame-invalid", "The FRAME holding STOP at byte 12 runs on to byte 15"))
      << Describe(past);
}

TEST(Rule_pickle_frame_invalid, NearMissFramesAsCPythonWritesThemStayQuiet) {
  // One frame ending right after STOP, and a large value written unframed between frames.
  const std::string body = kEmptyDict + kStop;
  const AuditResult framed = AuditPickle(Proto(4) + Frame(body.size()) + body);
  EXPECT_TRUE(FindingsOf(framed, "pickle-frame-invalid").empty()) << Describe(framed);
  EXPECT_EQ(ErrorCount(framed), 0U) << Describe(framed);
  const std::string first = kMark;
  const std::string last = "l" + kStop;  // LIST from the mark
  const std::string big = ShortStr(std::string(200, 'x'));
  const AuditResult split = AuditPickle(Proto(4) + Frame(first.size()) + first + big + Frame(last.size()) + last);
  EXPECT_TRUE(FindingsOf(split, "pickle-frame-invalid").empty()) << Describe(split);
  EXPECT_EQ(ErrorCount(split), 0U) << Describe(split);
}

}  // namespace
}  // namespace ckpt::testing
