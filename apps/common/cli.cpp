#include "apps/common/cli.h"

#include <fcntl.h>
#include <malloc.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <tuple>

#include "apps/common/config_file.h"
#include "apps/common/manual.h"
#include "lib/core/text.h"
#include "lib/load/input.h"
#include "lib/remote/remote_source.h"
#include "reports/cyclonedx_report.h"
#include "reports/rule_catalog_report.h"

namespace ckpt::cli {

namespace po = boost::program_options;

namespace {

std::string Join(const std::vector<std::string>& items, const char* separator) {
  std::string out;
  for (const std::string& item : items) out += (out.empty() ? "" : separator) + item;
  return out;
}

}  // namespace

std::variant<std::vector<std::string>, std::string> ReadInputList(const std::string& file) {
  std::ifstream named;
  if (file != "-") {
    named.open(file, std::ios::binary);
    if (!named) return std::string("cannot be read");
  }
  std::istream& in = file == "-" ? std::cin : named;
  std::vector<std::string> out;
  std::size_t number = 0;
  for (std::string line; std::getline(in, line);) {
    ++number;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.find('\0') != std::string::npos) {
      return "line " + std::to_string(number) + " holds a NUL byte, which no path can (nothing was audited)";
    }
    // Blank lines and `#` comments (the first non-blank character) are skipped: a list is
    // kept in a repository with its reasons. A path that starts with '#' is written ./#name.
    const std::size_t first = line.find_first_not_of(" \t");
    if (first == std::string::npos || line[first] == '#') continue;
    out.push_back(std::move(line));
  }
  if (in.bad()) return std::string("cannot be read");
  return out;
}

namespace {

// What every tool reads besides its arguments, for --help and the man page's ENVIRONMENT and
// FILES sections: one text, inserted before the usage's "Examples:" block (or its closing
// "Options" line).
constexpr const char* kEnvironmentAndFiles =
    "Environment:\n"
    "  CKPT_AUDIT_CONFIG  a configuration file to read instead of a discovered .ckpt-audit.json\n"
    "  NO_COLOR           when set and not empty, no colour in text reports (--color always wins)\n"
    "  HF_ENDPOINT        the Hugging Face endpoint hf:// inputs are read through (default https://huggingface.co)\n"
    "  HF_TOKEN           the bearer token sent to HF_ENDPOINT (never to another host, never printed)\n"
    "\n"
    "Files:\n"
    "  .ckpt-audit.json   option defaults, looked for from the working directory up to the repository\n"
    "                     root (--no-config reads none; every report names the file it read)\n"
    "  policy and baseline files (--policy, --baseline): strict JSON; their JSON Schemas are installed\n"
    "                     in share/ckpt-audit/schemas/ (policy, baseline, config, report)\n"
    "\n";

std::string WithEnvironmentAndFiles(const std::string& usage) {
  std::size_t at = usage.find("\nExamples:\n");
  if (at == std::string::npos) at = usage.rfind("\nOptions");
  if (at == std::string::npos) return usage + "\n\n" + kEnvironmentAndFiles;
  return usage.substr(0, at + 1) + kEnvironmentAndFiles + usage.substr(at + 1);
}

}  // namespace

CommonCli::CommonCli(std::string tool, std::vector<std::string> formats, const char* usage, bool report_to_o)
    : tool_(std::move(tool)),
      usage_(WithEnvironmentAndFiles(usage)),
      formats_(std::move(formats)),
      options_(usage_),
      format_(formats_.front()) {
  // A fixed threshold: blocks of 1 MiB and more (JSON tapes, read windows) are mapped and given
  // back when freed, instead of glibc raising the threshold and keeping freed heap resident
  // (about 20 MB of peak RSS at 10^6 tensors).
  mallopt(M_MMAP_THRESHOLD, 1 << 20);
  options_.add_options()("help,h", "show this help and exit")("version", "show the version and exit")(
      "format,f", po::value(&format_)->value_name("FORMAT"),
      (Join(formats_, "|") + " (default " + formats_.front() + ")").c_str())(
      "report", po::value(&extra_reports_)->value_name("FORMAT=FILE"),
      "also write the same results as FORMAT to FILE (repeatable): one audit, several reports")(
      "fail-on", po::value(&fail_on_)->value_name("LEVEL"),
      "error|warning|note|none: lowest severity that fails (default error)")(
      "sarif-category", po::value(&sarif_category_)->value_name("NAME"),
      "SARIF: automationDetails.id = <tool>/NAME/ (separates uploads on code-scanning platforms)")(
      "source-root", po::value(&source_root_)->value_name("DIR"),
      "SARIF: URIs are relative to DIR (default: the current directory); baselines: paths are relative to DIR "
      "(default: the repository holding the baseline, found by .git, else its folder)")(
      "allow-group", po::value(&allow_groups_)->value_name("NAME"),
      "also accept this param group as shared (repeatable; reported as a note where it is used)")(
      "color", po::value(&color_)->value_name("WHEN"),
      "auto|always|never: ANSI colour in text reports (auto: a terminal, and NO_COLOR unset or empty)")(
      "no-color", "the same as --color never")("list-rules",
                                               "print the rule catalog (--format text, json or sarif) and exit")(
      "baseline", po::value(&baseline_)->value_name("FILE"),
      "accept the findings FILE lists until their expiry: kept in reports, marked suppressed, not counted "
      "(security rules cannot be suppressed)")(
      "policy", po::value(&policy_file_)->value_name("FILE"),
      "the organisation's policy (JSON): fail_on, allowed_groups, action_head_patterns, allow_wmcp_change, "
      "max_rel_l2 (ckpt-diff: a number or {pattern: number}) and per-rule severity (raise any rule; lower or turn off "
      "only non-security rules)")(
      "write-baseline", po::value(&write_baseline_)->value_name("FILE"),
      "write a baseline accepting the current non-security findings (needs --expires and --reason)")(
      "expires", po::value(&expires_)->value_name("DATE"),
      "with --write-baseline or --write-acceptances: the last day (YYYY-MM-DD) it accepts them")(
      "reason", po::value(&reason_)->value_name("TEXT"),
      "with --write-baseline or --write-acceptances: why they are accepted")(
      "max-findings", po::value(&max_findings_)->value_name("N"),
      "list at most N findings per artifact (root causes first); the rest are counted (default: no limit; one "
      "rule repeats at most 100 times per file in any case)");
  options_.add_options()("ca-file", po::value(&ca_files_)->value_name("FILE"),
                         "remote inputs: also trust the CAs in this PEM file (repeatable; added to the system store)")(
      "connect-timeout", po::value(&connect_timeout_)->value_name("SECONDS"),
      "remote inputs: give up connecting (DNS, TCP, TLS) after SECONDS, 1..3600 (default 10)")(
      "stall-timeout", po::value(&stall_timeout_)->value_name("SECONDS"),
      "remote inputs: give up when no body byte arrives for SECONDS, 1..3600 (default 30)");
  options_.add_options()("config", po::value(&config_file_)->value_name("FILE"),
                         "read option defaults from FILE (default: CKPT_AUDIT_CONFIG, else .ckpt-audit.json from the "
                         "working directory up to the repository root); the command line wins")(
      "no-config", "read no configuration file (neither CKPT_AUDIT_CONFIG nor .ckpt-audit.json)");
  if (report_to_o) {
    options_.add_options()("output,o", po::value(&output_)->value_name("FILE"),
                           "write the report to FILE instead of standard output");
  }
  for (const auto& option : options_.options()) shared_options_.push_back(option->long_name());
}

int CommonCli::FinishStdout(int code) const {
  std::cout.flush();
  if (!std::cout) {
    std::cerr << tool_ << ": cannot write to standard output\n";
    return kExitToolError;
  }
  return code;
}

int CommonCli::ListRules() const {
  if (format_ != "text" && format_ != "json" && format_ != "sarif") {
    return UsageError("--list-rules prints text, json or sarif, not '" + format_ + "'");
  }
  auto failed = WriteReport([&](std::ostream& out, const std::string& format) {
    if (format == "json") {
      reports::WriteRuleCatalogJson(out);
    } else if (format == "sarif") {
      reports::SarifInput catalog;  // the whole catalog in tool.driver.rules, no results
      catalog.whole_catalog = true;
      reports::WriteSarif(out, catalog, sarif_, Context());
    } else {
      reports::WriteRuleCatalogText(out);
    }
  });
  return failed ? *failed : kExitClean;
}

int CommonCli::WriteManual(const std::string& what) const {
  ManualSource source{tool_, CKPT_VERSION, usage_.c_str(), &options_, {}, {}};
  source.choices["format"] = formats_;
  source.choices["fail-on"] = {"error", "warning", "note", "none"};
  source.choices["color"] = {"auto", "always", "never"};
  source.choices["progress"] = {"auto", "always", "never"};
  for (const auto& [option, values] : extra_choices_) source.choices[option] = values;
  source.keyed_files["report"] = formats_;
  if (what == "man") {
    WriteManPage(std::cout, source);
  } else if (what == "bash") {
    WriteBashCompletion(std::cout, source);
  } else {
    WriteZshCompletion(std::cout, source);
  }
  return FinishStdout(kExitClean);
}

int CommonCli::UsageError(const std::string& message) const {
  std::cerr << tool_ << ": " << message << "\nTry '" << tool_ << " --help'.\n";
  return kExitToolError;
}

std::optional<int> CommonCli::Parse(int argc, char** argv, std::vector<std::string>& positionals) {
  po::options_description hidden;
  std::string manual;
  hidden.add_options()("positional", po::value(&positionals))("man-page", "")(
      "completion", po::value(&manual)->value_name("SHELL"), "");
  po::options_description all;
  all.add(options_).add(hidden);
  po::positional_options_description positional;
  positional.add("positional", -1);
  try {
    po::store(po::command_line_parser(argc, argv).options(all).positional(positional).run(), vm_);
    for (const auto& [name, value] : vm_) typed_.insert(name);
  } catch (const po::unknown_option& e) {
    std::string written = e.get_option_name();
    written.erase(0, written.find_first_not_of('-'));
    std::vector<std::string> names;
    for (const auto& option : options_.options()) names.push_back(option->long_name());
    return UsageError(std::string(e.what()) + DidYouMean(written, names, "--"));
  } catch (const po::error& e) {
    return UsageError(e.what());
  }
  // Defaults from the configuration file, stored after the command line (which wins).
  if (Has("config") && Has("no-config")) return UsageError("--config and --no-config contradict");
  if (!Has("no-config")) {
    std::optional<std::string> found;
    if (Has("config")) {
      found = vm_["config"].as<std::string>();
    } else {
      auto discovered = FindConfigFile();
      if (auto* error = std::get_if<std::string>(&discovered)) return UsageError(*error);
      found = std::get<std::optional<std::string>>(discovered);
    }
    if (found) {
      auto read = ReadConfigFile(*found, tool_, options_, shared_options_);
      if (auto* error = std::get_if<std::string>(&read)) return UsageError(*error);
      try {
        po::store(std::get<po::parsed_options>(read), vm_);
      } catch (const po::error& e) {
        return UsageError("config '" + *found + "': " + e.what());
      }
      config_used_ = found;
    }
  }
  try {
    po::notify(vm_);
  } catch (const po::error& e) {
    return UsageError(e.what());
  }
  if (Has("help")) {
    std::cout << options_ << "\n";
    return FinishStdout(kExitClean);
  }
  if (Has("man-page")) return WriteManual("man");
  if (Has("completion")) {
    if (manual != "bash" && manual != "zsh") return UsageError("--completion writes bash or zsh, not '" + manual + "'");
    return WriteManual(manual);
  }
  if (Has("version")) {
    std::cout << tool_ << " " << CKPT_VERSION << "\n";
    return FinishStdout(kExitClean);
  }
  if (color_ != "auto" && color_ != "always" && color_ != "never") {
    return UsageError("--color must be auto, always or never, not '" + color_ + "'");
  }
  if (Has("no-color")) {
    if (Has("color") && color_ != "never") return UsageError("--no-color and --color " + color_ + " contradict");
    color_ = "never";
  }
  if (std::find(formats_.begin(), formats_.end(), format_) == formats_.end()) {
    return UsageError("--format must be one of " + Join(formats_, ", ") + ", not '" + format_ + "'");
  }
  for (const std::string& extra : extra_reports_) {
    const std::size_t eq = extra.find('=');
    const std::string format = extra.substr(0, eq);
    if (eq == std::string::npos || eq + 1 == extra.size() ||
        std::find(formats_.begin(), formats_.end(), format) == formats_.end()) {
      return UsageError("--report needs FORMAT=FILE with FORMAT one of " + Join(formats_, ", ") + ", not '" + extra +
                        "'");
    }
    extras_.emplace_back(format, extra.substr(eq + 1));
    if (auto refused = AdmitReportPath(extras_.back().second, positionals, "--report")) return *refused;
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
  if (!source_root_.empty()) {
    sarif_.source_root = std::filesystem::absolute(source_root_, ec);
    if (ec || !std::filesystem::is_directory(sarif_.source_root, ec))
      return UsageError("--source-root must be a directory");
  } else {
    // The default is the working directory as the shell names it: a directory this user
    // cannot stat (a private parent) is no usage error, only relative URIs lose nothing.
    const char* pwd = std::getenv("PWD");
    sarif_.source_root = std::filesystem::current_path(ec);
    if (ec) sarif_.source_root = (pwd && pwd[0] == '/') ? std::filesystem::path(pwd) : std::filesystem::path("/");
  }
  if (Has("list-rules")) return ListRules();
  if (auto refused = RefuseOutputInsideInputs(positionals)) return *refused;
  return std::nullopt;
}

std::optional<int> CommonCli::RefuseOutputInsideInputs(const std::vector<std::string>& inputs) {
  if (output_.empty()) return std::nullopt;
  return AdmitReportPath(output_, inputs, "-o");
}

std::optional<int> CommonCli::AdmitReportPath(const std::string& path, const std::vector<std::string>& inputs,
                                              const std::string& option) {
  namespace fs = std::filesystem;
  if (!reports_inside_inputs_) return RefuseInsideInputs(path, inputs, option);
  // Absolute, through every link that exists, without "." or ".." or a trailing separator.
  auto normal = [](const std::string& given, std::error_code& ec) {
    fs::path p = fs::weakly_canonical(fs::absolute(given, ec), ec).lexically_normal();
    return p.has_filename() ? p : p.parent_path();
  };
  std::error_code ec;
  const fs::path out = normal(path, ec);
  if (ec) return std::nullopt;  // reported when writing
  bool inside = false;
  for (const std::string& input : inputs) {
    if (ckpt::remote::IsRemoteArgument(input)) continue;
    std::error_code input_ec;
    const fs::path in = normal(input, input_ec);
    if (input_ec) continue;
    auto [end, rest] = std::mismatch(in.begin(), in.end(), out.begin(), out.end());
    if (end != in.end()) continue;
    std::string message = option;
    message.append(" '").append(path).append("'");
    if (rest == out.end()) {
      return UsageError(message.append(" is the audited input '").append(input).append("'"));
    }
    if (auto judged = JudgedFileReason(out)) {
      message.append(" names a file the audit of '").append(input).append("' judges (").append(*judged);
      return UsageError(message.append("); write the report outside it or under another name"));
    }
    inside = true;
  }
  if (inside) reports_inside_.push_back(out.string());
  return std::nullopt;
}

std::optional<int> CommonCli::RefuseInsideInputs(const std::string& path, const std::vector<std::string>& inputs,
                                                 const std::string& option) const {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path out = fs::weakly_canonical(fs::absolute(path, ec), ec);
  if (ec) return std::nullopt;  // reported when writing
  for (const std::string& input : inputs) {
    std::error_code input_ec;
    const fs::path in = fs::weakly_canonical(fs::absolute(input, input_ec), input_ec);
    if (input_ec) continue;
    auto [end, rest] = std::mismatch(in.begin(), in.end(), out.begin(), out.end());
    if (end == in.end()) {
      std::string message = option;
      message.append(" '").append(path).append("' is inside the audited input '").append(input);
      return UsageError(message.append("'; the tools never write into what they audit"));
    }
  }
  return std::nullopt;
}

namespace {

// The process's umask, read without changing it (umask(2) can only be read by setting it,
// which would race with threads writing files): Linux says it in /proc/self/status.
mode_t CurrentUmask() {
  static const mode_t mask = [] {
    std::ifstream status("/proc/self/status");
    std::string line;
    while (std::getline(status, line)) {
      if (line.starts_with("Umask:")) return static_cast<mode_t>(std::strtoul(line.c_str() + 6, nullptr, 8) & 0777);
    }
    const mode_t read = ::umask(0);  // no /proc: read it once, before any statement is signed
    ::umask(read);
    return read;
  }();
  return mask;
}

// A temporary file beside `path` (mkstemp: 0600, then the usual 0666 & ~umask), open for
// writing; its name in `temporary`. -1 when it cannot be made.
int OpenTemporaryBeside(const std::string& path, std::string& temporary) {
  namespace fs = std::filesystem;
  const fs::path target(path);
  const fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
  temporary = (dir / ("." + target.filename().string() + ".tmp.XXXXXX")).string();
  const int fd = ::mkostemp(temporary.data(), O_CLOEXEC);
  if (fd >= 0) ::fchmod(fd, 0666 & ~CurrentUmask());
  return fd;
}

}  // namespace

// Safe to call from several threads at once (signed statements are written in parallel).
bool CommonCli::WriteFileAtomically(const std::string& path, std::string_view content) const {
  std::string temporary;
  const int fd = OpenTemporaryBeside(path, temporary);
  if (fd < 0) {
    std::cerr << tool_ << ": cannot write '" << path << "': " << std::strerror(errno) << "\n";
    return false;
  }
  bool ok = true;
  while (ok && !content.empty()) {
    const ssize_t wrote = ::write(fd, content.data(), content.size());
    if (wrote < 0 && errno == EINTR) continue;
    ok = wrote > 0;
    if (ok) content.remove_prefix(static_cast<std::size_t>(wrote));
  }
  ok = ::close(fd) == 0 && ok;
  if (!ok || ::rename(temporary.c_str(), path.c_str()) != 0) {
    ::unlink(temporary.c_str());
    std::cerr << tool_ << ": writing '" << path << "' failed\n";
    return false;
  }
  return true;
}

// A temporary file beside the destination, renamed over it once complete: a reader never
// sees half a file, and a failed run leaves the old one in place.
bool CommonCli::WriteAtomically(const std::string& path, const std::function<void(std::ostream&)>& write) const {
  std::string temporary;
  const int fd = OpenTemporaryBeside(path, temporary);
  if (fd < 0) {
    std::cerr << tool_ << ": cannot write '" << path << "': " << std::strerror(errno) << "\n";
    return false;
  }
  ::close(fd);
  bool ok = false;
  {
    std::ofstream file(temporary, std::ios::binary | std::ios::trunc);
    if (file) {
      write(file);
      file.flush();
      ok = static_cast<bool>(file);
    }
  }
  if (!ok || ::rename(temporary.c_str(), path.c_str()) != 0) {
    ::unlink(temporary.c_str());
    std::cerr << tool_ << ": writing '" << path << "' failed\n";
    return false;
  }
  return true;
}

std::optional<int> CommonCli::AppendInputList(const std::string& file, std::vector<std::string>& inputs) const {
  auto listed = ReadInputList(file);
  if (auto* error = std::get_if<std::string>(&listed)) return UsageError("--inputs-from '" + file + "': " + *error);
  const auto& paths = std::get<std::vector<std::string>>(listed);
  inputs.insert(inputs.end(), paths.begin(), paths.end());
  return std::nullopt;
}

std::optional<int> CommonCli::ApplyRemoteOptions(AuditOptions& policy, const std::vector<std::string>& inputs) const {
  policy.remote = ckpt::remote::RemoteOptionsFromEnvironment();
  policy.remote.ca_files = ca_files_;
  for (const auto& [name, value, into] :
       {std::tuple("connect-timeout", connect_timeout_, &policy.remote.connect_timeout_s),
        std::tuple("stall-timeout", stall_timeout_, &policy.remote.stall_timeout_s)}) {
    if (value < 1 || value > 3600) return UsageError("--" + std::string(name) + " takes whole seconds from 1 to 3600");
    *into = value;
  }
  // An option that cannot apply is a usage error, never silently ignored.
  const bool any_remote = std::any_of(inputs.begin(), inputs.end(),
                                      [](const std::string& input) { return ckpt::remote::IsRemoteArgument(input); });
  for (const char* option : {"ca-file", "connect-timeout", "stall-timeout"}) {
    if (Has(option) && !any_remote) {
      return UsageError("--" + std::string(option) +
                        " applies to remote inputs (https://, http:// to loopback, hf://) only");
    }
  }
  for (const std::string& file : ca_files_) {
    std::ifstream in(file);
    if (!in) return UsageError("--ca-file '" + file + "': cannot be read");
  }
  for (const std::string& input : inputs) {
    if (!ckpt::remote::IsRemoteArgument(input)) {
      if (ckpt::remote::LooksLikeUrl(input)) {
        return UsageError("'" + ckpt::remote::RedactUrl(input) +
                          "': only https://, http:// (to a loopback host) and hf:// inputs are read remotely "
                          "(write ./" +
                          ckpt::remote::RedactUrl(input) + " for a local path)");
      }
      continue;
    }
    if (!ckpt::remote::RemoteInputsBuiltIn()) {
      return UsageError(ckpt::remote::RedactUrl(input) + ": built without remote inputs");
    }
    if (std::string why = ckpt::remote::RemoteUsageError(input, policy.remote); !why.empty()) return UsageError(why);
  }
  return std::nullopt;
}

std::optional<int> CommonCli::ApplyAllowGroups(AuditOptions& policy) {
  policy.max_findings = max_findings_;
  // --write-acceptances (ckpt-audit) takes the same --expires and --reason.
  const bool writing = Has("write-baseline") || Has("write-acceptances");
  if (writing != Has("expires") || writing != Has("reason")) {
    return UsageError(
        "--write-baseline FILE (or --write-acceptances FILE), --expires DATE and --reason TEXT go together");
  }
  if (writing) {
    if (!IsCalendarDate(expires_)) return UsageError("--expires needs a date YYYY-MM-DD, not '" + expires_ + "'");
    // A baseline that expires before today accepts nothing: a refresh job would fail on it.
    if (expires_ < TodayUtc()) {
      return UsageError("--expires " + expires_ + " is in the past (today is " + TodayUtc() +
                        " UTC): the baseline would accept nothing");
    }
    if (reason_.empty()) return UsageError("--reason needs a text saying why the findings are accepted");
  }
  if (Has("baseline") || Has("policy")) {
    GateFiles files;
    if (Has("baseline")) files.baseline = baseline_;
    if (Has("policy")) files.policy = policy_file_;
    if (Has("source-root")) files.source_root = source_root_;
    auto loaded = LoadGate(files);
    if (auto* error = std::get_if<std::string>(&loaded)) return UsageError(*error);
    gate_ = std::move(std::get<ResolvedGate>(loaded));
    if (auto error = ApplyPolicyFile(*gate_, policy, threshold_, Has("fail-on"))) return UsageError(*error);
    policy.gate = &gate_->gate;
  }
  // SARIF and the CycloneDX BOM list each file read with its SHA-256; a reviewed acceptance
  // holds only for the bytes it names, so their digests come from the audit's own reads.
  const auto writes = [this](std::string_view wanted) {  // -f or any --report
    return format_ == wanted ||
           std::any_of(extras_.begin(), extras_.end(), [&](const auto& extra) { return extra.first == wanted; });
  };
  policy.digest_files =
      writes("sarif") || writes("cyclonedx") || (gate_ && !gate_->gate.acceptances.empty()) || Has("write-acceptances");
  if (writes("cyclonedx")) {
    if (auto problem = reports::SourceDateEpochProblem()) return UsageError(*problem);
  }
  policy.excluded_outputs = reports_inside_;
  for (const std::string& group : allow_groups_) {
    if (group.empty()) return UsageError("--allow-group needs a non-empty group name");
    if (!policy.IsAllowedGroup(group)) policy.extra_allowed_groups.push_back(group);
  }
  effective_policy_ = policy;
  return std::nullopt;
}

std::vector<Finding> CommonCli::ExpiredEntryFindings() const {
  return gate_ ? ckpt::ExpiredEntryFindings(*gate_) : std::vector<Finding>{};
}

std::string CommonCli::GateFileRoot(const std::string& file) const {
  return BaselineRoot(Has("source-root") ? std::optional<std::string>(source_root_) : std::nullopt, file);
}

std::optional<int> CommonCli::WriteBaseline(const std::vector<std::pair<Finding*, std::string>>& findings) const {
  if (!Has("write-baseline")) return std::nullopt;
  // Security findings are never written: say how many were left out and of which rules, so
  // the user does not take the baseline for complete.
  std::map<std::string, std::size_t> left_out;
  for (const auto& [f, path] : findings) {
    if (f->rule->security && f->counts()) ++left_out[std::string(f->rule->id)];
  }
  if (!left_out.empty()) {
    std::size_t total = 0;
    std::string rules;
    for (const auto& [rule, n] : left_out) {
      total += n;
      rules += (rules.empty() ? "" : ", ") + rule + " (" + std::to_string(n) + ")";
    }
    std::cerr << tool_ << ": --write-baseline left out " << total
              << (total == 1 ? " security finding" : " security findings") << ": " << rules
              << ". A baseline never suppresses a security rule: they fail the gate until the input is fixed, or "
                 "until someone reviews the file and adds an accept entry naming its path, SHA-256 and the globals "
                 "and calls reviewed (docs/gate-files.md, 'Reviewed acceptances').\n";
  }
  // Paths relative to the baseline's root, so that the file means the same from any directory.
  const std::string root = GateFileRoot(write_baseline_);
  std::vector<std::pair<const Finding*, std::string>> rooted;
  rooted.reserve(findings.size());
  for (const auto& [f, path] : findings) rooted.emplace_back(f, RootRelativePath(root, path));
  std::vector<Suppression> entries = BaselineEntries(rooted, reason_, expires_);
  if (!WriteFileAtomically(write_baseline_, BaselineText(entries))) return kExitToolError;
  // What the file now accepts is reported as accepted by it, as the next run with it will.
  std::map<std::pair<std::string, std::string>, std::shared_ptr<const Suppression>> by_rule_and_path;
  for (Suppression& entry : entries) {
    entry.source = write_baseline_;
    std::pair<std::string, std::string> key(entry.rule, *entry.path);
    by_rule_and_path.emplace(std::move(key), std::make_shared<const Suppression>(std::move(entry)));
  }
  for (std::size_t i = 0; i < findings.size(); ++i) {
    Finding& f = *findings[i].first;
    if (!f.counts()) continue;  // a suppression it already had stays
    if (auto it = by_rule_and_path.find({std::string(f.rule->id), rooted[i].second}); it != by_rule_and_path.end()) {
      f.suppression = it->second;
    }
  }
  return std::nullopt;
}

std::optional<int> CommonCli::WriteReport(const std::function<void(std::ostream&, const std::string&)>& write) const {
  for (const auto& extra : extras_) {
    if (!WriteAtomically(extra.second, [&](std::ostream& out) { write(out, extra.first); })) return kExitToolError;
  }
  if (output_.empty()) {
    write(std::cout, format_);
    std::cout.flush();
    if (!std::cout) {
      std::cerr << tool_ << ": writing the report to standard output failed\n";
      return kExitToolError;
    }
    return std::nullopt;
  }
  return WriteAtomically(output_, [&](std::ostream& out) { write(out, format_); }) ? std::nullopt
                                                                                   : std::optional<int>(kExitToolError);
}

reports::ReportContext CommonCli::Context() const {
  reports::ReportContext context;
  context.tool_name = tool_;
  context.threshold = threshold_;
  // no-color.org: only a non-empty NO_COLOR disables colour; --color always|never overrides.
  const char* no_color = std::getenv("NO_COLOR");
  const bool auto_color = output_.empty() && ::isatty(STDOUT_FILENO) && (no_color == nullptr || *no_color == '\0');
  context.color = format_ == "text" && (color_ == "always" || (color_ == "auto" && auto_color));
  context.policy = EffectivePolicyJson(effective_policy_, threshold_, gate());
  // Which configuration file set defaults: every report says so (null: none was read).
  (*context.policy)["config_file"] =
      config_used_ ? boost::json::value(ToValidUtf8(*config_used_)) : boost::json::value(nullptr);
  context.config_file = config_used_;
  // Fingerprints relative to the root baselines use: --source-root, else the repository
  // holding the baseline (or, without one, the working directory), else that folder.
  context.fingerprint_root =
      gate_ && !gate_->gate.path_root.empty()
          ? gate_->gate.path_root
          : BaselineRoot(Has("source-root") ? std::optional<std::string>(source_root_) : std::nullopt, "./.");
  return context;
}

}  // namespace ckpt::cli
