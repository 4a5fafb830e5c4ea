"""Tasks on a memory graph, the clock and a web page, and ones that cross servers."""

from __future__ import annotations

import datetime as dt
import json
from decimal import Decimal
from pathlib import Path
from zoneinfo import ZoneInfo

from bench import _real_tasks_workspace as ws
from bench._real_tasks_task import (
    FS_READ,
    FS_WRITE,
    MEM_READ,
    MEM_WRITE,
    SQL_READ,
    Task,
    asks,
    does,
    states_clock,
    states_text,
    tools,
)

MEMORY = tools("memory", (*MEM_READ, *MEM_WRITE))
CLOCK = tools("time", ("get_current_time", "convert_time"), more=["clock.get_time"])
FETCH = tools("fetch", ("fetch",), math=True)


def _observations(project: Path, name: str) -> str:
    found = ws.entity(project, name)
    return " ".join(found.get("observations", [])).lower() if found else ""


def _relations(project: Path, source: str) -> str:
    items = ws.memory(project)
    return " ".join(
        f"{r.get('to', '')} {r.get('relationType', '')}".lower()
        for r in items
        if r.get("type") == "relation" and str(r.get("from", "")).lower() == source
    )


def _dana_remembered(project: Path) -> bool:
    said = " ".join(
        f"{e.get('name', '')} {' '.join(e.get('observations', []))}".lower()
        for e in ws.memory(project)
        if e.get("type") == "entity" and "dana" in str(e.get("name", "")).lower()
    )
    return "oct" in said and ws.states_number(said, 3)


def _remember(project: Path, *items: dict[str, object]) -> None:
    with (project.parent / "memory.jsonl").open("a") as graph:
        graph.write("".join(json.dumps(item) + "\n" for item in items))


def _observe(project: Path, name: str, text: str) -> None:
    graph = ws.memory(project)
    for item in graph:
        if item.get("name") == name:
            item["observations"] = [*item["observations"], text]
    (project.parent / "memory.jsonl").write_text("".join(json.dumps(item) + "\n" for item in graph))


def _forgot_bob(project: Path) -> bool:
    names = {e.get("name") for e in ws.memory(project) if e.get("type") == "entity"}
    return names == {"Alice", "Acme", "Carol"}


def _forget_bob(project: Path) -> None:
    kept = [e for e in ws.memory(project) if e.get("name") != "Bob"]
    (project.parent / "memory.jsonl").write_text("".join(json.dumps(item) + "\n" for item in kept))


def _today_at(zone: str, hour: int, minute: int, to: str) -> dt.datetime:
    here = dt.datetime.now(ZoneInfo(zone))
    return here.replace(hour=hour, minute=minute, second=0, microsecond=0).astimezone(ZoneInfo(to))


def _hours_ahead() -> Decimal:
    now = dt.datetime.now(dt.UTC)
    tokyo, london = now.astimezone(ZoneInfo("Asia/Tokyo")), now.astimezone(ZoneInfo("Europe/London"))
    offset = (tokyo.utcoffset() or dt.timedelta()) - (london.utcoffset() or dt.timedelta())
    return Decimal(offset.total_seconds()) / 3600


MORE_TASKS: list[Task] = [
    does(
        "remember-birthday",
        "Remember that my sister Dana's birthday is on 3 October.",
        MEMORY,
        _dana_remembered,
        lambda p: _remember(
            p,
            {
                "type": "entity",
                "name": "Dana",
                "entityType": "person",
                "observations": ["birthday 3 October"],
            },
        ),
    ),
    asks("recall-birthday", "On what day of March is Alice's birthday? Check my memory.", MEMORY, lambda: 14),
    does(
        "alice-moved",
        "Add to my memory that Alice moved to Berlin.",
        MEMORY,
        lambda p: (
            "berlin" in _observations(p, "Alice") + _relations(p, "alice")
            and "14 march" in _observations(p, "Alice")
        ),
        lambda p: _observe(p, "Alice", "moved to Berlin"),
    ),
    does("forget-bob", "Forget everything you know about Bob.", MEMORY, _forgot_bob, _forget_bob),
    does(
        "carol-works",
        "Note in my memory that Carol works at Acme.",
        MEMORY,
        lambda p: "acme" in _observations(p, "Carol") + _relations(p, "carol"),
        lambda p: _remember(
            p, {"type": "relation", "from": "Carol", "to": "Acme", "relationType": "works_at"}
        ),
    ),
    does(
        "price-to-memory",
        "Look up the price of the drill in the shop database and save it in my memory as an observation"
        " on an entity called drill.",
        tools("sqlite", SQL_READ) | MEMORY,
        lambda p: ws.states_number(_observations(p, "drill"), "89.9"),
        lambda p: _remember(
            p, {"type": "entity", "name": "drill", "entityType": "product", "observations": ["price 89.90"]}
        ),
        calls=2,
    ),
    asks(
        "tokyo-now",
        "What time is it in Tokyo right now?",
        CLOCK,
        lambda: dt.datetime.now(ZoneInfo("Asia/Tokyo")),
        match=states_clock(3),
    ),
    asks(
        "new-york-to-london",
        "When it is 9:30 today in New York, what time is it in London?",
        CLOCK,
        lambda: _today_at("America/New_York", 9, 30, "Europe/London"),
        match=states_clock(0),
    ),
    asks(
        "berlin-to-los-angeles",
        "A call is at 15:00 Berlin time today. What time is that in Los Angeles?",
        CLOCK,
        lambda: _today_at("Europe/Berlin", 15, 0, "America/Los_Angeles"),
        match=states_clock(0),
    ),
    asks(
        "tokyo-ahead",
        "How many hours ahead of London is Tokyo right now?",
        CLOCK | {"calculator.*"},
        _hours_ahead,
        calls=2,
        arithmetic=True,
    ),
    asks(
        "pro-price",
        "Fetch {url}/pricing.html and tell me what the Pro plan costs per month.",
        FETCH,
        lambda: 49,
    ),
    asks(
        "team-cost",
        "According to {url}/pricing.html, what would the Team plan cost per month for 6 users?",
        FETCH,
        lambda: 15 * 6,
        arithmetic=True,
    ),
    asks(
        "downloads-together",
        "According to {url}/release.html, how many downloads do versions 2.1.0 and 2.0.3 have together?",
        FETCH,
        lambda: 48213 + 30877,
        arithmetic=True,
    ),
    asks(
        "temperature-range",
        "Fetch {url}/weather.html: how many degrees apart are today's high and low in Lisbon?",
        FETCH,
        lambda: 27 - 18,
        arithmetic=True,
    ),
    does(
        "save-latest-version",
        "Fetch {url}/release.html and write the newest version number into a new file {ws}/LATEST.txt.",
        FETCH | tools("filesystem", (*FS_READ, *FS_WRITE)),
        lambda p: states_text(ws.read(p, "LATEST.txt"), "2.1.0"),
        lambda p: (p / "LATEST.txt").write_text("2.1.0\n"),
        calls=2,
    ),
]
