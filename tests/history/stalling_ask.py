"""``calculon ask`` whose model calls ``add`` and then stalls for good: the kill -9 test runs it.

It prints ``stalled`` on stdout once the tool's result is back and the next step has begun.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import AsyncIterator

from app import cli
from app.core.backend import Chunk, ModelRequest, ToolCallChunk
from app.core.messages import ToolCall
from app.llm import registry
from app.llm.scripted import ScriptedBackend


class StallingBackend(ScriptedBackend):
    async def stream(self, request: ModelRequest) -> AsyncIterator[Chunk]:
        if self.requests:  # the step after the tool call
            print("stalled", flush=True)
            await asyncio.Event().wait()
        async for chunk in super().stream(request):
            yield chunk


def main() -> int:
    add = ToolCallChunk(ToolCall("c1", "add", {"a": 2, "b": 40}))
    registry._FACTORIES["local"] = lambda **options: StallingBackend([[add]])
    return cli.run(sys.argv[1:])


if __name__ == "__main__":
    sys.exit(main())
