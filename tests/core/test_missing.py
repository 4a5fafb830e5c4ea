"""Under an error that names a column or table that does not exist, the names the turn has read
(app.core.missing)."""

from __future__ import annotations

from app.core.missing import listed_names, missing_note

TABLES = "[{'name': 'products'}, {'name': 'orders'}]"
ORDERS = (
    "[{'cid': 0, 'name': 'id', 'type': 'INTEGER'}, {'cid': 1, 'name': 'customer', 'type': 'TEXT'},"
    " {'cid': 2, 'name': 'product', 'type': 'TEXT'}, {'cid': 3, 'name': 'qty', 'type': 'INT'}]"
)


def test_a_missing_column_is_noted_beside_the_names_the_turn_read() -> None:
    note = missing_note("Database error: no such column: quantity", [TABLES, ORDERS, "notes.txt says hi"])
    assert note == (
        "\n\n[Noted by the app: there is no column 'quantity'; the names read so far are: "
        "products, orders; id, customer, product, qty.]"
    )


def test_with_nothing_read_yet_the_note_says_to_look_up_what_exists() -> None:
    assert "look up what exists" in missing_note('relation "shop" does not exist', [])
    assert "there is no table 'shop'" in missing_note("Database error: no such table: shop", [])


def test_other_errors_and_other_texts_get_no_note() -> None:
    assert missing_note("Error: ENOENT: no such file or directory", [TABLES]) == ""
    assert listed_names("[1, 2, 3]") == [] and listed_names("__import__('os')") == []
