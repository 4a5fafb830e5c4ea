"""Which candidate formula a word problem most likely means: a linear ranker over the words
around the question and around each number.

The weights (``ranker.json``) were fitted on MAWPS, a public corpus of grade-school word
problems (``bench/train_ranker.py`` says how), and are checked on SVAMP and ASDiv, which
were never used to fit anything. A ranking is evidence, not proof: a formula it picks is
shown as *computed*, with its numbers labelled, for the person to check, never as verified.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import math
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path

from app.calculon.candidates import Candidate, Quantity, candidates, quantities
from app.calculon.evaluate import Node
from app.calculon.phrased import phrased_candidates
from app.calculon.share import share_candidates

WEIGHTS = Path(__file__).with_name("ranker.json")
_WORD = re.compile(r"[a-z]+")
_NEAR = 4  # words either side of a number that speak about it
# Story words grouped by what they usually tell of the arithmetic, so that a word the
# fitting corpus used rarely shares the weight of its kind ("leak" with "lost"). The
# groups say nothing of which operator: the weights learn that, per group.
_CUE_WORDS = {
    "away": "left remain remaining lost lose gave give given spent spend ate eat eaten sold sell broke "
    "broken leak leaked took take away used use off minus fewer less gone died fell removed",
    "gain": "total all altogether together combined sum both plus bought buy found received got "
    "gained added joined picked collected grew increase",
    "compare": "more than longer taller older heavier farther further difference much bigger larger",
    "rate": "each per every times twice double triple rows row groups group bags boxes packs week day hour",
    "split": "equally equal shared share split among divided divide average between evenly",
    "cheaper": "discount sale reduced cheaper markdown decrease",
    "dearer": "tax tip markup raise interest increase increased",
}


@dataclasses.dataclass(frozen=True)
class Ranked:
    candidate: Candidate
    probability: float  # the ranker's softmax share among all candidates


def ranked(text: str, weights: Mapping[str, float] | None = None, top: int = 5) -> list[Ranked]:
    """The story's best candidate formulas, most likely first; [] when it has none."""
    found = quantities(text)
    pool = candidates(found)
    if not pool:  # one number: only a phrasing that names the other ("$40 a month ... in a year")
        alone = phrased_candidates(text, text[question_start(text) :], found, [])
        return [Ranked(c, 1.0) for c in alone[:top]]
    w = weights if weights is not None else load_weights()
    context = Context.of(text, found)
    scored = sorted(((score(features(c, context), w), c) for c in pool), key=lambda sc: -sc[0])
    ordered = [c for _, c in scored]
    # "What is 20% of my pay?"; "I tip 15%. How much in total?"; "How many full bags of 3 ...?"
    share = share_candidates(text, found, ordered) or phrased_candidates(
        text, text[question_start(text) :], found, ordered
    )
    if share:  # the phrasing's own order, each with its score
        score_of = {id(c): s for s, c in scored}
        best = scored[0][0]  # a formula the candidates cannot write (an average of four) ranks first
        scored = [(score_of.get(id(c), best), c) for c in share]
    top_score = max(s for s, _ in scored)
    exps = [math.exp(s - top_score) for s, _ in scored]
    total = sum(exps)
    return [Ranked(c, e / total) for (_, c), e in list(zip(scored, exps, strict=True))[:top]]


def score(feats: Mapping[str, float], weights: Mapping[str, float]) -> float:
    return sum(weights.get(name, 0.0) * value for name, value in feats.items())


@functools.cache
def load_weights() -> dict[str, float]:
    return dict(json.loads(WEIGHTS.read_text(encoding="utf-8")))


@dataclasses.dataclass(frozen=True)
class Context:
    """What the features read from the story, worked out once for all its candidates."""

    question_words: frozenset[str]
    question_cues: frozenset[str]
    near: tuple[frozenset[str], ...]  # per quantity: the words beside it
    in_question: frozenset[int]  # quantities written in the question sentence
    count: int
    unit: tuple[str, ...]  # per quantity: the first word after it ("12 boxes": "box")
    asked: tuple[bool, ...]  # per quantity: a word beside it is a word of the question
    asked_unit: str  # what "how many ..." counts: "muffins" in "How many muffins are left?"

    @classmethod
    def of(cls, text: str, found: Sequence[Quantity]) -> Context:
        lowered = text.lower()
        start = question_start(text)
        question = set(_stems(lowered[start:]))
        near = tuple(frozenset(_near(lowered, q)) for q in found)
        inside = frozenset(i for i, q in enumerate(found) if q.start >= start)
        cues = frozenset(_CUES[w] for w in question if w in _CUES)
        unit = tuple(_unit(lowered, q) for q in found)
        asked = tuple(bool(set(_content(w[1:] for w in words if w[0] in "<>")) & question) for words in near)
        counted = re.search(r"how (?:many|much) ([a-z]+)", lowered[start:])
        asked_unit = _stem(counted.group(1)) if counted else ""
        return cls(frozenset(question), cues, near, inside, len(found), unit, asked, asked_unit)


def features(c: Candidate, ctx: Context) -> dict[str, float]:
    sig = "".join(c.ops)
    top = c.ops[0]
    f: dict[str, float] = {f"sig:{sig}": 1.0, f"used:{len(c.used)}/{min(ctx.count, 5)}": 1.0}
    for word in ctx.question_words:
        f[f"q:{word}:{top}"] = 1.0
        if len(c.ops) > 1:
            f[f"q:{word}:{sig}"] = 1.0
    for cue in ctx.question_cues:
        f[f"cue:{cue}:{top}"] = 1.0
    for index, role in c.roles:
        f[f"role:{role}"] = f.get(f"role:{role}", 0.0) + 1.0
        for word in ctx.near[index]:
            f[f"n:{word}:{role}"] = 1.0
            kind = _CUES.get(word[1:])
            if kind:
                f[f"ncue:{word[0]}{kind}:{role}"] = 1.0
        if index in ctx.in_question:
            f[f"inq:{role}"] = 1.0
    left_out = [i for i in range(ctx.count) if i not in c.used]
    f["used_not_asked"] = float(sum(1 for i in c.used if not ctx.asked[i]))
    f["left_out_asked"] = float(sum(1 for i in left_out if ctx.asked[i]))
    for index, role in c.roles:
        f[f"asked:{ctx.asked[index]}:{role}"] = 1.0
    if ctx.asked_unit and ctx.asked_unit not in _STOP:
        for index, role in c.roles:
            f[f"unit_asked:{ctx.unit[index] == ctx.asked_unit}:{role}"] = 1.0
        f["left_out_unit_asked"] = float(sum(1 for i in left_out if ctx.unit[i] == ctx.asked_unit))
    pairs: list[tuple[str, int, int]] = []
    _pairs(c.node, iter(c.used), pairs)
    for op, left, right in pairs:
        if ctx.unit[left] and ctx.unit[right]:
            f[f"unit:{ctx.unit[left] == ctx.unit[right]}:{op}"] = 1.0
    f["left_out_in_question"] = float(sum(1 for i in left_out if i in ctx.in_question))
    f["text_order"] = 1.0 if list(c.used) == sorted(c.used) else 0.0
    value = c.value
    f["negative"] = 1.0 if value < 0 else 0.0
    f["zero"] = 1.0 if value == 0 else 0.0
    f["whole"] = 1.0 if value.denominator == 1 else 0.0
    f[f"whole:{top}"] = f["whole"]
    f["below_one"] = 1.0 if 0 < value < 1 else 0.0
    return f


def _pairs(node: Node, leaves: Iterator[int], out: list[tuple[str, int, int]]) -> int | None:
    """Add to ``out`` each operation of two written numbers, with their quantities (the leaves
    come in the formula's order): whether "12 boxes" and "3 boxes" share a unit says more of
    + and − than of × and ÷. The quantity of a leaf; None for an operation."""
    if node.op == "num":
        return next(leaves)
    left, right = [_pairs(arg, leaves, out) for arg in node.args]
    if left is not None and right is not None:
        out.append((node.op, left, right))
    return None


def _unit(lowered: str, q: Quantity) -> str:
    """What a number counts: the first word after it in its clause ("12 boxes" -> "box"); a sum
    of money ("$17") counts dollars."""
    if lowered[: q.start].rstrip().endswith("$"):
        return _stem("dollars")
    clause = re.split(r"[.!?,;:]\s", lowered[q.end :] + " ", maxsplit=1)[0]
    return next(iter(_content(_stems(clause)[:3])), "")


def _content(words: Iterable[str]) -> list[str]:
    return [w for w in words if w not in _STOP]


def _cue_table() -> dict[str, str]:
    return {_stem(word): kind for kind, words in _CUE_WORDS.items() for word in words.split()}


def question_start(text: str) -> int:
    """Where the question sentence starts: the last sentence that asks, or the last one."""
    ends = [m.end() for m in re.finditer(r"(?<=[.!?])\s+", text.rstrip())]
    asks = [i for i, end in enumerate([*ends, len(text)]) if "?" in text[(ends[i - 1] if i else 0) : end]]
    if asks:
        i = asks[-1]
        return ends[i - 1] if i else 0
    return ends[-1] if ends else 0


def _near(lowered: str, q: Quantity) -> list[str]:
    before = _stems(lowered[: q.start])[-_NEAR:]
    after = _stems(lowered[q.end :])[:_NEAR]
    percent = ["%"] if q.text.endswith("/100)") else []  # "20%": the words of "20 percent" say less
    return [f"<{w}" for w in before] + [f">{w}" for w in after] + percent


def _stems(text: str) -> list[str]:
    return [_stem(w) for w in _WORD.findall(text)]


def _stem(word: str) -> str:
    """A crude stem, so "leaves", "left" and "leaving" share less than they would not."""
    for suffix in ("ing", "ed", "es", "s"):
        if len(word) > len(suffix) + 2 and word.endswith(suffix):
            return word[: -len(suffix)][:4]
    return word[:4]


_CUES = _cue_table()
# Words beside a number that name nothing: they cannot tie it to the question.
_STOP_WORDS = (
    "a an the and or of to in on at for with by from he she they it his her their its is are was "
    "were has have had does did do how many much what if then there that this each more than"
)
_STOP = frozenset(_stem(w) for w in _STOP_WORDS.split())
