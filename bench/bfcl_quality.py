"""Tool-call quality on BFCL "simple" (Python) prompts: our local backend against raw llama-cpp-python.

Each prompt offers exactly one function, served as an MCP tool by a real child
process (``bench/_bfcl_server.py``, BFCL types mapped to JSON Schema), and asks
for one step. Both sides must call the tool, on the same loaded model, greedy:

* ours: ``LocalBackend`` with ``call_policy="always"`` (the tool-call grammar,
  Gemma's own turn format);
* raw: llama-cpp-python's chat-completion handler over the model's own chat
  template (the GGUF's ``tokenizer.chat_template`` through ``Jinja2ChatFormatter``,
  as ``Llama`` builds it), ``tools`` passed to the template and ``tool_choice``
  naming the function (its JSON-schema grammar for the arguments). A GGUF with
  no template gets llama-cpp-python's own format for its architecture (``gemma``),
  and the report says so.

Reported per side: calls that parse and validate against the tool's schema,
calls BFCL's own AST checker accepts (right function, right arguments, from
``bfcl_eval``'s possible answers), calls the MCP server executed, and seconds per
prompt (both medians and the paired ratio; the sides take turns at going first).
With ``--formats``, the sides are instead our backend in the model's own tool format
(``native``: its template's tools section and call syntax, where it has one) and in Calculon's
own format (``calculon``), both ours; ``--policy auto`` lets the model choose between a call and
text, and a reply that is a call written as text is counted (the turn loop would run it; it
never reaches the user as an answer, see app/core/text_calls.py).
Data: the ``bfcl-eval`` package (``pip install --no-deps bfcl-eval``).

    python -m bench bfcl_quality [--limit 200] [--tokens 128] [--model PATH] [--formats] [--policy auto]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import dataclasses
import importlib.resources
import json
import os
import sys
import time
import types
from pathlib import Path
from typing import Any

import jsonschema
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from app.core.backend import ModelRequest, TextChunk, ToolCallChunk
from app.core.messages import Message, ToolSpec
from app.core.text_calls import calls_in_text
from app.llm.local import LocalBackend, LocalOptions
from bench import _stats
from bench._bfcl_server import entries, shard_of
from bench._doc import load_average

SYSTEM = "You are a helpful assistant. Answer by calling the function you are given."
CASES = "BFCL_v4_simple_python.json"
CHECKER_MODEL = "calculon-local"
GEMMA_ARCHITECTURES = ("gemma", "gemma2", "gemma3", "gemma3n")


@dataclasses.dataclass
class Outcome:
    parsed: bool = False  # a call came back whose arguments are a JSON object
    valid: bool = False  # ... and they validate against the tool's schema
    correct: bool = False  # ... and BFCL's checker accepts function and arguments
    executed: bool = False  # ... and the MCP server ran it
    as_text: bool = False  # no call came back, but the reply's text is one (written out)
    seconds: float = 0.0
    arguments: dict[str, Any] | None = None


def data_dir() -> Path:
    return Path(str(importlib.resources.files("bfcl_eval") / "data"))


def bfcl_checker() -> Any:
    """BFCL's simple-function AST checker, without importing its model registry (which pulls
    in every vendor SDK): that registry is replaced by a stand-in that keeps dotted names."""
    stand_in = types.ModuleType("bfcl_eval.constants.model_config")
    mapping = {CHECKER_MODEL.replace("_", "/"): types.SimpleNamespace(underscore_to_dot=False)}
    setattr(stand_in, "MODEL_CONFIG_MAPPING", mapping)  # noqa: B010
    sys.modules.setdefault("bfcl_eval.constants.model_config", stand_in)
    from bfcl_eval.constants.enums import Language
    from bfcl_eval.eval_checker.ast_eval.ast_checker import simple_function_checker

    def accepts(
        function: dict[str, Any], name: str, arguments: dict[str, Any], answer: dict[str, Any]
    ) -> bool:
        verdict = simple_function_checker(function, {name: arguments}, answer, Language.PYTHON, CHECKER_MODEL)
        return bool(verdict["valid"])

    return accepts


async def ours(
    backend: LocalBackend, question: str, tool: ToolSpec
) -> tuple[str, dict[str, Any] | None, float, bool]:
    started = time.perf_counter()
    request = ModelRequest(SYSTEM, (Message("user", question),), (tool,))
    chunks = [c async for c in backend.stream(request)]
    seconds = time.perf_counter() - started
    calls = [c.call for c in chunks if isinstance(c, ToolCallChunk)]
    text = "".join(c.text for c in chunks if isinstance(c, TextChunk))
    as_text = not calls and calls_in_text(text, (tool,)) is not None
    if not calls or calls[0].raw_arguments_error:
        return (calls[0].name if calls else ""), None, seconds, as_text
    return calls[0].name, dict(calls[0].arguments), seconds, False


def raw_formatter(llama: Any) -> tuple[Any, str, str]:
    """The prompt format plain llama-cpp-python gives this GGUF: its own chat template, built
    as ``Llama.__init__`` builds it; without one, llama-cpp-python's format for the architecture
    (its fallback otherwise is ``llama-2``, which no Gemma was trained on). Returned with a
    label and a note for the report."""
    from llama_cpp.llama_chat_format import Jinja2ChatFormatter, format_gemma

    template = llama.metadata.get("tokenizer.chat_template")
    if template:
        eos, bos = llama.token_eos(), llama.token_bos()
        formatter = Jinja2ChatFormatter(
            template=template,
            eos_token=_piece(llama, eos),
            bos_token=_piece(llama, bos),
            stop_token_ids=[eos],
        )
        return formatter, "the GGUF's own chat template", "Raw prompts: the GGUF's `tokenizer.chat_template`"
    if llama.metadata.get("general.architecture", "") in GEMMA_ARCHITECTURES:
        note = (
            "Raw prompts: this GGUF has no `tokenizer.chat_template`, so llama-cpp-python's own `gemma` "
            "format, which drops the system message (Gemma has no system role; ours folds it into the "
            "user turn)"
        )
        return format_gemma, "llama-cpp-python's `gemma` format", note
    raise SystemExit("this GGUF has no tokenizer.chat_template and llama-cpp-python has no format for it")


def _piece(llama: Any, token: int) -> str:
    return bytes(llama.detokenize([token], special=True)).decode("utf-8", "replace") if token >= 0 else ""


def raw_messages(question: str) -> list[dict[str, str]]:
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": question}]


def tool_spec(tool: ToolSpec) -> dict[str, Any]:
    return {
        "type": "function",
        "function": {"name": tool.name, "description": tool.description, "parameters": tool.input_schema},
    }


def raw(
    backend: LocalBackend, handler: Any, question: str, tool: ToolSpec, tokens: int
) -> tuple[str, dict[str, Any] | None, float, bool]:
    started = time.perf_counter()
    reply: Any = handler(
        llama=backend.llama,
        messages=raw_messages(question),
        tools=[tool_spec(tool)],
        tool_choice={"type": "function", "function": {"name": tool.name}},
        temperature=0.0,
        repeat_penalty=1.0,
        max_tokens=tokens,
    )
    seconds = time.perf_counter() - started
    calls = reply["choices"][0]["message"].get("tool_calls") or []
    if not calls:
        return "", None, seconds, False
    try:
        arguments = json.loads(calls[0]["function"]["arguments"])
    except json.JSONDecodeError:
        return calls[0]["function"]["name"], None, seconds, False
    return calls[0]["function"]["name"], arguments if isinstance(arguments, dict) else None, seconds, False


async def judge(
    result: tuple[str, dict[str, Any] | None, float, bool],
    tool: ToolSpec,
    row: dict[str, Any],
    answer: Any,
    accepts: Any,
    client: Client,
) -> Outcome:
    name, arguments, seconds, as_text = result
    outcome = Outcome(parsed=arguments is not None, as_text=as_text, seconds=seconds, arguments=arguments)
    if arguments is None or name != tool.name:
        return outcome
    outcome.valid = not list(jsonschema.Draft202012Validator(tool.input_schema).iter_errors(arguments))
    outcome.correct = accepts(row["function"][0], name, arguments, answer)
    if outcome.valid:
        reply = await client.call_tool(name, arguments)
        outcome.executed = not reply.is_error
    return outcome


@dataclasses.dataclass
class Run:
    results: dict[str, list[Outcome]]
    model: str
    raw_format: str  # which chat format the raw side's prompts were rendered with
    raw_note: str
    tool_in_raw_prompt: int = 0  # raw prompts that name the offered tool (templates may ignore `tools`)
    formats: tuple[str, str] = ("", "")  # with --formats: the chat format each side was given
    wall: float = 0.0


def side_names(args: argparse.Namespace) -> tuple[str, str]:
    return ("native", "calculon") if args.formats else _stats.SIDES


async def measure(args: argparse.Namespace) -> Run:
    def local(native: bool) -> LocalBackend:
        options = LocalOptions(
            model_path=args.model,
            n_ctx=4096,
            max_tokens=args.tokens,
            call_policy=args.policy,
            tool_format="native" if native else "calculon",
            save_prompt=False,
        )
        return LocalBackend(options)

    backend = local(True)
    await backend.load()
    formatter, raw_format, raw_note = raw_formatter(backend.llama)
    run = Run({side: [] for side in side_names(args)}, backend.model_label, raw_format, raw_note)
    backends = {"ours": backend, "native": backend}
    if args.formats:
        backends["calculon"] = local(False)
        await backends["calculon"].load()
        run.formats = (_format_name(backend), _format_name(backends["calculon"]))
    started = time.perf_counter()
    try:
        await run_cases(args, backends, formatter, run)
    finally:
        for each in {id(b): b for b in backends.values()}.values():
            await each.aclose()
    run.wall = time.perf_counter() - started
    return run


def _format_name(backend: LocalBackend) -> str:
    runner = backend.runner
    return runner.format.name if runner is not None else "?"


async def run_cases(
    args: argparse.Namespace, backends: dict[str, LocalBackend], formatter: Any, run: Run
) -> None:
    from llama_cpp.llama_chat_format import chat_formatter_to_chat_completion_handler

    handler = chat_formatter_to_chat_completion_handler(formatter)
    cases = data_dir() / CASES
    rows, answers, accepts = entries(cases, args.limit), possible_answers(), bfcl_checker()
    shards = shard_of(rows)
    async with contextlib.AsyncExitStack() as stack:
        clients, tools = await open_shards(stack, cases, max(shards) + 1, args.limit)
        for i, (row, shard) in enumerate(zip(rows, shards, strict=True)):
            tool, question = tools[shard][row["function"][0]["name"]], row["question"][0][-1]["content"]
            prompt = formatter(messages=raw_messages(question), tools=[tool_spec(tool)]).prompt
            run.tool_in_raw_prompt += tool.name in prompt
            for side in _stats.order(i, side_names(args)):
                backend = backends.get(side, backends["ours"])
                backend.llama.reset()  # type: ignore[union-attr]  # no cache carried between cases or sides
                got = (
                    await asyncio.to_thread(raw, backend, handler, question, tool, args.tokens)
                    if side == "raw"
                    else await ours(backend, question, tool)
                )
                outcome = await judge(got, tool, row, answers[row["id"]], accepts, clients[shard])
                run.results[side].append(outcome)
            if args.progress and (i + 1) % 20 == 0:
                tally = ", ".join(f"{s} {sum(o.correct for o in r)}" for s, r in run.results.items())
                print(f"{i + 1}/{len(rows)}: {tally}", file=sys.stderr)


def possible_answers() -> dict[str, Any]:
    lines = (data_dir() / "possible_answer" / CASES).read_text().splitlines()
    return {a["id"]: a["ground_truth"][0] for a in map(json.loads, lines)}


async def open_shards(
    stack: contextlib.AsyncExitStack, cases: Path, count: int, limit: int
) -> tuple[list[Client], list[dict[str, ToolSpec]]]:
    server = Path(__file__).with_name("_bfcl_server.py")
    clients, tools = [], []
    for shard in range(count):
        params = StdioServerParameters(
            command=sys.executable, args=[str(server), str(cases), str(shard), str(limit)]
        )
        client = await stack.enter_async_context(Client(params))
        listed = (await client.list_tools()).tools
        clients.append(client)
        tools.append({t.name: ToolSpec(t.name, t.description or "", t.input_schema) for t in listed})
    return clients, tools


def _share(rows: list[Outcome], field: str) -> str:
    hits = sum(getattr(o, field) for o in rows)
    return f"{hits}/{len(rows)} ({100 * hits / len(rows):.1f}%)"


def report(run: Run, args: argparse.Namespace) -> str:
    results = run.results
    first, second = side_names(args)
    n = len(results[first])
    flags = (" --formats" if args.formats else "") + (
        f" --policy {args.policy}" if args.policy != "always" else ""
    )
    required = (
        "a call required on both sides" if args.policy == "always" else "the model chooses call or text"
    )
    lines = [
        f"### Tool-call quality (BFCL simple{', ' + Path(args.model).stem if args.model else ''}"
        f"{', native format against Calculon' + chr(39) + 's' if args.formats else ''})",
        "",
        f"Command: `python -m bench bfcl_quality --limit {args.limit} --tokens {args.tokens}"
        f"{' --model ' + Path(args.model).name if args.model else ''}{flags}` ({run.model}; "
        f"the first {n} entries of `{CASES}` from bfcl-eval; one function offered per prompt, served by "
        f"an MCP child process; {required}; greedy; wall {run.wall / 60:.1f} min in all).",
        "",
        "| side | parse + validate | BFCL AST check | executed over MCP | call written as text |",
        "|---|---|---|---|---|",
    ]
    titles = {
        "ours": "ours (LocalBackend, tool-call grammar)",
        "raw": f"raw ({run.raw_format})",
        "native": f"ours, the model's own format (`{run.formats[0]}`)",
        "calculon": f"ours, Calculon's own format (`{run.formats[1]}`)",
    }
    for side, rows in results.items():
        shares = " | ".join(_share(rows, field) for field in ("valid", "correct", "executed", "as_text"))
        lines.append(f"| {titles[side]} | {shares} |")
    seconds = _stats.paired([o.seconds for o in results[first]], [o.seconds for o in results[second]])
    if not args.formats:
        lines += [
            "",
            f"{run.raw_note}, rendered through llama-cpp-python's chat handler with `tools` passed in; "
            f"{run.tool_in_raw_prompt}/{n} of them name the offered function (a prompt that does not shows "
            "the model only the messages; the grammar built from the function's schema still fixes the "
            "argument names).",
        ]
    lines += [
        "",
        f"Seconds per prompt ({first} against {second}): {_stats.sentence(seconds, 's')}. {_stats.NOTE}",
    ]
    load = load_average()
    lines += ["", f"Machine: {os.cpu_count()} CPUs, load average {load} at the end of the run."]
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m bench bfcl_quality", description=__doc__.split("\n")[0])
    parser.add_argument("--limit", type=int, default=200, help="how many BFCL entries, from the first")
    parser.add_argument("--tokens", type=int, default=128, help="token cap per call")
    parser.add_argument("--model", default="", help="GGUF path (default: the built-in model)")
    parser.add_argument("--progress", action="store_true", help="running totals on stderr")
    parser.add_argument(
        "--formats", action="store_true", help="the model's own tool format against Calculon's, both ours"
    )
    parser.add_argument(
        "--policy", choices=("always", "auto"), default="always", help="auto: the model may answer in text"
    )
    parser.add_argument("--json", type=Path, help="also write per-case outcomes here")
    parser.add_argument("--no-write", action="store_true", help="print only; leave docs/benchmarks.md alone")
    args = parser.parse_args(sys.argv[1:])
    run = asyncio.run(measure(args))
    if args.json:
        outcomes = {k: [dataclasses.asdict(o) for o in v] for k, v in run.results.items()}
        args.json.write_text(json.dumps(outcomes))
    text = report(run, args)
    print(text)
    if not args.no_write:
        from bench._local_doc import write_local_subsection

        write_local_subsection(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
