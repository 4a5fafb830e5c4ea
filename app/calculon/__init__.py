"""Calculon mode as plain Python: what it believes about numbers and formulas.

- :mod:`app.calculon.transcript` and :mod:`app.calculon.phrases`: arithmetic the user wrote
  out, read strictly, and worked out apart from the model;
- :mod:`app.calculon.verdict`: verified, computed or unverified, and why;
- :mod:`app.calculon.formula`: a computed answer's formula, the user's numbers labelled.

:class:`CalculonMode` is the verifier the engine hands the session: the number check of
:mod:`app.core.provenance` plus the verdict.
"""

from __future__ import annotations

from app.calculon.verdict import judge
from app.core.provenance import CalculonVerifier
from app.core.tools import CheckResult, TurnFacts, Verdict


class CalculonMode(CalculonVerifier):
    """Checks every number, then judges whether the formula that ran is established."""

    def judge(self, answer: str, check: CheckResult, facts: TurnFacts) -> Verdict:
        return judge(answer, check, facts)


__all__ = ["CalculonMode"]
