"""A table's numeric columns listed by the app, where the question asks for their sum or mean.

Asked "What is the average number of visitors per day in visitors.csv?", Qwen2.5-Coder-1.5B read
seven rows of visitor counts and sent the calculator ``8 - 1 - 1``: it lost the numbers in the
rows. Where the question asks for a total, a sum or an average and a tool's text is a table (as
app.calculon.extremes reads one), the result the model reads ends with each numeric column's
values in order and how many there are. The app adds nothing up: the calculator still does.
"""

from __future__ import annotations

import re

from app.calculon.extremes import numeric_columns

_ASKS = re.compile(
    r"\b(?:total|sum|add(?:ed|s)?\s+up|altogether|combined|average|mean|in\s+all|together)\b", re.IGNORECASE
)
MAX_COLUMNS = 2
MAX_VALUES = 50  # a longer column is listed by no one: the model could not write the sum either


def columns_note(asked: str, result: str) -> str:
    """The note for ``result`` where ``asked`` sums or averages a table's column; "" otherwise."""
    found = numeric_columns(result) if _ASKS.search(asked) else None
    if found is None:
        return ""
    facts = [
        f"the {name} column holds {len(cells)} numbers: {', '.join(cells)}"
        for _, name, cells in found[2]
        if len(cells) <= MAX_VALUES
    ]
    return f"\n\n[Found by the app: {'; '.join(facts[:MAX_COLUMNS])}.]" if facts else ""
