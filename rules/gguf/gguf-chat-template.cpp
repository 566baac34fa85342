// gguf-chat-template: Chat template reaching Python internals.
// Detected while reading, by lib/formats/gguf_reader.cpp.
#include "rules/catalog.h"

namespace ckpt::rules::gguf_chat_template {

const RuleInfo kRule{
    .id = "gguf-chat-template",
    .name = "GgufChatTemplate",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kWarning,
    .title = "Chat template reaching Python internals",
    .explanation =
        "tokenizer.chat_template is a Jinja template that runtimes render; one that reaches "
        "__class__, __globals__, __subclasses__, __builtins__ or import is a template-injection "
        "attempt on a runtime whose sandbox leaks them.",
    .remediation = "Review the template; replace it with the model's published one.",
    .security = true,
    .tier = Tier::kPrimary,
};

}  // namespace ckpt::rules::gguf_chat_template
