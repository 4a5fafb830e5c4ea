"""Steering an answer that has gone round in a loop to the result it must state.

Under the result grammar (:func:`backed.result_rules`) an answer must end by stating
the tool's result, but a small model can loop before it gets there ("2. 2. 2. 2.")
and would be cut off with no result at all. Once the loop is seen, the next tokens
are chosen, greedily and under the grammar still, among those that spell one of the
result's forms (after an optional "= "): the model still picks which form, and every
token is one the grammar allows; it is only kept from going round again.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

import numpy as np

from app.llm.local.sampling import GrammarSampler

MAX_STEERED = 32  # tokens: a result form is rarely longer than 30 characters in SmolLM2's tokens
_LEADS = ("", "= ", "≈ ")


class Vocabulary:
    """Every token's text, and the tokens of each text: built once per model, on first use."""

    def __init__(self, n_vocab: int, piece: Callable[[int], bytes]):
        self.by_text: dict[str, list[int]] = {}
        for token in range(n_vocab):
            text = piece(token).decode("utf-8", errors="ignore")
            if text:
                self.by_text.setdefault(text, []).append(token)


class ResultSteer:
    """Chooses the tokens that spell one of ``forms``; ``done`` once one is spelled whole."""

    def __init__(self, forms: Iterable[str], vocabulary: Vocabulary):
        self.targets = tuple(sorted({lead + form for form in forms for lead in _LEADS}))
        self.vocabulary = vocabulary
        self.text = ""
        self.steered = 0

    @property
    def done(self) -> bool:
        return self.text.strip() in self.targets

    def candidates(self) -> list[int]:
        """The tokens that continue ``text`` towards a target (a space may come first)."""
        spelled = self.text.lstrip()
        found: set[int] = set()
        for target in self.targets:
            if not target.startswith(spelled):
                continue
            rest = target[len(spelled) :]
            for end in range(1, len(rest) + 1):
                found.update(self.vocabulary.by_text.get(rest[:end], ()))
                if not spelled:
                    found.update(self.vocabulary.by_text.get(" " + rest[:end], ()))
        return sorted(found)

    def pick(self, grammar: GrammarSampler, logits: np.ndarray) -> int | None:
        """The best token that spells on and that the grammar allows; None when there is none."""
        tokens = self.candidates()
        for token in _best_first(tokens, logits):
            if grammar.allows(token):
                return token
        return None

    def fed(self, text: str) -> None:
        self.text += text
        self.steered += 1


def _best_first(tokens: Sequence[int], logits: np.ndarray) -> list[int]:
    if not tokens:
        return []
    ids = np.asarray(tokens, dtype=np.intc)
    return [int(t) for t in ids[np.argsort(-logits[ids], kind="stable")]]
