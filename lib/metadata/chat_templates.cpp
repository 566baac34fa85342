#include "lib/metadata/chat_templates.h"

#include "lib/core/text.h"
#include "lib/hashing/sha256.h"
#include "lib/metadata/template_analysis.h"

namespace ckpt {
namespace {

std::string Where(const TemplateSite& site, std::uint32_t line, std::uint32_t column) {
  return "The chat template " + QuoteForMessage(site.name, 80) + " (line " + std::to_string(line) + ", column " +
         std::to_string(column) + " of the template)";
}

}  // namespace

void ReportChatTemplate(const TemplateSite& site, std::string_view text, DiagnosticSink& sink, EmbeddedCode* record) {
  const TemplateReading reading = ReadTemplate(text);
  if (record != nullptr) {
    Sha256 digest;
    digest.Update(text);
    record->Add(TemplateRecord{site.at.file, site.name, text.size(), digest.FinalHex(), !reading.invalid.has_value(),
                               reading.hazards.size()});
  }
  const auto located = [&](std::uint32_t line, std::uint32_t column) {
    Location at = site.at;
    if (site.whole_file) {
      at.line = line;
      at.column = column;
    }
    return at;
  };
  if (reading.invalid) {
    sink.Report(Diag::kTemplateInvalid, located(reading.invalid->line, reading.invalid->column),
                Where(site, reading.invalid->line, reading.invalid->column) + " does not parse as Jinja2 (" +
                    reading.invalid->message + "): renderers refuse it too, and what it reaches cannot be checked.");
    return;
  }
  for (const TemplateHazard& hazard : reading.hazards) {
    sink.Report(Diag::kTemplateUnsafe, located(hazard.line, hazard.column),
                Where(site, hazard.line, hazard.column) + " " + hazard.what +
                    ": rendering it without Jinja's sandbox runs code.");
  }
}

void ReportJsonChatTemplates(const std::string& file, const json::Document& doc, DiagnosticSink& sink,
                             EmbeddedCode* record) {
  const json::Value root = doc.root();
  if (!root.is(json::Type::kObject)) return;
  const auto value = root.Find("chat_template");
  if (!value) return;
  const auto site_at = [&](const json::Value& v, std::string pointer) {
    Location at;
    at.file = file;
    at.json_pointer = std::move(pointer);
    const json::LineColumn position = json::LocateOffset(doc.text(), v.offset());
    at.line = position.line;
    at.column = position.column;
    return at;
  };
  if (value->is(json::Type::kString)) {
    ReportChatTemplate({"chat_template", site_at(*value, "/chat_template")}, value->String(), sink, record);
    return;
  }
  if (!value->is(json::Type::kArray)) return;
  // transformers' list form: [{"name": "default", "template": "..."}, {"name": "tool_use", ...}]
  std::size_t index = 0;
  for (const json::Value item : value->Items()) {
    const std::string pointer = "/chat_template/" + std::to_string(index++);
    const auto text = item.is(json::Type::kObject) ? item.Find("template") : std::nullopt;
    if (!text || !text->is(json::Type::kString)) continue;
    const std::string name = item.FindString("name").value_or("chat_template[" + std::to_string(index - 1) + "]");
    ReportChatTemplate({name, site_at(*text, pointer + "/template")}, text->String(), sink, record);
  }
}

bool IsTemplateFileName(std::string_view path) {
  const std::size_t slash = path.rfind('/');
  const std::string_view base = slash == std::string_view::npos ? path : path.substr(slash + 1);
  const std::string_view folder = path.substr(0, path.size() - base.size());
  if (base == "chat_template.jinja") return true;
  return base.ends_with(".jinja") && base.size() > 6 &&
         (folder == "additional_chat_templates/" || folder.ends_with("/additional_chat_templates/"));
}

}  // namespace ckpt
