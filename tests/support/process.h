// Running the tools as a user would, from tests.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace ckpt::testing {

struct CommandResult {
  int exit_code = -1;  ///< -1 when the command did not exit normally
  std::string output;  ///< standard output (and standard error when the command redirects it)
};

/// `path` as one shell word: single-quoted, its own single quotes escaped.
std::string ShellQuote(const std::filesystem::path& path);

/// A file's whole content ("" when it cannot be read), and writing one.
std::string ReadText(const std::filesystem::path& path);
void WriteText(const std::filesystem::path& path, std::string_view text);

/// Runs `command` with /bin/sh and captures its standard output.
CommandResult RunCommand(const std::string& command);

/// A prefix that runs a command as the unprivileged user nobody when the tests run as root
/// (root reads any file, so permission tests need it); "" when not root; nullopt when root
/// and setpriv is missing (the caller skips).
std::optional<std::string> UnprivilegedPrefix();

/// `binary` copied into `dir` (which the test made reachable by everyone), so the
/// unprivileged user can run it even when the checkout sits in a private 0700 directory.
std::string ReachableCopy(const std::string& binary, const std::string& dir);

}  // namespace ckpt::testing
