"""The Calculon bench's question sets, each as a list of conversations (most of one question)."""

from __future__ import annotations

from bench._calculon_blind import blind_questions
from bench._calculon_conversations import conversation_questions
from bench._calculon_everyday import everyday_questions
from bench._calculon_fresh import fresh_questions
from bench._calculon_heldout import heldout_questions
from bench._calculon_public import corpus_questions
from bench._calculon_questions import CATEGORIES, Question, all_questions
from bench._no_digits import no_digit_questions

PUBLIC = ("mawps", "svamp", "asdiv", "gsm8k")  # svamp, asdiv and gsm8k (test): held out, checked only
DEVELOPMENT = ("gsm8k_train",)  # GSM8K's train split: for development, never reported as a result
SETS = ("main", "heldout", "fresh", "blind", "everyday", "conversation", "no_digits", *PUBLIC, *DEVELOPMENT)


def questions_of(name: str, limit: int = 0, sample: int = 0) -> list[list[Question]]:
    """Set ``name``; ``limit``: the first N of each category (N conversations for that set);
    ``sample``: how many MAWPS problems (0: all)."""
    if name == "conversation":
        found = conversation_questions()
        return found[:limit] if limit else found
    if name in PUBLIC or name in DEVELOPMENT:
        chosen = corpus_questions(name, sample)
        return [[q] for q in (chosen[:limit] if limit else chosen)]
    if name == "no_digits":  # every one, whatever the limit: the set is small and each kind counts
        return [[q] for q in no_digit_questions()]
    pool = {
        "heldout": heldout_questions,
        "fresh": fresh_questions,
        "blind": blind_questions,
        "everyday": everyday_questions,
    }.get(name, all_questions)()
    return [[q] for q in select(pool, limit)]


def select(questions: list[Question], limit: int) -> list[Question]:
    if not limit:
        return questions
    return [q for c in CATEGORIES for q in [q for q in questions if q.category == c][:limit]]
