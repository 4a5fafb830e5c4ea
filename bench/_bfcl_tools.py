"""BFCL's function docs and questions, from the ``bfcl-eval`` package's data files.

Tools: the union of every function doc in the single-turn categories (irrelevance
ones included as distractors), deduplicated by name. Queries: each question with
a ground truth; its labels are the ground-truth function names.
"""

from __future__ import annotations

import dataclasses
import importlib.resources
import json
from collections.abc import Iterator
from typing import Any

from app.core.tools import ToolInfo

CATEGORIES = (
    "simple_python",
    "multiple",
    "parallel",
    "parallel_multiple",
    "live_simple",
    "live_multiple",
    "live_parallel",
    "live_parallel_multiple",
    "simple_java",
    "simple_javascript",
)
DISTRACTORS = ("irrelevance", "live_irrelevance", "live_relevance")


@dataclasses.dataclass(frozen=True)
class Query:
    id: str
    text: str
    labels: frozenset[str]


def _jsonl(name: str) -> Iterator[dict[str, Any]]:
    path = importlib.resources.files("bfcl_eval") / "data" / name
    if not path.is_file():
        return
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            yield json.loads(line)


def _as_tool(doc: dict[str, Any]) -> ToolInfo:
    name = doc["name"]
    return ToolInfo("bfcl", name, name, doc.get("description", ""), doc.get("parameters", {}))


def _question_text(question: list[list[dict[str, str]]]) -> str:
    return " ".join(m["content"] for m in question[0] if m.get("role") == "user")


def load_bfcl() -> tuple[list[ToolInfo], list[Query]]:
    tools: dict[str, ToolInfo] = {}
    queries = []
    for category in (*CATEGORIES, *DISTRACTORS):
        answers = {a["id"]: a["ground_truth"] for a in _jsonl(f"possible_answer/BFCL_v4_{category}.json")}
        for entry in _jsonl(f"BFCL_v4_{category}.json"):
            for doc in entry["function"]:
                tools.setdefault(doc["name"], _as_tool(doc))
            if entry["id"] in answers:
                labels = frozenset(name for call in answers[entry["id"]] for name in call)
                queries.append(Query(entry["id"], _question_text(entry["question"]), labels))
    return list(tools.values()), [q for q in queries if q.text and q.labels <= tools.keys()]
