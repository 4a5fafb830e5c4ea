"""The tool selector the turn loop calls: which tools to offer for this step.

With few tools every tool is offered (``select`` returns None); above the
threshold, the top-k by hybrid relevance plus the user's pinned tools. The
index is built in a worker thread; until it is ready, and while the tool list
has tools the index does not know, every tool is offered.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from collections import OrderedDict
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Protocol

import numpy as np

from app.core.tools import ToolInfo
from app.mcp.retrieval import text
from app.mcp.retrieval.encoders import Encoder, shared_encoder
from app.mcp.retrieval.index import QUERY_TOKENS, Scores, ToolIndex, build_index, index_key

logger = logging.getLogger(__name__)
NAMED_SERVER_TOOLS = 4  # of a server the question names, at least this many of its best are offered

SETTLE_SECONDS = 10.0  # the longest a step waits for the tool index before offering every tool
QUERY_CACHE = 64  # recent query vectors kept: a turn's steps often rank the same words again


@dataclasses.dataclass(frozen=True)
class Ranked:
    """One ranked tool: the fused score the trace shows, and its two parts."""

    tool: ToolInfo
    score: float
    bm25: float
    dense: float
    pinned: bool = False


class RetrievalSettings(Protocol):
    """The settings retrieval follows (:class:`app.settings.Settings` has them), named here
    so that tool retrieval does not depend on the settings module."""

    @property
    def tool_threshold(self) -> int: ...

    @property
    def top_k(self) -> int: ...

    @property
    def pinned_tools(self) -> Sequence[str]: ...

    @property
    def tool_encoder(self) -> str: ...


def is_pinned(tool: ToolInfo, pins: Iterable[str], servers: Iterable[str] = ()) -> bool:
    """A pin may name the tool as the model sees it, bare, or as ``server.tool``; a pinned
    server pins all of its tools."""
    names = {tool.name, tool.tool, f"{tool.server}.{tool.tool}"}
    return tool.server in set(servers) or any(pin in names for pin in pins)


class ToolRetriever:
    """Implements :class:`app.core.tools.ToolSelector`.

    Call :meth:`refresh` (awaitable) or :meth:`notify_tools_changed` (fire and
    forget) whenever the supervisor's tool list may have changed.
    """

    def __init__(
        self,
        *,
        threshold: int = 16,
        top_k: int = 5,
        pinned: Sequence[str] = (),
        pinned_servers: Sequence[str] = (),
        encoder: Encoder | None = None,
        encoder_kind: str = "static",
        dense: bool = True,
        cache_root: Path | None = None,
        prepare: bool = True,
    ) -> None:
        self.threshold = threshold
        self.top_k = top_k
        self.pinned = list(pinned)
        self.pinned_servers = list(pinned_servers)  # every tool of these is always offered
        # pins that hold only for a question the predicate accepts (the converter where a unit is named)
        self.pinned_if: list[tuple[str, Callable[[str], bool]]] = []
        self.encoder = (encoder or shared_encoder(encoder_kind)) if dense else None
        self.encoder_kind = encoder_kind
        self.cache_root = cache_root
        # Whether this process does the encoder's once-per-machine work (distilling the static
        # table, about half a minute on 2 cores) in the background: a window lives long enough
        # to profit, a command-line answer is over first and would only lose the CPU to it.
        self.prepare = prepare
        self.builds = 0  # indexes built or loaded: lets callers see that a refresh was skipped
        self._index: ToolIndex | None = None
        self._lock = asyncio.Lock()
        self._generation = 0
        self._active = 0  # refreshes in progress
        self._pending: asyncio.Task[bool] | None = None
        self._queries: OrderedDict[str, np.ndarray] = OrderedDict()

    @classmethod
    def from_settings(
        cls, settings: RetrievalSettings, *, encoder: Encoder | None = None, prepare: bool = True
    ) -> ToolRetriever:
        return cls(
            threshold=settings.tool_threshold,
            top_k=settings.top_k,
            pinned=settings.pinned_tools,
            encoder=encoder,
            encoder_kind=settings.tool_encoder,
            prepare=prepare,
        )

    def apply_settings(self, settings: RetrievalSettings) -> None:
        """Take changed threshold, top-k and pins; a new encoder means a new index, built
        in the background while every tool is offered."""
        self.threshold, self.top_k, self.pinned = (
            settings.tool_threshold,
            settings.top_k,
            list(settings.pinned_tools),
        )
        if self.encoder is not None and settings.tool_encoder != self.encoder_kind:
            self.encoder, self.encoder_kind = shared_encoder(settings.tool_encoder), settings.tool_encoder
            self._index = None

    @property
    def ready(self) -> bool:
        return self._index is not None

    @property
    def index(self) -> ToolIndex | None:
        return self._index

    @property
    def pending(self) -> asyncio.Task[bool] | None:
        """The latest background refresh (from :meth:`notify_tools_changed` or ``select``)."""
        return self._pending

    def forget_queries(self) -> None:
        """Drop the cached query vectors (benchmarks time the embedding itself)."""
        self._queries.clear()

    # --- keeping the index current ---

    async def refresh(self, tools: Sequence[ToolInfo]) -> bool:
        """Rebuild the index in a worker thread when the tool list changed; True if rebuilt.

        A refresh still waiting when a newer one is asked for gives way to it.
        """
        self._generation += 1
        generation = self._generation
        self._active += 1
        try:
            key = await asyncio.to_thread(index_key, tools, self.encoder)
            async with self._lock:
                if generation != self._generation or (self._index and self._index.key == key):
                    return False
                if self.encoder is not None and not self.encoder.prepared:
                    # A question asked before the table exists is ranked by its words alone
                    # at once: a first answer on a new machine waited 10 s for it, then got
                    # every tool, its prompt read beside the distilling (40 s in all).
                    self._install(await asyncio.to_thread(build_index, tools, None))
                    if not self.prepare:
                        return True
                index = await asyncio.to_thread(build_index, tools, self.encoder, self.cache_root)
                self._install(index)
                return True
        finally:
            self._active -= 1

    def _install(self, index: ToolIndex) -> None:
        self._index, self.builds = index, self.builds + 1
        self._queries.clear()
        logger.info("tool index ready: %d tools, dense=%s", len(index.tools), index.dense)

    def refresh_blocking(self, tools: Sequence[ToolInfo]) -> None:
        """Build (or load from the cache) right now, for callers without an event loop: the CLI."""
        self._install(build_index(tools, self.encoder, self.cache_root))

    async def settle(self, tools: Sequence[ToolInfo], timeout: float = SETTLE_SECONDS) -> bool:
        """Wait, at most ``timeout`` seconds, until the index covers ``tools``; True if it does.

        A question asked while the servers' tools are still being indexed (the model is often
        ready first) would otherwise be offered every tool: a longer prompt for a small model
        to read, and a choice among tools retrieval would have left out. Building from the
        cache takes a fraction of a second; a first build with a new encoder may not, and then
        the step goes on with every tool rather than keep the user waiting.
        """
        if len(tools) <= self.threshold or self._covers(tools):
            return True
        try:
            async with asyncio.timeout(timeout):
                while not self._covers(tools):
                    pending = self._pending
                    if pending is not None and not pending.done():
                        await asyncio.shield(pending)
                    else:
                        await self.refresh(list(tools))
        except TimeoutError:
            logger.info("tool index not ready after %.0f s: every tool is offered", timeout)
        except Exception:  # a failed build is logged; the step still goes on, with every tool
            logger.exception("tool index build failed: every tool is offered")
        return self._covers(tools)

    def _covers(self, tools: Sequence[ToolInfo]) -> bool:
        index = self._index
        return index is not None and all(t.name in index.rows for t in tools)

    def notify_tools_changed(self, tools: Sequence[ToolInfo]) -> asyncio.Task[bool]:
        """Schedule :meth:`refresh` on the running loop; the task is returned for callers who wait."""
        task = asyncio.get_running_loop().create_task(self.refresh(list(tools)))
        self._pending = task
        task.add_done_callback(_log_failure)
        return task

    # --- ToolSelector ---

    def select(self, context: str, tools: Sequence[ToolInfo]) -> list[tuple[ToolInfo, float]] | None:
        if len(tools) <= self.threshold:
            return None
        if not self._covers(tools):
            self._refresh_soon(tools)
            return None
        return [(r.tool, r.score) for r in self.ranked(context, tools, self.top_k)]

    def ranked(self, query: str, tools: Sequence[ToolInfo], top_k: int) -> list[Ranked]:
        """Pinned tools first (with their real scores), then the best ``top_k`` others."""
        index, scores = self._scores(query)
        named = [*self.pinned, *(name for name, holds in self.pinned_if if holds(query))]
        pinning = named or self.pinned_servers
        pins = [t for t in tools if is_pinned(t, named, self.pinned_servers)] if pinning else []
        others = [t for t in tools if t not in pins] if pins else tools
        # Pinned tools keep the provider's order: a stable prompt prefix, which the local model caches.
        chosen = sorted(_best(index, scores, pins, len(pins)), key=lambda r: pins.index(r.tool))
        pinned = [dataclasses.replace(r, pinned=True) for r in chosen]
        return pinned + _best_with_named_servers(index, scores, query, others, top_k)

    def named_servers(self, query: str, tools: Sequence[ToolInfo]) -> list[str]:
        """The servers the question names (see :func:`named_servers`)."""
        return named_servers(query, tools)

    def rank(self, query: str, tools: Sequence[ToolInfo], top_k: int) -> list[Ranked]:
        """The best ``top_k`` of ``tools`` (which the index must cover), with score parts, pins ignored."""
        index, scores = self._scores(query)
        return _best(index, scores, tools, top_k)

    def _scores(self, query: str) -> tuple[ToolIndex, Scores]:
        index = self._index
        if index is None:
            raise RuntimeError("the tool index is not built yet: await refresh(tools) first")
        return index, index.scores(query, self._query_vector(query, index))

    # --- internals ---

    def _query_vector(self, query: str, index: ToolIndex) -> np.ndarray | None:
        if not index.dense or self.encoder is None:
            return None
        vector = self._queries.pop(query, None)
        if vector is None:
            vector = self.encoder.encode([text.query_sentence(query)], max_tokens=QUERY_TOKENS)[0]
        self._queries[query] = vector
        while len(self._queries) > QUERY_CACHE:
            self._queries.popitem(last=False)
        return vector

    def _refresh_soon(self, tools: Sequence[ToolInfo]) -> None:
        """Start a build for a tool list the index does not cover, unless one is running."""
        if self._active:
            return
        try:
            self.notify_tools_changed(tools)
        except RuntimeError:
            logger.debug("no running event loop: the index waits for an explicit refresh")


def named_servers(query: str, tools: Sequence[ToolInfo]) -> list[str]:
    """The servers ``query`` names by their configured name, or by a word that says it
    ("remember" and "forget" say memory, "database" says sqlite: :mod:`text`)."""
    said = set(text.query_words(query))
    return sorted({t.server for t in tools if said & set(text.words(t.server))})


def _best_with_named_servers(
    index: ToolIndex, scores: Scores, query: str, tools: Sequence[ToolInfo], top_k: int
) -> list[Ranked]:
    """The best ``top_k``, among them the best few of each server the question names by its
    configured name ("check my memory", "in the git repository"). Its tools speak of "entities"
    and "knowledge graphs": for "On what day of March is Alice's birthday? Check my memory." the
    words that match nothing (march, alice, birthday) shrank the one that matched, and git_log,
    fetch and get_time ranked above every memory tool."""
    named = named_servers(query, tools)
    if not named:
        return _best(index, scores, tools, top_k)
    each = max(1, min(NAMED_SERVER_TOOLS, top_k // len(named)))
    of = {server: [t for t in tools if t.server == server] for server in named}
    firsts = [r for server in named for r in _best(index, scores, of[server], each)]
    taken = {r.tool.name for r in firsts[:top_k]}
    rest = _best(index, scores, [t for t in tools if t.name not in taken], top_k - len(taken))
    return sorted([*firsts[:top_k], *rest], key=lambda r: -r.score)


def _best(index: ToolIndex, scores: Scores, tools: Sequence[ToolInfo], top_k: int) -> list[Ranked]:
    """The caller's own ToolInfo objects come back, so what is offered is what the provider has now."""
    if not tools or top_k <= 0:
        return []
    rows = np.fromiter((index.rows[t.name] for t in tools), dtype=np.int64, count=len(tools))
    order = np.argsort(-scores.hybrid[rows], kind="stable")[:top_k]
    return [
        Ranked(tools[i], float(scores.hybrid[r]), float(scores.bm25[r]), float(scores.dense[r]))
        for i, r in zip(order.tolist(), rows[order].tolist(), strict=True)
    ]


def _log_failure(task: asyncio.Task[bool]) -> None:
    if not task.cancelled() and task.exception() is not None:
        logger.error("building the tool index failed", exc_info=task.exception())
