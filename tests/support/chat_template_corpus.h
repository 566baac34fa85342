// Chat templates the template tests judge: templates written for this project in the shapes
// real models ship (Llama 3, Mistral, Qwen 2.5, Gemma, Phi-3, DeepSeek, ChatML and the
// constructs their newer releases use), known template-injection payloads, and a seeded
// generator of obfuscated accesses and their benign twins (code-in-metadata.md section 3).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ckpt::testing {

struct ChatTemplateCase {
  std::string name;
  std::string text;
  /// The analysis must refuse it (template-unsafe); otherwise it must pass quietly.
  bool unsafe = false;
  /// For a refused template Jinja's sandbox renders without refusing anything: why the
  /// analysis refuses it anyway (a deliberate over-approximation). Empty otherwise.
  std::string over_approximation;
};

/// Templates in the shapes real models ship: each must parse and give no finding.
std::vector<ChatTemplateCase> RealShapeTemplates();

/// Known injections (the advisories' payloads and their obfuscations): each must be refused.
std::vector<ChatTemplateCase> InjectionTemplates();

/// The property generator: `count` templates that reach a Python internal through folding
/// operators (~, +, %, format, join, reverse, replace, lower, upper, slices, repetition,
/// escapes, dict(...)|join, set, for, with, macro parameters, set blocks, namespaces), nested
/// and chained, inside loops, conditions and macros, with whitespace control and comments
/// (`unsafe` true); or, with `benign`, the same shapes spelling plain names (`unsafe` false).
std::vector<ChatTemplateCase> GeneratedTemplates(std::uint32_t seed, std::size_t count, bool benign);

}  // namespace ckpt::testing
