// template-invalid: a chat template does not parse as Jinja2.
// Detected while reading: lib/metadata/jinja_syntax.cpp parses the template; the readers of
// model folders and GGUF report Diag::kTemplateInvalid through lib/metadata/chat_templates.cpp.
#include "rules/catalog.h"
#include "rules/rule_helpers.h"

namespace ckpt::rules::template_invalid {

const RuleInfo kRule{
    .id = "template-invalid",
    .name = "TemplateInvalid",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kWarning,
    .title = "A chat template does not parse as Jinja2",
    .explanation =
        "The template is not one Jinja2 3.x compiles (an unclosed tag, an unknown statement, a bad string escape, "
        "nesting past the bound): renderers refuse it too, so chat requests to this model fail, and what it would "
        "reach cannot be checked.",
    .remediation = "Fix the template, or replace it with the model's published one.",
    .security = false,
};

}  // namespace ckpt::rules::template_invalid
