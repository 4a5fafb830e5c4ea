"""Calculon mode as plain Python: what it believes about numbers and formulas.

- :mod:`app.calculon.transcript` and :mod:`app.calculon.phrases`: arithmetic the user wrote
  out, read strictly, and worked out apart from the model;
- :mod:`app.calculon.verdict`: verified, computed or unverified, and why;
- :mod:`app.calculon.formula`: a computed answer's formula, the user's numbers labelled;
- :mod:`app.calculon.candidates` and :mod:`app.calculon.ranker`: a word problem's candidate
  formulas, ranked by weights fitted on a public corpus; :mod:`app.calculon.hint` hands the
  best (or the transcription) to the backend.

:class:`CalculonMode` is the verifier the engine hands the session: the number check of
:mod:`app.calculon.provenance` plus the verdict.
"""

from __future__ import annotations

from fractions import Fraction

from app.calculon.hint import formula_hint
from app.calculon.provenance import CalculonVerifier
from app.calculon.verdict import judge
from app.core.backend import FormulaHint
from app.core.tools import CheckResult, TurnFacts, Verdict


class CalculonMode(CalculonVerifier):
    """Checks every number, then judges whether the formula that ran is established."""

    def judge(self, answer: str, check: CheckResult, facts: TurnFacts) -> Verdict:
        return judge(answer, check, facts)

    def hint(self, asked: str, earlier: Fraction | None) -> FormulaHint | None:
        """The formula the user's words ask for, handed to the backend (see :mod:`app.calculon.hint`)."""
        return formula_hint(asked, earlier)


__all__ = ["CalculonMode"]
