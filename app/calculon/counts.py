"""Counts the app takes of a tool's text result, so the model never counts lines itself.

"How many lines does notes.txt have?" and "How many lines in server.log are ERROR lines?" are
answered from a file's text, and a small model cannot count: it guessed 9 for 12 lines. Counting
is arithmetic, and in Calculon mode arithmetic is never the model's: where the question is about
lines, or asks "how many" of a result that lists things (a folder's entries, a query's rows), the
result the model reads ends with what the app counted (all lines, and the lines holding each of
the question's own words that some lines hold and others do not; the items of a list). The note
is part of the tool's result as a source, so a count in the answer is backed by it, a lookup like
any other.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from app.core.listing import list_value

_LINES = re.compile(r"\blines?\b", re.IGNORECASE)
_SUMS = re.compile(r"\b(?:average|mean|total|sum|add(?:ed)?\s+up)\b", re.IGNORECASE)
_HOW_MANY = re.compile(r"\bhow\s+many\b|\bnumber\s+of\b|\bcount\b", re.IGNORECASE)
# Everyday names for kinds of entry, and the text that marks them in a listing: the filesystem
# server writes "[FILE] a.py" and "[DIR] src"; a person asks for "Python files" or "folders".
_KINDS = {
    "python": ".py",
    "csv": ".csv",
    "markdown": ".md",
    "json": ".json",
    "text": ".txt",
    "files": "[FILE]",
    "file": "[FILE]",
    "directories": "[DIR]",
    "directory": "[DIR]",
    "folders": "[DIR]",
    "folder": "[DIR]",
    "subfolders": "[DIR]",
}
_KIND_MARKS = frozenset(_KINDS.values())
_WORD = re.compile(r"[A-Za-z][\w.-]*[A-Za-z0-9]|[A-Za-z]")
# Words of the question that name no text to look for.
_PLAIN_TEXT = (
    "how many much lines line does do did have has are is the a an in of and or to for with that which "
    "what there their file files together total count number at on by from into about as"
)
_PLAIN = frozenset(_PLAIN_TEXT.split())
MAX_WORDS = 3
_PATH = re.compile(r"\S*[/\\]\S*")  # a path's parts ("/tmp/x") are no words to look for


def count_note(asked: str, result: str) -> str:
    """The note for ``result`` where ``asked`` counts lines or things and the result has several;
    "" otherwise."""
    return _counted(asked, result)[0]


def _counted(asked: str, result: str) -> tuple[str, bool]:
    """The note, and whether it counts what the question names (its own words in the lines, a
    task list's boxes, a kind of entry, a list's items), not only the lines there are."""
    about_lines = bool(_LINES.search(asked))
    if not about_lines and (not _HOW_MANY.search(asked) or _SUMS.search(asked)):
        # "the average number of visitors" sums values: the note "8 lines" had the 1.5B model
        # send the calculator 8 - 1 - 1 (app.calculon.columns lists the values instead)
        return "", False
    value = list_value(result)
    if value is not None and _is_tree(value):
        return _tree_note(asked, value), True
    if value is not None:
        items = len(value)
        return (
            (f"\n\n[Counted by the app: this result lists {items} items.]", True)
            if items > 1
            else ("", False)
        )
    lines = result.rstrip("\n").split("\n")
    if len(lines) < 2:
        return "", False
    filled = sum(1 for line in lines if line.strip())
    # "13 lines (13 not empty)" had a model divide 13 by 13: the second count only where it differs
    total = f"{len(lines)} lines" + (f" ({filled} not empty)" if filled != len(lines) else "")
    facts = []
    for word, labelled, holds in _asked_words(asked, result):
        holding = sum(1 for line in lines if holds(line))
        # a word every line holds says nothing, save a kind of entry: "2 lines contain '.py'"
        # answers "how many Python files" where every entry is one
        if holding > 0 and (holding < len(lines) or word in _KIND_MARKS):
            verb = "line contains" if holding == 1 else "lines contain"
            if labelled:  # "Commit: 'a1b2c3'" is one commit
                verb = "entry labelled" if holding == 1 else "entries labelled"
            facts.append(f"{holding} {verb} {word!r}")
    if not about_lines:  # "how many lines ... together": the boxes' 2 was answered for 13 + 8 lines
        facts.extend(_box_facts(lines))
    # asked how many commits, told first that git_log's text "has 29 lines", the 1.5B model
    # answered 29: where the question counts things, what counts them comes first
    facts = [total, *facts] if about_lines or not facts else [*facts, total]
    return f"\n\n[Counted by the app: this result has {'; '.join(facts)}.]", len(facts) > 1


# A Markdown task list's boxes: "- [ ] order the cake" is open, "- [x] book the venue" is done.
_BOX = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+\[([ xX])\]")


def _box_facts(lines: list[str]) -> list[str]:
    """ "How many items in todo.md are still open?": the model, with the list in hand, sent the
    calculator 8 - 7. A task list's open and ticked boxes are counted for it."""
    marks = [m[1] for m in map(_BOX.match, lines) if m is not None]
    if not marks:
        return []
    open_ = sum(1 for mark in marks if mark == " ")
    return [
        f"{open_} open (not ticked) '[ ]' {'item' if open_ == 1 else 'items'}",
        f"{len(marks) - open_} ticked '[x]'",
    ]


# Words that make a count one step of a calculation ("together", "the average", "per day"), or
# ask for a quantity that is no count of lines or things ("how many degrees apart", "hours ahead").
_AGGREGATES = re.compile(
    r"\b(?:together|total|altogether|combined|in\s+all|sum|add|average|mean|per|each|both|difference"
    r"|more|less|fewer|than|percent(?:age)?|ratio|times|twice|double|half|minus|plus"
    r"|apart|between|ahead|behind|left|remain\w*|older|younger|longer|shorter|bigger|smaller|larger"
    r"|higher|lower|degrees?|hours?|minutes?|seconds?|days?|weeks?|months?|years?|dollars?|euros?"
    r"|cents?|bytes?|km|miles?|kg|pounds?)\b|[%+*/=]",
    re.IGNORECASE,
)
# What is left of a plain "how many lines does notes.txt have?" once its plain words are gone.
_OTHER_WORD = re.compile(r"[A-Za-z]{2,}")


def answers_by_count(asked: str, result: str) -> bool:
    """Whether the app's count of ``result`` is itself the answer ``asked`` wants: a "how many"
    question that names no operation, where the note counts what it names, or it asks for the
    lines alone. Then a calculation after it works nothing out: the 1.5B model, told "5 lines
    contain 'ERROR'", sent the calculator 15 - 5 and answered 10. "How many lines were added in
    the last commit?" is no line count of the diff shown: a calculation may follow."""
    bare = _PATH.sub(" ", asked)
    if not _HOW_MANY.search(asked) or _AGGREGATES.search(bare):
        return False
    note, specific = _counted(asked, result)
    if not note:
        return False
    plain = not any(w.lower() not in _PLAIN for w in _OTHER_WORD.findall(_FILE.sub(" ", bare)))
    return specific or plain


_FILE = re.compile(r"[\w-]+\.[A-Za-z][A-Za-z0-9]{0,4}\b")  # notes.txt: a name, no word of the question


def _asked_words(asked: str, result: str) -> list[tuple[str, bool, Callable[[str], bool]]]:
    """The question's own words (as written, case kept) that appear in the result, and the
    marks of the kinds of entry it names ("Python files": ".py" and "[FILE]"), each with whether
    it is a label and a test of a line. A plural the result does not hold is looked for as a
    label, its singular in any case: "commits" as git_log's "Commit: 'a1b2c3'"."""
    said = list(dict.fromkeys(_WORD.findall(_PATH.sub(" ", asked))))
    kinds = [_KINDS[w.lower()] for w in said if w.lower() in _KINDS]
    words = [w for w in said if w.lower() not in _PLAIN and w.lower() not in _KINDS and "." not in w]
    found: list[tuple[str, bool, Callable[[str], bool]]] = []
    for word in dict.fromkeys(kinds + words):
        if word in result:
            found.append((word, False, _holding(word)))
            continue
        one = _singular(word)
        label = re.compile(rf"^\s*{re.escape(one)}\s*:", re.IGNORECASE | re.MULTILINE) if one else None
        if label is not None and label.search(result) is not None:
            found.append((f"{one.capitalize()}:", True, _labelled(label)))
    return found[:MAX_WORDS]


def _holding(word: str) -> Callable[[str], bool]:
    return lambda line: word in line


def _labelled(label: re.Pattern[str]) -> Callable[[str], bool]:
    return lambda line: label.match(line) is not None


def _singular(word: str) -> str:
    """ "commits": "commit"; "" for a word that is no plural of four letters or more."""
    low = word.lower()
    return low[:-1] if len(low) > 3 and low.endswith("s") and not low.endswith("ss") else ""


def _is_tree(value: list[object]) -> bool:
    """A folder's tree as the filesystem server writes it: entries with a name, folders with children."""
    return bool(value) and all(
        isinstance(v, dict) and "name" in v and ("type" in v or "children" in v) for v in value
    )


def _entries(value: list[object]) -> list[tuple[str, bool]]:
    """Every entry of a tree, subfolders included, as (name, is a folder)."""
    found: list[tuple[str, bool]] = []
    for entry in value:
        if not isinstance(entry, dict):
            continue
        children = entry.get("children")
        kind = str(entry.get("type", "")).lower()
        folder = isinstance(children, list) or kind in ("directory", "dir", "folder")
        found.append((str(entry.get("name", "")), folder))
        if isinstance(children, list):
            found.extend(_entries(children))
    return found


def _tree_note(asked: str, value: list[object]) -> str:
    """ "Python files under src, subfolders included": a small model read a tree of 5 .py files
    nested in folders and sent the calculator 3 * 3 * 3. The app counts the whole tree."""
    entries = _entries(value)
    files = [name for name, folder in entries if not folder]
    facts = [f"{len(files)} files and {len(entries) - len(files)} folders, subfolders included"]
    said = {w.lower() for w in _WORD.findall(_PATH.sub(" ", asked))}
    for mark in dict.fromkeys(_KINDS[w] for w in said if w in _KINDS and _KINDS[w].startswith(".")):
        ending = sum(1 for name in files if name.lower().endswith(mark))
        facts.append(f"{ending} file {'name ends' if ending == 1 else 'names end'} in {mark!r}")
    return f"\n\n[Counted by the app: this tree holds {'; '.join(facts)}.]"


# "How many lines do notes.txt and todo.md have together?": no operator word, yet a sum
GATHERS = re.compile(
    r"\b(?:how\s+(?:many|much)|number\s+of)\b[^.?!]*"
    r"\b(?:together|altogether|combined|in\s+total|in\s+all|between\s+them)\b",
    re.IGNORECASE,
)
_COUNTED = re.compile(r"\[Counted by the app: this (?:result has (\d+) lines|result lists (\d+) items)")


def gathered_counts(asked: str, results: Sequence[str]) -> str:
    """The sum of the app's counts of two results or more, as the calculator takes it, where the
    question asks how many they hold together; "" otherwise. Told to calculate after reading
    both files, the 1.5B model sent 8 + 8 and answered 13: the counts it had are offered as the
    reading to send (the calculator still adds them)."""
    if not GATHERS.search(_PATH.sub(" ", asked)):
        return ""
    counts = [m[1] or m[2] for text in results if (m := _COUNTED.search(text))]
    return " + ".join(counts) if len(counts) > 1 else ""
