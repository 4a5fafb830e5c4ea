"""Sampling: shown and approved (or edited) before the model runs, its result approved before it goes back."""

from __future__ import annotations

import pytest

from app.core.asking import Asker, SamplingAnswer, SamplingRequest, SamplingReview
from app.core.sampling import Completion, SamplingGate, SamplingRefused, backend_completer
from app.core.scripted_user import ScriptedUser
from app.llm.scripted import ScriptedBackend
from tests.core.models import RecordingModel

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


REQUEST = SamplingRequest(
    server="s", system_prompt="Be brief.", messages=(("user", "Sky colour?"),), max_tokens=5
)


async def test_an_approved_request_runs_and_its_approved_result_goes_back():
    user, model = ScriptedUser([SamplingAnswer(True), SamplingAnswer(True)]), RecordingModel()
    completion = await SamplingGate(Asker(user), model).sample(REQUEST)
    assert completion.text == "Blue" and model.asked == [("Be brief.", (("user", "Sky colour?"),), 5)]
    assert isinstance(user.asked[1], SamplingReview) and user.asked[1].text == "Blue"


async def test_the_user_may_edit_the_request_and_the_result():
    edited = SamplingAnswer(True, messages=(("user", "Grass colour?"),), max_tokens=3)
    user, model = ScriptedUser([edited, SamplingAnswer(True, text="Green")]), RecordingModel()
    completion = await SamplingGate(Asker(user), model).sample(REQUEST)
    assert model.asked == [("Be brief.", (("user", "Grass colour?"),), 3)] and completion.text == "Green"


async def test_a_declined_request_never_reaches_the_model():
    user, model = ScriptedUser([SamplingAnswer(False)]), RecordingModel()
    with pytest.raises(SamplingRefused, match="declined"):
        await SamplingGate(Asker(user), model).sample(REQUEST)
    assert model.asked == []


async def test_a_rejected_result_does_not_go_back():
    user = ScriptedUser([SamplingAnswer(True), SamplingAnswer(False)])
    with pytest.raises(SamplingRefused, match="rejected"):
        await SamplingGate(Asker(user), RecordingModel()).sample(REQUEST)


async def test_a_server_asking_too_often_is_refused_without_asking():
    now = [0.0]
    user = ScriptedUser([SamplingAnswer(True)] * 4)
    gate = SamplingGate(Asker(user), RecordingModel(), per_minute=1, clock=lambda: now[0])
    await gate.sample(REQUEST)
    with pytest.raises(SamplingRefused, match="at most 1 a minute"):
        await gate.sample(REQUEST)
    assert len(user.asked) == 2
    now[0] = 61.0
    assert (await gate.sample(REQUEST)).text == "Blue"


async def test_the_backend_completer_stops_at_max_tokens():
    backend = ScriptedBackend([["a", "b", "c", "d"]])

    async def loaded():
        return backend

    completion = await backend_completer(loaded)("sys", (("user", "go"),), 2)
    assert completion == Completion("ab", "scripted", "maxTokens")
    assert backend.requests[0].system == "sys" and backend.requests[0].tools == ()
