"""Tasks on the files of a project folder (the filesystem server): read, count, sum, create, edit."""

from __future__ import annotations

import json
import re
from decimal import Decimal
from pathlib import Path

from bench import _real_tasks_workspace as ws
from bench._real_tasks_task import FS_READ, FS_WRITE, Task, asks, does, states_text, tools

READ = tools("filesystem", FS_READ)
COUNT = tools("filesystem", FS_READ, math=True)
WRITE = tools("filesystem", (*FS_READ, *FS_WRITE))
WRITE_MATH = tools("filesystem", (*FS_READ, *FS_WRITE), math=True)

TOTAL = sum((Decimal(p) for _, p in ws.PRICES), Decimal(0))
ERRORS = ws.LOG_LEVELS.count("ERROR")
TODO_LINES = 2 + len(ws.TODO)  # the heading and the blank line under it


def _writes_number(name: str, prompt: str, file: str, value: Decimal | int) -> Task:
    """A task done when a new ``file`` states ``value``: a count or a total read and worked out first."""
    return does(
        name,
        prompt,
        WRITE_MATH,
        lambda p: ws.states_number(ws.read(p, file), value),
        lambda p: (p / file).write_text(f"{value}\n"),
        calls=2,
        arithmetic=True,
    )


def _shopping_done(project: Path) -> bool:
    lines = [line.strip().lower() for line in ws.read(project, "shopping.txt").splitlines() if line.strip()]
    return len(lines) >= 3 and all(any(w in line for line in lines) for w in ("eggs", "flour", "sugar"))


def _port_done(project: Path) -> bool:
    try:
        config = json.loads(ws.read(project, "config.json"))
    except json.JSONDecodeError:
        return False
    return config == {**ws.CONFIG, "port": 9090}


def _set_port(project: Path) -> None:
    (project / "config.json").write_text(json.dumps({**ws.CONFIG, "port": 9090}, indent=2))


def _renamed(project: Path) -> bool:
    moved = ws.read(project, "announcement.txt")
    return not (project / "draft.txt").exists() and "launch announcement" in moved


def _todo_added(project: Path) -> bool:
    text = ws.read(project, "todo.md")
    return "call the plumber" in text.lower() and all(item[4:] in text for item in ws.TODO)


def _add_todo(project: Path) -> None:
    with (project / "todo.md").open("a") as todo:
        todo.write("- [ ] call the plumber\n")


def _readme_fixed(project: Path) -> bool:
    text = ws.read(project, "README.md")
    return "online shop" in text and "shop front" not in text and "Current version: 0.4.2" in text


def _fix_readme(project: Path) -> None:
    (project / "README.md").write_text(ws.README.replace("shop front", "online shop"))


def _dear_listed(project: Path) -> bool:
    text = ws.read(project, "dear.txt").lower()
    dear = {item for item, price in ws.PRICES if Decimal(price) > 2}
    cheap = {item for item, _ in ws.PRICES} - dear
    return bool(text) and all(d in text for d in dear) and not any(c in text for c in cheap)


def _list_dear(project: Path) -> None:
    (project / "dear.txt").write_text("\n".join(i for i, p in ws.PRICES if Decimal(p) > 2) + "\n")


FILE_TASKS: list[Task] = [
    asks(
        "count-lines",
        "How many lines does {ws}/notes.txt have?",
        COUNT,
        lambda: len(ws.NOTES),
        arithmetic=True,
    ),
    asks(
        "sum-prices",
        "Add up the prices in {ws}/prices.csv. What is the total?",
        COUNT,
        lambda: TOTAL,
        arithmetic=True,
    ),
    asks(
        "busiest-day",
        "Which day had the most visitors in {ws}/visitors.csv, and how many visitors came that day?",
        READ,
        lambda: _busiest(),
        # the day and its count: the count alone passed an answer that was a converter error ("e.g. '204 km'")
        match=lambda answer, want: ws.states_number(answer, want[1]) and _names_day(answer, want[0]),
    ),
    asks(
        "mean-visitors",
        "What is the average number of visitors per day in {ws}/visitors.csv?",
        COUNT,
        lambda: Decimal(sum(n for _, n in ws.VISITORS)) / len(ws.VISITORS),
        arithmetic=True,
    ),
    asks(
        "open-todos",
        "How many items in {ws}/todo.md are still open (not ticked)?",
        COUNT,
        lambda: sum(1 for t in ws.TODO if t.startswith("[ ]")),
        arithmetic=True,
    ),
    asks(
        "count-errors",
        "How many lines in {ws}/server.log are ERROR lines?",
        COUNT,
        lambda: ERRORS,
        arithmetic=True,
    ),
    asks("config-port", "Which port does {ws}/config.json set?", READ, lambda: ws.CONFIG["port"]),
    asks(
        "readme-version",
        "What version number does {ws}/README.md give?",
        READ,
        lambda: "0.4.2",
        match=states_text,
    ),
    asks(
        "file-size",
        "How big is {ws}/prices.csv, in bytes?",
        READ,
        lambda: len(("item,price\n" + "".join(f"{i},{p}\n" for i, p in ws.PRICES)).encode()),
    ),
    asks(
        "count-python",
        "How many Python (.py) files are there under {ws}/src, subfolders included?",
        COUNT,
        lambda: sum(1 for name in ws.SOURCES if name.startswith("src/") and name.endswith(".py")),
        calls=2,
        arithmetic=True,
    ),
    asks(
        "lines-of-two",
        "How many lines do {ws}/notes.txt and {ws}/todo.md have together?",
        COUNT,
        lambda: len(ws.NOTES) + TODO_LINES,
        calls=2,
        arithmetic=True,
    ),
    does(
        "create-list",
        "Create a file {ws}/shopping.txt listing eggs, flour and sugar, one per line.",
        WRITE,
        _shopping_done,
        lambda p: (p / "shopping.txt").write_text("eggs\nflour\nsugar\n"),
    ),
    does(
        "make-folder",
        "Create a folder called archive inside {ws}.",
        WRITE,
        lambda p: (p / "archive").is_dir(),
        lambda p: (p / "archive").mkdir(),
    ),
    does("set-port", "Change the port in {ws}/config.json to 9090.", WRITE, _port_done, _set_port, calls=2),
    does(
        "rename-draft",
        "Rename {ws}/draft.txt to announcement.txt, in the same folder.",
        WRITE,
        _renamed,
        lambda p: (p / "draft.txt").rename(p / "announcement.txt"),
    ),
    does(
        "add-todo",
        "Add an open item 'call the plumber' to {ws}/todo.md, keeping the other items.",
        WRITE,
        _todo_added,
        _add_todo,
        calls=2,
    ),
    does(
        "fix-readme",
        "In {ws}/README.md, replace the words 'shop front' with 'online shop'.",
        WRITE,
        _readme_fixed,
        _fix_readme,
        calls=2,
    ),
    _writes_number(
        "write-total",
        "Add up the prices in {ws}/prices.csv and write the total into a new file {ws}/total.txt.",
        "total.txt",
        TOTAL,
    ),
    _writes_number(
        "save-error-count",
        "Count the ERROR lines in {ws}/server.log and save the count in a new file {ws}/errors.txt.",
        "errors.txt",
        ERRORS,
    ),
    does(
        "list-dear",
        "Write the names of the items in {ws}/prices.csv that cost more than 2 into a new file {ws}/dear.txt,"
        " one per line.",
        WRITE_MATH,
        _dear_listed,
        _list_dear,
        calls=2,
        arithmetic=True,
    ),
]


def _busiest() -> tuple[str, int]:
    return max(ws.VISITORS, key=lambda row: row[1])


def _names_day(answer: str, day: str) -> bool:
    """ "Sat", "Saturday" or "saturday" for the day written "Sat" in the file."""
    return re.search(rf"\b{day}\w*", answer, re.IGNORECASE) is not None
