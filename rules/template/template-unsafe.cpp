// template-unsafe: a chat template reaches Python internals or calls code.
// Detected while reading: lib/metadata/template_analysis.cpp reads the template; the readers
// of model folders and GGUF report Diag::kTemplateUnsafe through lib/metadata/chat_templates.cpp.
#include "rules/catalog.h"
#include "rules/rule_helpers.h"

namespace ckpt::rules::template_unsafe {

const RuleInfo kRule{
    .id = "template-unsafe",
    .name = "TemplateUnsafe",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "A chat template reaches Python internals or calls code",
    .explanation =
        "Runtimes render a model's chat template (tokenizer_config.json, chat_template.jinja, GGUF "
        "tokenizer.chat_template, ...) with Jinja2 for every request. A template that reads a name starting with '_' "
        "(__globals__, __class__), an attribute of a global callable (cycler, lipsum, joiner, namespace, range, "
        "dict), an item or |attr name computed by string operations, or calls import, eval, exec, open, getattr, os, "
        "subprocess, popen or system runs code in a renderer without a sandbox (llama-cpp-python CVE-2024-34359, "
        "vLLM 2025, SGLang CVE-2026-5760). Names are read after folding string constants (~, +, %, format, join, "
        "reverse, replace, lower, upper, slices, {% set %} and loop and macro variables), so spelling a name in "
        "pieces does not hide it.",
    .remediation = "Replace the template with the model's published one, or remove the access the finding names.",
    .security = true,
};

}  // namespace ckpt::rules::template_unsafe
