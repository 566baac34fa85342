// Which catalog rule reports each reader diagnostic.
#pragma once

#include "lib/findings/diagnostic.h"
#include "lib/findings/finding.h"

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

}  // namespace ckpt::rules
