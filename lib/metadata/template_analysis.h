// What a Jinja chat template reaches (code-in-metadata.md section 3), read from its syntax
// tree with string constants folded: literals joined by `~` and `+`, `%` and `|format` with
// constant arguments, `|join`, `|reverse`, `|replace`, `|lower`, `|upper`, slices, repetition,
// the constant string methods, `dict(a=1)|join`, and `{% set %}`, `{% for %}`, `{% with %}`
// and macro parameters bound to such constants. Facts only: a reader reports them, rules judge.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lib/metadata/jinja_syntax.h"

namespace ckpt {

/// One access or call the template makes that renders code (or may, since folding cannot
/// name it): where it is inside the template and what it reaches, as a clause
/// ("reads the attribute '__globals__', a name starting with '_'").
struct TemplateHazard {
  std::uint32_t line = 1;
  std::uint32_t column = 1;
  std::string what;
  std::string name;  ///< the folded name involved ("" when computed)
};

struct TemplateReading {
  std::optional<jinja::SyntaxError> invalid;  ///< Jinja would refuse to compile it
  std::vector<TemplateHazard> hazards;        ///< in template order, each place once (at most 1,000)
};

/// Parses `text` as Jinja2 does and lists its hazards: an attribute or item name (or folded
/// string used as one) starting with `_` or refused by Jinja's sandbox, any attribute of a
/// global callable (lipsum, cycler, joiner, namespace, range, dict), an item or `|attr` name
/// computed by string operations, a call of import/eval/exec/open/getattr/os/subprocess/
/// popen/system by any spelling that folds to it, a `str.format` field reaching a
/// Python internal.
TemplateReading ReadTemplate(std::string_view text);

}  // namespace ckpt
