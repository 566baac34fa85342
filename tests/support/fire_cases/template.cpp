// Fire cases of the template rules: each input a rule fires on (tests/support/fire_cases.h).
#include "tests/support/fire_cases/fire_case_list.h"

namespace ckpt::testing {

void AddTemplateFireCases(std::vector<FireCase>& c) {
  // llama-cpp-python CVE-2024-34359's payload in tokenizer_config.json's chat_template.
  ModelCase(c, "template-unsafe", "cycler globals in tokenizer_config.json", [] {
    return Model(1, [](Files& f) {
      f["tokenizer_config.json"] =
          R"({"chat_template": "{% for m in messages %}{{ m.content }}{% endfor %}{{ cycler.__init__.__globals__.os.popen('id').read() }}"})";
    });
  });
  // The name spelled in pieces the old literal matcher missed, in chat_template.jinja.
  ModelCase(c, "template-unsafe", "folded name in chat_template.jinja", [] {
    return Model(1, [](Files& f) {
      f["chat_template.jinja"] =
          "{% set p = 'po' %}\n{{ lipsum['%c%c'|format(95,95) ~ 'globals__'].os[p ~ 'pen']('id') }}";
    });
  });
  // A named template of the list form, and GGUF's tokenizer.chat_template.tool_use.
  ModelCase(c, "template-unsafe", "named template in the list form", [] {
    return Model(1, [](Files& f) {
      f["tokenizer_config.json"] =
          R"({"chat_template": [{"name": "default", "template": "{{ messages[0].content }}"}, {"name": "tool_use", "template": "{{ messages|attr(['__cla', 'ss__']|join) }}"}]})";
    });
  });
  GgufCase(c, "template-unsafe", "GGUF named template", [] {
    gg::Spec s = gg::Several();
    s.kvs.push_back(gg::Str("tokenizer.chat_template.tool_use", "{{ ''|attr('__ssalc__'|reverse) }}"));
    return s;
  });
  ModelCase(c, "template-invalid", "unclosed for loop", [] {
    return Model(1, [](Files& f) { f["chat_template.jinja"] = "{% for m in messages %}\n{{ m.content }}\n"; });
  });
  ModelCase(c, "template-invalid", "unknown tag in additional_chat_templates", [] {
    return Model(1, [](Files& f) { f["additional_chat_templates/rag.jinja"] = "{% include_raw 'x' %}"; });
  });
}

}  // namespace ckpt::testing
