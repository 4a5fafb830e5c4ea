"""Calculon mode as plain Python: what it believes about numbers and formulas.

- :mod:`app.calculon.transcript` and :mod:`app.calculon.phrases`: arithmetic the user wrote
  out, read strictly, and worked out apart from the model;
- :mod:`app.calculon.verdict`: verified, computed or unverified, and why;
- :mod:`app.calculon.formula`: a computed answer's formula, the user's numbers labelled;
- :mod:`app.calculon.candidates` and :mod:`app.calculon.ranker`: a word problem's candidate
  formulas, ranked by weights fitted on a public corpus; :mod:`app.calculon.hint` hands the
  best (or the transcription) to the backend.

:class:`CalculonMode` is the verifier the engine hands the session: the number check of
:mod:`app.calculon.provenance` plus the verdict. It reads a question's numbers with paths, URLs,
file names and identifiers blanked (:mod:`app.core.named`): their digits are no quantities.
"""

from __future__ import annotations

from typing import Any

# The mode object loads on first use, not with the package: the model's process imports
# the package's small modules (forms, hints, candidates) and needs none of the checks.


def __getattr__(name: str) -> Any:
    if name == "CalculonMode":
        from app.calculon.mode import CalculonMode

        return CalculonMode
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["CalculonMode"]
