// Near misses of the template rules: inputs as close to firing as each rule allows (tests/support/near_misses.h).
#include "tests/support/near_misses/near_miss_list.h"

namespace ckpt::testing {

void AddTemplateNearMisses(std::vector<NearMiss>& n) {
  // Underscores in text, plain subscripts, a namespace, method calls, raise_exception: quiet.
  ModelNear(n, "template-unsafe", "a template with loops, namespaces and underscored text", [] {
    Files f = ModelFolderSpec{}.Build();
    f["tokenizer_config.json"] =
        R"({"chat_template": "{% set ns = namespace(found=false) %}{% for message in messages %}{% if message['role'] == 'system' %}{% set ns.found = true %}{% endif %}{{ '<|' ~ message.role ~ '|>' ~ message['content'].strip() ~ '__end__' }}{% endfor %}{% if not ns.found %}{{ raise_exception('no system') }}{% endif %}"})";
    f["chat_template.jinja"] =
        "{# cycler.__init__ is only a comment #}{% raw %}{{ x.__class__ }}{% endraw %}{{ messages[-1]['content'] }}";
    return f;
  });
  GgufNear(n, "template-unsafe", "a GGUF template reading message items", [] {
    gg::Spec s = gg::Several();
    s.kvs[3] =
        gg::Str("tokenizer.chat_template",
                "{%- for message in messages -%}{{ message[key] }}{{ messages[loop.index0 + 1] }}{%- endfor -%}");
    return s;
  });
  // Jinja's less common syntax that still parses: raw blocks, whitespace control, loop controls.
  ModelNear(n, "template-invalid", "raw, whitespace control, break and generation", [] {
    Files f = ModelFolderSpec{}.Build();
    f["chat_template.jinja"] =
        "{%- for m in messages -%}{%+ if loop.index0 > 8 %}{% break %}{% endif %}{% generation %}{{- m.content -}}"
        "{% endgeneration %}{%- endfor %}{% raw %}{% unclosed {{ %}{% endraw %}";
    f["additional_chat_templates/tool_use.jinja"] = "{{ tools | tojson(indent=2) }}";
    return f;
  });
}

}  // namespace ckpt::testing
