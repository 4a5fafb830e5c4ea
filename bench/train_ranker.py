"""Fit the word-problem ranker's weights (app/calculon/ranker.json) on MAWPS.

    python -m bench.train_ranker [--epochs 12] [--check FILE.jsonl ...]

Trains on every MAWPS problem except the bench's fixed sample of 100 (and any problem whose
text is close to one in it, so a worksheet sibling cannot leak the answer), then prints
top-1 accuracy on that sample. ``--check`` scores other corpora in the same format without
training on them: SVAMP and ASDiv are held out, so they are only ever passed here.

The objective is the softmax likelihood of the candidates whose value is the answer key,
by plain stochastic gradient ascent with L2, in pure Python (no dependency for a ranker of
a few thousand weights). It is deterministic: the problem order is shuffled by a fixed seed.
"""

from __future__ import annotations

import argparse
import difflib
import json
import math
import random
from collections import defaultdict
from fractions import Fraction
from pathlib import Path

from app.calculon.candidates import candidates, quantities
from app.calculon.ranker import WEIGHTS, Context, features, score
from bench._calculon_public import mawps_path, mawps_questions

Example = tuple[list[dict[str, float]], list[int]]


def correct(value: Fraction, answer: Fraction) -> bool:
    """The answer keys round some values ("0.33"), so a candidate matches to the key's digits."""
    if value == answer:
        return True
    text = format(float(answer), "f").rstrip("0")
    digits = len(text.split(".")[1]) if "." in text else 0
    return digits > 0 and abs(float(value) - float(answer)) < 0.5 * 10**-digits


def example(question: str, answer: Fraction) -> Example:
    found = quantities(question)
    pool = candidates(found)
    ctx = Context.of(question, found)
    feats = [features(c, ctx) for c in pool]
    gold = [i for i, c in enumerate(pool) if correct(c.value, answer)]
    return feats, gold


def train(data: list[Example], epochs: int, rate: float = 0.1, l2: float = 1e-4) -> dict[str, float]:
    weights: dict[str, float] = defaultdict(float)
    order = list(range(len(data)))
    rng = random.Random(7)
    for epoch in range(epochs):
        rng.shuffle(order)
        step = rate / (1 + epoch)
        for i in order:
            feats, gold = data[i]
            if not gold:
                continue
            scores = [score(f, weights) for f in feats]
            top = max(scores)
            exps = [math.exp(s - top) for s in scores]
            total, gold_total = sum(exps), sum(exps[g] for g in gold)
            grad: dict[str, float] = defaultdict(float)
            for j, f in enumerate(feats):
                p_all = exps[j] / total
                p_gold = exps[j] / gold_total if j in gold else 0.0
                for name, value in f.items():
                    grad[name] += (p_gold - p_all) * value
            for name, g in grad.items():
                weights[name] += step * (g - l2 * weights[name])
    return {k: round(v, 4) for k, v in weights.items() if abs(v) >= 0.03}


def accuracy(data: list[Example], weights: dict[str, float]) -> tuple[int, int, int]:
    """(top-1 right, some candidate right, problems)."""
    right = reachable = 0
    for feats, gold in data:
        if not feats:
            continue
        scores = [score(f, weights) for f in feats]
        best = max(range(len(feats)), key=lambda i: scores[i])
        right += best in gold
        reachable += bool(gold)
    return right, reachable, len(data)


def _rows(path: Path) -> list[tuple[str, Fraction]]:
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [(r["question"], Fraction(str(r["answer"]))) for r in rows]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=8)
    parser.add_argument("--l2", type=float, default=1e-3)
    parser.add_argument("--dev", type=int, default=0, help="also hold out N training problems, to compare")
    parser.add_argument("--check", nargs="*", default=[])
    parser.add_argument("--write", action="store_true", help="write app/calculon/ranker.json")
    args = parser.parse_args()
    path = mawps_path()
    if path is None:
        raise SystemExit("MAWPS is not here: see docs/mawps.md")
    sample = {q.text for q in mawps_questions(100)}
    kept = [(q, a) for q, a in _rows(path) if q not in sample and not any(_close(q, s) for s in sample)]
    if args.dev:
        random.Random(11).shuffle(kept)
    dev_set = [example(q, a) for q, a in kept[: args.dev]]
    train_set = [example(q, a) for q, a in kept[args.dev :]]
    test_set = [example(q.text, q.expected) for q in mawps_questions(100)]
    weights = train(train_set, args.epochs, l2=args.l2)
    print(f"trained on {len(train_set)} MAWPS problems, {len(weights)} weights")
    for name, data in [("mawps train", train_set), ("mawps dev", dev_set), ("mawps sample", test_set)]:
        if not data:
            continue
        right, reach, n = accuracy(data, weights)
        print(f"{name}: top-1 {right}/{n} ({right / n:.0%}); a right candidate exists in {reach}/{n}")
    for check in args.check:
        data = [example(q, a) for q, a in _rows(Path(check))]
        right, reach, n = accuracy(data, weights)
        print(f"{check}: top-1 {right}/{n} ({right / n:.0%}); a right candidate exists in {reach}/{n}")
    if args.write:
        WEIGHTS.write_text(json.dumps(dict(sorted(weights.items())), indent=0) + "\n", encoding="utf-8")
        print(f"wrote {WEIGHTS}")


def _close(a: str, b: str) -> bool:
    if abs(len(a) - len(b)) >= 0.2 * max(len(a), len(b)):
        return False
    matcher = difflib.SequenceMatcher(None, a, b)
    return matcher.real_quick_ratio() >= 0.8 and matcher.quick_ratio() >= 0.8 and matcher.ratio() >= 0.8


if __name__ == "__main__":
    main()
