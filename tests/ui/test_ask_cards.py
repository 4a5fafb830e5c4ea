"""Questions as cards in the chat, and a turn that waits on one while the window stays live."""

from __future__ import annotations

import asyncio
import json

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QCheckBox, QComboBox, QLabel, QLineEdit, QListWidget, QPlainTextEdit

from app.core import asking as q
from app.core.backend import ToolCallChunk
from app.core.messages import ToolCall
from app.engine import Engine
from app.llm.scripted import ScriptedBackend
from app.settings import Settings
from app.ui.ask_cards import CardUser
from app.ui.card import Card
from app.ui.main import build_window
from tests.everything import everything_entry
from tests.mcp.helpers import script_entry

HOSTILE = "<b>bold</b><img src=x onerror=alert(1)>"


def texts(card: Card) -> list[str]:
    return [label.text() for label in card.findChildren(QLabel)]


def ask(qtbot, request, open_url=lambda url: None):
    """Put ``request`` to a CardUser; returns (the card, the future answer)."""
    added: list[Card] = []
    user = CardUser(added.append, open_url)
    future = asyncio.ensure_future(user.answer(request))
    qtbot.waitUntil(lambda: bool(added))
    qtbot.addWidget(added[0])
    return added[0], future


def test_an_approval_card_shows_server_tool_and_arguments_as_plain_text(qloop, qtbot):
    request = q.ApprovalRequest(
        server="files", tool="wipe", arguments={"path": HOSTILE}, annotations={"destructiveHint": True}
    )
    card, answer = ask(qtbot, request)
    (arguments,) = card.findChildren(QPlainTextEdit)
    assert json.loads(arguments.toPlainText()) == {"path": HOSTILE}
    labels = card.findChildren(QLabel)
    assert all(label.textFormat() == Qt.TextFormat.PlainText for label in labels)
    assert any("destructiveHint" in text and "untrusted" in text for text in texts(card))
    qtbot.mouseClick(card.buttons["always"], Qt.MouseButton.LeftButton)
    qtbot.waitUntil(answer.done)
    assert answer.result() == q.ApprovalAnswer("always")
    assert not card.buttons["allow"].isEnabled() and card.outcome.text() == "→ always"


SCHEMA = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "title": "Name"},
        "email": {"type": "string", "format": "email"},
        "seats": {"type": "integer", "minimum": 1, "maximum": 8, "default": 2},
        "vip": {"type": "boolean"},
        "hero": {
            "type": "string",
            "oneOf": [{"const": "h1", "title": "Superman"}, {"const": "h2", "title": "Batman"}],
        },
        "tools": {"type": "array", "items": {"type": "string", "enum": ["Guitar", "Piano"]}},
    },
    "required": ["name"],
}


def test_a_form_card_checks_each_field_before_it_sends(qloop, qtbot):
    card, answer = ask(qtbot, q.FormRequest(server="s", message=HOSTILE, schema=SCHEMA))
    assert HOSTILE in texts(card) and any("Never enter passwords" in t for t in texts(card))
    card.findChild(QLineEdit, "email").setText("not an address")
    qtbot.mouseClick(card.buttons["submit"], Qt.MouseButton.LeftButton)
    shown = texts(card)
    assert "required" in shown and any("email" in t and "not an address" in t for t in shown)
    assert not answer.done() and card.buttons["submit"].isEnabled()
    card.findChild(QLineEdit, "name").setText("Ada")
    card.findChild(QLineEdit, "email").setText("ada@example.org")
    card.findChild(QCheckBox, "vip").setChecked(True)
    hero = card.findChild(QComboBox, "hero")
    hero.setCurrentIndex(hero.findText("Batman"))
    card.findChild(QListWidget, "tools").item(1).setCheckState(Qt.CheckState.Checked)
    qtbot.mouseClick(card.buttons["submit"], Qt.MouseButton.LeftButton)
    qtbot.waitUntil(answer.done)
    content = {
        "name": "Ada",
        "email": "ada@example.org",
        "seats": 2,
        "vip": True,
        "hero": "h2",
        "tools": ["Piano"],
    }
    assert answer.result() == q.FormAnswer("accept", content)


def test_a_link_card_shows_the_full_url_and_its_domain_and_opens_it_only_on_consent(qloop, qtbot):
    opened: list[str] = []
    url = "https://accounts.example.com.evil.test/login?next=/"
    card, answer = ask(qtbot, q.UrlRequest(server="s", message="Sign in", url=url), opened.append)
    assert f"Link: {url}" in texts(card) and "Domain: accounts.example.com.evil.test" in texts(card)
    assert opened == []
    qtbot.mouseClick(card.buttons["open"], Qt.MouseButton.LeftButton)
    qtbot.waitUntil(answer.done)
    assert opened == [url] and answer.result().action == "accept"


def test_a_sampling_card_lets_the_user_edit_the_request(qloop, qtbot):
    request = q.SamplingRequest(
        server="s", system_prompt="Be brief.", messages=(("user", "Sky?"),), max_tokens=9
    )
    card, answer = ask(qtbot, request)
    _system, message = card.findChildren(QPlainTextEdit)
    message.setPlainText("Grass?")
    qtbot.mouseClick(card.buttons["run"], Qt.MouseButton.LeftButton)
    qtbot.waitUntil(answer.done)
    assert answer.result() == q.SamplingAnswer(True, "Be brief.", (("user", "Grass?"),), 9)


def test_a_card_whose_turn_stopped_says_so(qloop, qtbot):
    card, answer = ask(qtbot, q.SamplingReview(server="s", text="Blue", model="m"))
    answer.cancel()
    qtbot.waitUntil(lambda: not card.outcome.isHidden())
    assert card.outcome.text() == "Stopped before it was answered." and not card.buttons["send"].isEnabled()


def test_a_destructive_call_stops_the_turn_and_asks_in_the_window(qtbot, arun, tmp_path):
    path = tmp_path / "servers.json"
    path.write_text(json.dumps({"mcpServers": {"asking": script_entry("asking", "asking.py").to_json()}}))
    backend = ScriptedBackend([[ToolCallChunk(ToolCall("c1", "wipe", {"what": "disk"}))], ["Not wiped."]])
    settings = Settings(strict=False)
    engine = Engine(settings, servers_path=path, backend=backend)
    window = build_window(engine, settings)
    qtbot.addWidget(window)
    window.show()
    try:
        window.controller.submit("wipe the disk")
        user = engine.asker.user
        assert isinstance(user, CardUser)
        # a card put in the chat's layout is shown when Qt next lays it out, an event later
        qtbot.waitUntil(lambda: bool(user.cards) and user.cards[0].isVisible(), timeout=60_000)
        card = user.cards[0]
        assert window.controller.busy and card.header.text() == "Run asking.wipe?"
        window.side.setCurrentWidget(window.servers_panel)  # the window answers while the turn waits
        qtbot.waitUntil(lambda: any(n.kind == "ask" for n in window.trace.walk()))
        qtbot.mouseClick(card.buttons["decline"], Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: not window.controller.busy, timeout=30_000)
        error = next(b for b in window.chat.bubbles() if b.kind == "tool_error")
        assert "declined" in error.text()
        assert window.chat.bubbles()[-1].text().strip() == "Not wiped."
        (asked,) = [n for n in window.trace.walk() if n.kind == "ask"]
        assert asked.parent is not None and asked.parent.kind == "tool_call"
        assert asked.label.endswith("→ decline") and asked.duration_ms is not None
    finally:
        arun(engine.aclose(), timeout=30)


def answer_next_card(qtbot, user: CardUser, seen: int, button: str, fill=None) -> int:
    """Wait for card number ``seen``, optionally fill it in, click ``button``; returns seen + 1."""
    qtbot.waitUntil(lambda: len(user.cards) > seen, timeout=60_000)
    card = user.cards[seen]
    if fill is not None:
        fill(card)
    qtbot.mouseClick(card.buttons[button], Qt.MouseButton.LeftButton)
    return seen + 1


def test_server_everythings_elicitation_and_sampling_work_from_the_window(qtbot, arun, tmp_path):
    entry = everything_entry()
    path = tmp_path / "servers.json"
    path.write_text(json.dumps({"mcpServers": {entry.name: entry.to_json()}}))
    elicit = ToolCallChunk(ToolCall("c1", "trigger-elicitation-request", {}))
    sample = ToolCallChunk(ToolCall("c2", "trigger-sampling-request", {"prompt": "sky", "maxTokens": 5}))
    # The scripted model's third step answers the server's sampling request.
    backend = ScriptedBackend([[elicit], [sample], ["Blue"], ["Both done."]])
    settings = Settings(strict=False)
    engine = Engine(settings, servers_path=path, backend=backend)
    window = build_window(engine, settings)
    qtbot.addWidget(window)
    user = engine.asker.user
    assert isinstance(user, CardUser)
    try:
        window.controller.submit("try the forms and sampling")
        seen = answer_next_card(qtbot, user, 0, "allow")
        seen = answer_next_card(
            qtbot, user, seen, "submit", lambda c: c.findChild(QLineEdit, "name").setText("Ada")
        )
        seen = answer_next_card(qtbot, user, seen, "allow")
        seen = answer_next_card(qtbot, user, seen, "run")
        seen = answer_next_card(qtbot, user, seen, "send")
        qtbot.waitUntil(lambda: not window.controller.busy, timeout=60_000)
        results = [b.text() for b in window.chat.bubbles() if b.kind == "tool_result"]
        assert "- Name: Ada" in results[0] and '"text": "Blue"' in results[1]
        asked = [n.data["request"] for n in window.trace.walk() if n.kind == "ask"]
        assert asked == ["approval", "elicitation", "approval", "sampling", "sampling_result"]
    finally:
        arun(engine.aclose(), timeout=30)
