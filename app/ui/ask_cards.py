"""Questions as cards in the chat: the window's way of answering :mod:`app.core.asking` requests.

:class:`CardUser` puts each request in the chat as a card and awaits its buttons, so the
turn waits while the rest of the window stays live. Every text on a card that a server or
the model wrote (tool arguments, messages, links) is shown as plain text, never as HTML.
A card whose turn is stopped before it is answered says so and takes no more clicks.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QUrl
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import QSpinBox, QWidget

from app.core import asking as q
from app.core import forms
from app.core.asking import A
from app.ui.card import Card
from app.ui.form_card import form_card


def approval_card(request: q.ApprovalRequest) -> Card:
    card = Card(request)
    card.add_text(f"Server: {request.server}    Tool: {request.tool}    ({request.reason})")
    card.add_block(json.dumps(dict(request.arguments), indent=2, ensure_ascii=False, default=str))
    hints = json.dumps(dict(request.annotations), ensure_ascii=False) if request.annotations else "none"
    card.add_text(f"Annotations: {hints}" + ("" if request.trusted else " (from an untrusted server)"))
    choices = [
        ("allow", "Allow once"),
        ("conversation", "Allow this conversation"),
        ("always", "Always allow"),
        ("decline", "Decline"),
        ("never", "Never"),
    ]
    for decision, label in choices:
        card.add_button(decision, label, lambda d=decision: q.ApprovalAnswer(d))  # type: ignore[misc]
    card.finish_layout()
    return card


def url_card(request: q.UrlRequest, open_url: Callable[[str], object]) -> Card:
    card = Card(request)
    card.add_text(request.message)
    card.add_text(f"Link: {request.url}")
    card.add_text(f"Domain: {forms.domain(request.url) or '(none)'}")

    def consent() -> q.FormAnswer:
        open_url(request.url)
        return q.FormAnswer("accept")

    card.add_button("open", "Open in browser", consent)
    card.add_button("decline", "Decline", lambda: q.FormAnswer("decline"))
    card.finish_layout()
    return card


def sampling_card(request: q.SamplingRequest) -> Card:
    card = Card(request)
    card.add_text("System prompt:")
    system = card.add_block(request.system_prompt, editable=True)
    texts = []
    for role, text in request.messages:
        card.add_text(f"{role}:")
        texts.append((role, card.add_block(text, editable=True)))
    tokens = QSpinBox(card)
    tokens.setRange(1, max(request.max_tokens, 100_000))
    tokens.setValue(request.max_tokens)
    card.column.addWidget(tokens)
    if request.wants_tools:
        card.add_text("The server asks for tools; the completion runs without them.")

    def run() -> q.SamplingAnswer:
        edited = tuple((role, block.toPlainText()) for role, block in texts)
        return q.SamplingAnswer(True, system.toPlainText(), edited, tokens.value())

    card.add_button("run", "Run on the model", run)
    card.add_button("decline", "Decline", lambda: q.SamplingAnswer(False))
    card.finish_layout()
    return card


def review_card(request: q.SamplingReview) -> Card:
    card = Card(request)
    card.add_text(f"{request.model} answered (you may edit it before it goes back):")
    text = card.add_block(request.text, editable=True)
    card.add_button("send", "Send", lambda: q.SamplingAnswer(True, text=text.toPlainText()))
    card.add_button("decline", "Decline", lambda: q.SamplingAnswer(False))
    card.finish_layout()
    return card


def _resolve(future: asyncio.Future[Any], value: Any) -> None:
    if not future.done():  # a click after the turn stopped changes nothing
        future.set_result(value)


def open_in_browser(url: str) -> bool:
    return QDesktopServices.openUrl(QUrl(url))


class CardUser:
    """Answers requests with cards added by ``add`` (the chat pane's ``add_widget``)."""

    def __init__(self, add: Callable[[QWidget], object], open_url: Callable[[str], object] = open_in_browser):
        self.add, self.open_url = add, open_url
        self.cards: list[Card] = []

    def card_for(self, request: q.Request[Any]) -> Card:
        if isinstance(request, q.ApprovalRequest):
            return approval_card(request)
        if isinstance(request, q.FormRequest):
            return form_card(request)
        if isinstance(request, q.UrlRequest):
            return url_card(request, self.open_url)
        if isinstance(request, q.SamplingRequest):
            return sampling_card(request)
        assert isinstance(request, q.SamplingReview)
        return review_card(request)

    async def answer(self, request: q.Request[A]) -> A:
        card = self.card_for(request)
        answered: asyncio.Future[A] = asyncio.get_running_loop().create_future()
        card.answered.connect(lambda value: _resolve(answered, value))
        self.cards.append(card)
        self.add(card)
        try:
            return await answered
        except asyncio.CancelledError:
            card.settle("Stopped before it was answered.")
            raise
