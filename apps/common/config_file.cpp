#include "apps/common/config_file.h"

#include <cstdlib>
#include <filesystem>
#include <set>

#include "lib/core/text.h"
#include "lib/gate/gate.h"
#include "lib/io/small_file.h"
#include "lib/json/strict_parser.h"

namespace ckpt::cli {
namespace {

namespace fs = std::filesystem;
namespace po = boost::program_options;

constexpr std::size_t kMaxConfigBytes = std::size_t{1} << 20;
constexpr const char* kConfigName = ".ckpt-audit.json";
constexpr const char* kTools[] = {"ckpt-audit", "ckpt-chain", "ckpt-diff", "ckpt-convert"};

// Options a configuration cannot set: they end the run, name its inputs or its one output, or
// write a baseline (a file that sets a default must not make every run write one).
const std::set<std::string, std::less<>> kNotConfigurable = {
    "help",    "version", "list-rules", "man-page", "completion", "positional", "write-baseline",
    "expires", "reason",  "output",     "config",   "no-config",  "inputs-from"};

}  // namespace

std::variant<std::optional<std::string>, std::string> FindConfigFile() {
  std::error_code ec;
  if (const char* named = std::getenv("CKPT_AUDIT_CONFIG"); named != nullptr && *named != '\0') {
    if (!fs::is_regular_file(named, ec)) {
      return std::string("CKPT_AUDIT_CONFIG names '") + named + "', which is not a readable file";
    }
    return std::optional<std::string>(named);
  }
  const fs::path cwd = fs::current_path(ec);
  if (ec) return std::optional<std::string>();
  std::optional<std::string> first;
  for (fs::path at = cwd;; at = at.parent_path()) {
    if (!first && fs::is_regular_file(at / kConfigName, ec)) {
      const fs::path relative = (at / kConfigName).lexically_relative(cwd);
      first = relative.empty() ? (at / kConfigName).string() : relative.string();
    }
    if (fs::exists(at / ".git", ec)) return first;  // the repository root: looked no higher
    if (at == at.root_path() || at.parent_path() == at) break;
  }
  // Outside a repository a file above the working directory is nobody's in particular.
  if (first && fs::path(*first).has_parent_path()) return std::optional<std::string>();
  return first;
}

std::variant<po::parsed_options, std::string> ReadConfigFile(const std::string& path, const std::string& tool,
                                                             const po::options_description& options,
                                                             const std::vector<std::string>& shared_options) {
  const std::string where = "config '" + path + "': ";
  SmallFile file = ReadSmallFile(path, kMaxConfigBytes);
  if (!file.ok()) return "config '" + path + "' " + file.error;
  auto document = ParseGateFile(file.text);
  if (auto* error = std::get_if<std::string>(&document)) return where + *error;
  const json::Document& doc = std::get<json::Document>(document);

  std::vector<std::string> known;  // every long name of this tool
  for (const auto& option : options.options()) known.push_back(option->long_name());
  const fs::path folder = fs::path(path).has_parent_path() ? fs::path(path).parent_path() : fs::path(".");
  po::parsed_options parsed(&options);

  auto add = [&](const json::Member& m, bool shared_only) -> std::optional<std::string> {
    std::string name = m.key;
    std::replace(name.begin(), name.end(), '_', '-');
    const po::option_description* option = options.find_nothrow(name, false, false, false);
    const bool shared = std::find(shared_options.begin(), shared_options.end(), name) != shared_options.end();
    if (option == nullptr || kNotConfigurable.contains(name) || (shared_only && !shared)) {
      std::string message = where + "unknown key " + QuoteForMessage(m.key);
      if (option != nullptr && kNotConfigurable.contains(name)) {
        message = where + QuoteForMessage(m.key) +
                  " cannot be set in a configuration file (give it on the command "
                  "line)";
      } else if (option != nullptr) {
        message += " at the top level: it is " + tool + "'s own option, so put it under \"" + tool + "\"";
      } else if (auto near = NearestName(name, known)) {
        message += " (did you mean \"" + *near + "\"?)";
      } else if (shared_only) {
        message += " (top-level keys are the options every tool has; a tool's own go under its name)";
      }
      return message + GateFileAt(doc, m.key_offset);
    }
    const bool flag = option->semantic()->max_tokens() == 0;
    const std::string value_name = option->semantic()->name();
    auto token = [&](const json::Value& v) -> std::variant<std::string, std::string> {
      if (v.is(json::Type::kString)) {
        std::string text = v.String();
        // FILE and DIR values are the config file's, relative to its folder.
        if ((value_name == "FILE" || value_name == "DIR") && !text.empty() && fs::path(text).is_relative()) {
          text = (folder / text).lexically_normal().string();
        }
        return std::variant<std::string, std::string>(std::in_place_index<0>, text);
      }
      if (v.is(json::Type::kNumber))
        return std::variant<std::string, std::string>(std::in_place_index<0>, std::string(v.Raw()));
      return std::variant<std::string, std::string>(
          std::in_place_index<1>,
          where + m.key + " is " + v.Describe() + ", not a string or a number" + GateFileAt(doc, v.offset()));
    };
    if (flag) {
      if (!m.value.is(json::Type::kBool))
        return where + m.key + " is " + m.value.Describe() + ", not true or false (it is a flag)" +
               GateFileAt(doc, m.value.offset());
      if (m.value.boolean()) parsed.options.emplace_back(name, std::vector<std::string>{});
      return std::nullopt;
    }
    std::vector<json::Value> values;
    if (m.value.is(json::Type::kArray)) {
      if (option->semantic()->max_tokens() <= 1 && !option->semantic()->is_composing()) {
        // A single-valued option given a list: only repeatable ones take several.
        bool repeatable = false;
        try {
          po::variables_map probe;
          po::parsed_options twice(&options);
          twice.options.emplace_back(name, std::vector<std::string>{"x"});
          twice.options.emplace_back(name, std::vector<std::string>{"x"});
          po::store(twice, probe);
          repeatable = true;
        } catch (const po::error&) {
          repeatable = false;
        }
        if (!repeatable)
          return where + m.key + " is an array, but the option takes one value" + GateFileAt(doc, m.value.offset());
      }
      for (const json::Value item : m.value.Items()) values.push_back(item);
    } else {
      values.push_back(m.value);
    }
    for (const json::Value& v : values) {
      auto t = token(v);
      if (t.index() == 1) return std::get<1>(t);
      parsed.options.emplace_back(name, std::vector<std::string>{std::get<0>(t)});
    }
    return std::nullopt;
  };

  for (const json::Member& m : doc.root().Members()) {
    if (std::find(std::begin(kTools), std::end(kTools), m.key) != std::end(kTools)) {
      if (!m.value.is(json::Type::kObject))
        return where + m.key + " is " + m.value.Describe() + ", not an object of its options" +
               GateFileAt(doc, m.value.offset());
      if (m.key != tool) continue;  // another tool's section
      for (const json::Member& own : m.value.Members()) {
        if (auto error = add(own, false)) return *error;
      }
      continue;
    }
    if (auto error = add(m, true)) return *error;
  }
  return parsed;
}

}  // namespace ckpt::cli
