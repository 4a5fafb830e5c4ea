"""A conversation as Markdown (to read) or JSON (the full event stream, to replay).

Both are built from the stored event bodies and passed through :func:`redact` once more,
so an export holds no secret even from a file written before a rule was added.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from app.history.redact import redact
from app.history.store import Conversation

FORMAT = "calculon-conversation"
FORMAT_VERSION = 1

Body = Mapping[str, Any]


def to_json(conversation: Conversation, bodies: list[dict[str, Any]]) -> str:
    document = {
        "format": FORMAT,
        "version": FORMAT_VERSION,
        "conversation": {"id": conversation.id, "title": conversation.title, "created": conversation.created},
        "events": redact(bodies),
    }
    return json.dumps(document, ensure_ascii=False, indent=1)


def to_markdown(conversation: Conversation, bodies: list[dict[str, Any]]) -> str:
    lines = [f"# {conversation.title}", ""]
    for body in redact(bodies):
        lines.extend(_markdown(body))
    return "\n".join(lines).rstrip() + "\n"


def _markdown(body: Body) -> list[str]:
    kind = body["kind"]
    if kind == "turn_started":
        return ["## Question", "", body["text"], ""]
    if kind == "tool_call_finished":
        return _tool_call(body)
    if kind == "check_finished" and body["will_reask"]:
        return [
            f"*Check {body['attempt']}: unbacked {', '.join(body['unbacked'])}; the model was asked again.*",
            "",
        ]
    if kind == "answer_ready":
        return ["## Answer", "", body["text"], "", f"**{_verdict(body)}**", ""]
    if kind == "turn_error":
        return [f"> **{body['category']}:** {body['message']}", ""]
    if kind == "user_answered":
        return [f"*Asked ({body['request']}, {body['server']}): {body['answer']}*", ""]
    return []


def _tool_call(body: Body) -> list[str]:
    status = "error" if body["is_error"] else "result"
    arguments = json.dumps(body["arguments"], ensure_ascii=False)
    return [
        f"### Tool call `{body['server']}.{body['tool']}` ({body['duration_ms']:.0f} ms)",
        "",
        f"Arguments: `{arguments}`",
        "",
        f"{status.capitalize()}:",
        "",
        "```",
        str(body["result"]),
        "```",
        "",
    ]


def _verdict(body: Body) -> str:
    if body["verified"] is None:
        return "Calculon mode was off: numbers not checked."
    if body.get("verdict") == "computed":
        return f"≈ computed, not verified: check the formula: {body.get('formula') or 'see the tool calls'}"
    if body.get("verdict") == "not_calculated":
        return f"— not calculated: {body.get('basis') or 'no tool computed the number the answer states'}"
    if body.get("verdict") == "untrusted":
        return f"⚠ from an untrusted server, not verified: {body.get('basis') or 'see the tool calls'}"
    if body.get("verdict") == "unchecked":
        return f"· nothing was checked: {body.get('basis') or 'no tool result stands behind the answer'}"
    if not body["verified"]:
        return f"✗ unverified: {', '.join(body['unbacked'])}"
    sources = "; ".join(f"{number} ← {source}" for number, source in body["backing"])
    return f"✓ verified{' · ' + sources if sources else ''}"
