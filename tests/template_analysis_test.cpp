// The Jinja front end and the template analysis (code-in-metadata.md section 3): what parses
// and what is refused and where, which accesses fold to Python internals, the real templates'
// shapes that must stay quiet, the property generator, and the differential against Jinja2's
// own sandbox (Debian's python3-jinja2).
#include "lib/metadata/template_analysis.h"

#include <gtest/gtest.h>
#include <pthread.h>

#include <boost/json.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "lib/core/text.h"
#include "tests/support/built_tools.h"
#include "tests/support/chat_template_corpus.h"
#include "tests/support/prerequisite.h"
#include "tests/support/process.h"

namespace ckpt::testing {
namespace {

namespace fs = std::filesystem;

std::string Describe(const TemplateReading& reading) {
  std::string out;
  if (reading.invalid) {
    out += "invalid " + std::to_string(reading.invalid->line) + ":" + std::to_string(reading.invalid->column) + " " +
           reading.invalid->message + "\n";
  }
  for (const TemplateHazard& h : reading.hazards) {
    out += std::to_string(h.line) + ":" + std::to_string(h.column) + " " + h.what + "\n";
  }
  return out;
}

// "line:column what" of each hazard.
std::vector<std::string> Hazards(const std::string& text) {
  const TemplateReading reading = ReadTemplate(text);
  EXPECT_FALSE(reading.invalid) << text << "\n" << Describe(reading);
  std::vector<std::string> out;
  for (const TemplateHazard& h : reading.hazards) {
    out.push_back(std::to_string(h.line) + ":" + std::to_string(h.column) + " " + h.what);
  }
  return out;
}

bool Refused(const std::string& text) {
  const TemplateReading reading = ReadTemplate(text);
  return reading.invalid || !reading.hazards.empty();
}

TEST(TemplateSyntax, ParsesWhatJinjaParses) {
  for (const std::string& text : {
           std::string(""),
           std::string("plain text { not a tag } %} #}"),
           std::string("{{ a if b else c if d }}{{ not not x }}{{ -1 ** 2 }}{{ 1_000 + 0x1F + 0o7 + 0b1 + 1.5e3 }}"),
           std::string("{{ a[1:2:3] }}{{ a[::2] }}{{ a[1:] }}{{ a[:-1] }}{{ a.0 }}{{ a[1, 2] }}"),
           std::string("{{ f(1, *args, k=2, **kw) }}{{ x|f(1)|g }}{{ x is divisibleby 3 }}{{ x is not none }}"),
           std::string("{{ {'a': {'b': 1}} }}{{ [1, 2,] }}{{ (1,) }}{{ () }}{{ 'a' 'b' \"c\" }}"),
           std::string("{% for a, b in x if a recursive %}{{ loop(b) }}{% else %}-{% endfor %}"),
           std::string("{% if a %}1{% elif b %}2{% elif c %}3{% else %}4{% endif %}"),
           std::string("{% set a, b = 1, 2 %}{% set ns.x = 1 %}{% set y | upper %}t{% endset %}"),
           std::string("{% macro m(a, b=1) %}{{ caller(a) }}{% endmacro %}{% call(x) m(1) %}{{ x }}{% endcall %}"),
           std::string("{% filter upper|trim %}x{% endfilter %}{% with a = 1, b = 2 %}{{ a }}{% endwith %}"),
           std::string("{% block b scoped %}x{% endblock b %}{% include 'x' ignore missing without context %}"),
           std::string("{% import 'x' as y with context %}{% from 'x' import a as b, c with context %}"),
           std::string("{% raw %}{{ not parsed {% %}{% endraw %}{%- raw -%} x {%- endraw -%}"),
           std::string("{#- a comment {{ x }} -#}{%- if x -%}{{- x -}}{%+ endif +%}"),
           std::string("{% for x in y %}{% break %}{% continue %}{% endfor %}{% do x.append(1) %}"),
           std::string("{% generation %}x{% endgeneration %}{% print 1, 2 %}{% autoescape true %}x{% endautoescape %}"),
           std::string("{{ '\\x41\\u0042\\U00000043\\101\\N{LATIN SMALL LETTER D}\\q\\\n' }}"),
       }) {
    const TemplateReading reading = ReadTemplate(text);
    EXPECT_FALSE(reading.invalid) << text << "\n" << Describe(reading);
  }
}

TEST(TemplateSyntax, RefusesWhatJinjaRefusesWithItsPlace) {
  const auto invalid = [](const std::string& text) {
    const TemplateReading reading = ReadTemplate(text);
    return reading.invalid ? std::to_string(reading.invalid->line) + ":" + std::to_string(reading.invalid->column) +
                                 " " + reading.invalid->message
                           : std::string("parsed");
  };
  EXPECT_EQ(invalid("a\n{% for x in y %}"),
            "2:17 Unexpected end of template. Jinja was looking for the following tags: 'endfor' or 'else'.");
  EXPECT_EQ(invalid("{% if x %}{% endfor %}"),
            "1:14 Encountered unknown tag 'endfor'. Jinja was looking for the following tags: 'elif' or 'else' or "
            "'endif'.");
  EXPECT_EQ(invalid("{{ x "), "1:6 Unexpected end of template: a print statement is not closed with '}}'");
  EXPECT_EQ(invalid("x\n  {{ 'abc }}"), "2:6 unexpected char \"'\": the string is not closed");
  EXPECT_EQ(invalid("{{ '\\x4' }}"), "1:4 truncated \\xXX escape");
  EXPECT_EQ(invalid("{{ '\\N{NO SUCH NAME}' }}"), "1:4 unknown Unicode character name");
  EXPECT_EQ(invalid("{# open"), "1:1 Missing end of comment tag");
  EXPECT_EQ(invalid("{% raw %} x"), "1:1 Missing end of raw directive");
  EXPECT_EQ(invalid("{{ }}"), "1:4 Expected an expression, got 'end of print statement'");
  EXPECT_EQ(invalid("{{ (1] }}"), "1:6 unexpected ']', expected ')'");
  EXPECT_EQ(invalid("{% frobnicate %}"), "1:4 Encountered unknown tag 'frobnicate'.");
  EXPECT_EQ(invalid("{{ x ! y }}"), "1:6 unexpected char '!'");
  EXPECT_EQ(invalid("{% set 1 = 2 %}"), "1:10 can't assign to this expression");
  EXPECT_EQ(invalid("{% macro m(a=1, b) %}{% endmacro %}"), "1:18 non-default argument follows default argument");
  EXPECT_EQ(invalid("{{ f(a=1, 2) }}"), "1:11 invalid syntax for function call expression");
}

TEST(TemplateSyntax, DepthAndSizeAreBoundedWithoutRecursionOnInput) {
  // Deep nesting is refused at the bound, never a stack overflow.
  EXPECT_NE(ReadTemplate("{{ " + std::string(100000, '(') + "x" + std::string(100000, ')') + " }}")
                .invalid.value_or(jinja::SyntaxError{})
                .message.find("nesting deeper than 64"),
            std::string::npos);
  std::string ifs;
  for (int i = 0; i < 5000; ++i) ifs += "{% if x %}";
  EXPECT_TRUE(ReadTemplate(ifs).invalid);
  EXPECT_TRUE(ReadTemplate("{{ " + std::string(100000, '-') + "1 }}").invalid);
  EXPECT_TRUE(ReadTemplate("{{ " + std::string(100000, '[') + " }}").invalid);
  // Long chains are iterative: 20,000 terms of ~ and of attribute access parse and fold.
  std::string chain = "{{ messages[''";
  for (int i = 0; i < 20000; ++i) chain += " ~ 'a'";
  chain += "] }}";
  const auto started = std::chrono::steady_clock::now();
  EXPECT_FALSE(ReadTemplate(chain).invalid);
  std::string attrs = "{{ x";
  for (int i = 0; i < 20000; ++i) attrs += ".a";
  attrs += " }}";
  EXPECT_FALSE(ReadTemplate(attrs).invalid);
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(10));
}

// No recursion on the input's depth: the parser keeps its open blocks and expression rules on
// stacks of its own, so the deepest template of each nesting construct is read on a thread whose
// whole stack is 128 KiB (the recursive parser this replaced needed more than that for 63
// parentheses, and crashed here), and one level more is refused.
TEST(TemplateSyntax, ReadingNeedsNoStackFromItsCaller) {
  const auto nested = [](std::size_t depth, const std::string& open, const std::string& inner,
                         const std::string& close) {
    std::string text;
    for (std::size_t i = 0; i < depth; ++i) text += open;
    text += inner;
    for (std::size_t i = 0; i < depth; ++i) text += close;
    return text;
  };
  struct Case {
    std::string name;
    std::function<std::string(std::size_t)> make;
  };
  const std::vector<Case> cases = {
      {"parentheses", [&](std::size_t d) { return "{{ " + nested(d, "(", "x", ")") + " }}"; }},
      {"lists", [&](std::size_t d) { return "{{ " + nested(d, "[", "x", "]") + " }}"; }},
      {"calls", [&](std::size_t d) { return "{{ " + nested(d, "f(", "x", ")") + " }}"; }},
      {"if blocks", [&](std::size_t d) { return nested(d, "{% if x %}", "y", "{% endif %}"); }},
      {"for loops", [&](std::size_t d) { return nested(d, "{% for m in messages %}", "{{ m }}", "{% endfor %}"); }},
      {"not", [&](std::size_t d) { return "{{ " + nested(d, "not ", "x", "") + " }}"; }},
      {"conditionals", [&](std::size_t d) { return "{{ " + nested(d, "a if b else ", "c", "") + " }}"; }},
  };
  struct Run {
    const std::vector<Case>* cases;
    std::vector<std::string> failures;
  } run{&cases, {}};
  const auto body = [](void* argument) -> void* {
    auto& r = *static_cast<Run*>(argument);
    for (const Case& c : *r.cases) {
      const TemplateReading deepest = ReadTemplate(c.make(jinja::kMaxNesting));
      if (deepest.invalid) r.failures.push_back(c.name + " at the bound: " + deepest.invalid->message);
      const TemplateReading deeper = ReadTemplate(c.make(jinja::kMaxNesting + 1));
      if (!deeper.invalid || deeper.invalid->message.find("nesting deeper than 64") == std::string::npos) {
        r.failures.push_back(c.name + " past the bound: " + (deeper.invalid ? deeper.invalid->message : "read"));
      }
    }
    return nullptr;
  };
  pthread_attr_t attributes;
  ASSERT_EQ(pthread_attr_init(&attributes), 0);
  ASSERT_EQ(pthread_attr_setstacksize(&attributes, std::size_t{128} << 10), 0);
  pthread_t thread{};
  ASSERT_EQ(pthread_create(&thread, &attributes, body, &run), 0);
  pthread_join(thread, nullptr);
  pthread_attr_destroy(&attributes);
  EXPECT_TRUE(run.failures.empty()) << ::testing::PrintToString(run.failures);
}

TEST(TemplateAnalysis, NamesWhatEachAccessReachesAndWhere) {
  EXPECT_EQ(Hazards("{{ cycler.__init__.__globals__.os.popen('id').read() }}"),
            (std::vector<std::string>{"1:11 reads the attribute '__init__', a name starting with '_'",
                                      "1:20 reads the attribute '__globals__', a name starting with '_'",
                                      "1:40 calls 'popen'"}));
  EXPECT_EQ(Hazards("line one\n  {{ x['%c%c'|format(95,95) ~ 'class__'] }}"),
            (std::vector<std::string>{"2:7 reads the item '__class__', a name starting with '_'"}));
  EXPECT_EQ(Hazards("{% set p='po' %}\n{{ os[p ~ 'pen']('id') }}"), (std::vector<std::string>{"2:17 calls 'popen'"}));
  EXPECT_EQ(Hazards("{{ x|attr(name) }}"),
            (std::vector<std::string>{"1:6 reads an attribute through |attr with a name that is not a constant"}));
  EXPECT_EQ(Hazards("{{ x[a ~ b] }}"),
            (std::vector<std::string>{"1:5 reads an item whose name is computed by string operations"}));
  EXPECT_EQ(Hazards("{{ lipsum.x }}"), (std::vector<std::string>{"1:11 reads 'x' of the global callable 'lipsum'"}));
  EXPECT_EQ(Hazards("{{ '{0.__class__}'.format(x) }}"),
            (std::vector<std::string>{"1:26 reads the format field '__class__', a name starting with '_'"}));
  EXPECT_EQ(Hazards("{{ system('id') }}"), (std::vector<std::string>{"1:10 calls 'system'"}));
  EXPECT_EQ(Hazards("{{ x.mro }}"),
            (std::vector<std::string>{"1:6 reads the attribute 'mro', which Jinja's sandbox refuses"}));
}

TEST(TemplateAnalysis, NearMissesStayQuiet) {
  for (const std::string& text : {
           std::string("{{ message[key] }}{{ messages[loop.index0 + 1] }}{{ messages[-1]['content'] }}"),
           std::string("{{ x.strip().split(',')|join('_') }}{{ '__' }}{{ '_x_' ~ 'evaluation' }}"),
           std::string("{{ raise_exception('no') }}{{ strftime_now('%Y') }}{{ 'important: reimported' }}"),
           std::string("{% set ns = namespace(found=false) %}{% set ns.found = true %}{{ ns.found }}"),
           std::string("{% set c = cycler('a', 'b') %}{{ c.next() }}{{ joiner(',')() }}{{ range(3)|list }}"),
           std::string("{{ x['content'] }}{{ x|attr('role') }}{{ x|map(attribute='content.text')|list }}"),
           std::string("{# {{ cycler.__init__ }} #}{% raw %}{{ lipsum.__globals__ }}{% endraw %}"),
           std::string("{{ '%s: %d' % (role, 3) }}{{ system }}{{ message.system }}{{ tools|tojson }}"),
           std::string("{% macro system(text) %}<<SYS>>{{ text }}{% endmacro %}{{ system(messages[0].content) }}"),
       }) {
    EXPECT_EQ(Hazards(text), std::vector<std::string>{}) << text;
  }
}

TEST(TemplateAnalysis, RealTemplateShapesGiveNoFinding) {
  for (const ChatTemplateCase& c : RealShapeTemplates()) {
    const TemplateReading reading = ReadTemplate(c.text);
    EXPECT_FALSE(reading.invalid) << c.name << "\n" << Describe(reading);
    EXPECT_TRUE(reading.hazards.empty()) << c.name << "\n" << Describe(reading);
  }
}

TEST(TemplateAnalysis, EveryKnownInjectionIsRefused) {
  for (const ChatTemplateCase& c : InjectionTemplates()) {
    const TemplateReading reading = ReadTemplate(c.text);
    EXPECT_FALSE(reading.invalid) << c.name << "\n" << Describe(reading);
    EXPECT_FALSE(reading.hazards.empty()) << c.name << ": " << c.text;
  }
}

// Item 5: every generated obfuscation of a Python internal is refused; every benign twin of the
// same shapes passes. The counts go to the log (and the closing note).
TEST(TemplateAnalysis, PropertyObfuscatedAccessesAreRefusedAndBenignTwinsPass) {
  constexpr std::size_t kCount = 4000;
  std::size_t refused = 0;
  for (const ChatTemplateCase& c : GeneratedTemplates(20261206, kCount, false)) {
    const TemplateReading reading = ReadTemplate(c.text);
    ASSERT_FALSE(reading.invalid) << c.name << ": " << c.text << "\n" << Describe(reading);
    EXPECT_FALSE(reading.hazards.empty()) << c.name << ": " << c.text;
    refused += reading.hazards.empty() ? 0U : 1U;
  }
  std::size_t passed = 0;
  for (const ChatTemplateCase& c : GeneratedTemplates(20261206, kCount, true)) {
    const TemplateReading reading = ReadTemplate(c.text);
    ASSERT_FALSE(reading.invalid) << c.name << ": " << c.text << "\n" << Describe(reading);
    EXPECT_TRUE(reading.hazards.empty()) << c.name << ": " << c.text << "\n" << Describe(reading);
    passed += reading.hazards.empty() ? 1U : 0U;
  }
  std::cout << "property: " << refused << "/" << kCount << " obfuscated accesses refused, " << passed << "/" << kCount
            << " benign twins passed\n";
}

// The parser's differential: windows of the corpus templates mutated the way a broken writer or
// an attacker would (tags, brackets, quotes, escapes, keywords inserted, bytes cut) are parsed
// by Jinja2 (env.parse, the extensions chat renderers enable) and by ReadTemplate: both accept
// or both refuse each one.
TEST(TemplateSyntax, AgreesWithJinjaOnMutants) {
  if (RunCommand("/usr/bin/python3 -c 'import jinja2.sandbox' 2>/dev/null").exit_code != 0) {
    CKPT_MISSING_PREREQUISITE() << "python3-jinja2 is missing";
  }
  std::vector<std::string> seeds;
  for (const auto& part : {RealShapeTemplates(), InjectionTemplates(), GeneratedTemplates(11, 50, false)}) {
    for (const ChatTemplateCase& c : part) seeds.push_back(c.text);
  }
  const std::vector<std::string> inserts = {"{{",    "}}",   "{%",    "%}",   "{#",     "#}",        "(",
                                            ")",     "[",    "]",     "'",    "\"",     "|",         ".",
                                            ",",     "-",    "~",     " if ", " else ", "endif",     "endfor",
                                            "\\",    "\\x",  "\\u00", "{%-",  "-%}",    "{% raw %}", "{% endraw %}",
                                            " not ", " is ", " in ",  "=",    "*",      "**",        ":",
                                            "{",     "}",    "0x",    "1_",   "\\N{"};
  std::mt19937 rng(49);
  const auto pick = [&](std::size_t n) { return std::uniform_int_distribution<std::size_t>(0, n - 1)(rng); };
  constexpr std::size_t kMutants = 2000;
  std::vector<std::string> mutants;
  boost::json::array manifest;
  // Templates are text: a mutant cut inside a UTF-8 sequence is drawn again.
  const auto valid_utf8 = [](std::string_view text) {
    std::uint32_t cp = 0;
    for (std::size_t at = 0; at < text.size();) {
      const std::size_t length = DecodeUtf8(text, at, cp);
      if (length == 0) return false;
      at += length;
    }
    return true;
  };
  while (mutants.size() < kMutants) {
    const std::size_t i = mutants.size();
    const std::string& seed = seeds[pick(seeds.size())];
    const std::size_t from = pick(seed.size());
    std::string text = seed.substr(from, 20 + pick(400));
    for (std::size_t edits = 1 + pick(3); edits > 0; --edits) {
      const std::size_t at = pick(text.size() + 1);
      if (pick(2) == 0) {
        text.insert(at, inserts[pick(inserts.size())]);
      } else if (!text.empty()) {
        text.erase(std::min(at, text.size() - 1), 1 + pick(4));
      }
    }
    if (!valid_utf8(text)) continue;
    manifest.push_back(boost::json::object{{"name", std::to_string(i)}, {"text", text}});
    mutants.push_back(std::move(text));
  }
  const fs::path dir = fs::temp_directory_path() / ("ckpt-parse-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / "manifest.json") << boost::json::serialize(manifest);
  const CommandResult run =
      RunCommand("/usr/bin/python3 " + ShellQuote(fs::path(SourceDir()) / "tests/templates/sandbox_render.py") +
                 " --parse-only " + ShellQuote(dir / "manifest.json"));
  fs::remove_all(dir);
  ASSERT_EQ(run.exit_code, 0) << run.output;
  const boost::json::value out = boost::json::parse(run.output);
  std::size_t both_parse = 0;
  std::size_t both_refuse = 0;
  for (const auto& result : out.at("results").as_array()) {
    const std::size_t i = std::stoul(std::string(result.at("name").as_string()));
    const bool jinja_refuses = result.at("syntax").as_bool();
    const TemplateReading reading = ReadTemplate(mutants[i]);
    EXPECT_EQ(reading.invalid.has_value(), jinja_refuses)
        << "mutant " << i << ": Jinja2 "
        << (jinja_refuses ? "refuses (" + std::string(result.at("error").as_string()) + ")" : "parses")
        << ", ReadTemplate " << (reading.invalid ? "refuses (" + reading.invalid->message + ")" : "parses") << "\n"
        << mutants[i];
    (jinja_refuses ? both_refuse : both_parse) += reading.invalid.has_value() == jinja_refuses ? 1U : 0U;
  }
  std::cout << "parser differential: " << kMutants << " mutants, " << both_parse << " parsed by both, " << both_refuse
            << " refused by both\n";
}

// Item 4: Jinja2's own sandbox renders every template the analysis passes without refusing
// anything, and refuses (or fails on) every template the analysis refuses, unless the case
// says why the analysis over-approximates.
TEST(TemplateAnalysis, AgreesWithJinjaSandbox) {
  if (RunCommand("/usr/bin/python3 -c 'import jinja2.sandbox' 2>/dev/null").exit_code != 0) {
    CKPT_MISSING_PREREQUISITE() << "python3-jinja2 is missing";
  }
  std::vector<ChatTemplateCase> corpus = RealShapeTemplates();
  for (auto& part : {InjectionTemplates(), GeneratedTemplates(7, 300, false), GeneratedTemplates(7, 300, true)}) {
    corpus.insert(corpus.end(), part.begin(), part.end());
  }
  boost::json::array manifest;
  std::map<std::string, const ChatTemplateCase*> by_name;
  for (const ChatTemplateCase& c : corpus) {
    manifest.push_back(boost::json::object{{"name", c.name}, {"text", c.text}});
    by_name[c.name] = &c;
  }
  const fs::path dir = fs::temp_directory_path() / ("ckpt-sandbox-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const fs::path manifest_path = dir / "manifest.json";
  std::ofstream(manifest_path) << boost::json::serialize(manifest);
  const CommandResult run =
      RunCommand("/usr/bin/python3 " + ShellQuote(fs::path(SourceDir()) / "tests/templates/sandbox_render.py") + " " +
                 ShellQuote(manifest_path));
  fs::remove_all(dir);
  ASSERT_EQ(run.exit_code, 0) << run.output;
  const boost::json::value out = boost::json::parse(run.output);
  std::size_t passing = 0;
  std::size_t refused_by_both = 0;
  std::size_t over = 0;
  for (const auto& result : out.at("results").as_array()) {
    const std::string name(result.at("name").as_string());
    const ChatTemplateCase& c = *by_name.at(name);
    const bool sandbox_refused = result.at("security").as_int64() > 0;
    const std::string error(result.at("error").as_string());
    ASSERT_FALSE(result.at("syntax").as_bool()) << name << ": " << error;
    if (!Refused(c.text)) {
      ++passing;
      EXPECT_FALSE(sandbox_refused) << name << " passes the analysis but the sandbox refuses it: " << error << "\n"
                                    << c.text;
      continue;
    }
    if (sandbox_refused || !error.empty()) {
      ++refused_by_both;
      continue;
    }
    ++over;
    EXPECT_FALSE(c.over_approximation.empty())
        << name << " is refused by the analysis but the sandbox renders it: list it with a reason\n"
        << c.text;
  }
  std::cout << "sandbox differential (jinja2 " << out.at("jinja2").as_string() << "): " << passing
            << " passing rendered without a refusal, " << refused_by_both << " refused by both, " << over
            << " deliberate over-approximations\n";
}

}  // namespace
}  // namespace ckpt::testing
