"""Calculon mode end to end: is an answer marked verified right, and how often is it right at all?

Each question goes through the real :class:`app.engine.Engine` in strict mode with the
bundled servers (calculator, converter, clock; tool retrieval on), one question per fresh
conversation, except the conversation set, whose turns follow on. Per set and model:

- **verified but wrong / verified**: the badge's error rate, the figure that matters;
- correct and verified / asked; correct under any verdict / asked;
- computed / asked and unverified / asked;
- unbacked shown as verified: numbers the bench's own digit check
  (``bench/_calculon_check.py``) finds in no source, in answers marked verified;
- failed turns, seconds per question from a warm engine (p50 / p95) and, with ``--cold N``,
  from ``calculon ask`` in a fresh process for the first N questions.

The sets: ``main`` (the project's own, 162), ``heldout``, ``fresh``, ``blind`` (written
here, apart from the rules), ``conversation`` (follow-ups on earlier results), ``no_digits``
(questions without a digit: :mod:`bench._no_digits`), and public word problems written by
others (``mawps``, ``svamp``, ``asdiv``, ``gsm8k``: :mod:`bench._calculon_public`).

    python -m bench calculon_verified [--set main|heldout|fresh|blind|conversation|mawps ...]
                                      [--model ID ...|all] [--limit N] [--sample N] [--cold N]
                                      [--gguf FILE] [--backend local|scripted] [--no-write]
                                      [--json FILE]

``--backend scripted`` replays the right call and a right or made-up answer, to test the
harness itself; only ``local`` runs write docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import json
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bench import _calculon_report as report
from bench import _doc
from bench._calculon_check import independent_unbacked, says_impossible, states_result
from bench._calculon_questions import Question
from bench._calculon_sets import SETS, questions_of

HEADING = "## Calculon mode"
CAP_NOTICE = "(the per-step limit)"


@dataclasses.dataclass
class Run:
    question: str
    category: str
    answer: str
    verdict: str | None
    correct: bool  # the right result, whatever the verdict
    tool_calls: list[str]
    seconds: float
    error: str
    independent: list[str]  # the bench's own check: unbacked numbers in the answer
    capped_steps: int
    formula: str = ""
    results: int = 0  # the tool calls that gave a result (not an error)

    @property
    def verified(self) -> bool:
        return self.verdict == "verified"

    @property
    def leaked(self) -> list[str]:
        return self.independent if self.verified else []


def is_correct(question: Question, answer: str, calls: int, results: int = 0) -> bool:
    if not answer:
        return False
    if question.category == "lookup":  # no key to hold it to: the answer must come from a tool
        return results > 0
    if question.category == "no_math":  # no tool, and no number made up
        return calls == 0 and not any(ch.isdigit() for ch in answer)
    if question.expected is None:
        return says_impossible(answer)
    return states_result(answer, question.expected, question.text)


async def ask(
    engine: Any, question: Question, *, alone: bool = True, earlier: list[str] | None = None
) -> Run:
    """One question; ``earlier``: what the conversation so far said (its questions and results),
    which may back numbers too, extended with this turn's."""
    from app.core import events as ev

    seen: list[Any] = []
    engine.subscribe(seen.append)
    started = time.perf_counter()
    outcome = await engine.ask(question.text)
    seconds = time.perf_counter() - started
    if alone:
        engine.session.reset()  # each question stands alone
    engine.unsubscribe(seen.append)
    sources = [question.text, *(c.result for c in outcome.tool_calls if not c.is_error)]
    results = sum(1 for c in outcome.tool_calls if not c.is_error)
    if earlier is not None:
        earlier.extend(sources)
        sources = list(earlier)
    capped = sum(1 for e in seen if isinstance(e, ev.Notice) and CAP_NOTICE in e.message)
    return Run(
        question.text,
        question.category,
        outcome.answer,
        outcome.shown_verdict,
        is_correct(question, outcome.answer, len(outcome.tool_calls), results),
        [f"{c.tool}({json.dumps(dict(c.arguments))})" for c in outcome.tool_calls],
        seconds,
        outcome.error,
        independent_unbacked(outcome.answer, sources) if outcome.answer else [],
        capped,
        outcome.formula,
        results,
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


async def run_model(
    model: str,
    conversations: Sequence[Sequence[Question]],
    backend: Any = None,
    gguf: str = "",
    tool_format: str = "auto",
    peer: list[Run] | None = None,
) -> tuple[list[Run], str]:
    """Every conversation on one warm engine; a list of one question each is a set of single questions.
    With ``peer`` (a list to fill), the raw peer on the same GGUF answers each single question right
    after Calculon did (bench/_raw_peer.py), so both meet the same load."""
    from app.engine import Engine
    from app.settings import Settings

    total = sum(len(c) for c in conversations)
    with tempfile.TemporaryDirectory(prefix="calculon-bench-") as folder:
        settings = Settings(
            backend="local", strict=True, builtin_model=model, model_path=gguf, tool_format=tool_format
        )
        engine = Engine.from_settings(settings, servers_path=Path(folder) / "servers.json", backend=backend)
        try:
            await engine.start(timeout=60)
            label = (await engine.ensure_backend()).model_label
            if engine.selector is not None:  # rank from the first question on, as a warmed-up app does
                await engine.selector.refresh(engine.supervisor.list_tools())
            raw = await _peer_for(model, gguf) if peer is not None else None
            runs: list[Run] = []
            try:
                for turns in conversations:
                    if engine.session is not None:  # made by the first question
                        engine.session.reset()
                    said: list[str] = []
                    for question in turns:
                        runs.append(await ask(engine, question, alone=False, earlier=said))
                        _progress(len(runs), total, runs[-1])
                        if raw is not None and peer is not None and len(turns) == 1:
                            peer.append(await _peer_ask(raw, question))
                            _progress(len(peer), total, peer[-1], "raw")
            finally:
                if raw is not None:
                    await raw.__aexit__(None, None, None)
            return runs, label
        finally:
            await engine.aclose()


async def _peer_for(model: str, gguf: str) -> Any:
    from app.llm.local.model_file import resolve_model
    from bench._raw_peer import RawPeer

    path = gguf or str(resolve_model("", lambda *_: None, model))
    return await RawPeer(path).__aenter__()


async def _peer_ask(raw: Any, question: Question) -> Run:
    from bench._raw_peer import written_call

    found = await raw.ask(question.text)
    calls = found.calls
    right = not written_call(found.answer) and is_correct(question, found.answer, len(calls))
    return Run(
        question.text,
        question.category,
        found.answer,
        None,
        right,
        calls,
        found.seconds,
        found.error,
        [],
        0,
    )


def cold_seconds(model: str, questions: Sequence[Question], gguf: str | None = None) -> list[float]:
    """Wall time of ``calculon ask Q --backend local --json`` in a fresh process, per question, on
    ``model`` (or the ``gguf`` file): named in the fresh config folder's settings, since a bare
    ``ask`` answers on the default model (it did, and the 1.5B's "fresh" figure was SmolLM2's)."""
    import os
    import subprocess

    seconds = []
    with tempfile.TemporaryDirectory(prefix="calculon-cold-") as folder:
        env = {**os.environ, "CALCULON_CONFIG_DIR": folder, "CALCULON_DATA_DIR": folder}
        command = cold_command(model, Path(folder), gguf)
        for question in questions:
            started = time.perf_counter()
            subprocess.run([*command, question.text], env=env, capture_output=True, timeout=300, check=False)
            seconds.append(time.perf_counter() - started)
            print(f"cold {seconds[-1]:.1f}s {question.text[:80]}", flush=True)
    return seconds


def cold_command(model: str, folder: Path, gguf: str | None = None) -> list[str]:
    """The fresh ``ask`` command on ``model``, its choice written to ``folder``'s settings."""
    (folder / "settings.json").write_text(json.dumps({"builtin_model": model}), encoding="utf-8")
    command = [sys.executable, "-m", "app", "ask", "--backend", "local", "--json", "--no-save"]
    return [*command, "--model", gguf] if gguf else command


def _progress(number: int, total: int, run: Run, side: str = "") -> None:
    mark = {"verified": "VERIFIED", "computed": "computed", "unverified": "unverified"}.get(
        run.verdict or "", "-"
    )
    right = "right" if run.correct else "WRONG"
    answer = " ".join((run.answer or run.error).split())[:100]
    head = f"[{number}/{total}]{' ' + side if side else ''} {right} {mark} {run.seconds:.1f}s"
    print(f"{head} {run.question[:90]} -> {answer} {run.tool_calls}", flush=True)


figures = report.figures
table = report.table


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m bench calculon_verified")
    parser.add_argument("--model", action="append", help="built-in model id (repeat), or 'all'")
    parser.add_argument("--backend", choices=("local", "scripted"), default="local")
    parser.add_argument("--set", action="append", choices=SETS, help="question sets (repeat); default main")
    parser.add_argument("--limit", type=int, default=0, help="the first N questions of each category")
    parser.add_argument("--sample", type=int, default=100, help="MAWPS: a fixed sample of N (0: all)")
    parser.add_argument("--cold", type=int, default=0, help="also time the first N in fresh processes")
    parser.add_argument("--gguf", default="", help="a GGUF file of your own instead of a built-in model")
    parser.add_argument(
        "--tool-format",
        choices=("auto", "native", "calculon"),
        default="auto",
        help="the local model's tool-call format (auto: Calculon's own in Calculon mode)",
    )
    parser.add_argument("--peer", action="store_true", help="beside each model, the raw peer on its GGUF")
    parser.add_argument("--no-write", action="store_true")
    parser.add_argument("--json", type=Path, help="also write every run to this file")
    args = parser.parse_args(sys.argv[1:])
    from app.llm.local.catalog import DEFAULT_MODEL_ID, builtin_model_ids

    models = builtin_model_ids() if args.model == ["all"] else (args.model or [DEFAULT_MODEL_ID])
    results = []
    for model in models:
        for name in args.set or ["main"]:
            conversations = questions_of(name, args.limit, args.sample)
            backend = None
            if args.backend == "scripted":
                from app.llm.scripted import ScriptedBackend

                backend = ScriptedBackend(scripted_steps([q for c in conversations for q in c]))
            peer: list[Run] | None = [] if args.peer and args.backend == "local" else None
            runs, label = asyncio.run(
                run_model(model, conversations, backend, args.gguf, args.tool_format, peer)
            )
            flat = [q for c in conversations for q in c]
            cold = []
            if args.cold and args.backend == "local":
                cold = cold_seconds(model, flat[: args.cold], args.gguf)
            results.append(report.Result(label, name, runs, cold, peer or []))
    text = report.report(results, "python -m bench calculon_verified " + " ".join(sys.argv[1:]))
    print("\n" + text)
    _doc.dump_runs(args.json, [({"model": r.label, "set": r.name}, r.runs) for r in results])
    if args.backend == "local" and not args.no_write:
        report.write(HEADING, results, text)
    return 1 if any(figures(r.runs)["leaked"] for r in results) else 0
