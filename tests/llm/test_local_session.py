"""One real turn: the built-in model, the turn loop and the bundled calculator as a child process."""

from __future__ import annotations

import pytest

from app.calculon import CalculonMode
from app.core import events as ev
from app.core.session import ChatSession
from app.llm.local import LocalBackend
from app.mcp.config import bundled_entry
from app.mcp.supervisor import Supervisor
from tests.llm.local_fixtures import gemma, gemma_path  # noqa: F401

pytestmark = [pytest.mark.anyio, pytest.mark.slow]


async def test_a_numeric_question_runs_the_calculator_and_the_turn_completes(gemma: LocalBackend) -> None:  # noqa: F811
    supervisor = Supervisor([bundled_entry("calculator")])
    await supervisor.start(timeout=60)
    try:
        assert any(t.name == "multiply" for t in supervisor.list_tools())
        # in Calculon mode, as the app runs it by default: the numeric question must start with a call
        session = ChatSession(
            gemma,
            supervisor,
            system_prompt="Use the tools for arithmetic.",
            max_rounds=4,
            verifier=CalculonMode(),
        )
        outcome = await session.run_turn("What is 12 times 7?")
    finally:
        await supervisor.aclose()
    assert len(outcome.tool_calls) == 1, outcome.to_dict()  # the built-in model's one call per message
    first = outcome.tool_calls[0]
    assert first.server == "calculator" and not first.is_error
    kinds = [e.kind for e in outcome.events]
    assert kinds[0] == "turn_started" and kinds[-1] == "turn_finished"
    assert "tool_call_finished" in kinds
    assert kinds.count("step_finished") == 2  # the call, then a step that could only answer
    # a 270M base model answers badly; the turn must still end with an answer
    assert outcome.answer and not outcome.error
    finished = next(e for e in outcome.events if isinstance(e, ev.TurnFinished))
    assert not finished.cancelled
