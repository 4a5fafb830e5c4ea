"""The phrasing rules of Calculon mode on the development corpora, no model: how often each rule
reads a story, and how often its reading is the answer key, beside the ranker's top-1 overall.

    python -m bench phrasing_rules [--show N]

Over every problem of MAWPS and GSM8K's train split (``bench/data/``; ``bench/make_corpora.py``
makes them). SVAMP, ASDiv and GSM8K's test split are held out and never passed here. A rule that
fires where its reading is wrong costs a story the ranker might have read right, so each rule's
"right / read" is the figure to watch; ``--show`` prints that many of each rule's misreadings.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable

from app.calculon import changes, compared, counted, each, kinds, periods, phrased, proportion, shares
from app.calculon.candidates import Candidate, Quantity, candidates, quantities
from app.calculon.ranker import question_start, ranked
from bench._calculon_public import corpus_questions

Rule = Callable[[str, str, list[Quantity], list[Candidate]], Candidate | None]


def _first(found: list[Candidate]) -> Candidate | None:
    return found[0] if found else None


RULES: dict[str, Rule] = {
    "changed in turn": lambda t, q, f, p: changes.changed_in_turn(t, q, f),
    "undone in turn": lambda t, q, f, p: changes.undone_in_turn(t, q, f),
    "compared": lambda t, q, f, p: compared.compared(t, q, f),
    "compared, together": lambda t, q, f, p: compared.compared_together(t, q, f),
    "times as many": lambda t, q, f, p: compared.times_as_many(t, q, f),
    "some changed": lambda t, q, f, p: changes.some_changed(t, q, f),
    "age then": lambda t, q, f, p: compared.age_then(t, q, f),
    "compared, then an age": lambda t, q, f, p: compared.compared_age_then(t, q, f),
    "shared equally": lambda t, q, f, p: counted.shared_equally(t, q, f),
    "gap between": lambda t, q, f, p: counted.gap_between(t, q, f),
    "rate times count": lambda t, q, f, p: counted.rate_times_count(t, q, f),
    "rest of a whole": lambda t, q, f, p: counted.rest_of_whole(t, q, f),
    "left to do": lambda t, q, f, p: counted.left_to_do(t, q, f),
    "each, then a change": lambda t, q, f, p: each.each_then_change(t, q, f),
    "counted as a kind": lambda t, q, f, p: kinds.counted_as_a_kind(t, q, f),
    "one list of sorts": lambda t, q, f, p: kinds.one_list_of_sorts(t, q, f),
    "share taken": lambda t, q, f, p: shares.share_taken(t, q, f),
    "fraction of": lambda t, q, f, p: shares.fraction_of(t, q, f),
    "priced count": lambda t, q, f, p: each.priced_count(t, q, f),
    "bought in all": lambda t, q, f, p: each.bought_in_all(t, q, f),
    "scaled rate": lambda t, q, f, p: proportion.scaled_rate(t, f),
    "dozens": lambda t, q, f, p: phrased.in_dozens(t, f),
    "average": lambda t, q, f, p: phrased.averaged(t, q, f),
    "over a period": lambda t, q, f, p: periods.over_a_period(t, q, f),
    "over periods": lambda t, q, f, p: periods.over_periods(t, q, f),
    "for each one": lambda t, q, f, p: periods.per_one(t, q, f),
    "percentage": lambda t, q, f, p: _first(phrased.changed(t, q, f, p)),
    "whole groups": lambda t, q, f, p: _first(phrased.grouped(t, q, f, p)),
}


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m bench phrasing_rules")
    parser.add_argument("--show", type=int, default=0, help="misreadings to print per rule")
    args = parser.parse_args(sys.argv[1:])
    for corpus in ("mawps", "gsm8k_train"):
        read: dict[str, list[int]] = {name: [0, 0] for name in RULES}
        wrong: dict[str, list[str]] = {name: [] for name in RULES}
        top = 0
        questions = corpus_questions(corpus)
        for question in questions:
            text, key = question.text, question.expected
            found = quantities(text)
            asked = text[question_start(text) :]
            pool = candidates(found)
            for name, rule in RULES.items():
                reading = rule(text, asked, found, pool)
                if reading is None:
                    continue
                read[name][0] += 1
                if reading.value == key:
                    read[name][1] += 1
                elif len(wrong[name]) < args.show:
                    wrong[name].append(f"{text[:140]} -> {reading.shown} (key {key})")
            best = ranked(text)
            top += bool(best) and best[0].candidate.value == key
        print(f"\n{corpus}: ranker top-1 {top}/{len(questions)}")
        print("| rule | read | right |\n|---|---|---|")
        for name, (fired, right) in read.items():
            print(f"| {name} | {fired} | {right} |")
        for name, lines in wrong.items():
            for line in lines:
                print(f"  {name} misread: {line}")
    return 0
