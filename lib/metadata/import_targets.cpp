#include "lib/metadata/import_targets.h"

#include <yaml.h>

#include <algorithm>
#include <cctype>
#include <memory>
#include <new>
#include <optional>
#include <set>
#include <utility>

#include "lib/core/text.h"
#include "lib/json/strict_parser.h"

namespace ckpt {
namespace {

bool IsIdentifier(std::string_view part) {
  if (part.empty() || (std::isdigit(static_cast<unsigned char>(part.front())) != 0)) return false;
  return std::all_of(part.begin(), part.end(),
                     [](char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_'; });
}

bool IsClassName(std::string_view part) { return IsIdentifier(part) && part.front() >= 'A' && part.front() <= 'Z'; }

// The keys beside which a JSON `class` is Hydra's (code-in-metadata.md section 1).
bool IsHydraCompanionKey(std::string_view key) { return key == "params" || key == "_partial_" || key == "_args_"; }

}  // namespace

bool IsAllowedTarget(std::string_view target) {
  for (std::string_view torch_prefix :
       {"torch.nn.", "torch.optim.lr_scheduler.", "torch.optim.", "torch.utils.data."}) {
    if (target.starts_with(torch_prefix) && IsClassName(target.substr(torch_prefix.size()))) return true;
  }
  if (!target.starts_with("nemo.collections.") && !target.starts_with("nemo.core.")) return false;
  std::string_view rest = target;
  std::string_view last;
  while (!rest.empty()) {
    const std::size_t dot = rest.find('.');
    last = rest.substr(0, dot);
    if (!IsIdentifier(last)) return false;
    rest = dot == std::string_view::npos ? std::string_view() : rest.substr(dot + 1);
    if (dot != std::string_view::npos && rest.empty()) return false;  // a trailing dot
  }
  return IsClassName(last);
}

bool IsTargetKey(std::string_view key) {
  return key == "_target_" || key == "target" || key == "cls" || key == "class";
}

void RecordTargets(const std::vector<ImportTarget>& targets, const std::string& file, const std::string& metadata_key,
                   EmbeddedCode& record) {
  for (const ImportTarget& target : targets) {
    record.Add(TargetRecord{file, target.key_path, metadata_key, target.value, target.is_string, target.allowed});
  }
}

std::string JsonPointerOf(const std::vector<std::string>& tokens) {
  std::string pointer;
  for (const std::string& token : tokens) pointer.append("/").append(json::EscapePointerToken(token));
  return pointer;
}

std::vector<ImportTarget> FindJsonTargets(const json::Document& document, ClassKey class_key,
                                          const JsonMemberVisitor& visit) {
  std::vector<ImportTarget> found;
  if (!document.parsed()) return found;
  std::optional<json::PositionIndex> positions;  // built at the first target: most files have none
  // Depth-first in document order with one cursor per open container, so memory follows the
  // depth (bounded by the parser), never the width of an object or array.
  struct Cursor {
    json::Value container;
    std::uint32_t at;   ///< tape index of the next item, or of the next member's key
    std::uint32_t end;  ///< tape index one past the container's last value
    std::size_t index = 0;
    std::optional<bool> hydra_class;  ///< whether a `class` key here is Hydra's, once asked
  };
  const auto open = [&](const json::Value& container) {
    const std::uint32_t first = container.tape_index() + 2;
    return Cursor{container, first, document.tape()[container.tape_index() + 1], 0, std::nullopt};
  };
  const auto is_container = [](const json::Value& v) { return v.is(json::Type::kObject) || v.is(json::Type::kArray); };
  // Whether the object has a key that makes its `class` Hydra's; asked only when it has a `class`.
  const auto has_companion_key = [](const json::Value& object) {
    const auto members = object.Members();
    return std::any_of(members.begin(), members.end(),
                       [](const json::Member& m) { return IsHydraCompanionKey(m.key); });
  };
  std::vector<Cursor> cursors;
  std::vector<std::string> path;  // the tokens naming cursors[1..]
  std::string decoded_key;        // a key with escapes, decoded
  if (is_container(document.root())) cursors.push_back(open(document.root()));
  while (!cursors.empty()) {
    Cursor& cursor = cursors.back();
    if (cursor.at >= cursor.end) {
      cursors.pop_back();
      if (!path.empty()) path.pop_back();
      continue;
    }
    if (cursor.container.is(json::Type::kArray)) {
      const json::Value item(&document, cursor.at);
      cursor.at = document.Next(cursor.at);
      const std::size_t index = cursor.index++;
      if (is_container(item)) {
        path.push_back(std::to_string(index));
        cursors.push_back(open(item));  // `cursor` is not used after this
      }
      continue;
    }
    // The key straight from the text when it has no escapes (nearly always): no copy.
    const std::string_view key = document.StringAt(cursor.at, decoded_key);
    const json::Value value(&document, cursor.at + 1);
    cursor.at = document.Next(cursor.at + 1);
    if (visit) visit(key, value, path);
    if (key == "class" && class_key != ClassKey::kAnywhere && !cursor.hydra_class) {
      cursor.hydra_class = has_companion_key(cursor.container);
    }
    if (IsTargetKey(key) && (key != "class" || class_key == ClassKey::kAnywhere || *cursor.hydra_class)) {
      ImportTarget target;
      path.emplace_back(key);
      target.key_path = JsonPointerOf(path);
      path.pop_back();
      target.key = std::string(key);
      target.is_string = value.is(json::Type::kString);
      if (target.is_string) target.value = value.String();
      target.allowed = target.is_string && IsAllowedTarget(target.value);
      if (!positions) positions.emplace(document.text());
      const json::LineColumn at = positions->Locate(document.text(), value.offset());
      target.line = at.line;
      target.column = at.column;
      found.push_back(std::move(target));
    }
    if (is_container(value)) {
      path.emplace_back(key);
      cursors.push_back(open(value));  // `cursor` is not used after this
    }
  }
  return found;
}

namespace {

// libyaml's events, one at a time: bounded depth, no aliases, anchors, tags or duplicate keys,
// one document; every target recorded with its key path.
class YamlWalker {
 public:
  explicit YamlWalker(ClassKey class_key) : class_key_(class_key) {}

  YamlConfig Walk(std::string_view text) {
    yaml_parser_t parser;
    if (yaml_parser_initialize(&parser) == 0) throw std::bad_alloc();
    const std::unique_ptr<yaml_parser_t, void (*)(yaml_parser_t*)> owned(&parser, &yaml_parser_delete);
    yaml_parser_set_input_string(&parser, reinterpret_cast<const unsigned char*>(text.data()), text.size());
    int documents = 0;
    while (!result_.refused) {
      yaml_event_t event;
      if (yaml_parser_parse(&parser, &event) == 0) {
        Refuse(parser.problem_mark, std::string("it is not valid YAML (") +
                                        (parser.problem != nullptr ? parser.problem : "a parse error") + ")");
        result_.refused->not_yaml = true;
        break;
      }
      const std::unique_ptr<yaml_event_t, void (*)(yaml_event_t*)> held(&event, &yaml_event_delete);
      if (event.type == YAML_STREAM_END_EVENT) break;
      if (event.type == YAML_DOCUMENT_START_EVENT) {
        if (++documents > 1) {
          Refuse(event.start_mark, "it holds more than one YAML document");
        } else if (event.data.document_start.tag_directives.start != event.data.document_start.tag_directives.end) {
          Refuse(event.start_mark, "it declares a %TAG directive");
        }
        continue;
      }
      Event(event);
    }
    return std::move(result_);
  }

 private:
  struct Frame {
    bool mapping = false;
    bool at_key = true;
    std::size_t next_index = 0;  ///< sequences: the index of the next item
    std::set<std::string, std::less<>> keys;
    std::string key;  ///< mappings: the key whose value is being read
  };

  void Event(const yaml_event_t& event) {
    switch (event.type) {
      case YAML_ALIAS_EVENT:
        Refuse(event.start_mark, "it uses an alias (*" +
                                     QuoteForMessage(reinterpret_cast<const char*>(event.data.alias.anchor), 40) +
                                     "), which can expand a small file into a huge one");
        return;
      case YAML_SCALAR_EVENT:
        if (!Plain(event, event.data.scalar.anchor, event.data.scalar.tag)) return;
        Scalar(event,
               std::string_view(reinterpret_cast<const char*>(event.data.scalar.value), event.data.scalar.length));
        return;
      case YAML_SEQUENCE_START_EVENT:
        if (!Plain(event, event.data.sequence_start.anchor, event.data.sequence_start.tag)) return;
        Open(event, false);
        return;
      case YAML_MAPPING_START_EVENT:
        if (!Plain(event, event.data.mapping_start.anchor, event.data.mapping_start.tag)) return;
        if (frames_.empty()) result_.mapping_root = true;
        Open(event, true);
        return;
      case YAML_SEQUENCE_END_EVENT:
      case YAML_MAPPING_END_EVENT:
        if (!frames_.empty()) frames_.pop_back();
        ValueDone();
        return;
      default:
        return;
    }
  }

  bool Plain(const yaml_event_t& event, const unsigned char* anchor, const unsigned char* tag) {
    if (anchor != nullptr) {
      Refuse(event.start_mark, "it declares an anchor (&" + QuoteForMessage(reinterpret_cast<const char*>(anchor), 40) +
                                   "): aliases to it can expand a small file into a huge one");
      return false;
    }
    if (tag != nullptr) {
      Refuse(event.start_mark, "it uses the tag " + QuoteForMessage(reinterpret_cast<const char*>(tag), 80) +
                                   ", which a YAML loader may turn into a Python object");
      return false;
    }
    return true;
  }

  // The key of the value about to be read (a mapping's key, a sequence's index); empty at the root.
  [[nodiscard]] bool AtTargetKey() const {
    return !frames_.empty() && frames_.back().mapping && IsTargetKey(frames_.back().key) &&
           (frames_.back().key != "class" || class_key_ == ClassKey::kAnywhere);
  }

  void Open(const yaml_event_t& event, bool mapping) {
    if (!frames_.empty() && frames_.back().mapping && frames_.back().at_key) {
      Refuse(event.start_mark, "it has a mapping or list as a key");
      return;
    }
    if (AtTargetKey()) Record(event.start_mark, false, {});
    if (frames_.size() >= kMaxYamlConfigDepth) {
      Refuse(event.start_mark, "it nests deeper than " + std::to_string(kMaxYamlConfigDepth) + " levels");
      return;
    }
    Frame f;
    f.mapping = mapping;
    frames_.push_back(std::move(f));
  }

  void Scalar(const yaml_event_t& event, std::string_view value) {
    if (frames_.empty()) return;  // a document of one scalar: nothing to find
    Frame& f = frames_.back();
    if (f.mapping && f.at_key) {
      if (!f.keys.emplace(value).second) {
        Refuse(event.start_mark, "it repeats the key " + QuoteForMessage(value, 80) +
                                     " in one mapping (YAML loaders keep one of the values)");
        return;
      }
      f.key = std::string(value);
      f.at_key = false;
      return;
    }
    if (AtTargetKey()) {
      const bool plain_null = event.data.scalar.style == YAML_PLAIN_SCALAR_STYLE &&
                              (value.empty() || value == "null" || value == "~" || value == "Null" || value == "NULL");
      Record(event.start_mark, !plain_null, value);
    }
    ValueDone();
  }

  void ValueDone() {
    if (frames_.empty()) return;
    Frame& f = frames_.back();
    if (f.mapping) {
      f.at_key = true;
    } else {
      ++f.next_index;
    }
  }

  void Record(const yaml_mark_t& mark, bool is_string, std::string_view value) {
    std::string pointer;
    for (const Frame& f : frames_) {
      pointer += "/" + (f.mapping ? json::EscapePointerToken(f.key) : std::to_string(f.next_index));
    }
    ImportTarget target;
    target.key_path = std::move(pointer);
    target.key = frames_.back().key;
    target.is_string = is_string;
    if (is_string) target.value = std::string(value);
    target.allowed = is_string && IsAllowedTarget(value);
    target.line = mark.line + 1;
    target.column = mark.column + 1;
    result_.targets.push_back(std::move(target));
  }

  void Refuse(const yaml_mark_t& mark, std::string why) {
    if (result_.refused) return;
    result_.refused = ConfigRefusal{std::move(why), false, mark.line + 1, mark.column + 1};
  }

  ClassKey class_key_;
  std::vector<Frame> frames_;
  YamlConfig result_;
};

}  // namespace

YamlConfig ReadYamlConfig(std::string_view text, ClassKey class_key) { return YamlWalker(class_key).Walk(text); }

namespace {

// A line `key:` or `key: value` (a plain key of letters, digits, '_', '-' and '.'): the string
// may be a YAML mapping.
bool HasMappingLine(std::string_view text) {
  while (!text.empty()) {
    const std::size_t end = text.find('\n');
    std::string_view line = text.substr(0, end);
    text = end == std::string_view::npos ? std::string_view() : text.substr(end + 1);
    const std::size_t start = line.find_first_not_of(" \t");
    if (start == std::string_view::npos) continue;
    line.remove_prefix(start);
    const std::size_t colon = line.find(':');
    if (colon == 0 || colon == std::string_view::npos) continue;
    const std::string_view key = line.substr(0, colon);
    const bool plain = std::all_of(key.begin(), key.end(), [](char c) {
      return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '-' || c == '.';
    });
    if (plain && (colon + 1 == line.size() || line[colon + 1] == ' ' || line[colon + 1] == '\t')) return true;
  }
  return false;
}

}  // namespace

YamlConfig FindTargetsInString(std::string_view text) {
  const std::size_t first = text.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos) return {};
  const bool bracketed = text[first] == '{' || text[first] == '[';
  if (bracketed) {
    json::Document document{std::string(text)};
    if (!json::Parse(document)) {
      YamlConfig found;
      found.targets = FindJsonTargets(document, ClassKey::kBesideHydraKeys);
      return found;
    }
    // Not JSON: a YAML flow mapping or sequence is read below.
  }
  if (!bracketed && !HasMappingLine(text)) return {};
  YamlConfig config = ReadYamlConfig(text);
  if (config.refused && config.refused->not_yaml) config.refused.reset();  // text, not a configuration
  return config;
}

std::string DescribeTargetValue(const ImportTarget& target) {
  return target.is_string ? "is " + QuoteForMessage(target.value, 120) : std::string("is not a string");
}

std::vector<std::string> EmbeddedConfigProblems(std::string_view holder, const YamlConfig& config) {
  std::vector<std::string> problems;
  for (const ImportTarget& target : config.targets) {
    if (target.allowed) continue;
    problems.push_back(std::string(holder) + " is a configuration whose " + target.key + " at " +
                       QuoteForMessage(target.key_path) + " " + DescribeTargetValue(target) +
                       ": a loader that instantiates it (Hydra, OmegaConf) imports and calls it, and " +
                       std::string(kAllowedTargetsText) + ".");
  }
  if (config.refused) {
    problems.push_back(std::string(holder) + " is a YAML configuration the strict reading refuses (" +
                       config.refused->why + ", line " + std::to_string(config.refused->line) +
                       "), so the import targets a loader would instantiate from it cannot be checked.");
  }
  return problems;
}

}  // namespace ckpt
