"""Tools the request itself rules out: "Stage config.json, without committing" offers no commit,
and a message that only asks questions is offered no tool that changes things.

Told to stage a file "without committing", Qwen2.5-Coder-1.5B staged it and then committed it.
A person who says "without committing", "do not delete" or "don't push" has declined those
deeds before any approval is asked; the tools whose names hold the verb are not offered this
turn, so no grammar or prompt has to talk the model out of them. So has one who says "I edited
notes.txt": the deed is done, and what is asked is what follows it.
"""

from __future__ import annotations

import re

from app.core.tools import ToolInfo

# "without committing" (a deed in -ing), and at the head of a clause "do not delete", "don't
# push", "never overwrite": "Save that Bob never writes tests" declines nothing of the user's
_DECLINED = re.compile(
    r"\bwithout\s+(?P<ing>[a-z]+)ing\b"
    r"|(?:^|[.,;:!?]\s*|\b(?:and|but|please|just)\s+)(?:do\s+not|don['\u2019]?t|never)\s+(?P<verb>[a-z]+)\b",
    re.IGNORECASE,
)
# a deed the user says they did themselves: "I edited notes.txt ... Commit that change" asks
# for the commit; the 1.5B model edited the folder first, with made-up text, twice
_DONE = re.compile(
    r"\b(?:I|we)(?:['\u2019]ve|\s+have|\s+had)?(?:\s+already|\s+just)?\s+(?P<past>[a-z]{3,}?)ed\b",
    re.IGNORECASE,
)
# ...unless the request asks for another change of the kind: "I edited notes.txt; now fix the typo"
_ASKS_TO_EDIT = re.compile(r"\b(?:edit|fix|correct|replace|modify|rewrite|append|insert)\b", re.IGNORECASE)
_NAME_WORD = re.compile(r"[a-z]+")
# A question opens with a question word and ends with "?"; "Can you commit it?" and "Would you
# add ...?" ask for a deed, and are not among them.
_QUESTION = re.compile(
    r"^(?:what|which|how|when|where|who|whose|why|is|are|was|were|does|did|has|have)\b", re.IGNORECASE
)
_CHANGE_VERBS = frozenset(
    (
        "write", "create", "delete", "remove", "insert", "update", "drop", "move", "rename", "edit",
        "commit", "push", "append", "set", "put",
    )
)  # fmt: skip
_SENTENCE_END = re.compile(r"(?<=[.?!])\s+")
MIN_STEM = 4  # "do not go" names no tool


def declined_verbs(asked: str) -> frozenset[str]:
    """The stems of the deeds ``asked`` rules out ("committing": "commit", "delete": "delet"),
    and of those it says were done already ("I edited": "edit")."""
    stems = set()
    found = [(m["ing"] or m["verb"] or "", bool(m["ing"])) for m in _DECLINED.finditer(asked)]
    done = [] if _ASKS_TO_EDIT.search(_DONE.sub(" ", asked)) else [m["past"] for m in _DONE.finditer(asked)]
    for word, inflected in [*found, *((past, True) for past in done)]:
        word = word.lower()
        if inflected and len(word) >= 3 and word[-1] == word[-2]:  # "committ(ing)", "stopp(ed)"
            word = word[:-1]
        word = word.removesuffix("e")  # "delete" and "delet(ing)" alike
        if len(word) >= MIN_STEM:
            stems.add(word)
    return frozenset(stems)


def name_words(tool: ToolInfo) -> list[str]:
    """The words of a tool's own name, lower case ("git_commit": git, commit)."""
    return _NAME_WORD.findall(tool.tool.lower())


def rules_out(tool: ToolInfo, stems: frozenset[str]) -> bool:
    """Whether a word of the tool's own name is a declined deed ("git_commit" for "commit")."""
    words = name_words(tool)
    return any(word.startswith(stem) for word in words for stem in stems)


def only_asks(asked: str) -> bool:
    """Whether every sentence of ``asked`` is a question ("How many commits are in the repo?").
    Asked that, Qwen2.5-Coder-1.5B called git_commit first: a question asks for no change, so the
    tools a server marks as changing things (``readOnlyHint`` false) are not offered for it."""
    sentences = [s for s in _SENTENCE_END.split(asked.strip()) if s]
    return bool(sentences) and all(s.endswith("?") and _QUESTION.match(s) for s in sentences)


def changes_things(tool: ToolInfo) -> bool:
    """Whether the tool changes things: its server says so, or, with no hint given, its own name
    opens with a verb of change (the sqlite server marks none of its tools, and asked for a mean
    price, the 1.5B model inserted a row with write_query). "add" is no such verb: it sums."""
    hint = tool.annotations.get("readOnlyHint")
    if hint is not None:
        return hint is False
    words = name_words(tool)
    return bool(words) and words[0] in _CHANGE_VERBS
