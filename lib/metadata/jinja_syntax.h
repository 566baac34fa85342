// A Jinja2 3.x front end: the lexer and parser of the template language as Jinja2 reads it
// (statements, expressions, filters, tests, string escapes, whitespace control, raw blocks,
// comments), for analysis only (code-in-metadata.md section 3). Nothing is rendered.
//
// Bounded: the template's size, its token and node counts and its nesting depth are capped,
// and a template past a bound is refused as Jinja would refuse it (its own recursion limit).
// The parser keeps its open blocks and expression rules on explicit stacks, so its native stack
// does not grow with the template's nesting. The tree is a flat vector in which every node comes
// after its children, so analyses walk it in one pass with no recursion.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ckpt::jinja {

inline constexpr std::size_t kMaxTemplateBytes = std::size_t{4} << 20;
inline constexpr std::size_t kMaxNodes = std::size_t{1} << 20;
/// Nested brackets, unary operators, conditional expressions and statement blocks together.
inline constexpr std::size_t kMaxNesting = 64;

inline constexpr std::uint32_t kNoNode = UINT32_MAX;

enum class NodeKind : std::uint8_t {
  // Expressions.
  kString,      ///< a string literal (adjacent literals joined); `text` is its decoded value
  kNumber,      ///< an integer or float literal; `text` is its Python str()
  kConstant,    ///< true, false, none (any case Jinja accepts)
  kName,        ///< a variable; `text` is its name
  kTuple,       ///< children: the items
  kList,        ///< children: the items
  kDict,        ///< children: key, value, key, value, ...
  kGetattr,     ///< `x.name`: children[0] the object; `text` the attribute
  kGetitem,     ///< `x[i]`: children[0] the object, children[1] the index (a kSlice for slices)
  kSlice,       ///< children: start, stop, step (kNoNode when absent)
  kCall,        ///< children[0] the callee, then the arguments
  kKeyword,     ///< `name=value` in a call: `text` the name, children[0] the value
  kStarArgs,    ///< `*args` in a call: children[0]
  kStarKwargs,  ///< `**kwargs` in a call: children[0]
  kFilter,      ///< `x|name(args)`: children[0] the operand (kNoNode in a filter block), then args
  kTest,        ///< `x is name(args)`: children[0] the operand, then args
  kBinary,      ///< `text` the operator (~ + - * / // % ** and or in "not in" == != < <= > >=)
  kUnary,       ///< `text` the operator (not - +): children[0]
  kCondExpr,    ///< `a if c else b`: children: a, c, b (kNoNode without else)
  // Statements.
  kBody,         ///< a sequence of statements: children
  kData,         ///< template text outside tags; `text` the text
  kOutput,       ///< `{{ expr }}`: children[0]
  kFor,          ///< children: target, iterable, condition (or kNoNode), body, else body (or kNoNode)
  kIf,           ///< children: condition, body, else (a kBody, a nested kIf for elif, or kNoNode)
  kSet,          ///< children: target, value
  kSetBlock,     ///< children: target, body, filter (a kFilter chain with no operand, or kNoNode)
  kMacro,        ///< `text` the name; children: body, then the parameters (kName or kKeyword)
  kCallBlock,    ///< children: the call, body, then the caller's parameters
  kFilterBlock,  ///< children: the filter chain, body
  kWith,         ///< children: body, then the assignments (kKeyword with a name target)
  kBlock,        ///< `{% block name %}`: `text` the name; children: body
  kStatement,    ///< any other statement (include, import, extends, print, do, autoescape,
                 ///< generation, break, continue): `text` its tag; children: expressions, bodies
};

struct Node {
  NodeKind kind = NodeKind::kBody;
  std::uint32_t line = 1;
  std::uint32_t column = 1;
  std::string text;
  std::vector<std::uint32_t> children;
};

struct SyntaxError {
  std::uint32_t line = 1;
  std::uint32_t column = 1;
  std::string message;
};

struct Template {
  std::vector<Node> nodes;  ///< every node after its children; the root (a kBody) is last
  std::optional<SyntaxError> error;
  [[nodiscard]] std::uint32_t root() const { return static_cast<std::uint32_t>(nodes.size() - 1); }
};

/// Lexes and parses `text` as Jinja2 3.x with the extensions Hugging Face's chat-template
/// environment enables (loop controls, `generation`) and `do`. On an error, `error` says
/// where and why, and `nodes` holds what was built (not a tree to analyse).
Template Parse(std::string_view text);

}  // namespace ckpt::jinja
