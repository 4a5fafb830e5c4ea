"""Calculon mode end to end: does the app answer correctly, with every number backed?

Each question (``bench/_calculon_questions.py``: 162, stratified in eight
categories, keyed with ``fractions``) goes through the real
:class:`app.engine.Engine` in strict mode with the bundled servers (calculator,
converter, clock: tool retrieval on, the calculator pinned), one question per
fresh conversation. Per model and category it reports:

- **correct and verified / asked**, the headline: the answer states the true
  result (or, for no-arithmetic questions, calls no tool; for impossible ones,
  says so) and is marked verified;
- verified but wrong: every number backed, yet the wrong result (add for multiply);
- unbacked shown as verified: numbers the bench's own digit check
  (``bench/_calculon_check.py``) finds in no source, in answers marked verified.
  Must be 0; the same figure over all answers (verified or not) is printed
  beside it, so a zero can be read against how many unbacked numbers there were;
- turns that failed, seconds per question (p50 / p95), tool calls per question,
  and steps that ran into the per-step token cap.

    python -m bench calculon_verified [--model ID ...|all] [--limit N] [--category C ...]
                                      [--backend local|scripted] [--no-write] [--json FILE]
                                      [--misses-of FILE] [--set main|heldout|fresh|blind]

``--backend scripted`` replays the right call and a right or made-up answer, to
test the harness itself; only full ``local`` runs write docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bench import _doc
from bench._calculon_blind import blind_questions
from bench._calculon_check import independent_unbacked, says_impossible, states_result
from bench._calculon_fresh import fresh_questions
from bench._calculon_heldout import heldout_questions
from bench._calculon_questions import CATEGORIES, Question, all_questions

HEADING = "## Calculon mode"
CAP_NOTICE = "(the per-step limit)"


@dataclasses.dataclass
class Run:
    question: str
    category: str
    answer: str
    verified: bool | None
    correct: bool
    tool_calls: list[str]
    seconds: float
    error: str
    independent: list[str]  # the bench's own check: unbacked numbers in the answer
    capped_steps: int

    @property
    def leaked(self) -> list[str]:
        return self.independent if self.verified else []


def is_correct(question: Question, answer: str, calls: int, verified: bool | None) -> bool:
    if not answer or not verified:
        return False
    if question.category == "no_math":
        return calls == 0
    if question.expected is None:
        return says_impossible(answer)
    return states_result(answer, question.expected, question.text)


async def ask(engine: Any, question: Question) -> Run:
    from app.core import events as ev

    seen: list[Any] = []
    engine.subscribe(seen.append)
    started = time.perf_counter()
    outcome = await engine.ask(question.text)
    seconds = time.perf_counter() - started
    engine.session.reset()  # each question stands alone
    engine.unsubscribe(seen.append)
    sources = [question.text, *(c.result for c in outcome.tool_calls if not c.is_error)]
    capped = sum(1 for e in seen if isinstance(e, ev.Notice) and CAP_NOTICE in e.message)
    return Run(
        question.text,
        question.category,
        outcome.answer,
        outcome.verified,
        is_correct(question, outcome.answer, len(outcome.tool_calls), outcome.verified),
        [f"{c.tool}({json.dumps(dict(c.arguments))})" for c in outcome.tool_calls],
        seconds,
        outcome.error,
        independent_unbacked(outcome.answer, sources) if outcome.answer else [],
        capped,
    )


def scripted_steps(questions: Sequence[Question]) -> list[list[Any]]:
    """For the harness test: every third answer first makes a number up, every fifth never stops."""
    from app.core.backend import ToolCallChunk
    from app.core.messages import ToolCall

    steps: list[list[Any]] = []
    for index, q in enumerate(questions):
        if q.tool:
            steps.append([ToolCallChunk(ToolCall(f"q{index}", q.tool, q.arguments))])
        right = (
            "That cannot be done: it is undefined." if q.expected is None else f"It is {_plain(q.expected)}."
        )
        made_up = f"It is {index + 1000003}."
        if index % 5 == 4:
            steps += [[made_up]] * 3
        elif index % 3 == 2:
            steps += [[made_up], [right if q.tool or q.expected is not None else "Hello!"]]
        else:
            steps.append([right if q.tool or q.expected is not None else "Hello!"])
    return steps


def _plain(value: Any) -> str:
    from decimal import Decimal, localcontext

    with localcontext() as ctx:
        ctx.prec = 60
        return format(round(Decimal(value.numerator) / Decimal(value.denominator), 6).normalize(), "f")


async def run_model(model: str, questions: Sequence[Question], backend: Any = None) -> tuple[list[Run], str]:
    from app.engine import Engine
    from app.settings import Settings

    with tempfile.TemporaryDirectory(prefix="calculon-bench-") as folder:
        settings = Settings(backend="local", strict=True, builtin_model=model)
        engine = Engine.from_settings(settings, servers_path=Path(folder) / "servers.json", backend=backend)
        try:
            await engine.start(timeout=60)
            label = (await engine.ensure_backend()).model_label
            if engine.selector is not None:  # rank from the first question on, as a warmed-up app does
                await engine.selector.refresh(engine.supervisor.list_tools())
            runs = []
            for number, question in enumerate(questions, 1):
                runs.append(await ask(engine, question))
                _progress(number, len(questions), runs[-1])
            return runs, label
        finally:
            await engine.aclose()


def _progress(number: int, total: int, run: Run) -> None:
    mark = "ok " if run.correct else ("WRONG" if run.verified else "UNVERIFIED")
    answer = " ".join((run.answer or run.error).split())[:110]
    print(
        f"[{number}/{total}] {mark} {run.seconds:.1f}s {run.question} -> {answer} {run.tool_calls}",
        flush=True,
    )


# --- reporting ---------------------------------------------------------------


def _pct(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))] if ordered else 0.0


def figures(runs: Sequence[Run]) -> dict[str, Any]:
    seconds = [r.seconds for r in runs]
    return {
        "asked": len(runs),
        "correct_verified": sum(r.correct for r in runs),
        "verified_wrong": sum(1 for r in runs if r.verified and not r.correct),
        "leaked": sum(len(r.leaked) for r in runs),
        "unbacked_anywhere": sum(len(r.independent) for r in runs),
        "failed": sum(1 for r in runs if r.error),
        "p50": statistics.median(seconds) if seconds else 0.0,
        "p95": _pct(seconds, 0.95),
        "calls": sum(len(r.tool_calls) for r in runs) / max(1, len(runs)),
        "capped": sum(r.capped_steps for r in runs),
    }


def table(runs: Sequence[Run]) -> list[str]:
    lines = [
        "| category | correct and verified / asked | verified but wrong | unbacked shown as verified"
        " (of all unbacked) | failed turns | s p50 / p95 | tool calls per question |",
        "|---|---|---|---|---|---|---|",
    ]
    groups = [(c, [r for r in runs if r.category == c]) for c in CATEGORIES]
    for name, group in [*(g for g in groups if g[1]), ("**all**", list(runs))]:
        f = figures(group)
        share = f["correct_verified"] / max(1, f["asked"])
        lines.append(
            f"| {name} | {f['correct_verified']}/{f['asked']} ({share:.0%}) | {f['verified_wrong']} "
            f"| {f['leaked']} (of {f['unbacked_anywhere']}) | {f['failed']} "
            f"| {f['p50']:.1f} / {f['p95']:.1f} | {f['calls']:.2f} |"
        )
    return lines


def report(results: Sequence[tuple[str, list[Run]]], command: str) -> str:
    lines = [f"Command: `{command}`. Machine: 2 CPUs, load average {_doc.load_average()} at the end.", ""]
    for label, runs in results:
        total = figures(runs)
        one_op = figures([r for r in runs if r.category == "one_op"])
        lines += [
            f"### {label}",
            "",
            f"**Correct and verified: {total['correct_verified']}/{total['asked']}"
            f" ({total['correct_verified'] / max(1, total['asked']):.0%})**; one-operation questions"
            f" p50 {one_op['p50']:.1f} s; steps cut off at the token cap: {total['capped']}.",
            "",
            *table(runs),
            "",
            *_misses(runs),
        ]
    return "\n".join(lines)


def _misses(runs: Sequence[Run], shown: int = 6) -> list[str]:
    wrong = [r for r in runs if not r.correct]
    if not wrong:
        return []
    rows = [
        f"- {r.question} → `{' '.join((r.answer or r.error).split())[:140]}` {r.tool_calls}" for r in wrong
    ]
    return ["First misses, to read the figures against:", "", *rows[:shown], ""]


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m bench calculon_verified")
    parser.add_argument("--model", action="append", help="built-in model id (repeat), or 'all'")
    parser.add_argument("--backend", choices=("local", "scripted"), default="local")
    parser.add_argument("--limit", type=int, default=0, help="the first N questions of each category")
    parser.add_argument("--category", action="append", choices=CATEGORIES)
    parser.add_argument("--no-write", action="store_true")
    parser.add_argument("--json", type=Path, help="also write every run to this file")
    parser.add_argument(
        "--set",
        choices=("main", "heldout", "fresh", "blind"),
        default="main",
        help="heldout, fresh, blind: phrasings written apart from the main set (bench/_calculon_*.py)",
    )
    parser.add_argument(
        "--misses-of", type=Path, help="only the questions a saved --json run missed or capped"
    )
    args = parser.parse_args(sys.argv[1:])
    from app.llm.local.catalog import DEFAULT_MODEL_ID, builtin_model_ids

    models = builtin_model_ids() if args.model == ["all"] else (args.model or [DEFAULT_MODEL_ID])
    pool = {"heldout": heldout_questions, "fresh": fresh_questions, "blind": blind_questions}.get(
        args.set, all_questions
    )()
    questions = select(pool, args.category, args.limit)
    if args.misses_of:
        questions = [q for q in questions if q.text in missed(args.misses_of)]
    results = []
    for model in models:
        backend = None
        if args.backend == "scripted":
            from app.llm.scripted import ScriptedBackend

            backend = ScriptedBackend(scripted_steps(questions))
        runs, label = asyncio.run(run_model(model, questions, backend))
        results.append((label, runs))
    text = report(results, "python -m bench calculon_verified " + " ".join(sys.argv[1:]))
    print("\n" + text)
    if args.json:
        dump = {label: [dataclasses.asdict(r) for r in runs] for label, runs in results}
        args.json.write_text(json.dumps(dump, indent=1, ensure_ascii=False))
    full = not (args.limit or args.category or args.misses_of or args.set != "main")
    if args.backend == "local" and full and not args.no_write:
        _doc.write_section(HEADING, text)
    return 1 if any(figures(runs)["leaked"] for _, runs in results) else 0


def missed(saved: Path) -> set[str]:
    """The questions a saved run (``--json``) did not answer correctly and verified, or that ran
    a step into the token cap."""
    runs = [r for model in json.loads(saved.read_text()).values() for r in model]
    return {r["question"] for r in runs if not (r["correct"] and r["verified"]) or r.get("capped_steps")}


def select(questions: list[Question], categories: list[str] | None, limit: int) -> list[Question]:
    chosen = [q for q in questions if not categories or q.category in categories]
    if not limit:
        return chosen
    return [q for c in CATEGORIES for q in [q for q in chosen if q.category == c][:limit]]
