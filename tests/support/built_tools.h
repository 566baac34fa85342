// Where a test finds the tools it runs and the source tree it reads: beside its own binary
// (every executable of the build goes to <build>/bin) and in the file the configuration wrote
// there, never from a path compiled in, so that a clone at another path compiles every test
// to the same object and the compiler cache serves it.
#pragma once

#include <filesystem>
#include <string>

namespace ckpt::testing {

/// <the running binary's folder>/<name>: a tool or helper of the same build.
std::string BuiltTool(const char* name);
/// The build tree: the folder above <build>/bin.
std::filesystem::path BuildDir();
/// The source tree the build was configured from (<build>/ckpt-source-dir, written by CMake).
std::string SourceDir();

}  // namespace ckpt::testing

#define CKPT_AUDIT_BIN ::ckpt::testing::BuiltTool("ckpt-audit")
#define CKPT_CHAIN_BIN ::ckpt::testing::BuiltTool("ckpt-chain")
#define CKPT_DIFF_BIN ::ckpt::testing::BuiltTool("ckpt-diff")
#define CKPT_CONVERT_BIN ::ckpt::testing::BuiltTool("ckpt-convert")
#define CKPT_H5PROBE_FAKE ::ckpt::testing::BuiltTool("ckpt-h5probe-fake")
#define CKPT_H5PROBE_HOOKED ::ckpt::testing::BuiltTool("ckpt-h5probe-hooked")
#define CKPT_SOURCE_DIR ::ckpt::testing::SourceDir()
