// .ckpt-audit.json: a repository's defaults for the tools' options (policy and baseline paths,
// --fail-on, --expect-kind, ...), found by itself so a CI job and a laptop run the same gate.
#pragma once

#include <boost/program_options.hpp>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace ckpt::cli {

/// The configuration file in force: CKPT_AUDIT_CONFIG when set (it must exist), else the first
/// `.ckpt-audit.json` from the working directory up to the repository root (the nearest folder
/// with `.git`); outside a repository only the working directory is looked in. nullopt: none.
/// The error is a usage error's message.
std::variant<std::optional<std::string>, std::string> FindConfigFile();

/// The options a configuration file sets, as if given on the command line after everything
/// the user typed (which wins): top-level keys are options every tool has, a tool's own go under
/// its name ("ckpt-diff": {...}). Keys are long option names ('_' for '-' accepted); a flag takes
/// true (false leaves it unset), a repeatable option an array; FILE and DIR values are relative
/// to the file's folder. The error says what is wrong, with line and column, and "did you mean".
std::variant<boost::program_options::parsed_options, std::string> ReadConfigFile(
    const std::string& path, const std::string& tool, const boost::program_options::options_description& options,
    const std::vector<std::string>& shared_options);

}  // namespace ckpt::cli
