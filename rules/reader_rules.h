// Which catalog rule reports each reader diagnostic.
#pragma once

#include "lib/model/diagnostic.h"
#include "lib/model/finding.h"

namespace ckpt::rules {

/// The rule a reader diagnostic is reported under.
const RuleInfo& RuleForDiagnostic(Diag kind);

/// A DiagnosticSink that reports each diagnostic as a finding of its rule.
class RuleSink final : public DiagnosticSink {
 public:
  explicit RuleSink(FindingSink& findings) : findings_(findings) {}
  void Report(Diag kind, Location location, std::string message) override {
    findings_.Report(RuleForDiagnostic(kind), std::move(location), std::move(message));
  }

 private:
  FindingSink& findings_;
};

/// A RuleSink that reports every diagnostic at one file (`at`), keeping the byte offset and
/// tensor the reader gave: for files read whole, such as signed statements and bundles.
class LocatedRuleSink final : public DiagnosticSink {
 public:
  LocatedRuleSink(FindingSink& findings, Location at) : rules_(findings), at_(std::move(at)) {}
  void Report(Diag kind, Location location, std::string message) override {
    Location at = at_;
    at.byte_offset = location.byte_offset;
    at.tensor = std::move(location.tensor);
    rules_.Report(kind, std::move(at), std::move(message));
  }

 private:
  RuleSink rules_;
  Location at_;
};

}  // namespace ckpt::rules
