"""What the model is writing, decided token by token: an answer, a thought or a tool call.

A step starts undecided under the step grammar. The first text that cannot
begin the call marker makes it an answer: the grammar is dropped and text
streams freely (watching for a marker that opens a call later). Text that
begins with the marker makes it a call, decoded under the grammar to the end.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Literal

from app.core.backend import TextChunk, ThoughtChunk
from app.llm.local.sampling import GrammarSampler
from app.llm.local.schema_grammar import StepGrammar
from app.llm.local.syntaxes import BARE_OPENERS, CALCULON, FENCE_OPEN, CallSyntax
from app.llm.local.watch import MarkerWatch

Emit = Callable[[TextChunk | ThoughtChunk], None]
GrammarFactory = Callable[[str], GrammarSampler]
Kind = Literal["decide", "answer", "think", "call"]
PARAGRAPH_END = "\n\n"


@dataclasses.dataclass
class PhaseSetup:
    grammar: StepGrammar | None  # None when no tools are offered
    stops: tuple[str, ...]  # text that ends the model's turn
    thinks: bool
    syntax: CallSyntax = CALCULON  # the markers around a call
    continues: bool = False  # the text goes on from text already written: its leading space is kept


class Phases:
    """Feed each token's text; ``feed`` returns True when the step is complete."""

    def __init__(self, setup: PhaseSetup, emit: Emit, make_grammar: GrammarFactory):
        self.setup, self._emit, self._make_grammar = setup, emit, make_grammar
        self.kind: Kind = "answer"
        self.grammar: GrammarSampler | None = None
        self.call_text = ""
        self.call_complete = False
        self.stopped_on_text = False
        self.stop_text = ""  # which stop text ended the step
        self.bare = ""  # how a call without markers opened: "{" (the JSON alone) or a code fence
        self._head = ""
        self._shown_answer = setup.continues
        self._tail = ""  # the end of the answer shown so far
        self._think_open, self._think_close = setup.syntax.think
        self._answer = MarkerWatch(self._answer_markers())
        self._thought = MarkerWatch((self._think_close, *setup.stops))
        self._start_deciding()

    def _answer_markers(self) -> tuple[str, ...]:
        grammar = self.setup.grammar
        tools = self.setup.syntax.openers if self._calls_allowed() else ()
        # A Calculon-mode answer is one paragraph, to be checked at a glance: what a small model
        # writes after a blank line is a second go at the same answer, a tool list or code.
        paragraph = (PARAGRAPH_END,) if grammar and grammar.keeps_answer else ()
        return (*tools, *((self._think_open,) if self.setup.thinks else ()), *self.setup.stops, *paragraph)

    def _start_deciding(self) -> None:
        if self.setup.grammar is None:
            self.kind = "answer"
            return
        self.kind, self._head = "decide", ""
        self._set_grammar(self.setup.grammar.decide)

    def _set_grammar(self, text: str | None) -> None:
        if self.grammar is not None:
            self.grammar.close()
        self.grammar = self._make_grammar(text) if text is not None else None

    def feed(self, text: str) -> bool:
        if self.kind == "decide":
            return self._decide(text)
        if self.kind == "call":
            return self._call(text)
        if self.kind == "think":
            return self._think(text)
        return self._answer_text(text)

    def _decide(self, text: str) -> bool:
        self._head += text
        head, syntax = self._head, self.setup.syntax
        marker = next((m for m in syntax.openers if head.startswith(m)), None)
        if marker is not None:
            self.kind = "call"
            return self._call(head[len(marker) :])
        bare = syntax.bare and self._calls_allowed()
        opener = next((o for o in BARE_OPENERS if head.lstrip().startswith(o)), "") if bare else ""
        if opener:
            self.kind, self.bare = "call", opener
            return self._call(head.lstrip() if opener == "{" else head.lstrip()[len(opener) :])
        if self.setup.thinks and head.startswith(self._think_open):
            self.kind = "think"
            self._set_grammar(None)
            return self._think(head[len(self._think_open) :])
        if any(m.startswith(head) for m in syntax.openers) or (
            self.setup.thinks and self._think_open.startswith(head)
        ):
            return False
        if bare and any(o.startswith(head) for o in BARE_OPENERS):
            return False
        self.kind = "answer"
        if not (self.setup.grammar and self.setup.grammar.keeps_answer):
            self._set_grammar(None)
        return self._answer_text(head)

    def _call(self, text: str) -> bool:
        self.call_text += text
        syntax = self.setup.syntax
        if self.bare == FENCE_OPEN:  # the JSON, then the closing fence
            body, fence, _ = self.call_text.partition("```")
            self.call_complete = bool(fence) and syntax.whole(body)
            if self.call_complete:
                self.call_text = body.strip()
            return self.call_complete
        if self.bare or not syntax.close:  # ended by the JSON's own last brace or bracket
            self.call_complete = ("}" in text or "]" in text) and syntax.whole(self.call_text)
            return self.call_complete
        if syntax.close in self.call_text:
            self.call_text = self.call_text.split(syntax.close, 1)[0]
            self.call_complete = True
            return True
        return False

    def _think(self, text: str) -> bool:
        shown, marker, after = self._thought.feed(text)
        if shown:
            self._emit(ThoughtChunk(shown))
        if marker == self._think_close:
            self._start_deciding()
            return self.feed(after.lstrip()) if after.strip() else False
        return self._stop_on(marker)

    def _answer_text(self, text: str) -> bool:
        shown, marker, after = self._answer.feed(text)
        self._show(shown)
        grammar = self.setup.grammar
        if marker in self.setup.syntax.openers and grammar is not None and grammar.allows_calls:
            self.kind = "call"
            # a grammar starts clean: only when nothing has slipped past the marker unconstrained
            self._set_grammar(grammar.body if not after else None)
            return self._call(after)
        if marker == self._think_open:
            self.kind = "think"
            return self._think(after)
        if marker == PARAGRAPH_END and self._tail.rstrip().endswith(":"):
            # "we need to follow these steps:" announces what the next paragraph holds; an answer
            # cut there said nothing (seen on 6 of 51 everyday tasks)
            self._show(PARAGRAPH_END)
            return self._answer_text(after) if after else False
        return self._stop_on(marker)

    def _calls_allowed(self) -> bool:
        return self.setup.grammar is not None and self.setup.grammar.allows_calls

    def _stop_on(self, marker: str | None) -> bool:
        self.stopped_on_text, self.stop_text = marker is not None, marker or ""
        return self.stopped_on_text

    def _show(self, text: str) -> None:
        if not self._shown_answer:
            text = text.lstrip()
        if text:
            self._shown_answer = True
            self._tail = (self._tail + text)[-16:]
            self._emit(TextChunk(text))

    def finish(self) -> None:
        """The step ended without a marker: show what is still held back."""
        if self.kind == "think":
            if rest := self._thought.flush():
                self._emit(ThoughtChunk(rest))
        elif self.kind == "decide":
            self._show(self._head)
        elif self.kind == "answer":
            self._show(self._answer.flush())
        self._set_grammar(None)
