#include "reports/diff_reports.h"

#include <algorithm>
#include <boost/json.hpp>
#include <cmath>
#include <filesystem>
#include <limits>
#include <memory>

#include "lib/core/text.h"
#include "reports/json_pretty.h"
#include "reports/json_report.h"
#include "reports/text_report.h"

namespace ckpt::reports {
namespace {

std::string Shape(std::span<const std::uint64_t> shape) {
  std::string s = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) s += (i ? "," : "") + std::to_string(shape[i]);
  return s + "]";
}

std::string SideText(const std::optional<TensorSide>& side) {
  return side ? EscapeForDisplay(side->dtype) + Shape(side->shape) + " " + EscapeForDisplay(side->group) : "-";
}

// One table of roll-ups: key, tensors, counts of what moved, L2 and relative L2.
void RollupTable(std::ostream& out, const char* title, const std::vector<DiffRollup>& rollups) {
  out << PadToColumns(title, 24) << " TENSORS  CHANGED  OTHER    L2           REL_L2\n";
  for (const DiffRollup& r : rollups) {
    out << PadToColumns(EscapeForDisplay(r.key.empty() ? "(none)" : r.key), 24) << " "
        << PadToColumns(std::to_string(r.tensors), 8) << " "
        << PadToColumns(std::to_string(r.count(TensorStatus::kChanged)), 8) << " "
        << PadToColumns(std::to_string(r.others()), 8) << " " << PadToColumns(FormatNumber(r.l2()), 12) << " "
        << FormatRelL2(r.rel_l2(), r.l2());
    if (r.non_finite_pairs) out << "  (" << r.non_finite_pairs << " NaN/Inf changes)";
    if (r.unmeasured) out << "  (" << r.unmeasured << " unmeasured)";
    out << "\n";
  }
}

void SummaryText(std::ostream& out, const DiffSummary& summary) {
  const DiffRollup& m = summary.model;
  out << "summary: " << StatusCounts(m) << "\nmodel: l2 " << FormatNumber(m.l2()) << ", rel_l2 "
      << FormatRelL2(m.rel_l2(), m.l2()) << ", max_abs " << FormatNumber(m.max_abs) << " (" << m.changed_elements
      << " of " << m.compared_elements << " compared elements changed";
  if (m.non_finite_pairs) out << "; " << m.non_finite_pairs << " changes involve NaN or Inf, left out of l2";
  if (m.unmeasured) out << "; " << Plural(m.unmeasured, "changed tensor") << " without statistics";
  out << ")\n";
  if (summary.groups.size() > 1 || (summary.groups.size() == 1 && !summary.groups[0].key.empty())) {
    RollupTable(out, "GROUP", summary.groups);
  }
  if (!summary.prefixes.empty()) {
    RollupTable(out, ("PREFIX (" + std::to_string(summary.rollup_depth) + ")").c_str(), summary.prefixes);
  }
  if (!summary.top.empty()) {
    out << "moved most (top " << summary.top.size() << " of " << m.count(TensorStatus::kChanged) << " changed):\n";
    for (const TensorDiff* t : summary.top) {
      out << "  " << PadToColumns(t->stats ? FormatRelL2(t->stats->rel_l2(), t->stats->l2()) : "unmeasured", 12) << " "
          << EscapeForDisplay(t->name) << "\n";
    }
  }
}

boost::json::object RollupJson(const DiffRollup& r) {
  boost::json::object counts;
  for (TensorStatus s : {TensorStatus::kUnchanged, TensorStatus::kChanged, TensorStatus::kLayoutChanged,
                         TensorStatus::kAdded, TensorStatus::kRemoved, TensorStatus::kUnreadable}) {
    counts[TensorStatusName(s)] = r.count(s);
  }
  auto rel = r.rel_l2();
  return {{"key", r.key},
          {"tensors", r.tensors},
          {"counts", std::move(counts)},
          {"compared_elements", r.compared_elements},
          {"changed_elements", r.changed_elements},
          {"max_abs", r.max_abs},
          {"l2", r.l2()},
          {"rel_l2", rel ? boost::json::value(*rel) : boost::json::value(nullptr)},
          {"non_finite_pairs", r.non_finite_pairs},
          {"unmeasured", r.unmeasured}};
}

void AuditFindingsText(std::ostream& out, const char* side, const AuditResult& r, bool color) {
  WriteFindingLines(out, "", r.artifact.path, r.findings, color);
  for (const DroppedFindings& d : r.dropped) out << EscapeForDisplay(r.artifact.path) << ": " << DroppedLine(d) << "\n";
  for (const std::string& e : r.tool_errors) out << side << " tool error: " << EscapeForDisplay(e) << "\n";
}

boost::json::value SideJson(const std::optional<TensorSide>& side) {
  if (!side) return nullptr;
  boost::json::array shape;
  for (std::uint64_t d : side->shape) shape.push_back(d);
  return boost::json::object{{"dtype", side->dtype}, {"shape", shape}, {"group", side->group}};
}

boost::json::value AuditJson(const AuditResult& r, const ReportContext& context) {
  boost::json::array findings;
  for (const Finding& f : r.findings) {
    boost::json::value j = FindingToJson(f);
    j.as_object()["location"].as_object()["artifact"] = r.artifact.path;
    findings.push_back(std::move(j));
  }
  boost::json::array errors;
  for (const std::string& e : r.tool_errors) errors.push_back(boost::json::value(e));
  auto opt = [](const std::optional<std::string>& v) {
    return v ? boost::json::value(*v) : boost::json::value(nullptr);
  };
  const Header* h = r.artifact.header ? &*r.artifact.header : nullptr;
  // An input without a header.json has no content hash: it is known by each weight file's
  // SHA-256, from the diff's own read (null where it was not read whole: --no-hash).
  boost::json::array files;
  for (const AdmittedFile& f : r.artifact.files) {
    if (h != nullptr || r.artifact.FindWeightFile(f.name) == nullptr) continue;
    files.push_back({{"name", f.name.empty() ? std::filesystem::path(r.artifact.path).filename().string() : f.name},
                     {"size", f.identity.size},
                     {"sha256", opt(f.sha256)}});
  }
  return boost::json::object{
      {"path", r.artifact.path},
      {"kind", InputKindName(r.artifact.kind)},
      {"verdict", VerdictName(VerdictOf(r, context.threshold))},
      {"content_hash", {{"declared", h ? opt(h->content_hash) : nullptr}, {"computed", opt(r.artifact.computed_hash)}}},
      {"files", std::move(files)},  // empty for a Lensemble round, which its content hash names
      {"findings", std::move(findings)},
      {"dropped_findings", DroppedToJson(r.dropped)},
      {"tool_errors", std::move(errors)}};
}

}  // namespace

void WriteDiffText(std::ostream& out, const DiffRun& run, const ReportContext& context) {
  out << "A: " << EscapeForDisplay(run.a.artifact.path) << " (" << InputKindName(run.a.artifact.kind)
      << ")\nB: " << EscapeForDisplay(run.b.artifact.path) << " (" << InputKindName(run.b.artifact.kind) << ")\n";
  AuditFindingsText(out, "A", run.a, context.color);
  AuditFindingsText(out, "B", run.b, context.color);
  // The Lensemble rows (parent link, header fields) apply only when both sides are artifacts.
  const bool lensemble =
      InputKinds::Lensemble().Has(run.a.artifact.kind) && InputKinds::Lensemble().Has(run.b.artifact.kind);
  if (lensemble)
    out << "link: B " << (run.link.is_child() ? "is" : "is NOT") << " the child of A (parent_hash "
        << (run.link.parent_matches ? "matches" : "does not match") << ", round "
        << (run.link.round_follows ? "follows" : "does not follow") << ")\n";
  for (const HeaderFieldDiff& h : run.header) {
    if (!lensemble) break;
    if (h.field == "tensor_manifest") {
      out << "header: tensor_manifest differs (see tensors)\n";
      continue;
    }
    out << "header: " << EscapeForDisplay(h.field) << ": " << EscapeForDisplay(h.a.value_or("(absent)")) << " -> "
        << EscapeForDisplay(h.b.value_or("(absent)")) << "\n";
  }
  const DiffSummary summary = SummarizeDiff(run.tensors, run.options.rollup_depth, run.options.top);
  // --quiet: the findings and the summary line; the tables are for reading a diff, not a gate's log.
  const std::vector<const TensorDiff*> listed = context.quiet ? std::vector<const TensorDiff*>{} : ListedTensors(run);
  if (!context.quiet) {
    SummaryText(out, summary);
    out << "STATUS          REL_L2       MAX_ABS      CHANGED/NUMEL    NAME\n";
  }
  for (const TensorDiff* t : listed) {
    std::string status(TensorStatusName(t->status));
    status.resize(15, ' ');
    std::string rel = "-", max_abs = "-", changed = "-";
    if (t->stats) {
      rel = FormatRelL2(t->stats->rel_l2(), t->stats->l2());
      max_abs = FormatNumber(t->stats->max_abs);
      changed = std::to_string(t->stats->changed) + "/" + std::to_string(t->stats->numel);
    }
    // Padded, never cut: 11069504/268435456 is a figure, not a column overflow to hide.
    out << status << " " << PadToColumns(rel, 12) << " " << PadToColumns(max_abs, 12) << " "
        << PadToColumns(changed, 16) << " " << EscapeForDisplay(t->name);
    if (t->status == TensorStatus::kLayoutChanged) out << "  (" << SideText(t->a) << " -> " << SideText(t->b) << ")";
    if (t->stats && (t->stats->nan_appeared || t->stats->inf_appeared)) {
      out << "  (" << t->stats->nan_appeared << " NaN, " << t->stats->inf_appeared << " Inf appeared)";
    }
    out << "\n";
  }
  if (!context.quiet && listed.size() < run.tensors.size()) {
    out << "(" << Plural(run.tensors.size() - listed.size(), "tensor") << " not listed: "
        << (run.options.top_given ? "--top " + std::to_string(run.options.top) : std::string("--changed-only"))
        << ")\n";
  }
  WriteFindingLines(out, "", "", run.findings, context.color);
  for (const DroppedFindings& d : run.dropped) out << DroppedLine(d) << "\n";
  out << StatusCounts(summary.model, " ");
  std::uint64_t gate_findings = run.findings.size();
  for (const DroppedFindings& d : run.dropped) gate_findings += d.count;
  out << "; " << Plural(gate_findings, "gate finding") << " (" << ThresholdText(context.threshold) << "; "
      << context.tool_name << " " << context.version << ")\n";
}

boost::json::value DiffReportToJson(const DiffRun& run, const ReportContext& context, StreamedArrays* streamed) {
  boost::json::object out;
  out["report"] = "ckpt-diff-report";
  out["report_schema_version"] = 1;
  out["tool"] = {{"name", context.tool_name}, {"version", context.version}};
  out["fail_on"] = FailThresholdName(context.threshold);
  out["gating"] = context.threshold.has_value();  // false with --fail-on none: verdicts inform, exit is 0
  if (context.policy) out["policy"] = *context.policy;
  out["a"] = AuditJson(run.a, context);
  out["b"] = AuditJson(run.b, context);
  auto opt = [](const std::optional<std::string>& v) {
    return v ? boost::json::value(*v) : boost::json::value(nullptr);
  };
  auto optn = [](const std::optional<std::uint64_t>& v) {
    return v ? boost::json::value(*v) : boost::json::value(nullptr);
  };
  out["link"] = {{"is_child", run.link.is_child()},         {"parent_matches", run.link.parent_matches},
                 {"round_follows", run.link.round_follows}, {"a_content_hash", opt(run.link.a_hash)},
                 {"b_parent_hash", opt(run.link.b_parent)}, {"a_round_index", optn(run.link.a_round)},
                 {"b_round_index", optn(run.link.b_round)}};
  boost::json::array header;
  for (const HeaderFieldDiff& h : run.header) header.push_back({{"field", h.field}, {"a", opt(h.a)}, {"b", opt(h.b)}});
  out["header_diff"] = std::move(header);
  const std::vector<const TensorDiff*> listed = ListedTensors(run);
  out["summary"] = DiffSummaryJson(run, listed.size(), streamed);
  auto tensor_json = [](const TensorDiff& t) {
    boost::json::object item{
        {"name", t.name}, {"status", TensorStatusName(t.status)}, {"a", SideJson(t.a)}, {"b", SideJson(t.b)}};
    if (t.stats) {
      const DiffStats& s = *t.stats;
      auto rel = s.rel_l2();
      item["stats"] = {{"numel", s.numel},
                       {"changed", s.changed},
                       {"max_abs", s.max_abs},
                       {"l2", s.l2()},
                       {"rel_l2", rel ? boost::json::value(*rel) : boost::json::value(nullptr)},
                       {"nan_appeared", s.nan_appeared},
                       {"inf_appeared", s.inf_appeared},
                       {"non_finite_pairs", s.non_finite_pairs}};
    } else {
      item["stats"] = nullptr;
    }
    return item;
  };
  // Written tensor by tensor when streamed (10^5 tensors made 336 MiB of JSON values).
  out["tensors"] = StreamedArrays::ArrayOf(streamed, [listed, tensor_json](const StreamedArrays::Emit& emit) {
    for (const TensorDiff* t : listed) emit(tensor_json(*t));
  });
  boost::json::array findings;
  for (const Finding& f : run.findings) findings.push_back(FindingToJson(f));
  out["findings"] = std::move(findings);
  out["dropped_findings"] = DroppedToJson(run.dropped);
  out["exit_code"] = DiffExitCode(run, context.threshold);
  return out;
}

std::string StatusCounts(const DiffRollup& rollup, std::string_view separator) {
  std::string out = Plural(rollup.tensors, "tensor") + ":";
  std::string_view before = " ";
  for (TensorStatus s : {TensorStatus::kChanged, TensorStatus::kLayoutChanged, TensorStatus::kAdded,
                         TensorStatus::kRemoved, TensorStatus::kUnchanged, TensorStatus::kUnreadable}) {
    if (rollup.count(s) == 0) continue;
    out += std::string(before) + std::to_string(rollup.count(s)) + " " + std::string(TensorStatusName(s));
    before = separator;
  }
  return out;
}

std::vector<const TensorDiff*> ListedTensors(const DiffRun& run) {
  std::vector<const TensorDiff*> listed;
  std::size_t changed = 0;
  for (const TensorDiff* t : RankedTensors(run.tensors)) {
    const bool hidden = t->status == TensorStatus::kUnchanged && (run.options.changed_only || run.options.top_given);
    if (hidden) continue;
    if (t->status == TensorStatus::kChanged && run.options.top_given && changed++ >= run.options.top) continue;
    listed.push_back(t);
  }
  return listed;
}

boost::json::object DiffSummaryJson(const DiffRun& run, std::size_t listed_tensors, StreamedArrays* streamed) {
  const auto kept =
      std::make_shared<const DiffSummary>(SummarizeDiff(run.tensors, run.options.rollup_depth, run.options.top));
  const DiffSummary& summary = *kept;
  boost::json::array groups;
  for (const DiffRollup& r : summary.groups) groups.push_back(RollupJson(r));
  // A prefix per layer, or per tensor: as many as the tensors.
  boost::json::value prefixes = StreamedArrays::ArrayOf(streamed, [kept](const StreamedArrays::Emit& emit) {
    for (const DiffRollup& r : kept->prefixes) emit(RollupJson(r));
  });
  boost::json::array top;
  for (const TensorDiff* t : summary.top) {
    std::optional<double> rel = t->stats ? t->stats->rel_l2() : std::nullopt;
    top.push_back({{"name", t->name},
                   {"rel_l2", rel ? boost::json::value(*rel) : boost::json::value(nullptr)},
                   {"l2", t->stats ? boost::json::value(t->stats->l2()) : boost::json::value(nullptr)},
                   {"changed", t->stats ? boost::json::value(t->stats->changed) : boost::json::value(nullptr)},
                   {"numel", t->stats ? boost::json::value(t->stats->numel) : boost::json::value(nullptr)}});
  }
  boost::json::object model = RollupJson(summary.model);
  model.erase("key");
  return {{"model", std::move(model)},       {"groups", std::move(groups)}, {"rollup_depth", summary.rollup_depth},
          {"prefixes", std::move(prefixes)}, {"top", std::move(top)},       {"listed_tensors", listed_tensors}};
}

void WriteDiffJson(std::ostream& out, const DiffRun& run, const ReportContext& context) {
  StreamedArrays streamed;
  WritePrettyJson(out, DiffReportToJson(run, context, &streamed), true, &streamed);
}

}  // namespace ckpt::reports
