"""Public word problems for the Calculon bench, written by others: MAWPS.

MAWPS (Koncel-Kedziorski et al., NAACL 2016) is kept out of this repository: its text comes
from a public copy, and such data lives in the shared data folder, not in the code. The
bench reads it from the first of:

- ``$CALCULON_MAWPS`` (a ``.jsonl`` file);
- ``bench/data/mawps.jsonl`` (ignored by git);
- ``../shared/mawps/mawps.jsonl`` beside the checkout.

One JSON object a line: ``{"id", "question", "answer", "equation"}``; ``docs/mawps.md``
says where the copy came from and how it was made. Problems that are also in ASDiv or
SVAMP were left out of it: those two corpora are held out for checking and are never
used to tune anything here.

A run takes a fixed random sample (seed below), so repeated runs ask the same questions.
"""

from __future__ import annotations

import json
import os
import random
from fractions import Fraction
from pathlib import Path

from bench._calculon_questions import Question

SEED = 20261202
ROOT = Path(__file__).resolve().parents[1]


def mawps_path() -> Path | None:
    return corpus_path("mawps")


def corpus_path(name: str) -> Path | None:
    """``$CALCULON_<NAME>``, ``bench/data/<name>.jsonl`` or ``../shared/<name>/<name>.jsonl``."""
    named = os.environ.get(f"CALCULON_{name.upper()}")
    places = [Path(named)] if named else []
    places += [ROOT / "bench" / "data" / f"{name}.jsonl", ROOT.parent / "shared" / name / f"{name}.jsonl"]
    return next((p for p in places if p.is_file()), None)


def mawps_questions(sample: int = 0) -> list[Question]:
    """The corpus, or a fixed sample of ``sample`` problems; FileNotFoundError names the places."""
    return corpus_questions("mawps", sample)


def corpus_questions(name: str, sample: int = 0) -> list[Question]:
    """MAWPS, or a held-out corpus (``svamp``, ``asdiv``: checked, never tuned on), in the same
    JSON-lines form; a fixed sample of ``sample`` problems (0: all)."""
    path = corpus_path(name)
    if path is None:
        raise FileNotFoundError(
            f"{name.upper()} is not here: set CALCULON_{name.upper()}, or put {name}.jsonl in bench/data/ "
            f"or ../shared/{name}/"
        )
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    questions = [Question(r["question"], name, Fraction(str(r["answer"]))) for r in rows]
    if sample and sample < len(questions):
        questions = random.Random(SEED).sample(questions, sample)
    return questions
