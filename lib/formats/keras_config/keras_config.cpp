#include "lib/formats/keras_config/keras_config.h"

#include <algorithm>
#include <array>
#include <map>
#include <span>
#include <string_view>
#include <utility>
#include <vector>

#include "lib/core/text.h"
#include "lib/json/json_value.h"
#include "lib/json/strict_parser.h"

namespace ckpt::keras {
namespace {

#include "lib/formats/keras_config/keras_api_table.inc"

constexpr std::size_t kMaxFindingsPerRule = 100;

bool Contains(std::span<const std::string_view> sorted, std::string_view path) {
  return std::binary_search(sorted.begin(), sorted.end(), path);
}

std::string_view LastComponent(std::string_view path) { return path.substr(path.rfind('.') + 1); }

// The class names a Keras 2/3 config may give without a module: the last component of every
// class the table knows.
bool IsKnownClassName(std::string_view name) {
  static const std::vector<std::string_view> kNames = [] {
    std::vector<std::string_view> names;
    names.reserve(std::size(kKerasClassPaths));
    for (std::string_view path : std::span(kKerasClassPaths)) names.push_back(LastComponent(path));
    std::sort(names.begin(), names.end());
    names.erase(std::unique(names.begin(), names.end()), names.end());
    return names;
  }();
  return std::binary_search(kNames.begin(), kNames.end(), name);
}

// What serialize_keras_object writes for values that are not objects of a class.
bool IsSpecialValue(std::string_view class_name) {
  static constexpr std::array<std::string_view, 6> kSpecial{"__keras_tensor__", "__tensor__", "__numpy__",
                                                            "__bytes__",        "__slice__",  "__ellipsis__"};
  return std::find(kSpecial.begin(), kSpecial.end(), class_name) != kSpecial.end();
}

// Layers whose loading runs code from outside the config (formats.md section 5).
std::string_view CodeLayerReason(std::string_view class_name) {
  if (class_name == "TFSMLayer") return "loads and runs a TensorFlow SavedModel from a path (CVE-2026-1462)";
  if (class_name == "TorchModuleWrapper") return "unpickles a torch module with torch.load";
  if (class_name == "JaxLayer" || class_name == "FlaxLayer") return "holds Python callables it calls";
  return {};
}

bool IsLibraryRoot(std::string_view root) { return root == "keras_hub" || root == "keras_nlp" || root == "keras_cv"; }

// Whether `name` is a built-in function of `module` (formats.md section 5): an activation,
// loss or metric in its own module; for "builtins", Keras searches those modules by name.
bool IsBuiltinFunction(std::string_view module, std::string_view name) {
  if (module == "builtins") {
    for (std::string_view own : {"keras.activations.", "keras.losses.", "keras.metrics."}) {
      if (Contains(kKerasBuiltinFunctions, std::string(own) + std::string(name))) return true;
    }
    return false;
  }
  return Contains(kKerasBuiltinFunctions, std::string(module) + "." + std::string(name));
}

class ConfigWalker {
 public:
  ConfigWalker(const ConfigSite& site, ConfigDialect dialect, const FileReporter& report)
      : site_(site), dialect_(dialect), report_(report) {}

  void Walk(json::Value root) {
    std::vector<Frame> stack;
    Enter(root, "", stack);
    while (!stack.empty()) {
      Frame& top = stack.back();
      if (top.is_object ? top.member == top.member_end : top.item == top.item_end) {
        stack.pop_back();
        continue;
      }
      json::Value next;
      std::string segment;
      if (top.is_object) {
        const json::Member m = *top.member;
        ++top.member;
        next = m.value;
        segment = "." + m.key;
      } else {
        next = *top.item;
        ++top.item;
        segment = "[" + std::to_string(top.index++) + "]";
      }
      if (next.is(json::Type::kObject) || next.is(json::Type::kArray)) Enter(next, std::move(segment), stack);
    }
    for (const auto& [diag, count] : suppressed_) {
      report_(diag, site_.offset,
              "And " + std::to_string(count) + " more like it in " + site_.described + " (only the first " +
                  std::to_string(kMaxFindingsPerRule) + " are shown).");
    }
  }

 private:
  struct Frame {
    bool is_object = false;
    json::Value::MemberIterator member;
    json::Value::MemberIterator member_end;
    json::Value::ItemIterator item;
    json::Value::ItemIterator item_end;
    std::size_t index = 0;
    std::string segment;
  };

  void Enter(json::Value value, std::string segment, std::vector<Frame>& stack) {
    Frame frame;
    frame.segment = std::move(segment);
    frame.is_object = value.is(json::Type::kObject);
    if (frame.is_object) {
      const auto members = value.Members();
      frame.member = members.begin();
      frame.member_end = members.end();
    } else {
      const auto items = value.Items();
      frame.item = items.begin();
      frame.item_end = items.end();
    }
    stack.push_back(std::move(frame));
    if (value.is(json::Type::kObject)) CheckObject(value, stack);
  }

  static std::string PathOf(const std::vector<Frame>& stack) {
    std::string path;
    for (const Frame& f : stack) path += f.segment;
    if (path.empty()) return "the root";
    return path.front() == '.' ? path.substr(1) : path;
  }

  void Report(Diag diag, json::Value at, std::string message) {
    if (++counts_[diag] > kMaxFindingsPerRule) {
      ++suppressed_[diag];
      return;
    }
    report_(diag, site_.located ? site_.offset + at.offset() : site_.offset, std::move(message));
  }

  void CheckObject(json::Value object, const std::vector<Frame>& stack) {
    auto class_value = object.Find("class_name");
    if (!class_value) return;
    const std::string where = site_.described + " at " + QuoteForMessage(PathOf(stack), 160);
    if (!class_value->is(json::Type::kString)) {
      Report(Diag::kKerasConfigInvalid, object,
             "The serialized object in " + where + " has a class_name that is " + class_value->Describe() +
                 ", not a string: Keras cannot load it.");
      return;
    }
    const std::string class_name = class_value->String();
    const std::string shown_class = QuoteForMessage(class_name, 80);
    auto module_value = object.Find("module");
    std::optional<std::string> module;
    if (module_value && module_value->is(json::Type::kString)) module = module_value->String();
    if (module_value && !module && !module_value->is(json::Type::kNull)) {
      Report(Diag::kKerasConfigInvalid, object,
             "The serialized object " + shown_class + " in " + where + " has a module that is " +
                 module_value->Describe() + ", not a string: Keras cannot load it.");
      return;
    }
    const auto registered = object.FindString("registered_name");

    if (class_name == "__lambda__") {
      Report(Diag::kKerasLambda, object,
             "The config holds a marshalled Python lambda (__lambda__) in " + where +
                 ": Keras rebuilds its bytecode and runs it when the model is built (CVE-2024-3660).");
      return;
    }
    if (class_name == "Lambda") {
      Report(Diag::kKerasLambda, object,
             "The config holds a Lambda layer in " + where +
                 ": its function (marshalled bytecode or a reference to any Python function) runs when the model is "
                 "loaded or called, and HDF5 loading ignores safe_mode (CVE-2025-9905).");
      return;
    }
    if (auto reason = CodeLayerReason(class_name); !reason.empty()) {
      Report(Diag::kKerasCodeLayer, object,
             "The config holds a " + class_name + " layer in " + where + ": it " + std::string(reason) +
                 " when the model is loaded, code that is not in this file's config.");
      return;
    }
    const bool is_function = class_name == "function" || registered == "function";
    const std::string root = module ? module->substr(0, module->find('.')) : std::string();
    if (module && IsLibraryRoot(root)) {
      Report(Diag::kKerasLibraryModule, object,
             "The serialized object " + shown_class + " in " + where + " comes from " + QuoteForMessage(*module, 80) +
                 ", a library of the Keras team that must be installed to load the model: the object is not judged "
                 "against Keras' own names.");
      return;
    }
    if (module && root != "keras" && !(is_function && *module == "builtins")) {
      Report(Diag::kKerasModuleUnsafe, object,
             "The serialized object " + shown_class + " in " + where + " names module " + QuoteForMessage(*module, 80) +
                 ", outside Keras: Keras before 3.9 imports any module a config names and takes the object from it "
                 "(CVE-2025-1550), so loading the file can run code.");
      return;
    }
    if (is_function) {
      CheckFunction(object, module.value_or("builtins"), registered, where);
      return;
    }
    if (module) {
      const std::string path = *module + "." + class_name;
      if (!class_name.empty() && std::isupper(static_cast<unsigned char>(class_name.front())) != 0 &&
          Contains(kKerasClassPaths, path)) {
        CheckRegistered(object, registered, shown_class, where);
        return;
      }
      Report(Diag::kKerasClassUnknown, object,
             "The serialized object " + shown_class + " in " + where + " names " + QuoteForMessage(path, 160) +
                 ", which is not a public class of Keras " + std::string(kKerasTableVersion) +
                 ": Keras would import the module and take whatever the name holds there.");
      return;
    }
    if (IsSpecialValue(class_name)) return;
    CheckRegistered(object, registered, shown_class, where);
    if ((!registered || registered->find('>') == std::string::npos) && !IsKnownClassName(class_name)) {
      Report(Diag::kKerasCustomObject, object,
             "The serialized object " + shown_class + " in " + where + " is not a Keras layer or class" +
                 (dialect_ == ConfigDialect::kHdf5 ? std::string(" (Keras 2 and 3 names)") : std::string()) +
                 ": the loader must supply it as a custom object, code that is not in the file.");
    }
  }

  void CheckRegistered(json::Value object, const std::optional<std::string>& registered, const std::string& shown_class,
                       const std::string& where) {
    if (!registered || registered->find('>') == std::string::npos) return;
    Report(Diag::kKerasCustomObject, object,
           "The serialized object " + shown_class + " in " + where + " is registered as " +
               QuoteForMessage(*registered, 80) +
               ", a custom object: the loader must register it, code that the user supplies, not the file.");
  }

  void CheckFunction(json::Value object, const std::string& module, const std::optional<std::string>& registered,
                     const std::string& where) {
    const auto config = object.FindString("config");
    const std::string name = config.value_or(registered.value_or(""));
    if (IsBuiltinFunction(module, name)) return;
    if (module == "builtins") {
      // Keras looks a name under `builtins` up among its own built-ins first; any other name
      // falls through to importing Python's builtins module (formats.md section 14).
      Report(Diag::kKerasModuleUnsafe, object,
             "The config refers to function " + QuoteForMessage(name, 80) + " of module 'builtins' in " + where +
                 ": it is no Keras activation, loss or metric, so Keras before 3.9 takes it from Python's builtins "
                 "(exec, eval, getattr: CVE-2025-1550), and loading the file can run code.");
      return;
    }
    Report(Diag::kKerasFunctionUnsafe, object,
           "The config refers to function " + QuoteForMessage(name, 80) + " of module " + QuoteForMessage(module, 80) +
               " in " + where +
               ": only Keras' built-in activations, losses and metrics are allowed; Keras resolves other names to "
               "any function it exports (keras.utils.get_file, keras.models.load_model: CVE-2025-8747, "
               "CVE-2025-9906) and calls it.");
  }

  const ConfigSite& site_;
  ConfigDialect dialect_;
  const FileReporter& report_;
  std::map<Diag, std::size_t> counts_;
  std::map<Diag, std::size_t> suppressed_;
};

// Parses `text` strictly for `diag`; the document, or nullopt once the reason is reported.
std::optional<json::Document> ParseStrictObject(std::string text, const ConfigSite& site, Diag diag,
                                                const FileReporter& report) {
  const std::string subject = site.described;
  if (text.size() > kMaxConfigBytes) {
    report(diag, site.offset,
           subject + " is " + std::to_string(text.size()) + " bytes, past the bound of 100000000: it is not read.");
    return std::nullopt;
  }
  json::Document doc(std::move(text));
  if (auto error = json::Parse(doc)) {
    report(diag, site.located ? site.offset + error->offset : site.offset,
           subject + " is not strict JSON at byte " + std::to_string(error->offset) + ": " + error->message + ".");
    return std::nullopt;
  }
  if (!doc.duplicates.empty()) {
    const json::DuplicateKey& d = doc.duplicates.front();
    report(diag, site.located ? site.offset + d.second_offset : site.offset,
           subject + " gives key " + QuoteForMessage(d.key, 80) + " twice in the object at " +
               QuoteForMessage(d.object_pointer.empty() ? "/" : d.object_pointer, 120) +
               ": Python's json keeps the last, other readers the first.");
    return std::nullopt;
  }
  if (!doc.root().is(json::Type::kObject)) {
    report(diag, site.offset, subject + " is " + doc.root().Describe() + ", not a JSON object.");
    return std::nullopt;
  }
  return doc;
}

}  // namespace

bool AnalyseConfig(std::string text, const ConfigSite& site, ConfigDialect dialect, const FileReporter& report) {
  auto doc = ParseStrictObject(std::move(text), site, Diag::kKerasConfigInvalid, report);
  if (!doc) return false;
  ConfigWalker(site, dialect, report).Walk(doc->root());
  return true;
}

std::optional<std::string> ReadMetadata(std::string text, const ConfigSite& site, const FileReporter& report) {
  auto doc = ParseStrictObject(std::move(text), site, Diag::kKerasMetadataInvalid, report);
  if (!doc) return std::nullopt;
  auto version = doc->root().Find("keras_version");
  if (!version || !version->is(json::Type::kString)) {
    report(Diag::kKerasMetadataInvalid, site.offset,
           site.described + " has no keras_version string: the Keras version that wrote the file is unknown.");
    return std::nullopt;
  }
  return version->String();
}

}  // namespace ckpt::keras
