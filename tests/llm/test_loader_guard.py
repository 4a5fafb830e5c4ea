"""Every model load goes through the project's loader, which keeps llama.cpp off its AMX path
where the CPU reports AMX (a segfault in ``ggml_backend_amx_mul_mat``, llama.cpp #20824).

A test that built ``llama_cpp.Llama`` itself passed everywhere except on such a CPU, where it
took the whole pytest run down; so the rule is checked over the source, strings included
(a benchmark's floor runs code from a string), and the check is shown to catch a violation."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from app.llm.local import loader

ROOT = Path(__file__).resolve().parents[2]
LOADER = ROOT / "app" / "llm" / "local" / "loader.py"
# the class called, or its from_pretrained, however it is spelled
CONSTRUCTS = re.compile(r"\bLlama\s*(?:\(|\.\s*from_pretrained\b)")


def constructions(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if CONSTRUCTS.search(line)]


def test_nothing_but_the_loader_constructs_a_llama_model():
    found = {}
    for folder in ("app", "tests", "bench", "scripts"):
        for path in (ROOT / folder).rglob("*.py"):
            if path == LOADER:
                continue
            hits = constructions(path.read_text(encoding="utf-8"))
            if hits:
                found[str(path.relative_to(ROOT))] = hits
    assert found == {}, f"load models through app.llm.local.loader instead: {found}"


NAME = "Llama"  # spelled apart, so this file holds no construction of its own


@pytest.mark.parametrize(
    "line",
    [
        f"model = llama_cpp.{NAME}(str(path), n_ctx=4096)",
        f"m = {NAME} (model_path=p)",
        f"m = {NAME}.from_pretrained(repo_id='x', filename='y')",
        f'_RAW = "model = llama_cpp.{NAME}(model_path=p)"',
    ],
)
def test_the_check_catches_a_model_built_another_way(line: str):
    assert constructions(line) == [line]


def test_the_check_leaves_other_names_alone():
    other = f"load_llama(LoadRequest(path)); LlamaGrammar.from_string(text); class {NAME}:"
    assert constructions(other) == []


@pytest.mark.parametrize(("forced", "extra"), [("on", False), ("off", True)])
def test_the_amx_guard_can_be_forced_either_way(monkeypatch: pytest.MonkeyPatch, forced: str, extra: bool):
    monkeypatch.setenv("CALCULON_AMX_GUARD", forced)
    assert loader.extra_buffers_by_default() is extra


def test_without_the_override_the_guard_follows_the_cpu(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.delenv("CALCULON_AMX_GUARD", raising=False)
    assert loader.extra_buffers_by_default() is (not loader.cpu_reports_amx())
