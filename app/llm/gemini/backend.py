"""The Gemini backend: google-genai's async client, streamed, tools run by our loop."""

from __future__ import annotations

import contextlib
import logging
import os
from collections.abc import AsyncGenerator, AsyncIterator
from typing import Any, cast

import pydantic
from google import genai
from google.genai import errors, types

from app import secrets
from app.core.backend import BackendError, Chunk, ModelRequest, ProgressCallback
from app.llm.gemini.convert import build_config, build_contents
from app.llm.gemini.failures import TRANSPORT_ERRORS, from_api_error, from_transport_error
from app.llm.gemini.reply import CUT_OFF, StepAssembler

logger = logging.getLogger(__name__)

DEFAULT_MODEL = "gemini-2.5-flash"
DEFAULT_HOST = "https://generativelanguage.googleapis.com"
# The SDK also sends this to the service as the request deadline (X-Server-Timeout),
# so it must leave room for long thinking, not just a slow network.
DEFAULT_TIMEOUT_S = 300.0
NO_KEY = (
    "No Gemini API key is set. Set the GEMINI_API_KEY (or GOOGLE_API_KEY) environment variable, "
    "or enter a key in Settings."
)
# A reply the SDK could not parse: truncated JSON, or a shape its types reject.
_UNREADABLE = (errors.UnknownApiResponseError, pydantic.ValidationError)
_FAILURES: tuple[type[BaseException], ...] = (errors.APIError, *_UNREADABLE, *TRANSPORT_ERRORS)


class GeminiBackend:
    """:class:`app.core.backend.Backend` over Gemini's streaming API.

    ``base_url`` is set on the client only when given, so the SDK's own
    ``GOOGLE_GEMINI_BASE_URL`` keeps working. ``timeout_s`` bounds each HTTP
    read locally and is the service's deadline for the whole answer.
    """

    name = "gemini"

    def __init__(
        self,
        model: str = DEFAULT_MODEL,
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        timeout_s: float = DEFAULT_TIMEOUT_S,
        include_thoughts: bool = True,
    ) -> None:
        self.model = model
        self.base_url = base_url
        self.timeout_s = timeout_s
        self.include_thoughts = include_thoughts
        self._api_key = api_key
        self._client: genai.Client | None = None

    @property
    def model_label(self) -> str:
        return f"gemini:{self.model}"

    @property
    def context_tokens(self) -> int | None:
        return None

    async def load(self, progress: ProgressCallback | None = None) -> None:
        """Check that a key exists; no network call, so this works offline."""
        self._ensure_client()
        if progress:
            progress(1.0, f"{self.model_label} ready")

    async def stream(self, request: ModelRequest) -> AsyncIterator[Chunk]:
        client = self._ensure_client()
        step = StepAssembler()
        config = build_config(request, include_thoughts=self.include_thoughts)
        try:
            responses = await client.aio.models.generate_content_stream(
                model=self.model, contents=build_contents(request.messages), config=config
            )
            async with contextlib.aclosing(
                cast(AsyncGenerator[types.GenerateContentResponse, None], responses)
            ):
                async for response in responses:
                    for chunk in step.feed(response):
                        yield chunk
        except _FAILURES as exc:
            raise self._failure(exc, midstream=step.received) from exc
        yield step.done()

    def _failure(self, exc: BaseException, *, midstream: bool) -> BackendError:
        if isinstance(exc, errors.APIError):
            return from_api_error(exc, model=self.model, midstream=midstream)
        if isinstance(exc, _UNREADABLE):
            return _unreadable(exc, midstream=midstream)
        return from_transport_error(exc, where=self.endpoint, midstream=midstream)

    async def aclose(self) -> None:
        client, self._client = self._client, None
        if client is not None:
            await client.aio.aclose()
            client.close()

    @property
    def endpoint(self) -> str:
        return self.base_url or os.environ.get("GOOGLE_GEMINI_BASE_URL") or DEFAULT_HOST

    def _ensure_client(self) -> genai.Client:
        if self._client is None:
            key = self._api_key or secrets.get_gemini_key()
            if not key:
                raise BackendError(NO_KEY, category="auth")
            self._client = genai.Client(api_key=key, http_options=self._http_options())
        return self._client

    def _http_options(self) -> types.HttpOptions:
        return types.HttpOptions(
            base_url=self.base_url or None,
            timeout=int(self.timeout_s * 1000),  # the SDK counts milliseconds
            # One attempt, explicitly: the turn loop owns retries and tells the user;
            # otherwise the SDK retries some failures on its own (with aiohttp
            # installed, connection errors after a silent 1-10 s sleep).
            retry_options=types.HttpRetryOptions(attempts=1),
        )


def _unreadable(exc: BaseException, *, midstream: bool) -> BackendError:
    if midstream:
        return BackendError(f"{CUT_OFF} (unreadable data: {exc})", category="network")
    logger.warning("unreadable reply from Gemini: %s", exc)
    return BackendError(f"Gemini sent a reply that could not be read: {exc}", category="model")


def create_backend(
    *,
    gemini_model: str = DEFAULT_MODEL,
    gemini_api_key: str | None = None,
    gemini_base_url: str | None = None,
    gemini_timeout_s: float = DEFAULT_TIMEOUT_S,
    gemini_thoughts: bool = True,
    **_other_settings: Any,
) -> GeminiBackend:
    """Registry entry: takes settings fields as keywords and ignores the ones for other backends."""
    return GeminiBackend(
        gemini_model,
        api_key=gemini_api_key,
        base_url=gemini_base_url or None,
        timeout_s=gemini_timeout_s,
        include_thoughts=gemini_thoughts,
    )
