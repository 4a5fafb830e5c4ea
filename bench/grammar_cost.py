"""What Calculon mode's grammar costs per token, against the plain tool-call grammar.

Same model (the built-in default), same questions (the one-operation and PEMDAS
questions of ``bench/_calculon_questions.py``), the calculator's real tools, the
first step of each question (the call). Three grammars, run back to back per
question in turns (plain, backed, operands; then the next question starts with
the next one):

- **plain**: the tool-call grammar alone (Calculon mode's call policy, no backed numbers);
- **backed**: numbers only from the user's words (:mod:`app.llm.local.backed`);
- **operands**: backed, and each of the user's numbers used once (:mod:`app.llm.local.operands`).

Reported per grammar: decode time per generated token (prompt evaluation and the
first token excluded, so the cache a neighbour left behind does not count), and
the time to build and load the step's grammar; medians, and the paired ratio of
each constrained grammar against plain on the same question. Process CPU time is
reported beside wall time, since it is far less disturbed by other programs.

    python -m bench grammar_cost [--questions 20] [--no-write]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext

from app.core.backend import ModelRequest
from app.core.messages import Message, ToolSpec
from app.llm.local import LocalBackend, LocalOptions, step
from app.llm.local.backed import backed_forms
from bench import _stats
from bench._calculon_questions import all_questions
from bench._doc import load_average, write_section

HEADING = "## Calculon mode's grammar: cost per token"
VARIANTS = ("plain", "backed", "operands")


def calculator_tools() -> tuple[ToolSpec, ...]:
    from app.servers.calculator import server

    tools = asyncio.run(server.list_tools())
    return tuple(ToolSpec(t.name, t.description or "", t.input_schema) for t in tools)


@contextmanager
def without_operands() -> Iterator[None]:
    """The backed grammar without the operand rules: the step finds no operands."""
    original = step.operands_for
    step.operands_for = lambda *args, **kwargs: None  # type: ignore[assignment]
    try:
        yield
    finally:
        step.operands_for = original


def run_one(
    backend: LocalBackend, question: str, tools: tuple[ToolSpec, ...], variant: str
) -> dict[str, float]:
    backed = None if variant == "plain" else (question,)
    request = ModelRequest("", (Message("user", question),), tools, backed)
    runner = backend.runner
    assert runner is not None
    started_cpu = time.process_time()
    with without_operands() if variant == "backed" else nullcontext():
        built = time.perf_counter()
        runner._grammar(request, backed_forms(backed) if backed is not None else None, [])
        build_s = time.perf_counter() - built

        async def consume() -> None:
            async for _ in backend.stream(request):
                pass

        asyncio.run(consume())
    result = runner.last
    assert result is not None and result.first_token_s is not None
    generated = max(1, result.tokens - 1)
    return {
        "ms_per_token": (result.total_s - result.first_token_s) * 1000 / generated,
        "cpu_ms": (time.process_time() - started_cpu) * 1000,
        "build_ms": build_s * 1000,
        "tokens": float(result.tokens),
    }


def measure(count: int) -> dict[str, list[dict[str, float]]]:
    one_op, pemdas = ([q.text for q in all_questions() if q.category == c] for c in ("one_op", "pemdas"))
    questions = [q for pair in zip(one_op, pemdas, strict=False) for q in pair][:count]  # alternating
    tools = calculator_tools()
    backend = LocalBackend(LocalOptions(n_ctx=2048, max_tokens=96))
    asyncio.run(backend.load())
    rows: dict[str, list[dict[str, float]]] = {v: [] for v in VARIANTS}
    try:
        run_one(backend, questions[0], tools, "plain")  # warm-up: loads the examples into the cache
        for i, question in enumerate(questions):
            turn = VARIANTS[i % 3 :] + VARIANTS[: i % 3]
            for variant in turn:
                rows[variant].append(run_one(backend, question, tools, variant))
            print(f"[{i + 1}/{len(questions)}] {question}", file=sys.stderr)
    finally:
        asyncio.run(backend.aclose())
    return rows


def report(rows: dict[str, list[dict[str, float]]]) -> str:
    lines = [
        "| grammar | ms per token, median | paired ratio vs plain | grammar build, ms | tokens |",
        "|---|---|---|---|---|",
    ]
    plain = [r["ms_per_token"] for r in rows["plain"]]
    for variant in VARIANTS:
        per_token = [r["ms_per_token"] for r in rows[variant]]
        ratio = "1" if variant == "plain" else f"**{_stats.paired(per_token, plain).ratio:.3f}**"
        build = statistics.median(r["build_ms"] for r in rows[variant])
        tokens = statistics.median(r["tokens"] for r in rows[variant])
        lines.append(
            f"| {variant} | {statistics.median(per_token):.1f} | {ratio} | {build:.1f} | {tokens:.0f} |"
        )
    n = len(plain)
    return "\n".join(
        [
            f"Command: `python -m bench grammar_cost --questions {n}`. Machine: 2 CPUs, load average "
            f"{load_average()} at the end. Model: the built-in default; the calculator's 8 tools; "
            f"{n} questions (one operation and PEMDAS, alternating), the call step of each, "
            "the three grammars in turns.",
            "",
            *lines,
            "",
            _stats.note(("constrained", "plain")),
            "Per token excludes the prompt and the first token. Grammar build: composing the step's "
            "grammar from the cached tool rules (the backed numbers, the operands) and, for operands, "
            "having llama.cpp parse it once to check it.",
        ]
    )


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m bench grammar_cost")
    parser.add_argument("--questions", type=int, default=20)
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args(sys.argv[1:])
    body = report(measure(args.questions))
    print(body)
    if not args.no_write:
        write_section(HEADING, body)
    return 0
