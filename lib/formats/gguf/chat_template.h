// What a GGUF chat template (a Jinja template that runtimes render) reaches, read as Jinja
// would read its string literals: escapes decoded (\x5f, \u005f, \U0000005f, octal) and
// adjacent literals joined with `~` or `+` concatenated, so "'__glo' ~ 'bals__'" is
// `__globals__` (inputs.md section 5). Facts only: the reader reports, a rule judges.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace ckpt {

/// The first hazard in `text`: a Python internal (`__globals__`, any dunder name in an
/// identifier or a literal), the `attr` filter, or the words import, os., subprocess, popen,
/// eval, exec; nullopt when it has none.
std::optional<std::string> FindChatTemplateHazard(std::string_view text);

}  // namespace ckpt
