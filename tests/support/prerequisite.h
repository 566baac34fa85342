// A test whose prerequisite (a Debian package, a tool) is missing skips on a developer's
// machine and fails where CKPT_REQUIRE_ALL=1 (.ci/run sets it): a CI machine that lacks a
// package never passes green.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <string_view>

namespace ckpt::test {

inline bool RequireAll() {
  const char* value = std::getenv("CKPT_REQUIRE_ALL");
  return value != nullptr && std::string_view(value) == "1";
}

inline ::testing::TestPartResult::Type MissingPrerequisiteResult() {
  return RequireAll() ? ::testing::TestPartResult::kFatalFailure : ::testing::TestPartResult::kSkip;
}

}  // namespace ckpt::test

/// Ends the test for a missing prerequisite: a skip, or a failure under CKPT_REQUIRE_ALL=1.
/// Streams a reason as GTEST_SKIP() does: `CKPT_MISSING_PREREQUISITE() << "openssl is missing";`
#define CKPT_MISSING_PREREQUISITE()                                                                     \
  return GTEST_MESSAGE_AT_(__FILE__, __LINE__, "missing prerequisite (CKPT_REQUIRE_ALL=1 fails on it)", \
                           ::ckpt::test::MissingPrerequisiteResult())
