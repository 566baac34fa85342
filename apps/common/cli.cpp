#include "apps/common/cli.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>

namespace ckpt::cli {

namespace po = boost::program_options;

namespace {

std::string Join(const std::vector<std::string>& items, const char* separator) {
  std::string out;
  for (const std::string& item : items) out += (out.empty() ? "" : separator) + item;
  return out;
}

}  // namespace

CommonCli::CommonCli(std::string tool, std::vector<std::string> formats, const char* usage)
    : tool_(std::move(tool)), formats_(std::move(formats)), options_(usage), format_(formats_.front()) {
  options_.add_options()
      ("help,h", "show this help and exit")
      ("version", "show the version and exit")
      ("format", po::value(&format_)->value_name("FORMAT"), (Join(formats_, "|") + " (default " + formats_.front() + ")").c_str())
      ("output,o", po::value(&output_)->value_name("FILE"), "write the report to FILE instead of standard output")
      ("fail-on", po::value(&fail_on_)->value_name("LEVEL"), "error|warning|note|none: lowest severity that fails (default error)")
      ("sarif-category", po::value(&sarif_category_)->value_name("NAME"),
       "SARIF: automationDetails.id = <tool>/NAME/ (separates uploads on code-scanning platforms)")
      ("source-root", po::value(&source_root_)->value_name("DIR"),
       "SARIF: URIs are relative to DIR (default: the current directory)")
      ("allow-group", po::value(&allow_groups_)->value_name("NAME"),
       "also accept this param group as shared (repeatable; reported as a note)");
}

int CommonCli::UsageError(const std::string& message) const {
  std::cerr << tool_ << ": " << message << "\nTry '" << tool_ << " --help'.\n";
  return kExitToolError;
}

std::optional<int> CommonCli::Parse(int argc, char** argv, std::vector<std::string>& positionals) {
  po::options_description hidden;
  hidden.add_options()("positional", po::value(&positionals));
  po::options_description all;
  all.add(options_).add(hidden);
  po::positional_options_description positional;
  positional.add("positional", -1);
  try {
    po::store(po::command_line_parser(argc, argv).options(all).positional(positional).run(), vm_);
    po::notify(vm_);
  } catch (const po::error& e) {
    return UsageError(e.what());
  }
  if (Has("help")) {
    std::cout << options_ << "\n";
    return kExitClean;
  }
  if (Has("version")) {
    std::cout << tool_ << " " << CKPT_VERSION << "\n";
    return kExitClean;
  }
  if (std::find(formats_.begin(), formats_.end(), format_) == formats_.end()) {
    return UsageError("--format must be one of " + Join(formats_, ", ") + ", not '" + format_ + "'");
  }
  if (!ParseFailThreshold(fail_on_, threshold_)) {
    return UsageError("--fail-on must be error, warning, note or none, not '" + fail_on_ + "'");
  }
  if (Has("sarif-category")) {
    if (sarif_category_.empty() || sarif_category_.find('/') != std::string::npos) {
      return UsageError("--sarif-category needs a non-empty NAME without '/'");
    }
    sarif_.category = sarif_category_;
  }
  std::error_code ec;
  sarif_.source_root = std::filesystem::absolute(
      source_root_.empty() ? std::filesystem::current_path(ec) : std::filesystem::path(source_root_), ec);
  if (ec || !std::filesystem::is_directory(sarif_.source_root, ec)) return UsageError("--source-root must be a directory");
  return std::nullopt;
}

std::optional<int> CommonCli::ApplyAllowGroups(Policy& policy) const {
  for (const std::string& group : allow_groups_) {
    if (group.empty()) return UsageError("--allow-group needs a non-empty group name");
    if (!policy.IsAllowedGroup(group)) policy.extra_allowed_groups.push_back(group);
  }
  return std::nullopt;
}

std::optional<int> CommonCli::WriteReport(const std::function<void(std::ostream&)>& write) const {
  std::ofstream file;
  if (!output_.empty()) {
    file.open(output_, std::ios::binary | std::ios::trunc);
    if (!file) return UsageError("cannot write the report to '" + output_ + "'");
  }
  std::ostream& out = output_.empty() ? std::cout : file;
  write(out);
  out.flush();
  if (!out) {
    std::cerr << tool_ << ": writing the report failed\n";
    return kExitToolError;
  }
  return std::nullopt;
}

reports::ReportContext CommonCli::Context() const {
  reports::ReportContext context;
  context.tool_name = tool_;
  context.threshold = threshold_;
  context.color = output_.empty() && format_ == "text" && ::isatty(STDOUT_FILENO) && std::getenv("NO_COLOR") == nullptr;
  return context;
}

}  // namespace ckpt::cli
