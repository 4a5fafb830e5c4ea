"""The provider boundary: neutral messages in, typed stream chunks out.

The turn loop speaks only these types. Each backend (llama.cpp, Gemini, the
scripted one in tests) turns a :class:`ModelRequest` into its own wire format
and yields :data:`Chunk` values back. The core owns this protocol so that it
needs nothing from the backends that implement it.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import AsyncIterator, Callable
from typing import Any, Protocol, runtime_checkable

from app.core.arithmetic import UserArithmetic
from app.core.messages import Message, ToolCall, ToolSpec


@dataclasses.dataclass(frozen=True)
class ModelRequest:
    """One step's input. ``backed`` is set in Calculon mode: the texts (the user's words and
    this conversation's tool results) whose numbers are the only ones the model may write; a
    backend that can constrain decoding (the local one) enforces it, the others ignore it."""

    system: str
    messages: tuple[Message, ...]
    tools: tuple[ToolSpec, ...]
    backed: tuple[str, ...] | None = None
    formula: FormulaHint | None = None  # Calculon mode, on the step that answers the user's words
    worked: WorkedAnswer | None = None  # Calculon mode, on a story's steps: the worked-answer format
    must_call: bool = False  # this step may only call a tool (the model described a task instead of doing it)
    # The tools a backend that renders them into its prompt lists there: every tool of the turn
    # so far, ``tools`` among them. ``tools`` are what this step may call. Kept apart so that
    # narrowing a step leaves the prompt the local model has already read as it was: a changed
    # list has it read the whole conversation again (340 s on one real task). Empty: ``tools``.
    listed: tuple[ToolSpec, ...] = ()
    # Calculon mode: the answer computed nothing and was asked again to calculate. A backend whose
    # model read the story and wrote no calculation may make ``formula``'s call instead of asking
    # it again: greedy, the 0.5B model wrote the same words three times over.
    reading_due: bool = False
    # Calculon mode: the user's arithmetic as app.calculon read it, once a turn; a backend that
    # turns it into grammar (the local one) reads no policy of its own
    arithmetic: UserArithmetic | None = None

    @property
    def prompt_tools(self) -> tuple[ToolSpec, ...]:
        return self.listed or self.tools


@dataclasses.dataclass(frozen=True)
class FormulaHint:
    """The calculation Calculon mode reads in the user's latest words, handed to the backend
    as a typed hint so it need not guess the question back from strings.

    ``source`` is "transcription" where the user wrote the arithmetic out ("12 times 7"):
    the formula is theirs. It is "ranked" where a word problem's story was read by the
    ranker: the most likely of several candidates (``alternatives``, each with its share),
    a reading to be checked, never an established formula. A backend that cannot write a
    good call itself (a small local model) may make this call instead, and says so."""

    expression: str  # as the calculator's ``evaluate`` takes it: "(40 - 19) * 3"
    shown: str  # as the answer shows it: "(40 − 19) × 3"
    source: str  # "transcription" or "ranked"
    probability: float = 1.0
    alternatives: tuple[tuple[str, float], ...] = ()
    # False where the user's arithmetic has no value ("134 divided by 0"): the calculator refuses
    # the call, and that refusal is the answer
    defined: bool = True
    # a conversion or a lookup asked in so many words: the bare names of the tools that answer it,
    # the first offered one called, and its arguments: (("convert",), (("quantity", "98.6 °F"),
    # ("to_unit", "°C"))); ``expression`` is then empty
    call: tuple[tuple[str, ...], tuple[tuple[str, str], ...]] | None = None
    # what the answer says after the result, where the question asks whole groups of a
    # division: ": 9 whole, 2 left over"
    groups: str = ""


@dataclasses.dataclass(frozen=True)
class WorkedAnswer:
    """Calculon mode's format for a story a capable model reads itself, built by app.calculon.

    The model writes its working as prose, each calculation an expression followed by "="; the
    backend turns that into an inline call of the calculator's ``evaluate`` and the calculator's
    result, as ``inserted`` writes it, stands after the "=" when the model goes on. A backend whose
    model reads stories badly (the built-in class) makes the ranker's call (``formula``) instead.
    ``numbers``: what the working may write besides its sources' numbers (2 for "twice", 7 for "a
    week"); ``examples``: (question, worked answer) pairs shown first; ``inserted``: the text of
    each inline result of this answer so far, in order."""

    instruction: str
    examples: tuple[tuple[str, str], ...] = ()
    numbers: tuple[str, ...] = ()
    inserted: tuple[str, ...] = ()


@dataclasses.dataclass(frozen=True)
class TextChunk:
    text: str


@dataclasses.dataclass(frozen=True)
class ThoughtChunk:
    text: str


@dataclasses.dataclass(frozen=True)
class ToolCallChunk:
    call: ToolCall


@dataclasses.dataclass(frozen=True)
class StepDone:
    """Last chunk of a step: token count and what the backend wants replayed."""

    tokens: int = 0
    provider_data: Any = None
    notices: tuple[str, ...] = ()  # e.g. "history trimmed to fit the context"
    # ``provider_data`` as JSON, from which the backend can rebuild it: kept in the history, so a
    # continued conversation replays the model's turns as they came (Gemini's thought signatures).
    provider_json: Any = None


Chunk = TextChunk | ThoughtChunk | ToolCallChunk | StepDone

ProgressCallback = Callable[[float, str], None]


class BackendError(Exception):
    """A failure the user must see, worded for them. ``category`` is one of
    auth, quota, network, blocked, model, context, arguments, error."""

    def __init__(self, message: str, *, category: str = "error", retry_after: float | None = None):
        super().__init__(message)
        self.message = message
        self.category = category
        self.retry_after = retry_after


@runtime_checkable
class Backend(Protocol):
    """What the turn loop needs from a model.

    ``stream`` is an async iterator: cancelling the consuming task must stop
    generation promptly (the local backend within one token).
    """

    name: str

    @property
    def model_label(self) -> str: ...

    @property
    def context_tokens(self) -> int | None:
        """The model's context window in tokens, when it has a fixed one."""
        ...

    async def load(self, progress: ProgressCallback | None = None) -> None: ...

    def stream(self, request: ModelRequest) -> AsyncIterator[Chunk]: ...

    async def aclose(self) -> None: ...


async def load_under_way(backend: Backend, loading: asyncio.Future[Any]) -> None:
    """Return once ``loading`` (a task loading ``backend``) has started the model's own process,
    or has ended: a caller about to do a second of imports or window building awaits this first,
    so llama.cpp starts meanwhile. One turn of the loop is not enough for a process to start.
    A backend with no process of its own (``spawned``) is under way after that one turn."""
    spawned = getattr(backend, "spawned", None)
    if spawned is None:
        await asyncio.sleep(0)
        return
    waiting = asyncio.ensure_future(spawned())
    await asyncio.wait([loading, waiting], return_when=asyncio.FIRST_COMPLETED)
    waiting.cancel()
