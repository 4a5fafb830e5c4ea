"""One task's fresh workspace, and the judges' means of reading an outcome.

Every task starts from the same small project: text files, a CSV or two, a git repository
with a short history and an untracked draft, a SQLite shop database, a memory graph beside
the folder and a few web pages. Judges read what is there afterwards (a file, a commit, a
row, a memory entity) or the numbers and times an answer states; never its wording.
"""

from __future__ import annotations

import datetime as dt
import json
import re
import shutil
import sqlite3
import subprocess
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any

NOTES = [
    "Kickoff with the design team went well.",
    "We agreed to ship the beta before the summer.",
    "Marta will own the onboarding flow.",
    "Open question: do we keep the legacy export?",
    "The billing page needs a second review.",
    "Search should tolerate typos.",
    "Dark mode is nice to have, not a must.",
    "Next sync is with the support leads.",
    "Support asked for clearer error messages.",
    "We should write the migration guide early.",
    "Analytics events need names we can read.",
    "Remember to thank the testers.",
    "Accessibility audit is booked.",
]
PRICES = [("apple", "1.25"), ("bread", "2.40"), ("milk", "0.99"), ("cheese", "4.75"), ("coffee", "6.35")]
VISITORS = [("Mon", 120), ("Tue", 95), ("Wed", 143), ("Thu", 88), ("Fri", 131), ("Sat", 204), ("Sun", 185)]
TODO = ["[x] book the venue", "[ ] send the invitations", "[ ] order the cake", "[x] pick a date"]
TODO += ["[ ] print the name tags", "[ ] confirm the caterer"]
LOG_LEVELS = ["INFO", "INFO", "ERROR", "WARN", "INFO", "ERROR", "INFO", "INFO", "ERROR", "WARN", "INFO"]
LOG_LEVELS += ["ERROR", "INFO", "INFO", "ERROR"]
CONFIG = {"name": "tinyshop", "port": 8080, "debug": False, "workers": 3}
README = "# tinyshop\n\nA small shop front written in Python.\n\nCurrent version: 0.4.2\n"
SOURCES = {
    "src/app.py": "from util import total\n\n\ndef main():\n    print(total([1, 2]))\n",
    "src/util.py": "def total(xs):\n    return sum(xs)\n\n\ndef mean(xs):\n    return total(xs) / len(xs)\n",
    "src/web/routes.py": "ROUTES = ['/', '/cart', '/checkout']\n",
    "src/web/views.py": "def home():\n    return 'hello'\n",
    "tests/test_util.py": "from util import total\n\n\ndef test_total():\n    assert total([1]) == 1\n",
}
PRODUCTS = [
    ("kettle", "kitchen", 29.99, 12),
    ("toaster", "kitchen", 34.50, 7),
    ("blender", "kitchen", 49.00, 5),
    ("hammer", "tools", 12.75, 30),
    ("drill", "tools", 89.90, 4),
    ("saw", "tools", 21.40, 9),
    ("screwdriver", "tools", 6.85, 41),
    ("pillow", "home", 15.20, 22),
    ("blanket", "home", 39.95, 8),
    ("candle", "home", 4.60, 57),
    ("mug", "kitchen", 8.25, 33),
]
ORDERS = [("Bob", "kettle", 2), ("Carol", "drill", 1), ("Carol", "mug", 6), ("Dave", "candle", 10)]
ORDERS += [("Carol", "hammer", 2), ("Bob", "pillow", 3), ("Erin", "saw", 1)]
MEMORY = [
    {"type": "entity", "name": "Alice", "entityType": "person", "observations": ["birthday is 14 March"]},
    {"type": "entity", "name": "Bob", "entityType": "person", "observations": ["likes chess", "has 2 cats"]},
    {"type": "entity", "name": "Acme", "entityType": "company", "observations": ["based in Leeds"]},
    {"type": "entity", "name": "Carol", "entityType": "person", "observations": ["phone ends in 4471"]},
    {"type": "relation", "from": "Alice", "to": "Acme", "relationType": "works_at"},
]
PAGES = {
    "pricing.html": "<h1>Plans</h1><p>Starter: $9 per month.</p><p>Team: $15 per user per month.</p>"
    "<p>Pro: $49 per month.</p>",
    "release.html": "<h1>Releases</h1><ul><li>Version 2.1.0: 48213 downloads</li>"
    "<li>Version 2.0.3: 30877 downloads</li></ul>",
    "weather.html": "<h1>Lisbon today</h1><p>High 27 °C, low 18 °C, wind 11 km/h.</p>",
    "team.html": "<h1>Our team</h1><ul><li>Ana, design</li><li>Ben, support</li><li>Chen, backend</li>"
    "<li>Dora, sales</li><li>Eli, backend</li></ul>",
}
GIT_HISTORY = ["Initial project", "Add price list", "Add visitor counts", "Fix typo in notes", "Add config"]


def build(root: Path) -> Path:
    """A fresh workspace under ``root`` (removed first); returns the project folder."""
    shutil.rmtree(root, ignore_errors=True)
    project = root / "project"
    project.mkdir(parents=True)
    _write_files(project)
    _git_history(project)
    (project / "draft.txt").write_text("First draft of the launch announcement.\n")  # untracked
    _shop_db(project / "shop.db")
    lines = [json.dumps(item) for item in MEMORY]
    (root / "memory.jsonl").write_text("\n".join(lines) + "\n")
    return project


def _write_files(project: Path) -> None:
    files = {
        "notes.txt": "\n".join(NOTES) + "\n",
        "prices.csv": "item,price\n" + "".join(f"{i},{p}\n" for i, p in PRICES),
        "visitors.csv": "day,visitors\n" + "".join(f"{d},{n}\n" for d, n in VISITORS),
        "todo.md": "# Party\n\n" + "".join(f"- {t}\n" for t in TODO),
        "server.log": "".join(f"{lvl} request handled\n" for lvl in LOG_LEVELS),
        "config.json": json.dumps(CONFIG, indent=2) + "\n",
        "README.md": README,
        **SOURCES,
    }
    for name, text in files.items():
        (project / name).parent.mkdir(parents=True, exist_ok=True)
        (project / name).write_text(text)


def run_git(project: Path, *args: str) -> str:
    env = {"GIT_AUTHOR_DATE": "2026-03-02T10:00:00", "GIT_COMMITTER_DATE": "2026-03-02T10:00:00"}
    command = ["git", "-c", "user.name=Sam", "-c", "user.email=sam@example.com", *args]
    done = subprocess.run(command, cwd=project, capture_output=True, text=True, check=True, env=_env(env))
    return done.stdout


def _env(extra: dict[str, str]) -> dict[str, str]:
    import os

    return {**os.environ, **extra}


def _git_history(project: Path) -> None:
    run_git(project, "init", "-q", "-b", "main")
    run_git(project, "config", "user.name", "Sam")
    run_git(project, "config", "user.email", "sam@example.com")
    (project / ".gitignore").write_text("shop.db\n")
    groups = [
        [".gitignore", "README.md", "src", "tests", "todo.md"],
        ["prices.csv"],
        ["visitors.csv"],
        ["notes.txt"],
        ["config.json", "server.log"],
    ]
    for message, paths in zip(GIT_HISTORY, groups, strict=True):
        run_git(project, "add", *paths)
        run_git(project, "commit", "-q", "-m", message)


def _shop_db(path: Path) -> None:
    with sqlite3.connect(path) as db:
        db.execute(
            "CREATE TABLE products (id INTEGER PRIMARY KEY, name TEXT, category TEXT, price REAL, stock INT)"
        )
        db.executemany("INSERT INTO products (name, category, price, stock) VALUES (?, ?, ?, ?)", PRODUCTS)
        db.execute("CREATE TABLE orders (id INTEGER PRIMARY KEY, customer TEXT, product TEXT, qty INT)")
        db.executemany("INSERT INTO orders (customer, product, qty) VALUES (?, ?, ?)", ORDERS)
    path.chmod(0o666)


def write_pages(folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for name, body in PAGES.items():
        (folder / name).write_text(f"<html><body>{body}</body></html>\n")


# --- reading an outcome ---------------------------------------------------------------

_NUMBER = re.compile(r"(?<![\w.])[-−]?\d[\d,]*(?:\.\d+)?(?![\d])")


# an absolute path or a URL: its digits name a place, they state no number
_PLACE = re.compile(r"\b[a-z][a-z0-9+.-]*://\S+|(?<![\w./])(?:~)?/[^\s,;:!?()\"']+", re.IGNORECASE)


def numbers_in(text: str) -> list[Decimal]:
    """Every number the text states, thousands separators dropped (a version's parts count too)."""
    found = []
    text = _PLACE.sub(" ", text)  # "the repository at /tmp/pytest-5/w has 3 commits" states no 5
    for match in _NUMBER.findall(text.replace("\u202f", "").replace("\u00a0", "")):
        token = match.replace("−", "-").rstrip(",")
        if re.fullmatch(r"-?\d{1,3}(,\d{3})+(\.\d+)?", token):
            token = token.replace(",", "")
        with_comma = token.split(",")  # "3,4": two numbers in a list
        for part in with_comma:
            try:
                found.append(Decimal(part))
            except InvalidOperation:
                continue
    return found


def states_number(answer: str, expected: Decimal | int | str, tolerance: str = "0.005") -> bool:
    """The answer states ``expected`` (to within rounding to the cent)."""
    want = Decimal(str(expected))
    return any(abs(n - want) <= Decimal(tolerance) for n in numbers_in(answer))


# A time stands alone or after an ISO date's "T" ("2026-12-05T01:06:57"); "+09:00" is an offset.
_TIME = re.compile(r"(?:\b|(?<=\dT))(?<!\+)(\d{1,2})(?:[:.h](\d{2}))?\s*(a\.?m\.?|p\.?m\.?)?", re.IGNORECASE)


def times_in(text: str) -> list[tuple[int, int]]:
    """(hour, minute) of every clock time the text states, 12-hour times made 24-hour."""
    found = []
    for hour, minute, half in _TIME.findall(text):
        if not minute and not half:
            continue
        h, m = int(hour), int(minute or 0)
        if half and half[0].lower() == "p" and h < 12:
            h += 12
        if half and half[0].lower() == "a" and h == 12:
            h = 0
        if h < 24 and m < 60:
            found.append((h, m))
    return found


def states_time(answer: str, expected: dt.datetime, slack_minutes: int = 0) -> bool:
    want = expected.hour * 60 + expected.minute
    return any(abs((h * 60 + m) - want) % 1440 <= slack_minutes for h, m in times_in(answer))


def read(project: Path, name: str) -> str:
    path = project / name
    return path.read_text(errors="replace") if path.is_file() else ""


def git(project: Path, *args: str) -> str:
    try:
        return run_git(project, *args)
    except subprocess.CalledProcessError:
        return ""


def query(project: Path, sql: str, *params: Any) -> list[tuple[Any, ...]]:
    with sqlite3.connect(project / "shop.db") as db:
        return list(db.execute(sql, params))


def memory(project: Path) -> list[dict[str, Any]]:
    path = project.parent / "memory.jsonl"
    lines = path.read_text().splitlines() if path.exists() else []
    return [json.loads(line) for line in lines if line.strip()]


def entity(project: Path, name: str) -> dict[str, Any] | None:
    for item in memory(project):
        if item.get("type") == "entity" and str(item.get("name", "")).lower() == name.lower():
            return item
    return None
