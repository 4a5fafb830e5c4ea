"""The real-task bench's own checks, with no model: its task list, its judges and its counts."""

from __future__ import annotations

import collections
import json
import re
from pathlib import Path

import pytest

from bench import _real_tasks_report as report
from bench import _real_tasks_servers as servers
from bench import _real_tasks_workspace as ws
from bench._real_tasks_run import BenchUser, judged, written_as_text
from bench.real_tasks import TASKS

REFERENCE = ("filesystem", "memory", "git", "time", "sqlite", "fetch")


def _fresh(tmp_path: Path, task: object) -> Path:
    project = ws.build(tmp_path / task.name)  # type: ignore[attr-defined]
    if task.setup:  # type: ignore[attr-defined]
        task.setup(project)  # type: ignore[attr-defined]
    return project


def test_there_are_forty_tasks_or_more_over_every_reference_server():
    names = [t.name for t in TASKS]
    assert len(TASKS) >= 40 and len(set(names)) == len(names)
    servers_used = collections.Counter(tool.split(".")[0] for t in TASKS for tool in t.tools)
    assert all(servers_used[s] for s in REFERENCE)
    assert sum(1 for t in TASKS if t.calls >= 2) >= 10
    assert sum(1 for t in TASKS if t.arithmetic) >= 10
    assert all(t.prompt.strip() and "{" not in t.text(Path("/w"), "http://h") for t in TASKS)


def test_every_judge_fails_on_an_untouched_workspace_and_passes_once_done_by_hand(tmp_path):
    for task in TASKS:
        project = _fresh(tmp_path, task)
        assert not task.judge(project, ""), task.name
        assert not task.judge(project, "Done."), task.name
        answer = task.solve(project)
        assert task.judge(project, answer), task.name


def _shifted(text: str) -> str:
    return re.sub(r"\d", lambda m: str((int(m.group()) + 1) % 10), text)


def test_a_stated_value_judge_refuses_a_wrong_value(tmp_path):
    project = ws.build(tmp_path / "w")
    for task in (t for t in TASKS if t.states_value):
        assert not task.judge(project, _shifted(task.solve(project))), task.name


def test_a_question_asking_which_and_how_many_needs_both_in_the_answer(tmp_path):
    project = ws.build(tmp_path / "w")
    task = next(t for t in TASKS if t.name == "busiest-day")
    assert task.judge(project, "Saturday was the busiest day, with 204 visitors.")
    # the count alone, inside a converter's error the model repeated, is no answer to "which day"
    assert not task.judge(project, "You should write it after the number, e.g. '204 km'.")


def _named_sources(task: object, project: Path) -> str:
    prompt = task.prompt  # type: ignore[attr-defined]
    files = [project / m.rstrip(".,") for m in re.findall(r"\{ws\}/([\w./-]+)", prompt)]
    pages = [ws.PAGES[m] for m in re.findall(r"\{url\}/([\w.-]+\.html)", prompt)]
    texts = [f.read_text() for f in files if f.is_file()]
    return "\n".join([task.text(project, "http://127.0.0.1:8000"), *texts, *pages])  # type: ignore[attr-defined]


def test_an_answer_that_only_repeats_what_the_tools_gave_fails_where_arithmetic_is_asked(tmp_path):
    project = ws.build(tmp_path / "w")
    arithmetic = [t for t in TASKS if t.arithmetic and t.states_value]
    assert len(arithmetic) >= 10
    for task in arithmetic:
        assert not task.judge(project, _named_sources(task, project)), task.name


def test_numbers_and_clock_times_are_read_as_people_write_them():
    assert ws.numbers_in("It costs $1,234.50, or 3,4 in a list; -2.") == [1234.5, 3, 4, -2]
    assert ws.states_number("The total is 15.74.", "15.74")
    assert not ws.states_number("The total is 15.75.", "15.74")
    assert ws.times_in("at 2:30 pm, 14h05 or 9 am; page 7") == [(14, 30), (14, 5), (9, 0)]
    assert ws.times_in("12:15 a.m.") == [(0, 15)]
    assert ws.times_in("It is 2026-12-05T01:06:57+09:00 in Tokyo.") == [(1, 6)]  # the clock's ISO form


def test_a_call_written_as_text_fails_its_task_whatever_its_numbers():
    task = next(t for t in TASKS if t.name == "sum-prices")
    assert written_as_text('{"name": "read_text_file", "arguments": {"path": "p"}}')
    assert written_as_text("Here: <tool_call>\n{...}")
    assert not written_as_text("The total is 15.74.")
    text = 'The total is 15.74. ```json\n{"name": "add", "arguments": {"a": 1}}\n```'
    run = judged(task, "raw", Path("/nowhere"), text, [], unapproved=0, seconds=1.0, schema_tokens=0.0)
    assert run.written and not run.done


def test_an_unapproved_change_fails_the_task_and_calls_are_sorted_into_wrong_and_invalid(tmp_path):
    task = next(t for t in TASKS if t.name == "make-folder")
    project = _fresh(tmp_path, task)
    task.solve(project)
    calls = [
        ("filesystem", "create_directory", {"path": "x"}, False),
        ("sqlite", "read_query", {"query": "select 1"}, True),
        ("?", "nonesuch", {}, True),
    ]
    run = judged(task, "calculon", project, "Done", calls, unapproved=1, seconds=2.0, schema_tokens=10.0)
    assert not run.done and run.unapproved == 1
    assert (run.wrong_tool, run.invalid) == (2, 2)
    approved = judged(
        task, "calculon", project, "Done", calls[:1], unapproved=0, seconds=2.0, schema_tokens=1.0
    )
    assert approved.done and approved.wrong_tool == 0
    # a change is judged by the change: a call also written out in the answer does not undo it
    shown = judged(
        task,
        "raw",
        project,
        'create_directory(path="x")',
        calls[:1],
        unapproved=0,
        seconds=1.0,
        schema_tokens=1.0,
    )
    assert shown.written and shown.done


def test_arithmetic_tasks_may_call_the_calculator_and_time_tasks_the_bundled_clock():
    by_name = {t.name: t for t in TASKS}
    assert by_name["sum-prices"].fits("calculator", "evaluate")
    assert not by_name["config-port"].fits("calculator", "evaluate")
    assert by_name["tokyo-now"].fits("clock", "get_time") and by_name["tokyo-now"].fits(
        "time", "convert_time"
    )
    assert not by_name["tokyo-now"].fits("filesystem", "read_text_file")


@pytest.mark.anyio
@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_the_bench_user_allows_each_call_once_and_answers_no_forms(anyio_backend):
    from app.core.asking import ApprovalRequest, FormRequest

    user = BenchUser()
    answer = await user.answer(ApprovalRequest(server="git", tool="git_commit", arguments={"message": "m"}))
    assert answer.decision == "allow"  # this call only: the next one is asked again
    form = await user.answer(FormRequest(server="git", message="who?", schema={}))
    assert form.action == "decline"
    assert user.granted == [("git", "git_commit", json.dumps({"message": "m"}))]


def test_the_servers_file_is_one_the_app_reads_with_pinned_packages(tmp_path, monkeypatch):
    from app.mcp.config import load_config

    monkeypatch.setattr(servers, "venv_command", lambda name: Path(f"/venvs/{name}/bin/mcp-server-{name}"))
    project = tmp_path / "project"
    written = tmp_path / "servers.json"
    written.write_text(json.dumps(servers.mcp_servers(project, "http://127.0.0.1:9")))
    config = load_config(written)
    assert set(REFERENCE) | set(servers.BUNDLED) == set(config.servers)
    assert config.servers["filesystem"].args == ("-y", f"{servers.NPM['filesystem']}@2026.8.31", str(project))
    assert config.servers["memory"].env["MEMORY_FILE_PATH"] == str(tmp_path / "memory.jsonl")
    assert "--db-path" in config.servers["sqlite"].args
    assert set(servers.reference_only(servers.mcp_servers(project, "u"))) == set(REFERENCE)


def test_the_report_counts_each_side_and_its_percentiles():
    task = next(t for t in TASKS if t.name == "pro-price")
    runs = [
        judged(
            task,
            "raw",
            Path("/w"),
            "It is 49.",
            [("fetch", "fetch", {}, False)],
            unapproved=0,
            seconds=s,
            schema_tokens=100.0,
        )
        for s in (1.0, 2.0, 3.0, 4.0, 10.0)
    ]
    runs.append(judged(task, "raw", Path("/w"), "No idea.", [], unapproved=0, seconds=5.0, schema_tokens=0.0))
    f = report.figures(runs)
    assert (f["done"], f["total"], f["no_call"], f["calls"]) == (5, 6, 1, 5)
    assert (f["p50"], f["p90"]) == (3.0, 10.0)
    text = report.report([report.Result("m", "raw peer", runs)], "python -m bench real_tasks")
    assert "| m | raw peer | 5/6 (83%)" in text and "| pro-price | done |" in text


def test_calls_the_app_refused_before_any_server_are_counted_apart_among_the_invalid():
    task = next(t for t in TASKS if t.name == "count-lines")
    calls = [("filesystem", "read_text_file", {}, False), ("calculator", "evaluate", {}, True)]
    run = judged(
        task, "calculon", Path("/w"), "13", calls, unapproved=0, seconds=1.0, schema_tokens=1.0, refused=1
    )
    assert report.row(report.Result("m", "calculon", [run])).split(" | ")[5] == "1 (1 refused here)"
    plain = judged(task, "raw", Path("/w"), "13", calls, unapproved=0, seconds=1.0, schema_tokens=1.0)
    assert report.row(report.Result("m", "raw", [plain])).split(" | ")[5] == "1"


def test_digits_in_a_path_or_url_state_no_number():
    # the repository's path held "pytest-5" where the task's count was 5: an answer that only
    # repeated the question's path was judged right
    answer = "The repository at /tmp/pytest-5/w has 3 commits (http://127.0.0.1:8000/9); 3/4 of them."
    stated = ws.numbers_in(answer)
    assert stated == [3, 3, 4]
