#include "lib/formats/json_file_reader.h"

#include "lib/core/text.h"
#include "lib/formats/lensemble/header_schema.h"

namespace ckpt {

IoResult<void> ReadJsonFile(const RandomAccessFile& file, const JsonFileDiagnostics& rules, JsonFile& out,
                            DiagnosticSink& sink) {
  Location whole;
  whole.file = out.name;
  if (file.size() > kMaxJsonFileSize) {
    sink.Report(
        rules.too_large, whole,
        out.name + " is " + std::to_string(file.size()) + " bytes, above the limit of 100000000; it was not read.");
    return {};
  }
  auto text = ReadWhole(file);
  if (!text) return text.error();
  out.doc = json::Document(std::move(*text));
  const std::string_view body = out.doc.text();
  out.positions = json::PositionIndex(body);
  // Depth is judged before anything else in the document (artifact-format.md section 2).
  if (auto deep = json::FindExcessiveNesting(body)) {
    Location loc = out.At(*deep, "");
    loc.json_pointer.reset();
    loc.byte_offset = *deep;
    sink.Report(rules.too_deep, loc,
                out.name + " nests arrays and objects deeper than " + std::to_string(json::kMaxNestingDepth) +
                    " levels (at line " + std::to_string(*loc.line) + ", column " + std::to_string(*loc.column) +
                    "); it was not read further.");
    return {};
  }
  if (auto bad = FindInvalidUtf8(body)) {
    Location loc = out.At(*bad, "");
    loc.json_pointer.reset();
    loc.byte_offset = *bad;
    sink.Report(rules.not_utf8, loc, out.name + " holds invalid UTF-8 at byte " + std::to_string(*bad) + ".");
    return {};
  }
  if (auto error = json::Parse(out.doc)) {
    Location loc = out.At(error->offset, "");
    loc.json_pointer.reset();
    loc.byte_offset = error->offset;
    sink.Report(rules.syntax, loc,
                out.name + " is not valid JSON: " + error->message + " at line " + std::to_string(*loc.line) +
                    ", column " + std::to_string(*loc.column) + ".");
    return {};
  }
  for (const json::DuplicateKey& dup : out.doc.duplicates) {
    json::LineColumn first = out.positions.Locate(body, dup.first_offset);
    sink.Report(rules.duplicate_key,
                out.At(dup.second_offset, dup.object_pointer + "/" + json::EscapePointerToken(dup.key)),
                "Key " + QuoteForMessage(dup.key) + " appears twice in " + out.name +
                    (dup.object_pointer.empty() ? "" : " (object " + dup.object_pointer + ")") + "; first at line " +
                    std::to_string(first.line) + ", column " + std::to_string(first.column) + ".");
  }
  if (out.doc.duplicates_dropped > 0) {
    sink.Report(rules.duplicate_key, out.At(out.doc.value_begin, ""),
                out.name + " repeats " + std::to_string(out.doc.duplicates_dropped) + " more keys than the " +
                    std::to_string(json::Document::kMaxRecordedDuplicates) + " reported one by one.");
  }
  if (!out.doc.duplicates.empty()) return {};
  if (!out.doc.root().is(json::Type::kObject)) {
    sink.Report(rules.not_object, out.At(out.doc.value_begin, ""),
                out.name + " is " + std::string(json::TypeName(out.doc.root().type())) + ", not a JSON object.");
    return {};
  }
  out.parsed = true;
  return {};
}

}  // namespace ckpt
