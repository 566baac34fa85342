#!/usr/bin/python3
"""Renders chat templates in Jinja2's ImmutableSandboxedEnvironment, configured as transformers
configures it for chat templates (trim_blocks, lstrip_blocks, loop controls, the generation
tag, raise_exception and strftime_now), and says for each what the sandbox did: whether it
refused an access (raised SecurityError, or handed back its security Undefined, which the
sandbox does for an unsafe attribute that is only printed), failed another way, or rendered.

    sandbox_render.py MANIFEST.json  ->  JSON on stdout: [{"name", "security", "error", "syntax"}]
    sandbox_render.py --parse-only MANIFEST.json  ->  [{"name", "syntax", "error"}]: whether Jinja2
        compiles each template at all (the parser's differential), nothing rendered

The manifest is a list of {"name", "text"}. Each template is rendered against two
conversations (plain alternating turns; a system prompt with tools and a tool call), and a
result counts what happened in either.
"""
import datetime
import json
import sys

import jinja2
from jinja2 import nodes
from jinja2.ext import Extension
from jinja2.sandbox import ImmutableSandboxedEnvironment, SecurityError


class GenerationTag(Extension):
    """transformers' {% generation %}...{% endgeneration %} (its AssistantTracker), rendering the body."""

    tags = {"generation"}

    def parse(self, parser):
        lineno = next(parser.stream).lineno
        body = parser.parse_statements(["name:endgeneration"], drop_needle=True)
        return nodes.CallBlock(self.call_method("_render"), [], [], body).set_lineno(lineno)

    def _render(self, caller):
        return caller()


class RecordingSandbox(ImmutableSandboxedEnvironment):
    """Counts the accesses the sandbox refuses without raising (printing its security Undefined)."""

    refused = 0

    def unsafe_undefined(self, obj, attribute):
        RecordingSandbox.refused += 1
        return super().unsafe_undefined(obj, attribute)


def raise_exception(message):
    raise jinja2.exceptions.TemplateError(message)


def strftime_now(fmt):
    return datetime.datetime(2026, 12, 6).strftime(fmt)


CONVERSATIONS = [
    {
        "messages": [
            {"role": "user", "content": "Hello"},
            {"role": "assistant", "content": "Hi there"},
            {"role": "user", "content": "How are you?"},
        ],
        "add_generation_prompt": True,
    },
    {
        "messages": [
            {"role": "system", "content": "Be brief."},
            {"role": "user", "content": "Weather in Paris?"},
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {"type": "function", "function": {"name": "get_weather", "arguments": {"city": "Paris"}}}
                ],
            },
            {"role": "tool", "content": "sunny"},
        ],
        "tools": [{"type": "function", "function": {"name": "get_weather", "parameters": {}}}],
        "add_generation_prompt": False,
    },
]


def render(text):
    env = RecordingSandbox(trim_blocks=True, lstrip_blocks=True, extensions=[GenerationTag, "jinja2.ext.loopcontrols"])
    env.globals["raise_exception"] = raise_exception
    env.globals["strftime_now"] = strftime_now
    errors = []
    # Jinja folds constant expressions while compiling: a refusal can happen here already.
    RecordingSandbox.refused = 0
    try:
        template = env.from_string(text)
    except jinja2.TemplateSyntaxError as e:
        return {"security": 0, "error": "TemplateSyntaxError: " + str(e), "syntax": True}
    except SecurityError as e:
        return {"security": 1, "error": "SecurityError: " + str(e)[:200], "syntax": False}
    security = RecordingSandbox.refused
    for context in CONVERSATIONS:
        RecordingSandbox.refused = 0
        try:
            template.render(bos_token="<s>", eos_token="</s>", **context)
        except SecurityError as e:
            security += 1
            errors.append("SecurityError: " + str(e)[:200])
        except Exception as e:  # any failure of the render is what the sandbox did
            errors.append(type(e).__name__ + ": " + str(e)[:200])
        security += RecordingSandbox.refused
    return {"security": security, "error": "; ".join(errors), "syntax": False}


def parse_only(text):
    env = RecordingSandbox(trim_blocks=True, lstrip_blocks=True, extensions=[GenerationTag, "jinja2.ext.loopcontrols", "jinja2.ext.do"])
    try:
        env.parse(text)
    except jinja2.TemplateSyntaxError as e:
        return {"syntax": True, "error": str(e)[:200]}
    except Exception as e:  # a RecursionError, a decoder's error: refused too
        return {"syntax": True, "error": type(e).__name__ + ": " + str(e)[:200]}
    return {"syntax": False, "error": ""}


def main():
    parse = sys.argv[1] == "--parse-only"
    with open(sys.argv[-1], encoding="utf-8") as f:
        cases = json.load(f)
    out = []
    for case in cases:
        result = parse_only(case["text"]) if parse else render(case["text"])
        result["name"] = case["name"]
        out.append(result)
    json.dump({"jinja2": jinja2.__version__, "results": out}, sys.stdout)


if __name__ == "__main__":
    main()
