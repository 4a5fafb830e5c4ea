"""Make the public word-problem files that ``bench/calculon_verified`` asks, from their sources.

The corpora are not kept in this repository (see ``docs/mawps.md``); this script makes them
again from public copies read outside it, so a figure in docs/benchmarks.md can be checked::

    python -m bench.make_corpora --mawps mawps_source.json --svamp SVAMP.json --asdiv ASDiv.xml \
        --gsm8k test.jsonl --gsm8k-train train.jsonl

- ``--mawps``: ``dataset/mawps-single/mawps_source.json`` of GitHub ``LYH-YF/MWPToolkit``. The
  problems that are also in SVAMP or ASDiv are dropped by the id list in docs/mawps.md (which
  says how that list was found), and the result must have the sha256 written there.
- ``--svamp``: ``dataset/SVAMP/SVAMP.json`` of the same repository; ``--asdiv``:
  ``dataset/ASDiv.xml`` of GitHub ``chaochun/nlu-asdiv-dataset``. These two are held out: the
  bench checks on them, and nothing in the project is tuned on them.
- ``--gsm8k`` and ``--gsm8k-train``: ``grade_school_math/data/test.jsonl`` and ``train.jsonl`` of
  GitHub ``openai/grade-school-math`` (MIT). The test split is checked on, like SVAMP and ASDiv;
  the train split may be used for development and fitting.

Each file is written to ``bench/data/<name>.jsonl`` (ignored by git), one
``{"id", "question", "answer", "equation"}`` a line.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MAWPS_SHA256 = "447ed92806bfa95c3634f8d176c94a5878bfc3f2af55cd8c5612beb3ea5f8df2"


def dropped_ids(doc: Path = ROOT / "docs" / "mawps.md") -> set[str]:
    """The MAWPS ids that docs/mawps.md lists as the same problems as SVAMP or ASDiv ones."""
    text = doc.read_text(encoding="utf-8").split("## MAWPS ids dropped in step 3", 1)[1]
    return set(re.findall(r"\d+", text.split("\n## ", 1)[0]))


def _number(value: object) -> int | float:
    number = float(str(value))
    return int(number) if number.is_integer() else number


def mawps(source: Path) -> list[dict[str, object]]:
    dropped = dropped_ids()
    rows = []
    for item in json.loads(source.read_text(encoding="utf-8")):
        if str(item["iIndex"]) in dropped or len(item["lSolutions"]) != 1:
            continue
        rows.append(
            {
                "id": str(item["iIndex"]),
                "question": item["sQuestion"].strip(),
                "answer": _number(item["lSolutions"][0]),
                "equation": item["lEquations"][0],
            }
        )
    return rows


def _joined(body: str, question: str) -> str:
    body = body.strip()
    # SVAMP cuts some bodies before their full stop ("If he had $ 4 at the start").
    return f"{body}{'' if body.endswith(('.', '!', '?')) else '.'} {question.strip()}"


def svamp(source: Path) -> list[dict[str, object]]:
    return [
        {
            "id": item["ID"],
            "question": _joined(item["Body"], item["Question"]),
            "answer": _number(item["Answer"]),
            "equation": item["Equation"],
        }
        for item in json.loads(source.read_text(encoding="utf-8"))
    ]


def asdiv(source: Path) -> list[dict[str, object]]:
    """The problems whose answer is one number ("9 (apples)"); ratios, lists and times are left out."""
    rows = []
    for problem in ET.parse(source).getroot().iter("Problem"):
        answer = re.fullmatch(r"\s*(-?\d+(?:\.\d+)?)\s*(?:\([^()]*\))?\s*", problem.findtext("Answer") or "")
        if answer is None:
            continue
        rows.append(
            {
                "id": problem.get("ID"),
                "question": _joined(problem.findtext("Body") or "", problem.findtext("Question") or ""),
                "answer": _number(answer.group(1)),
                "equation": problem.findtext("Formula") or "",
            }
        )
    return rows


def gsm8k(source: Path) -> list[dict[str, object]]:
    """Each problem with the number after its ``####`` as the answer; the worked solution is kept
    as the equation (its ``<<a*b=c>>`` steps are what the solution computed)."""
    rows = []
    for index, line in enumerate(source.read_text(encoding="utf-8").splitlines()):
        if not line.strip():
            continue
        item = json.loads(line)
        solution, answer = item["answer"].rsplit("####", 1)
        rows.append(
            {
                "id": f"gsm8k-{index}",
                "question": " ".join(item["question"].split()),
                "answer": _number(answer.strip().replace(",", "")),
                "equation": "; ".join(re.findall(r"<<([^=>]+)=", solution)),
            }
        )
    return rows


def write(name: str, rows: list[dict[str, object]]) -> str:
    out = ROOT / "bench" / "data" / f"{name}.jsonl"
    out.parent.mkdir(parents=True, exist_ok=True)
    data = "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows).encode("utf-8")
    out.write_bytes(data)
    digest = hashlib.sha256(data).hexdigest()
    print(f"{out}: {len(rows)} problems, {len(data):,} bytes, sha256 {digest}")
    return digest


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mawps", type=Path)
    parser.add_argument("--svamp", type=Path)
    parser.add_argument("--asdiv", type=Path)
    parser.add_argument("--gsm8k", type=Path)
    parser.add_argument("--gsm8k-train", type=Path)
    args = parser.parse_args(argv)
    status = 0
    if args.mawps and write("mawps", mawps(args.mawps)) != MAWPS_SHA256:
        print(f"mawps.jsonl differs from the copy docs/mawps.md describes (sha256 {MAWPS_SHA256})")
        status = 1
    if args.svamp:
        write("svamp", svamp(args.svamp))
    if args.asdiv:
        write("asdiv", asdiv(args.asdiv))
    if args.gsm8k:
        write("gsm8k", gsm8k(args.gsm8k))
    if args.gsm8k_train:
        write("gsm8k_train", gsm8k(args.gsm8k_train))
    return status


if __name__ == "__main__":
    sys.exit(main())
