"""The side-by-side embedding run: both sides embed each query back to back, taking turns at going first."""

from __future__ import annotations

import numpy as np

from bench._retrieval_reference import interleave


def test_each_query_is_embedded_by_both_sides_back_to_back_the_first_side_alternating() -> None:
    calls: list[tuple[str, str]] = []

    def side(name: str, ms: float, vector: np.ndarray):
        def embed(text: str) -> tuple[np.ndarray, float]:
            calls.append((name, text))
            return vector, ms

        return embed

    run = interleave(["a", "b", "c"], side("ours", 2.0, np.ones(3)), side("raw", 1.0, np.full(3, 0.75)))
    assert calls == [("ours", "a"), ("raw", "a"), ("raw", "b"), ("ours", "b"), ("ours", "c"), ("raw", "c")]
    assert run.ours_first == [True, False, True]
    assert run.ms == {"ours": [2.0, 2.0, 2.0], "raw": [1.0, 1.0, 1.0]}
    assert run.max_diff == 0.25
