// Man pages and shell completion written from the same option tables and usage text that
// --help prints, so neither can drift from the tool (the build runs each tool with the
// hidden options --man-page and --completion bash|zsh; cmake --install installs the output).
#pragma once

#include <boost/program_options.hpp>
#include <map>
#include <ostream>
#include <string>
#include <vector>

namespace ckpt::cli {

struct ManualSource {
  std::string tool;
  std::string version;
  const char* usage;  ///< "Usage: ...", description paragraphs, "Exit status:", "Environment:", "Files:", "Examples:"
                      ///< blocks, "Options"
  const boost::program_options::options_description* options;
  /// Values an option takes from a fixed set (completion offers them): --format, --fail-on, ...
  std::map<std::string, std::vector<std::string>> choices;
  /// KEY=FILE options (--report FORMAT=FILE): the keys completion offers before the '=', then files.
  std::map<std::string, std::vector<std::string>> keyed_files;
};

/// A section 1 man page (roff): NAME, SYNOPSIS, DESCRIPTION, OPTIONS, EXIT STATUS, ENVIRONMENT,
/// FILES, EXAMPLES (the usage text's "Environment:", "Files:" and "Examples:" blocks), SEE ALSO.
void WriteManPage(std::ostream& out, const ManualSource& source);
/// A bash completion script (complete -F) for the tool.
void WriteBashCompletion(std::ostream& out, const ManualSource& source);
/// A zsh completion function (#compdef) for the tool.
void WriteZshCompletion(std::ostream& out, const ManualSource& source);

}  // namespace ckpt::cli
