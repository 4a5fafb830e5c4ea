"""Tasks on a git repository and a SQLite database: count, sum, commit, stage, insert, update, delete."""

from __future__ import annotations

import json
import sqlite3
from decimal import Decimal
from pathlib import Path

from bench import _real_tasks_workspace as ws
from bench._real_tasks_task import (
    FS_READ,
    GIT_READ,
    GIT_WRITE,
    SQL_READ,
    SQL_WRITE,
    Task,
    asks,
    does,
    tools,
)

GIT = tools("git", (*GIT_READ, *GIT_WRITE))
GIT_COUNT = tools("git", GIT_READ, math=True)
SQL = tools("sqlite", SQL_READ, math=True)
SQL_EDIT = tools("sqlite", (*SQL_READ, *SQL_WRITE))
ADDED = ["Budget was approved.", "Hiring starts in June.", "The office moves in autumn.", "Retro on Friday."]


def _commits(project: Path) -> int:
    return len(ws.git(project, "rev-list", "HEAD").split())


def _head_says(project: Path, words: str) -> bool:
    return words in ws.git(project, "log", "-1", "--format=%s").lower() and _commits(project) == 6


def _commit(project: Path, message: str, *paths: str) -> None:
    ws.run_git(project, "add", *paths)
    ws.run_git(project, "commit", "-q", "-m", message)


def _add_notes(project: Path) -> None:
    with (project / "notes.txt").open("a") as notes:
        notes.write("".join(line + "\n" for line in ADDED))


def _edit_config(project: Path) -> None:
    (project / "config.json").write_text(json.dumps({**ws.CONFIG, "debug": True}, indent=2) + "\n")


def _committed_notes(project: Path) -> bool:
    clean = ws.git(project, "status", "--porcelain", "--", "notes.txt") == ""
    return clean and _head_says(project, "update notes")


def _staged_config(project: Path) -> bool:
    return (
        ws.git(project, "diff", "--cached", "--name-only").split() == ["config.json"]
        and _commits(project) == 5
    )


def _rows(project: Path, sql: str, *params: object) -> list[tuple[object, ...]]:
    return ws.query(project, sql, *params)


def _lamp_added(project: Path) -> bool:
    rows = _rows(project, "SELECT category, price, stock FROM products WHERE lower(name) = 'lamp'")
    return (
        len(rows) == 1
        and rows[0][0] == "home"
        and Decimal(str(rows[0][1])) == Decimal("19.99")
        and rows[0][2] == 6
    )


def _kettle_priced(project: Path) -> bool:
    rows = _rows(project, "SELECT name, price FROM products ORDER BY id")
    want = [(n, 24.5 if n == "kettle" else p) for n, _c, p, _s in ws.PRODUCTS]
    return rows == want


def _suppliers_made(project: Path) -> bool:
    columns = [str(row[1]).lower() for row in _rows(project, "PRAGMA table_info(suppliers)")]
    return {"id", "name", "city"} <= set(columns)


def _bob_gone(project: Path) -> bool:
    left = _rows(project, "SELECT customer FROM orders")
    return [c for (c,) in left] == [c for c, _, _ in ws.ORDERS if c != "Bob"]


def _food_added(project: Path) -> bool:
    rows = _rows(project, "SELECT name, price, stock FROM products WHERE category = 'food' ORDER BY name")
    want = sorted((i, Decimal(p), 0) for i, p in ws.PRICES)
    return [(n, Decimal(str(p)).quantize(Decimal("0.01")), s) for n, p, s in rows] == want


def _sql(project: Path, sql: str, *params: object) -> None:
    with sqlite3.connect(project / "shop.db") as db:
        db.execute(sql, params)


def _import_prices(project: Path) -> None:
    for item, price in ws.PRICES:
        _sql(
            project,
            "INSERT INTO products (name, category, price, stock) VALUES (?, 'food', ?, 0)",
            item,
            price,
        )


STORE_TASKS: list[Task] = [
    does(
        "commit-draft",
        "Commit {ws}/draft.txt to the git repository at {ws} with the message 'Add launch draft'.",
        GIT,
        lambda p: _head_says(p, "add launch draft") and "draft.txt" in ws.git(p, "ls-files"),
        lambda p: _commit(p, "Add launch draft", "draft.txt"),
        calls=2,
    ),
    asks(
        "count-commits",
        "How many commits are in the git repository at {ws}?",
        GIT_COUNT,
        lambda: len(ws.GIT_HISTORY),
        arithmetic=True,
    ),
    does(
        "make-branch",
        "Create a git branch called feature-search in the repository at {ws}.",
        GIT,
        lambda p: "feature-search" in ws.git(p, "branch", "--list", "feature-search"),
        lambda p: ws.run_git(p, "branch", "feature-search"),
    ),
    does(
        "commit-notes",
        "I edited notes.txt in the git repository at {ws}."
        " Commit that change with the message 'Update notes'.",
        GIT,
        _committed_notes,
        lambda p: _commit(p, "Update notes", "notes.txt"),
        calls=2,
        setup=_add_notes,
    ),
    asks(
        "lines-added",
        "How many lines have been added to notes.txt in the git repository at {ws} since the last commit?",
        GIT_COUNT,
        lambda: len(ADDED),
        arithmetic=True,
        setup=_add_notes,
    ),
    does(
        "stage-config",
        "Stage config.json for the next commit in the git repository at {ws}, without committing.",
        GIT,
        _staged_config,
        lambda p: ws.run_git(p, "add", "config.json"),
        setup=_edit_config,
    ),
    asks("count-products", "How many products are in the shop database?", SQL, lambda: len(ws.PRODUCTS)),
    asks(
        "total-stock",
        "What is the total stock of all products in the shop database?",
        SQL,
        lambda: sum(s for *_, s in ws.PRODUCTS),
        arithmetic=True,
    ),
    asks(
        "mean-tools-price",
        "What is the average price of the products in the 'tools' category of the shop database?",
        SQL,
        lambda: sum(Decimal(str(p)) for _, c, p, _ in ws.PRODUCTS if c == "tools") / 4,
        arithmetic=True,
    ),
    asks(
        "carol-quantity",
        "In the shop database, how many items has Carol ordered in total (the sum of her quantities)?",
        SQL,
        lambda: sum(q for c, _, q in ws.ORDERS if c == "Carol"),
        arithmetic=True,
    ),
    asks(
        "orders-value",
        "What are all the orders in the shop database worth together"
        " (each quantity times its product's price)?",
        SQL,
        lambda: sum(
            q * Decimal(str(p)) for _, item, q in ws.ORDERS for n, _, p, _ in ws.PRODUCTS if n == item
        ),
        calls=2,
        arithmetic=True,
    ),
    does(
        "add-product",
        "Add a product called lamp to the shop database: category home, price 19.99, 6 in stock.",
        SQL_EDIT,
        _lamp_added,
        lambda p: _sql(
            p, "INSERT INTO products (name, category, price, stock) VALUES ('lamp','home',19.99,6)"
        ),
    ),
    does(
        "set-price",
        "Change the price of the kettle in the shop database to 24.50.",
        SQL_EDIT,
        _kettle_priced,
        lambda p: _sql(p, "UPDATE products SET price = 24.5 WHERE name = 'kettle'"),
    ),
    does(
        "make-table",
        "Create a table called suppliers in the shop database, with columns id (integer primary key),"
        " name (text) and city (text).",
        SQL_EDIT,
        _suppliers_made,
        lambda p: _sql(p, "CREATE TABLE suppliers (id INTEGER PRIMARY KEY, name TEXT, city TEXT)"),
    ),
    does(
        "delete-orders",
        "Delete all of Bob's orders from the shop database.",
        SQL_EDIT,
        _bob_gone,
        lambda p: _sql(p, "DELETE FROM orders WHERE customer = 'Bob'"),
    ),
    does(
        "import-prices",
        "Add every item in {ws}/prices.csv to the products table of the shop database, with category food,"
        " its price from the file and a stock of 0.",
        SQL_EDIT | tools("filesystem", FS_READ),
        _food_added,
        _import_prices,
        calls=3,
    ),
]
