// Chat templates where loaders find them (code-in-metadata.md section 3): each is read by
// ReadTemplate and what it reaches reported as diagnostics (Diag::kTemplateUnsafe,
// Diag::kTemplateInvalid) at the file and key that hold it.
#pragma once

#include <string>
#include <string_view>

#include "lib/json/json_value.h"
#include "lib/model/diagnostic.h"
#include "lib/model/embedded_code.h"

namespace ckpt {

/// One template and where it was found.
struct TemplateSite {
  /// The template as a message names it: "chat_template", "tool_use", a GGUF key.
  std::string name;
  /// The file (and JSON Pointer, or byte offset) holding it.
  Location at;
  /// The template is the whole file (chat_template.jinja): its lines and columns are the file's.
  bool whole_file = false;
};

/// Reads `text` as a chat template and reports what it reaches, or why it does not parse;
/// records it (its length, SHA-256 and whether it parsed) in `record` when given.
void ReportChatTemplate(const TemplateSite& site, std::string_view text, DiagnosticSink& sink,
                        EmbeddedCode* record = nullptr);

/// The templates of a Hugging Face configuration (tokenizer_config.json, chat_template.json,
/// processor_config.json, preprocessor_config.json): its `chat_template`, a string or a list
/// of {name, template} objects.
void ReportJsonChatTemplates(const std::string& file, const json::Document& doc, DiagnosticSink& sink,
                             EmbeddedCode* record = nullptr);

/// Whether a model folder's file is a template file renderers read whole:
/// chat_template.jinja, additional_chat_templates/*.jinja.
bool IsTemplateFileName(std::string_view path);

}  // namespace ckpt
