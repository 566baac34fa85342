#include "apps/common/manual.h"

#include <algorithm>
#include <sstream>

namespace ckpt::cli {
namespace {

namespace po = boost::program_options;

// The usage text's parts: synopsis lines, description paragraphs, exit status lines.
struct UsageParts {
  std::vector<std::string> synopsis;
  std::vector<std::string> description;  ///< paragraphs (lines joined)
  std::vector<std::string> exit_status;  ///< lines as written
  std::vector<std::string> examples;     ///< "Examples:" block, lines as written
  std::vector<std::string> environment;  ///< "Environment:" block
  std::vector<std::string> files;        ///< "Files:" block
};

UsageParts SplitUsage(const std::string& usage) {
  UsageParts parts;
  std::istringstream in(usage);
  enum { kSynopsis, kDescription, kExit, kExamples, kEnvironment, kFiles } section = kSynopsis;
  std::string paragraph;
  for (std::string line; std::getline(in, line);) {
    if (line == "Options") break;
    if (line.rfind("Exit status:", 0) == 0 || line == "Examples:" || line == "Environment:" || line == "Files:") {
      section = line == "Examples:"      ? kExamples
                : line == "Environment:" ? kEnvironment
                : line == "Files:"       ? kFiles
                                         : kExit;
      continue;
    }
    if (section == kSynopsis) {
      if (line.empty()) {
        section = kDescription;
        continue;
      }
      const std::size_t start = line.find("ckpt-");
      if (start != std::string::npos) parts.synopsis.push_back(line.substr(start));
    } else if (section == kDescription) {
      if (line.empty()) {
        if (!paragraph.empty()) parts.description.push_back(paragraph);
        paragraph.clear();
      } else {
        paragraph += (paragraph.empty() ? "" : " ") + line;
      }
    } else if (!line.empty()) {
      (section == kExamples      ? parts.examples
       : section == kEnvironment ? parts.environment
       : section == kFiles       ? parts.files
                                 : parts.exit_status)
          .push_back(line);
    }
  }
  if (!paragraph.empty()) parts.description.push_back(paragraph);
  return parts;
}

// The NAME line: the description's first clause (up to its first ": " or ". " outside parentheses).
std::string Summary(const UsageParts& parts) {
  if (parts.description.empty()) return {};
  // The first sentence or clause, outside parentheses (whatis shows it as the tool's line).
  const std::string& first = parts.description.front();
  std::size_t end = first.size();
  int depth = 0;
  for (std::size_t i = 0; i + 1 < first.size() && end == first.size(); ++i) {
    depth += first[i] == '(' ? 1 : first[i] == ')' ? -1 : 0;
    if (depth == 0 && (first[i] == ':' || first[i] == '.') && first[i + 1] == ' ') end = i;
  }
  std::string summary = first.substr(0, end);
  if (!summary.empty() && summary.back() == '.') summary.pop_back();
  return summary;
}

// roff text: backslashes doubled as \e, hyphens as \-, and no line may start with a control
// character ('.' or ').
std::string Roff(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '\\') {
      out += "\\e";
    } else if (c == '-') {
      out += "\\-";
    } else {
      out.push_back(c);
    }
  }
  if (!out.empty() && (out[0] == '.' || out[0] == '\'')) out.insert(0, "\\&");
  return out;
}

struct OptionText {
  std::string short_name;  ///< "-o" or ""
  std::string long_name;   ///< "--output"
  std::string value;       ///< "FILE", or "" for a switch
  bool optional_value = false;
  std::string description;
};

std::vector<OptionText> Options(const po::options_description& options) {
  std::vector<OptionText> out;
  for (const auto& option : options.options()) {
    OptionText o;
    o.long_name = "--" + option->long_name();
    const std::string shown = option->format_name();  // "-o [ --output ]" or "--output"
    if (shown.size() >= 2 && shown[0] == '-' && shown[1] != '-') o.short_name = shown.substr(0, 2);
    const auto semantic = option->semantic();
    if (semantic->max_tokens() > 0) {
      o.value = semantic->name();
      o.optional_value = semantic->min_tokens() == 0;
    }
    o.description = option->description();
    out.push_back(std::move(o));
  }
  return out;
}

std::string FunctionName(const std::string& tool) {
  std::string name = "_" + tool;
  for (char& c : name) {
    if (c == '-') c = '_';
  }
  return name;
}

}  // namespace

void WriteManPage(std::ostream& out, const ManualSource& source) {
  const UsageParts parts = SplitUsage(source.usage);
  std::string upper = source.tool;
  for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  out << ".TH " << Roff(upper) << " 1 \"\" \"" << Roff(source.tool + " " + source.version) << "\" \"User Commands\"\n"
      << ".SH NAME\n"
      << Roff(source.tool) << " \\- " << Roff(Summary(parts)) << "\n.SH SYNOPSIS\n";
  for (const std::string& line : parts.synopsis) {
    out << ".nf\n" << Roff(line) << "\n.fi\n";
  }
  out << ".SH DESCRIPTION\n";
  for (const std::string& paragraph : parts.description) out << ".PP\n" << Roff(paragraph) << "\n";
  out << ".SH OPTIONS\n";
  for (const OptionText& o : Options(*source.options)) {
    out << ".TP\n";
    if (!o.short_name.empty()) out << "\\fB" << Roff(o.short_name) << "\\fR, ";
    out << "\\fB" << Roff(o.long_name) << "\\fR";
    if (!o.value.empty())
      out << (o.optional_value ? "[=\\fI" : " \\fI") << Roff(o.value) << (o.optional_value ? "\\fR]" : "\\fR");
    out << "\n" << Roff(o.description) << "\n";
  }
  auto block = [&](const char* heading, const std::vector<std::string>& lines) {
    if (lines.empty()) return;
    out << ".SH " << heading << "\n.nf\n";
    for (const std::string& line : lines) out << Roff(line) << "\n";
    out << ".fi\n";
  };
  block("EXIT STATUS", parts.exit_status);
  block("ENVIRONMENT", parts.environment);
  block("FILES", parts.files);
  block("EXAMPLES", parts.examples);
  out << ".SH SEE ALSO\n";
  bool first = true;
  for (const char* tool : {"ckpt-audit", "ckpt-chain", "ckpt-diff", "ckpt-convert"}) {
    if (source.tool == tool) continue;
    out << (first ? "" : ",\n") << "\\fB" << Roff(tool) << "\\fR(1)";
    first = false;
  }
  out << "\n";
}

void WriteBashCompletion(std::ostream& out, const ManualSource& source) {
  const std::vector<OptionText> options = Options(*source.options);
  const std::string function = FunctionName(source.tool);
  out << "# bash completion for " << source.tool << " " << source.version << " (generated from its options)\n"
      << function << "() {\n"
      << "  local cur=\"${COMP_WORDS[COMP_CWORD]}\" prev=\"${COMP_WORDS[COMP_CWORD-1]}\"\n";
  if (!source.keyed_files.empty()) {
    // '=' breaks words for readline, so the option before the cursor is read from the line.
    out << "  local line=\"${COMP_LINE:0:COMP_POINT}\"\n"
        << "  local word=\"${line##*[[:space:]]}\" before=\"${line%[[:space:]]*}\"\n"
        << "  case \"${before##*[[:space:]]}\" in\n";
    for (const auto& [option, keys] : source.keyed_files) {
      out << "    --" << option << ")\n      if [[ \"$word\" == *=* ]]; then\n"
          << "        mapfile -t COMPREPLY < <(compgen -f -- \"${word#*=}\")\n      else\n"
          << "        compopt -o nospace 2>/dev/null\n        mapfile -t COMPREPLY < <(compgen -W \"";
      for (std::size_t i = 0; i < keys.size(); ++i) out << (i ? " " : "") << keys[i] << "=";
      out << "\" -- \"$word\")\n      fi\n      return ;;\n";
    }
    out << "  esac\n";
  }
  out << "  case \"$prev\" in\n";
  for (const auto& [option, values] : source.choices) {
    out << "    --" << option << ")\n      mapfile -t COMPREPLY < <(compgen -W \"";
    for (std::size_t i = 0; i < values.size(); ++i) out << (i ? " " : "") << values[i];
    out << "\" -- \"$cur\")\n      return ;;\n";
  }
  std::string with_values;
  for (const OptionText& o : options) {
    if (o.value.empty() || o.optional_value || source.choices.contains(o.long_name.substr(2)) ||
        source.keyed_files.contains(o.long_name.substr(2))) {
      continue;
    }
    with_values += (with_values.empty() ? "" : "|") + o.long_name + (o.short_name.empty() ? "" : "|" + o.short_name);
  }
  if (!with_values.empty()) {
    out << "    " << with_values << ")\n      mapfile -t COMPREPLY < <(compgen -f -- \"$cur\")\n      return ;;\n";
  }
  out << "  esac\n"
      << "  if [[ \"$cur\" == -* ]]; then\n"
      << "    mapfile -t COMPREPLY < <(compgen -W \"";
  for (std::size_t i = 0; i < options.size(); ++i) out << (i ? " " : "") << options[i].long_name;
  out << "\" -- \"$cur\")\n"
      << "  else\n"
      << "    mapfile -t COMPREPLY < <(compgen -f -- \"$cur\")\n"
      << "  fi\n"
      << "}\n"
      << "complete -o filenames -F " << function << " " << source.tool << "\n";
}

void WriteZshCompletion(std::ostream& out, const ManualSource& source) {
  // Descriptions inside [...] may hold neither brackets nor unescaped colons or quotes.
  auto clean = [](std::string text) {
    const std::size_t sentence = text.find(": ");
    if (sentence != std::string::npos && sentence > 20) text = text.substr(0, sentence);
    std::string escaped;
    for (char c : text) {
      if (c == '[') {
        escaped += '(';
      } else if (c == ']') {
        escaped += ')';
      } else if (c == '\'') {
        escaped += "'\\''";
      } else if (c == ':') {
        escaped += "\\:";
      } else {
        escaped.push_back(c);
      }
    }
    return escaped;
  };
  out << "#compdef " << source.tool << "\n"
      << "# zsh completion for " << source.tool << " " << source.version << " (generated from its options)\n"
      << "_arguments -s \\\n";
  for (const OptionText& o : Options(*source.options)) {
    const std::string takes = o.value.empty() ? "" : o.optional_value ? "=-" : "=";
    if (o.short_name.empty()) {
      out << "  '" << o.long_name << takes;
    } else {  // '(-o --output)'{-o+,--output=}'...'
      out << "  '(" << o.short_name << " " << o.long_name << ")'{" << o.short_name << (o.value.empty() ? "" : "+")
          << "," << o.long_name << takes << "}'";
    }
    out << "[" << clean(o.description) << "]";
    if (!o.value.empty()) {
      std::string action = "_files";
      if (auto it = source.choices.find(o.long_name.substr(2)); it != source.choices.end()) {
        action = "(";
        for (std::size_t i = 0; i < it->second.size(); ++i) action += (i ? " " : "") + it->second[i];
        action += ")";
      }
      out << ":" << clean(o.value) << ":" << action;
    }
    out << "' \\\n";
  }
  out << "  '*:input:_files'\n";
}

}  // namespace ckpt::cli
