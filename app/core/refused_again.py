"""A worked answer that writes again a calculation the calculator refused.

A small model shown its calculation's refusal often writes the same calculation once more, and
again: Qwen2.5-Coder-0.5B wrote the malformed ``* + 7 - 9`` until the cap of 24 inline
calculations ended its turn with an error. The second identical refusal is enough to know the
worked answer will not recover: it is set aside, once a turn, and the model is asked to
calculate again with the readings Calculon sees in the question (a local model that reads
stories then makes the story's reading as its call: ``ModelRequest.reading_due``).
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from app.core.records import CallRecord


class RefusedCalculations:
    """The calculations of this turn that failed, to know one written again."""

    def __init__(self) -> None:
        self._seen: set[str] = set()
        self.set_aside = False  # a worked answer was set aside this turn

    def again(self, records: Sequence[CallRecord]) -> bool:
        """Whether one of these finished calls failed as the same call failed before this turn."""
        repeated = False
        for record in records:
            if record.failed:
                arguments = json.dumps(record.arguments, sort_keys=True, default=str)
                key = f"{record.server}.{record.tool} {arguments}"
                repeated = repeated or key in self._seen
                self._seen.add(key)
        return repeated
