"""The OpenAI-compatible backend: the ``openai`` SDK's async client, streamed, tools run by our loop.

Any server that speaks Chat Completions works: llama.cpp's and llama-cpp-python's
servers, vLLM, Ollama, LM Studio. With no model named, the first one the server lists
(``/v1/models``) is used. A server that cannot stream a tool call (llama-cpp-python's
``chatml-function-calling`` closes such a stream before its first chunk) is asked that
step again without streaming, and from then on steps with tools are not streamed.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import AsyncIterator
from typing import Any

import openai

from app import secrets
from app.core.backend import BackendError, Chunk, ModelRequest, ProgressCallback
from app.llm.openai.convert import request_body
from app.llm.openai.failures import from_api_error
from app.llm.openai.reply import StepAssembler, cut_off

logger = logging.getLogger(__name__)

DEFAULT_BASE_URL = "http://127.0.0.1:8080/v1"
DEFAULT_TIMEOUT_S = 300.0
NO_KEY = "none"  # local servers want no key, yet the SDK sends one; this one reads as absent
UNSTREAMED = "The model server cannot stream tool calls, so steps that offer tools are not streamed."


class OpenAIBackend:
    """:class:`app.core.backend.Backend` over an OpenAI-compatible Chat Completions endpoint."""

    name = "openai"

    def __init__(
        self,
        base_url: str = DEFAULT_BASE_URL,
        model: str = "",
        *,
        api_key: str | None = None,
        timeout_s: float = DEFAULT_TIMEOUT_S,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.model = model
        self.timeout_s = timeout_s
        self.stream_tools = True
        self._api_key = api_key
        self._client: openai.AsyncOpenAI | None = None

    @property
    def model_label(self) -> str:
        return f"openai:{self.model or '?'}@{self.base_url}"

    @property
    def context_tokens(self) -> int | None:
        return None

    async def load(self, progress: ProgressCallback | None = None) -> None:
        """Ask the server for its models: it proves the address and key, and names the model."""
        models = await self.list_models()
        if not self.model:
            if not models:
                raise BackendError(f"The server at {self.base_url} lists no model.", category="model")
            self.model = models[0]
        if progress:
            progress(1.0, f"{self.model_label} ready")

    async def list_models(self) -> list[str]:
        try:
            return [model.id async for model in self._ensure_client().models.list()]
        except openai.APIError as exc:
            raise from_api_error(exc, model=self.model, where=self.base_url, midstream=False) from exc

    async def stream(self, request: ModelRequest) -> AsyncIterator[Chunk]:
        body = request_body(self.model, request)
        if request.tools and not self.stream_tools:
            async for chunk in self._whole(body):
                yield chunk
            return
        step = StepAssembler(self.base_url)
        try:
            async for chunk in self._streamed(body, step):
                yield chunk
        except _EmptyStream:
            if not request.tools:
                raise
            logger.info(
                "%s closed a stream with tools before its first chunk; asking unstreamed", self.base_url
            )
            self.stream_tools = False
            await self.aclose()  # a fresh connection: the server may still be closing the broken one
            async for chunk in self._whole(body, notice=UNSTREAMED):
                yield chunk

    async def _streamed(self, body: dict[str, Any], step: StepAssembler) -> AsyncIterator[Chunk]:
        try:
            stream = await self._ensure_client().chat.completions.create(**body, stream=True)
        except openai.APIError as exc:
            raise self._failure(exc, step) from exc
        try:
            async with stream:
                async for event in stream:
                    step.count_usage(event.usage)
                    for choice in event.choices[:1]:
                        for chunk in step.feed(choice.delta, choice.finish_reason):
                            yield chunk
        except openai.APIError as exc:
            raise (
                _EmptyStream(cut_off(self.base_url)) if not step.received else self._failure(exc, step)
            ) from exc
        if not step.received:
            raise _EmptyStream(cut_off(self.base_url), category="network")
        calls, done = step.done()
        for chunk in (*calls, done):
            yield chunk

    async def _whole(self, body: dict[str, Any], notice: str = "") -> AsyncIterator[Chunk]:
        step = StepAssembler(self.base_url)
        try:
            completion = await self._ensure_client().chat.completions.create(**body, stream=False)
        except openai.APIError as exc:
            raise self._failure(exc, step) from exc
        step.count_usage(completion.usage)
        for choice in completion.choices[:1]:
            for chunk in step.feed(choice.message, choice.finish_reason):
                yield chunk
        calls, done = step.done()
        if notice:
            done = dataclasses.replace(done, notices=(*done.notices, notice))
        for chunk in (*calls, done):
            yield chunk

    def _failure(self, exc: openai.APIError, step: StepAssembler) -> BackendError:
        return from_api_error(exc, model=self.model, where=self.base_url, midstream=step.received)

    async def aclose(self) -> None:
        client, self._client = self._client, None
        if client is not None:
            await client.close()

    def _ensure_client(self) -> openai.AsyncOpenAI:
        if self._client is None:
            key = self._api_key or secrets.get_openai_key() or NO_KEY
            # One attempt: the turn loop owns retries and tells the user about them.
            self._client = openai.AsyncOpenAI(
                base_url=self.base_url, api_key=key, timeout=self.timeout_s, max_retries=0
            )
        return self._client


class _EmptyStream(BackendError):
    """The server accepted a streamed request, then sent nothing before the stream ended."""

    def __init__(self, message: str, *, category: str = "network") -> None:
        super().__init__(message, category=category)


def create_backend(
    *,
    openai_base_url: str = DEFAULT_BASE_URL,
    openai_model: str = "",
    openai_api_key: str | None = None,
    openai_timeout_s: float = DEFAULT_TIMEOUT_S,
    **_other_settings: Any,
) -> OpenAIBackend:
    """Registry entry: takes settings fields as keywords and ignores the ones for other backends."""
    return OpenAIBackend(
        openai_base_url or DEFAULT_BASE_URL, openai_model, api_key=openai_api_key, timeout_s=openai_timeout_s
    )


async def check_connection(base_url: str, model: str = "", api_key: str | None = None) -> str:
    """One sentence on what the server at ``base_url`` offers; a :class:`BackendError` when it
    cannot be reached, refuses the key, or lacks ``model``. For Settings' "Test connection"."""
    backend = OpenAIBackend(base_url, model, api_key=api_key, timeout_s=10.0)
    try:
        models = await backend.list_models()
    finally:
        await backend.aclose()
    if model and model not in models:
        raise BackendError(f"The server at {base_url} has no model {model!r}; it lists: {', '.join(models)}.")
    shown = ", ".join(models[:5]) + (f" and {len(models) - 5} more" if len(models) > 5 else "")
    return f"Connected to {base_url}: {len(models)} model{'s' if len(models) != 1 else ''} ({shown})."
