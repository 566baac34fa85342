#include "tests/support/chat_template_corpus.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdio>
#include <random>
#include <string_view>
#include <utility>

namespace ckpt::testing {

// Written for this project in the shapes the named models' templates take: the constructs,
// not the files.
std::vector<ChatTemplateCase> RealShapeTemplates() {
  std::vector<ChatTemplateCase> t;
  t.push_back({"llama3-shape", R"TPL({{- bos_token }}
{%- if custom_tools is defined %}{%- set tools = custom_tools %}{%- endif %}
{%- if not date_string is defined %}
    {%- if strftime_now is defined %}{%- set date_string = strftime_now("%d %b %Y") %}
    {%- else %}{%- set date_string = "26 Jul 2024" %}{%- endif %}
{%- endif %}
{%- if messages[0]['role'] == 'system' %}
    {%- set system_message = messages[0]['content'] | trim %}
    {%- set messages = messages[1:] %}
{%- else %}
    {%- set system_message = "" %}
{%- endif %}
{{- "<|start_header_id|>system<|end_header_id|>\n\n" }}
{%- if tools is not none and tools is defined %}{{- "Environment: ipython\n" }}{%- endif %}
{{- "Cutting Knowledge Date: December 2023\n" }}
{{- "Today Date: " + date_string + "\n\n" }}
{{- system_message }}
{{- "<|eot_id|>" }}
{%- for message in messages %}
    {%- if not (message.role == 'ipython' or message.role == 'tool' or 'tool_calls' in message) %}
        {{- '<|start_header_id|>' + message['role'] + '<|end_header_id|>\n\n' + message['content'] | trim + '<|eot_id|>' }}
    {%- elif 'tool_calls' in message %}
        {%- if not message.tool_calls | length == 1 %}
            {{- raise_exception("Only one tool call at a time is supported.") }}
        {%- endif %}
        {%- set tool_call = message.tool_calls[0].function %}
        {{- '<|start_header_id|>assistant<|end_header_id|>\n\n' -}}
        {%- if tool_call.name in ["brave_search", "wolfram_alpha"] %}
            {{- "<|python_tag|>" + tool_call.name + ".call(" }}
            {%- for arg_name, arg_val in tool_call.arguments | items %}
                {{- arg_name + '="' + arg_val + '"' }}
                {%- if not loop.last %}{{- ", " }}{%- endif %}
            {%- endfor %}
            {{- ")" }}
        {%- else %}
            {{- '{"name": "' + tool_call.name + '", "parameters": ' }}{{- tool_call.arguments | tojson }}{{- "}" }}
        {%- endif %}
        {{- "<|eom_id|>" if builtin_tools is defined else "<|eot_id|>" }}
    {%- elif message.role == "tool" or message.role == "ipython" %}
        {{- "<|start_header_id|>ipython<|end_header_id|>\n\n" }}
        {%- if message.content is mapping or message.content is iterable %}{{- message.content | tojson }}
        {%- else %}{{- message.content }}{%- endif %}
        {{- "<|eot_id|>" }}
    {%- endif %}
{%- endfor %}
{%- if add_generation_prompt %}{{- '<|start_header_id|>assistant<|end_header_id|>\n\n' }}{%- endif %}
)TPL",
               false, ""});
  t.push_back({"mistral-shape", R"TPL({%- if messages[0]['role'] == 'system' %}
    {%- set system_message = messages[0]['content'] %}
    {%- set loop_messages = messages[1:] %}
{%- else %}
    {%- set loop_messages = messages %}
{%- endif %}
{{- bos_token }}
{%- for message in loop_messages %}
    {%- if (message['role'] == 'user') != (loop.index0 % 2 == 0) %}
        {{- raise_exception('Roles must alternate between user and assistant.') }}
    {%- endif %}
    {%- if message['role'] == 'user' %}
        {%- if loop.first and system_message is defined %}
            {{- ' [INST] ' + system_message + '\n\n' + message['content'] + ' [/INST]' }}
        {%- else %}
            {{- ' [INST] ' + message['content'] + ' [/INST]' }}
        {%- endif %}
    {%- elif message['role'] == 'assistant' %}
        {{- ' ' + message['content'] + eos_token }}
    {%- else %}
        {{- raise_exception('Only user and assistant roles follow an optional system message.') }}
    {%- endif %}
{%- endfor %}
)TPL",
               false, ""});
  t.push_back({"qwen2.5-shape", R"TPL({%- if tools %}
    {{- '<|im_start|>system\n' }}
    {%- if messages[0]['role'] == 'system' %}{{- messages[0]['content'] }}
    {%- else %}{{- 'You are a helpful assistant.' }}{%- endif %}
    {{- "\n\n# Tools\n\nYou may call functions to help with the query.\n\n<tools>" }}
    {%- for tool in tools %}{{- "\n" }}{{- tool | tojson }}{%- endfor %}
    {{- "\n</tools>\n\nReturn each call as JSON in <tool_call></tool_call> tags:\n<tool_call>\n{\"name\": <function-name>, \"arguments\": <args-json-object>}\n</tool_call><|im_end|>\n" }}
{%- else %}
    {%- if messages[0]['role'] == 'system' %}
        {{- '<|im_start|>system\n' + messages[0]['content'] + '<|im_end|>\n' }}
    {%- else %}
        {{- '<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n' }}
    {%- endif %}
{%- endif %}
{%- for message in messages %}
    {%- if (message.role == "user") or (message.role == "system" and not loop.first) or (message.role == "assistant" and not message.tool_calls) %}
        {{- '<|im_start|>' + message.role + '\n' + message.content + '<|im_end|>' + '\n' }}
    {%- elif message.role == "assistant" %}
        {{- '<|im_start|>' + message.role }}
        {%- if message.content %}{{- '\n' + message.content }}{%- endif %}
        {%- for tool_call in message.tool_calls %}
            {%- if tool_call.function is defined %}{%- set tool_call = tool_call.function %}{%- endif %}
            {{- '\n<tool_call>\n{"name": "' }}{{- tool_call.name }}{{- '", "arguments": ' }}
            {{- tool_call.arguments | tojson }}{{- '}\n</tool_call>' }}
        {%- endfor %}
        {{- '<|im_end|>\n' }}
    {%- elif message.role == "tool" %}
        {%- if (loop.index0 == 0) or (messages[loop.index0 - 1].role != "tool") %}{{- '<|im_start|>user' }}{%- endif %}
        {{- '\n<tool_response>\n' }}{{- message.content }}{{- '\n</tool_response>' }}
        {%- if loop.last or (messages[loop.index0 + 1].role != "tool") %}{{- '<|im_end|>\n' }}{%- endif %}
    {%- endif %}
{%- endfor %}
{%- if add_generation_prompt %}{{- '<|im_start|>assistant\n' }}{%- endif %}
)TPL",
               false, ""});
  t.push_back({"gemma-shape",
               "{{ bos_token }}{% if messages[0]['role'] == 'system' %}{{ raise_exception('System role not "
               "supported') }}{% endif %}{% for message in messages %}{% if (message['role'] == 'user') != "
               "(loop.index0 % 2 == 0) %}{{ raise_exception('Conversation roles must alternate') }}{% endif %}{% if "
               "(message['role'] == 'assistant') %}{% set role = 'model' %}{% else %}{% set role = message['role'] "
               "%}{% endif %}{{ '<start_of_turn>' + role + '\\n' + message['content'] | trim + '<end_of_turn>\\n' "
               "}}{% endfor %}{% if add_generation_prompt %}{{'<start_of_turn>model\\n'}}{% endif %}",
               false, ""});
  t.push_back({"phi3-shape",
               "{% for message in messages %}{% if message['role'] == 'system' %}{{'<|system|>\\n' + "
               "message['content'] + '<|end|>\\n'}}{% elif message['role'] == 'user' %}{{'<|user|>\\n' + "
               "message['content'] + '<|end|>\\n'}}{% elif message['role'] == 'assistant' %}{{'<|assistant|>\\n' + "
               "message['content'] + '<|end|>\\n'}}{% endif %}{% endfor %}{% if add_generation_prompt %}{{ "
               "'<|assistant|>\\n' }}{% else %}{{ eos_token }}{% endif %}",
               false, ""});
  t.push_back({"deepseek-shape",
               R"TPL({% if not add_generation_prompt is defined %}{% set add_generation_prompt = false %}{% endif %}
{% set ns = namespace(is_first=false, is_tool=false, is_output_first=true, system_prompt='', is_first_sp=true) %}
{%- for message in messages %}
    {%- if message['role'] == 'system' %}
        {%- if ns.is_first_sp %}{% set ns.system_prompt = ns.system_prompt + message['content'] %}{% set ns.is_first_sp = false %}
        {%- else %}{% set ns.system_prompt = ns.system_prompt + '\n\n' + message['content'] %}{%- endif %}
    {%- endif %}
{%- endfor %}
{{ bos_token }}{{ ns.system_prompt }}
{%- for message in messages %}
    {%- if message['role'] == 'user' %}
        {%- set ns.is_tool = false -%}{{ '<｜User｜>' + message['content'] }}
    {%- elif message['role'] == 'assistant' and message['content'] is none %}
        {%- set ns.is_tool = false -%}
        {%- for tool in message['tool_calls'] %}
            {%- if not ns.is_first %}
                {{ '<｜Assistant｜><｜tool▁calls▁begin｜><｜tool▁call▁begin｜>' + tool['type'] + '<｜tool▁sep｜>' + tool['function']['name'] + '\n```json\n' + tool['function']['arguments'] + '\n```<｜tool▁call▁end｜>' }}
                {%- set ns.is_first = true -%}
            {%- else %}
                {{ '\n<｜tool▁call▁begin｜>' + tool['type'] + '<｜tool▁sep｜>' + tool['function']['name'] + '\n```json\n' + tool['function']['arguments'] + '\n```<｜tool▁call▁end｜>' }}
            {%- endif %}
        {%- endfor %}
        {{ '<｜tool▁calls▁end｜><｜end▁of▁sentence｜>' }}
    {%- elif message['role'] == 'assistant' %}
        {% set content = message['content'] %}
        {% if '</think>' in content %}{% set content = content.split('</think>')[-1] %}{% endif %}
        {%- if ns.is_tool %}{{ '<｜tool▁outputs▁end｜>' + content + '<｜end▁of▁sentence｜>' }}{%- set ns.is_tool = false -%}
        {%- else %}{{ '<｜Assistant｜>' + content + '<｜end▁of▁sentence｜>' }}{%- endif %}
    {%- elif message['role'] == 'tool' %}
        {%- set ns.is_tool = true -%}
        {%- if ns.is_output_first %}{{ '<｜tool▁outputs▁begin｜><｜tool▁output▁begin｜>' + message['content'] + '<｜tool▁output▁end｜>' }}{%- set ns.is_output_first = false %}
        {%- else %}{{ '\n<｜tool▁output▁begin｜>' + message['content'] + '<｜tool▁output▁end｜>' }}{%- endif %}
    {%- endif %}
{%- endfor -%}
{% if ns.is_tool %}{{ '<｜tool▁outputs▁end｜>' }}{% endif %}
{% if add_generation_prompt and not ns.is_tool %}{{ '<｜Assistant｜><think>\n' }}{% endif %}
)TPL",
               false, ""});
  t.push_back({"chatml-shape",
               "{% for message in messages %}{{'<|im_start|>' + message['role'] + '\\n' + message['content'] + "
               "'<|im_end|>' + '\\n'}}{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% "
               "endif %}",
               false, ""});
  // Newer releases: macros, the generation tag, loop controls, namespaces found in a loop,
  // selectattr/map over messages, raw blocks, comments and `+` whitespace control.
  t.push_back({"macro-and-generation-shape",
               R"TPL({#- A template with macros, the way several 2025 releases write them. -#}
{%- macro render_content(content) -%}
    {%- if content is string -%}{{- content -}}
    {%- elif content is iterable -%}
        {%- for part in content if part.type == 'text' -%}{{- part.text -}}{%- endfor -%}
    {%- else -%}{{- content | string -}}{%- endif -%}
{%- endmacro -%}
{%- set ns = namespace(last_user=-1, found=false) -%}
{%- for message in messages -%}
    {%- if message.role == 'user' %}{% set ns.last_user = loop.index0 %}{% endif -%}
{%- endfor -%}
{%- set system = messages | selectattr('role', 'equalto', 'system') | map(attribute='content') | list -%}
{%- if system %}<|system|>{{ system | join('\n') }}<|end|>{% endif -%}
{%- for message in messages -%}
    {%- if message.role == 'system' %}{% continue %}{% endif -%}
    {%- if message.role == 'assistant' -%}
        <|assistant|>{% generation %}{{- render_content(message.content) -}}{% endgeneration %}<|end|>
    {%- else -%}
        <|{{ message.role }}|>{{- render_content(message.content) -}}<|end|>
    {%- endif -%}
    {%- if loop.index0 > 1000 %}{% break %}{% endif -%}
{%- endfor -%}
{%+ raw %}{{ literal braces stay text }}{% endraw %}
{%- if add_generation_prompt %}<|assistant|>{% endif -%}
)TPL",
               false, ""});
  t.push_back({"tools-json-shape", R"TPL({%- set sep = joiner(', ') -%}
{%- set row = cycler('odd', 'even') -%}
{%- if tools -%}[{%- for tool in tools -%}{{ sep() }}{{ tool | tojson(indent=2) }}{%- endfor -%}]{%- endif -%}
{%- for message in messages -%}
<{{ row.next() }}>{{ message.role | upper }}: {{ message.content | default('', true) | replace('\r\n', '\n') }}
{%- if message.tool_calls is defined and message.tool_calls -%}
{%- for call in message.tool_calls -%}{{ '\n' ~ call.function.name ~ '(' ~ (call.function.arguments | tojson) ~ ')' }}{%- endfor -%}
{%- endif -%}
{%- set key = 'content' -%}{{ message[key] | length }}
{%- endfor -%}
{%- for i in range(2) %}{{ loop.cycle('a', 'b') }}{% endfor -%}
{{ '%s turns' % (messages | length) }}{{ '{} done'.format('all') }}{{ "%d%%" | format(100) }}
)TPL",
               false, ""});
  // Index loops over range() and accumulators that grow every pass of the folding (Gemma 4's shape):
  // an accumulator is computed, and that must not make the indexes computed.
  t.push_back({"gemma4-shape", R"TPL({%- set ns = namespace(last_user=-1) -%}
{%- set history = '' -%}
{%- for i in range(messages | length) -%}
    {%- if messages[i]['role'] == 'user' -%}{%- set ns.last_user = i -%}{%- endif -%}
    {%- set history = history ~ messages[i]['role'] ~ ',' -%}
{%- endfor -%}
{%- for j in range(ns.last_user, -1, -1) -%}<turn>{{ messages[j]['content'] }}</turn>{%- endfor -%}
{%- set prefix = '' -%}
{%- for k in range(3) -%}{%- set prefix = prefix + '>' -%}{%- endfor -%}
{{ prefix ~ history }}{{ messages[ns.last_user]['content'] if ns.last_user >= 0 else '' }}
)TPL",
               false, ""});
  return t;
}

std::vector<ChatTemplateCase> InjectionTemplates() {
  std::vector<ChatTemplateCase> t;
  const auto add = [&](std::string name, std::string text, std::string over = "") {
    t.push_back({std::move(name), std::move(text), true, std::move(over)});
  };
  // The advisories' own shapes.
  add("cve-2024-34359", "{{ cycler.__init__.__globals__.os.popen('id').read() }}");
  add("class-mro-subclasses", "{{ ''.__class__.__mro__[1].__subclasses__() }}");
  add("lipsum-globals", "{% for m in messages %}{{ lipsum.__globals__['os'].popen('id') }}{% endfor %}");
  add("joiner-init", "{{ joiner.__init__.__globals__.__builtins__.eval('1') }}");
  add("namespace-init", "{{ namespace.__init__.__globals__ }}");
  add("self-context", "{{ self._TemplateReference__context }}");
  add("range-dunder", "{{ range.__class__ }}");
  // The obfuscations the issue found the old matcher missed.
  add("format-percent-c", "{{ cycler['%c%c'|format(95,95) ~ 'init' ~ '%c%c'|format(95,95)] }}");
  add("join-list", "{{ cycler[['__in', 'it__']|join].__globals__ }}");
  add("set-then-concat", "{% set p = 'po' %}{{ cycler.__init__.__globals__.os[p ~ 'pen']('id') }}");
  add("reverse", "{{ ''|attr('__ssalc__'|reverse) }}");
  add("attr-escapes", "{{ messages|attr('\\x5f\\x5fclass\\x5f\\x5f') }}");
  add("attr-unicode-escapes", "{{ messages|attr('\\u005f\\u005fclass\\137\\137') }}");
  add("named-escape", "{{ messages|attr('\\N{LOW LINE}\\N{LOW LINE}class\\N{LOW LINE}\\N{LOW LINE}') }}");
  add("plus-concat", "{{ messages['__cla' + 'ss__'] }}");
  add("dict-join", "{{ messages[dict(__cla=1, ss__=1)|join] }}");
  add("upper-lower", "{{ messages['__CLASS__'|lower] }}");
  add("kelvin-lower", "{{ messages['__\\u212aLASS__'|lower|replace('k', 'c')] }}");
  add("slice", "{{ messages['xx__class__'[2:]] }}");
  add("step-slice", "{{ messages['__ssalc__'[::-1]] }}");
  add("repeat", "{{ messages[('_' * 2) ~ 'class' ~ ('_' * 2)] }}");
  add("str-format", "{{ messages['{}{}class{}{}'.format('_', '_', '_', '_')] }}");
  add("percent-tuple", "{{ messages['%sclass%s' % ('__', '__')] }}");
  add("replace", "{{ messages['QQclassQQ'|replace('Q', '_')] }}");
  add("method-lower", "{{ messages['__CLASS__'.lower()] }}");
  add("for-loop", "{% for n in ['__class__'] %}{{ messages[n] }}{% endfor %}");
  add("for-dict-items", "{% for k, v in {'a': '__class__'}.items() %}{{ messages[v] }}{% endfor %}");
  add("macro-default", "{% macro m(n='__class__') %}{{ messages[n] }}{% endmacro %}{{ m() }}");
  add("macro-argument", "{% macro m(n) %}{{ messages|attr(n) }}{% endmacro %}{{ m('__cl' ~ 'ass__') }}");
  add("with", "{% with n = '__class__' %}{{ messages[n] }}{% endwith %}");
  add("set-block", "{% set n %}__class__{% endset %}{{ messages[n] }}");
  add("namespace-value", "{% set ns = namespace(n='__class__') %}{{ messages[ns.n] }}");
  add("namespace-assigned", "{% set ns = namespace() %}{% set ns.n = '__class__' %}{{ messages[ns.n] }}");
  add("map-attribute", "{{ messages|map(attribute='__class__')|list }}");
  add("selectattr", "{{ messages|selectattr('__class__')|list }}");
  add("map-attr", "{{ messages|map('attr', '__class__')|list }}");
  add("format-field", "{{ '{0.__class__}'.format(messages) }}");
  add("popen-call", "{{ messages['po' ~ 'pen']('id') }}", "messages has no popen: the sandbox fails the call");
  add("eval-call", "{% set f = messages.eval %}{{ f('1') }}");
  add("mro", "{{ messages.mro() }}");
  add("sandbox-unsafe-name", "{{ messages.func_globals }}",
      "func_globals exists on Python 2 functions only: the sandbox finds nothing to refuse on a list");
  // Names the analysis cannot prove safe: computed from string operations at render time.
  add("computed-item", "{{ messages[messages[0]['role'] ~ '_x'] }}",
      "the name is computed from message data: folding cannot prove it safe");
  add("attr-variable", "{% for m in messages %}{{ m|attr(m.role) }}{% endfor %}",
      "|attr with a name the template does not fix: the caller's data picks the attribute");
  add("global-attribute", "{{ cycler.next }}",
      "any attribute of a global callable leads to its module; the sandbox finds no 'next' on the class");
  return t;
}

namespace {

// What the generator spells: names that reach Python internals, and plain names.
// Each exists on the object the template reads it from (a list, or the raise_exception
// function), so Jinja's sandbox, judging the same template, has a real access to refuse.
constexpr std::array<std::string_view, 6> kUnsafeNames = {"__class__",   "__init__", "__reduce_ex__",
                                                          "__globals__", "__code__", "__getitem__"};
constexpr std::array<std::string_view, 6> kBenignNames = {"content", "role", "name", "tool_calls", "type", "text"};

class Generator {
 public:
  explicit Generator(std::uint32_t seed) : rng_(seed) {}

  // One template using `name` at an access site, wrapped in random statements.
  std::string Template(const std::string& name) {
    layers_.clear();
    const std::string spelled = Spell(name, 3);
    const std::string host = name == "__globals__" || name == "__code__" ? "raise_exception" : "messages";
    std::string use;
    switch (Pick(5)) {
      case 0:
        use = "{{ " + host + "[" + spelled + "] }}";
        break;
      case 1:
        use = "{{ " + host + "|attr(" + spelled + ") }}";
        break;
      case 2:
        use = "{{ [" + host + "]|map(attribute=" + spelled + ")|list }}";
        break;
      case 3:
        use = "{{ [" + host + "]|selectattr(" + spelled + ")|list }}";
        break;
      default:
        use = "{{- (" + host + "|attr(" + spelled + ")) -}}";
        break;
    }
    // Outer statements around it all: loops, conditions, macros, comments, whitespace control.
    for (std::size_t k = Pick(3); k > 0; --k) {
      switch (Pick(4)) {
        case 0:
          Outer("{%- for message in messages %}", "{% endfor -%}");
          break;
        case 1:
          Outer("{% if messages %}{# a comment #}", "{%- endif %}");
          break;
        case 2: {
          const std::string macro = "outer" + std::to_string(counter_++);
          Outer("{%- macro " + macro + "() -%}", "{%- endmacro %}{{ " + macro + "() }}");
          break;
        }
        default:
          Outer("{%+ with unused = 1 +%}", "{% endwith %}");
          break;
      }
    }
    std::string out;
    for (const auto& layer : layers_) out += layer.first;
    out += use;
    for (auto it = layers_.rbegin(); it != layers_.rend(); ++it) out += it->second;
    return out;
  }

 private:
  std::size_t Pick(std::size_t n) { return std::uniform_int_distribution<std::size_t>(0, n - 1)(rng_); }

  // Statements in creation order: each opens after those before it and closes before them, so
  // a value bound later may use any name bound earlier.
  void Layer(std::string open, std::string close = "") { layers_.emplace_back(std::move(open), std::move(close)); }
  void Outer(std::string open, std::string close) {
    layers_.insert(layers_.begin(), {std::move(open), std::move(close)});
  }

  static bool IsIdentifier(std::string_view s) {
    return !s.empty() && (std::isdigit(static_cast<unsigned char>(s.front())) == 0) &&
           std::all_of(s.begin(), s.end(),
                       [](char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_'; });
  }

  // A string literal of `text`, some characters written as escapes.
  std::string Literal(std::string_view text) {
    std::string out = "'";
    for (char c : text) {
      const std::size_t how = c == '_' ? Pick(6) : Pick(10);
      char buffer[16];
      const auto byte = static_cast<unsigned char>(c);
      if (how == 1) {
        std::snprintf(buffer, sizeof buffer, "\\x%02x", byte);
        out += buffer;
      } else if (how == 2) {
        std::snprintf(buffer, sizeof buffer, "\\u%04x", byte);
        out += buffer;
      } else if (how == 3) {
        std::snprintf(buffer, sizeof buffer, "\\%03o", byte);
        out += buffer;
      } else if (how == 4 && c == '_') {
        out += "\\N{LOW LINE}";
      } else if (c == '\'' || c == '\\') {
        out += '\\';
        out += c;
      } else {
        out += c;
      }
    }
    return out + "'";
  }

  // A new variable bound to `value` by one of the binding statements; returns its use.
  std::string Bind(const std::string& value, const std::string& text) {
    const std::string var = "v" + std::to_string(counter_++);
    switch (Pick(6)) {
      case 0:
        Layer("{%- set " + var + " = " + value + " %}");
        return var;
      case 1:
        Layer("{% for " + var + " in [" + value + "] -%}", "{%- endfor %}");
        return var;
      case 2:
        Layer("{% with " + var + " = " + value + " %}", "{% endwith %}");
        return var;
      case 3: {
        const std::string ns = "ns" + std::to_string(counter_++);
        Layer("{% set " + ns + " = namespace(p=" + value + ") %}");
        return ns + ".p";
      }
      case 4:
        if (text.find_first_of("{}%#") == std::string::npos) {
          Layer("{% set " + var + " %}" + text + "{% endset %}");
        } else {
          Layer("{%- set " + var + " = " + value + " %}");
        }
        return var;
      default: {
        // A macro parameter, given at the call site or as its default.
        const std::string macro = "m" + std::to_string(counter_++);
        if (Pick(2) == 0) {
          Layer("{%- macro " + macro + "(" + var + "=" + value + ") -%}", "{%- endmacro %}{{ " + macro + "() }}");
        } else {
          Layer("{%- macro " + macro + "(" + var + ") -%}", "{%- endmacro %}{{ " + macro + "(" + value + ") }}");
        }
        return var;
      }
    }
  }

  // An expression that folds to `text`, `depth` levels of obfuscation deep.
  std::string Spell(const std::string& text, int depth) {
    if (depth <= 0 || text.size() < 2) return Literal(text);
    const std::size_t cut = 1 + Pick(text.size() - 1);
    const std::string left = text.substr(0, cut);
    const std::string right = text.substr(cut);
    std::string expr;
    switch (Pick(14)) {
      case 0:
        expr = "(" + Spell(left, depth - 1) + " ~ " + Spell(right, depth - 1) + ")";
        break;
      case 1:
        expr = "(" + Spell(left, depth - 1) + " + " + Spell(right, depth - 1) + ")";
        break;
      case 2:
        expr = "([" + Spell(left, depth - 1) + ", " + Spell(right, depth - 1) + "]|join)";
        break;
      case 3:
        expr = "('%s%s'|format(" + Spell(left, depth - 1) + ", " + Spell(right, depth - 1) + "))";
        break;
      case 4:
        expr = "('%s%s' % (" + Spell(left, depth - 1) + ", " + Spell(right, depth - 1) + "))";
        break;
      case 5:
        expr = "('{}{}'.format(" + Spell(left, depth - 1) + ", " + Spell(right, depth - 1) + "))";
        break;
      case 6: {
        std::string reversed(text.rbegin(), text.rend());
        expr = Pick(2) == 0 ? "(" + Spell(reversed, depth - 1) + "|reverse)"
                            : "(" + Spell(reversed, depth - 1) + ")[::-1]";
        break;
      }
      case 7: {
        std::string junk;
        for (char c : text) {
          junk += c;
          if (Pick(3) == 0) junk += '!';
        }
        expr = "(" + Spell(junk, depth - 1) + "|replace('!', ''))";
        break;
      }
      case 8: {
        std::string upper = text;
        std::transform(upper.begin(), upper.end(), upper.begin(), [](char c) { return std::toupper(c); });
        expr = Pick(2) == 0 ? "(" + Spell(upper, depth - 1) + "|lower)" : "(" + Spell(upper, depth - 1) + ").lower()";
        break;
      }
      case 9:
        expr = "(" + Spell("zz" + text, depth - 1) + ")[2:]";
        break;
      case 10:
        if (IsIdentifier(left) && IsIdentifier(right) && left != right) {
          expr = "(dict(" + left + "=1, " + right + "=2)|join)";
        } else {
          expr = "(" + Spell(left, depth - 1) + " ~ " + Spell(right, depth - 1) + ")";
        }
        break;
      case 11:
        if (left.find_first_not_of('_') == std::string::npos && left.size() >= 2) {
          expr = "(('_' * " + std::to_string(left.size()) + ") ~ " + Spell(right, depth - 1) + ")";
        } else {
          expr = "(" + Spell(left, depth - 1) + " ~ " + Spell(right, depth - 1) + ")";
        }
        break;
      case 12:
        if (left == "_") {
          expr = "('%c'|format(95) ~ " + Spell(right, depth - 1) + ")";
        } else {
          expr = "(" + Spell(left, depth - 1) + " ~ " + Spell(right, depth - 1) + ")";
        }
        break;
      default:
        return Bind(Spell(text, depth - 1), text);
    }
    return Pick(4) == 0 ? Bind(expr, text) : expr;
  }

  std::mt19937 rng_;
  std::vector<std::pair<std::string, std::string>> layers_;
  std::size_t counter_ = 0;
};

}  // namespace

std::vector<ChatTemplateCase> GeneratedTemplates(std::uint32_t seed, std::size_t count, bool benign) {
  Generator generator(seed);
  std::mt19937 pick(seed ^ 0x9e3779b9U);
  std::vector<ChatTemplateCase> out;
  out.reserve(count);
  for (std::size_t i = 0; i < count; ++i) {
    const auto& names = benign ? kBenignNames : kUnsafeNames;
    const std::string name(names[std::uniform_int_distribution<std::size_t>(0, names.size() - 1)(pick)]);
    out.push_back(
        {(benign ? "benign-" : "unsafe-") + std::to_string(i) + "-" + name, generator.Template(name), !benign, ""});
  }
  return out;
}

}  // namespace ckpt::testing
