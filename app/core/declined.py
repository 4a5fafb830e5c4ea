"""Tools the request itself rules out: "Stage config.json, without committing" offers no commit.

Told to stage a file "without committing", Qwen2.5-Coder-1.5B staged it and then committed it.
A person who says "without committing", "do not delete" or "don't push" has declined those
deeds before any approval is asked; the tools whose names hold the verb are not offered this
turn, so no grammar or prompt has to talk the model out of them.
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
_NAME_WORD = re.compile(r"[a-z]+")
MIN_STEM = 4  # "do not go" names no tool


def declined_verbs(asked: str) -> frozenset[str]:
    """The stems of the deeds ``asked`` rules out ("committing": "commit", "delete": "delet")."""
    stems = set()
    for match in _DECLINED.finditer(asked):
        word = (match["ing"] or match["verb"] or "").lower()
        if match["ing"] and len(word) >= 3 and word[-1] == word[-2]:  # "committ(ing)", "stopp(ing)"
            word = word[:-1]
        word = word.removesuffix("e")  # "delete" and "delet(ing)" alike
        if len(word) >= MIN_STEM:
            stems.add(word)
    return frozenset(stems)


def rules_out(tool: ToolInfo, stems: frozenset[str]) -> bool:
    """Whether a word of the tool's own name is a declined deed ("git_commit" for "commit")."""
    words = _NAME_WORD.findall(tool.tool.lower())
    return any(word.startswith(stem) for word in words for stem in stems)
