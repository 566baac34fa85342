// What every ckpt command line shares: --help, --version, --format, -o, --fail-on,
// --sarif-category, --source-root and --allow-group, usage errors as "<tool>: <msg>" with
// exit 2, and writing the report to standard output or a file.
#pragma once

#include <boost/program_options.hpp>
#include <functional>
#include <map>
#include <optional>
#include <ostream>
#include <set>
#include <string>
#include <variant>
#include <vector>

#include "engine/gate.h"
#include "engine/verdict.h"
#include "lib/model/artifact.h"
#include "reports/report_context.h"
#include "reports/sarif_report.h"

namespace ckpt::cli {

/// The paths listed in `file` (or standard input for "-"), one per line; blank lines and
/// a trailing carriage return are ignored. Or why it cannot be used (unreadable, or a line
/// holding a NUL byte: a path cannot, and cutting it would audit another path than the one
/// listed).
std::variant<std::vector<std::string>, std::string> ReadInputList(const std::string& file);

class CommonCli {
 public:
  /// `formats` are the accepted --format values, the first being the default. Without
  /// `report_to_o`, -o is the tool's own (ckpt-convert's output) and reports go to standard
  /// output or --report.
  CommonCli(std::string tool, std::vector<std::string> formats, const char* usage, bool report_to_o = true);

  /// Reports (-o, --report) may then be written inside an audited folder when the audit would
  /// only list them: they are left out of its audit (AuditOptions::excluded_outputs). Before Parse().
  void AllowReportsInsideInputs() { reports_inside_inputs_ = true; }

  /// Values a tool's own option takes from a fixed set, for completion (--expect-kind's kinds).
  void AddChoices(const std::string& option, std::vector<std::string> values) {
    extra_choices_[option] = std::move(values);
  }

  /// Tool-specific options go here before Parse().
  boost::program_options::options_description& options() { return options_; }

  /// Parses argv (positional arguments into `positionals`) and validates the shared
  /// options. Returns an exit code when the program must stop now (--help, --version, a
  /// usage error), nullopt to go on.
  std::optional<int> Parse(int argc, char** argv, std::vector<std::string>& positionals);

  /// Adds --allow-group values, --max-findings, --policy and --baseline to `policy` (and the
  /// policy file's fail_on to the threshold unless --fail-on was given); an exit code on a bad
  /// value or file. Call once, before Context().
  std::optional<int> ApplyAllowGroups(AuditOptions& policy);
  /// --ca-file, the timeouts and HF_ENDPOINT/HF_TOKEN into `policy.remote`, and the remote
  /// forms of `inputs` checked (syntax, the loopback rule) before any lookup: a usage error
  /// (2) for a refused one, or for a URL of another scheme.
  std::optional<int> ApplyRemoteOptions(AuditOptions& policy, const std::vector<std::string>& inputs) const;

  /// The --policy/--baseline in force (nullptr without either).
  [[nodiscard]] const ResolvedGate* gate() const { return gate_ ? &*gate_ : nullptr; }
  /// baseline-entry-expired findings, one per expired entry (empty without --baseline).
  [[nodiscard]] std::vector<Finding> ExpiredEntryFindings() const;
  /// With --write-baseline: writes a baseline accepting `findings` (each with its reported
  /// path) until --expires for --reason, and marks each finding it accepts as suppressed by it,
  /// so the run's reports and exit status are those of an audit with the baseline written (a
  /// refresh job passes unless security findings remain); 2 on failure, nullopt otherwise.
  std::optional<int> WriteBaseline(const std::vector<std::pair<Finding*, std::string>>& findings) const;

  /// --inputs-from FILE (- is standard input): its lines appended to `inputs`; a usage error (2)
  /// when it cannot be read.
  std::optional<int> AppendInputList(const std::string& file, std::vector<std::string>& inputs) const;

  /// Prints "<tool>: <message>" and a hint to standard error; returns 2.
  int UsageError(const std::string& message) const;

  /// A usage error when `path` (written by `option`) lies inside one of `inputs`: the
  /// tools never write into what they audit (reports see AdmitReportPath).
  std::optional<int> RefuseInsideInputs(const std::string& path, const std::vector<std::string>& inputs,
                                        const std::string& option) const;

  /// Writes `content` to `path` through a temporary file renamed over it (a reader never
  /// sees half a file); false with a message on standard error when that fails.
  bool WriteFileAtomically(const std::string& path, std::string_view content) const;

  /// Writes the report with `write(out, format)` to -o FILE or standard output, and each
  /// --report FORMAT=FILE from the same results; 2 when one cannot be written. `write` gets
  /// std::cout itself only for standard output (colour is for that alone).
  std::optional<int> WriteReport(const std::function<void(std::ostream&, const std::string&)>& write) const;

  [[nodiscard]] bool Has(const char* option) const { return vm_.count(option) > 0; }
  /// Given on the command line (not only set by the configuration file).
  [[nodiscard]] bool Typed(const char* option) const { return typed_.count(option) > 0; }
  /// --reason and --expires, for a file of accepted findings the tool writes.
  [[nodiscard]] const std::string& reason() const { return reason_; }
  [[nodiscard]] const std::string& expires() const { return expires_; }
  /// The root the paths of the gate file `file` are relative to: --source-root, else the
  /// repository holding it, else its folder (BaselineRoot).
  [[nodiscard]] std::string GateFileRoot(const std::string& file) const;
  [[nodiscard]] const std::string& format() const { return format_; }
  [[nodiscard]] const reports::SarifOptions& sarif() const { return sarif_; }
  /// Report context: tool name, threshold, and colour only for text on a terminal without NO_COLOR.
  [[nodiscard]] reports::ReportContext Context() const;

 private:
  std::string tool_;
  std::vector<std::string> ca_files_;
  int connect_timeout_ = 10;
  int stall_timeout_ = 30;
  std::string usage_;  ///< the tool's usage text with the shared ENVIRONMENT and FILES blocks
  std::vector<std::string> formats_;
  boost::program_options::options_description options_;
  boost::program_options::variables_map vm_;
  std::map<std::string, std::vector<std::string>> extra_choices_;  ///< AddChoices
  std::set<std::string> typed_;  ///< the options on the command line, before the configuration file's
  std::string format_;
  std::string output_;
  std::string fail_on_ = "error";
  std::string sarif_category_;
  std::string source_root_;
  std::vector<std::string> allow_groups_;
  std::vector<std::string> extra_reports_;                   ///< --report FORMAT=FILE as given
  std::vector<std::pair<std::string, std::string>> extras_;  ///< parsed: format, file
  std::string color_ = "auto";
  std::size_t max_findings_ = 0;
  std::string baseline_;
  std::string policy_file_;
  std::string config_file_;                  ///< --config FILE
  std::optional<std::string> config_used_;   ///< the configuration file read, if any
  std::vector<std::string> shared_options_;  ///< the options every tool has (a config's top-level keys)
  std::string write_baseline_;
  std::string expires_;
  std::string reason_;
  std::optional<ResolvedGate> gate_;
  AuditOptions effective_policy_;  ///< for the report's policy object
  std::optional<int> RefuseOutputInsideInputs(const std::vector<std::string>& inputs);
  /// A report path: refused when it is an input, or lies inside one where the tool does not
  /// allow reports or the audit would judge the file; else noted in reports_inside_ when inside.
  std::optional<int> AdmitReportPath(const std::string& path, const std::vector<std::string>& inputs,
                                     const std::string& option);
  bool reports_inside_inputs_ = false;
  std::vector<std::string> reports_inside_;  ///< absolute, normalised: left out of the audits
  bool WriteAtomically(const std::string& path, const std::function<void(std::ostream&)>& write) const;
  /// Flushes standard output; 2 with a message when it cannot be written (/dev/full).
  int FinishStdout(int code) const;
  int ListRules() const;
  /// --man-page, --completion bash|zsh: written from options_ and usage_ (hidden options the build uses).
  int WriteManual(const std::string& what) const;
  FailThreshold threshold_ = Severity::kError;
  reports::SarifOptions sarif_;
};

}  // namespace ckpt::cli
