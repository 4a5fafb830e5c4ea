"""The two text encoders tool retrieval can use, and the process-wide instances.

``static`` (the default) averages distilled token vectors: a query costs well
under a millisecond. ``contextual`` runs the whole MiniLM model: about 3 points
more recall on the benchmark, about 15 ms per query on one core.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Protocol

import numpy as np

from app.mcp.encoder_kinds import ENCODER_KINDS
from app.mcp.retrieval.embed import MiniLMEncoder
from app.mcp.retrieval.static import StaticEncoder


class Encoder(Protocol):
    dim: int
    model_id: str
    fusion_weight: float
    calls: int
    texts_encoded: int

    @property
    def loaded(self) -> bool: ...

    @property
    def prepared(self) -> bool:
        """False while ``load`` still has once-per-machine work to do (the static table)."""
        ...

    def load(self) -> None: ...

    def encode(self, texts: Sequence[str], *, max_tokens: int | None = None) -> np.ndarray: ...


_shared: dict[str, Encoder] = {}
_lock = threading.Lock()


def shared_encoder(kind: str = "static") -> Encoder:
    """One encoder of each kind per process; the static one distils from the shared contextual one."""
    if kind not in ENCODER_KINDS:
        raise ValueError(f"unknown tool encoder {kind!r}; choose one of {', '.join(ENCODER_KINDS)}")
    with _lock:
        contextual = _shared.setdefault("contextual", MiniLMEncoder())
        if kind == "static" and "static" not in _shared:
            assert isinstance(contextual, MiniLMEncoder)
            _shared["static"] = StaticEncoder(contextual)
        return _shared[kind]
