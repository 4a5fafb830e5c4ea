"""The servers panel: each MCP server's state, pid, tools and stderr, with Restart, and the
approval policy of the selected tool (saved in the settings at once)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Sequence
from typing import Any, Protocol

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPlainTextEdit,
    QPushButton,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from app.core import events as ev
from app.ui import theme
from app.ui.icons import decorate
from app.ui.passphrase_dialog import ask_passphrase
from app.ui.resources_view import SurfaceControl
from app.ui.review_view import ReviewControl, ReviewView
from app.ui.server_details import ServerDetails

logger = logging.getLogger(__name__)


class ServerSnapshot(Protocol):
    """One server's status as the supervisor reports it (``app.mcp.lifecycle.ServerStatus``)."""

    @property
    def name(self) -> str: ...
    @property
    def state(self) -> str: ...
    @property
    def pid(self) -> int | None: ...
    @property
    def tool_count(self) -> int: ...
    @property
    def last_error(self) -> str: ...
    @property
    def stderr_tail(self) -> Sequence[str]: ...
    @property
    def tools(self) -> Sequence[str]: ...


class ServerControl(Protocol):
    """What the panel needs from the MCP supervisor."""

    def states(self) -> Sequence[ServerSnapshot]: ...

    def restart(self, name: str) -> Awaitable[Any]: ...

    def sign_in(self, name: str) -> Awaitable[Any]: ...


class ApprovalControl(Protocol):
    """Each tool's remembered approval (``app.permissions.ApprovalEditor``)."""

    def policy_of(self, server: str, tool: str) -> tuple[str | None, str]: ...

    def set_policy(self, server: str, tool: str, policy: Any) -> None: ...


POLICIES = ("ask", "conversation", "always", "never")


def as_event(snapshot: ServerSnapshot) -> ev.ServerStateChanged:
    return ev.ServerStateChanged(
        server=snapshot.name,
        state=snapshot.state,
        pid=snapshot.pid,
        tool_count=snapshot.tool_count,
        last_error=snapshot.last_error,
    )


def describe(state: ev.ServerStateChanged) -> str:
    pid = f"pid {state.pid}" if state.pid else "no process"
    return f"{state.server} — {state.state} · {pid} · {state.tool_count} tools"


def describe_model(state: ev.ModelStateChanged) -> str:
    pid = f" · pid {state.pid}" if state.pid else ""
    detail = f"\n{state.detail}" if state.detail else ""
    return f"Model process — {state.state}{pid}{detail}"


class ServersPanel(QWidget):
    """Listens to ``ServerStateChanged`` and ``ModelStateChanged``; Restart and Refresh log call
    the supervisor."""

    def __init__(
        self,
        control: ServerControl | None = None,
        parent: QWidget | None = None,
        approvals: ApprovalControl | None = None,
    ) -> None:
        super().__init__(parent)
        self.control = control
        self.approvals = approvals
        # What the server offers beyond its state (introduction, tools, logs, resources, prompts).
        self.details: ServerDetails | None = None
        self.review: ReviewView | None = None  # changed tools and flags, once show_review is called
        self.policy = QComboBox(self)
        self.policy.setObjectName("policy")
        self.policy.setToolTip("Whether the selected tool runs without asking; saved in the settings.")
        self.states: dict[str, ev.ServerStateChanged] = {}
        self._tasks: set[asyncio.Future[Any]] = set()
        self.servers = QListWidget(self)
        self.model_line = QLabel(self)  # the local model's own process; hidden for a remote model
        self.model_line.setTextFormat(Qt.TextFormat.PlainText)
        self.model_line.setWordWrap(True)
        self.model_line.hide()
        self.summary = QLabel(self)
        self.summary.setTextFormat(Qt.TextFormat.PlainText)
        self.summary.setWordWrap(True)
        self.tools = QListWidget(self)
        self.log = QPlainTextEdit(self)
        self.log.setReadOnly(True)
        self.log.setPlaceholderText("The server's stderr appears here.")
        self.restart_button = QPushButton("Restart", self)
        self.refresh_button = QPushButton("Refresh log", self)
        self.sign_in_button = QPushButton("Sign in", self)
        self.sign_in_button.setToolTip("Open the browser to sign in to this server (OAuth).")
        self._layout()
        self.servers.currentRowChanged.connect(lambda _row: self.refresh_selected())
        self.restart_button.clicked.connect(self.restart_selected)
        self.sign_in_button.clicked.connect(self.sign_in_selected)
        self.refresh_button.clicked.connect(self.refresh_selected)
        self.tools.currentRowChanged.connect(lambda _row: self.show_policy())
        self.policy.activated.connect(lambda _index: self._policy_chosen())
        for snapshot in control.states() if control is not None else ():
            self.update_state(as_event(snapshot))
        self.refresh_selected()

    def _layout(self) -> None:
        buttons = QHBoxLayout()
        buttons.addWidget(self.restart_button)
        buttons.addWidget(self.sign_in_button)
        buttons.addWidget(self.refresh_button)
        buttons.addStretch(1)
        detail = QWidget(self)
        column = self._column = QVBoxLayout(detail)
        column.setContentsMargins(0, 0, 0, 0)
        column.addWidget(self.summary)
        column.addLayout(buttons)
        column.addWidget(QLabel("Tools", detail))
        column.addWidget(self.tools, 1)
        column.addWidget(self.policy)
        column.addWidget(QLabel("stderr", detail))
        column.addWidget(self.log, 2)
        splitter = QSplitter(Qt.Orientation.Vertical, self)
        splitter.addWidget(self.servers)
        splitter.addWidget(detail)
        self.splitter = splitter
        splitter.setStretchFactor(1, 3)
        splitter.setSizes([120, 480])
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.model_line)
        layout.addWidget(splitter)

    def show_details(self, surface: SurfaceControl) -> ServerDetails:
        """Add the tabs of what each server offers, reached through ``surface``."""
        self.details = ServerDetails(surface, self)
        self.splitter.addWidget(self.details)
        self.splitter.setSizes([100, 260, 420])
        for state in list(self.states.values()):  # the rows get the icons the details know of
            self.update_state(state)
        if (name := self.selected()) is not None:
            self.details.show_server(name)
        return self.details

    def show_review(self, control: ReviewControl) -> ReviewView:
        """Show, under the summary, what needs the user's eye: changed tools (diff, Accept) and flags."""
        self.review = ReviewView(control, self)
        self._column.insertWidget(1, self.review)
        if (name := self.selected()) is not None:
            self.review.show_server(name)
        return self.review

    # --- state ---

    def handle(self, event: ev.Event) -> None:
        if isinstance(event, ev.ServerStateChanged):
            self.update_state(event)
        elif isinstance(event, ev.ModelStateChanged):
            self.model_line.setText(describe_model(event))
            colour = theme.SERVER_STATE_COLOURS.get(event.state, theme.MUTED_COLOUR)
            self.model_line.setStyleSheet(f"color: {colour}")
            self.model_line.show()
        elif isinstance(event, ev.ServerListChanged) and event.server in self.states:
            self.update_state(self.states[event.server])  # its icons come with what it offers
            if self.review and event.server == self.selected():
                self.review.show_server(event.server)  # prompts and resources listed: flagged too
        if self.details is not None:
            self.details.handle(event)

    def update_state(self, state: ev.ServerStateChanged) -> None:
        names = list(self.states)
        self.states[state.server] = state
        if state.server in names:
            item = self.servers.item(names.index(state.server))
        else:
            item = QListWidgetItem()
            self.servers.addItem(item)
        item.setText(describe(state))
        decorate(item, self._catalog(state.server)[0])
        item.setForeground(QColor(theme.SERVER_STATE_COLOURS.get(state.state, theme.MUTED_COLOUR)))
        if self.servers.currentRow() < 0:
            self.servers.setCurrentRow(0)
        if self.selected() == state.server:
            self.refresh_selected()

    def selected(self) -> str | None:
        row = self.servers.currentRow()
        names = list(self.states)
        return names[row] if 0 <= row < len(names) else None

    def refresh_selected(self) -> None:
        name = self.selected()
        self.restart_button.setEnabled(name is not None and self.control is not None)
        self.refresh_button.setEnabled(name is not None and self.control is not None)
        # A remote server that refused us waits for this; other servers never need it.
        self.sign_in_button.setVisible(name is not None and self.states[name].state == "unauthorized")
        if name is None:
            self.summary.setText("No servers yet.")
            return
        state = self.states[name]
        error = f"\nLast error: {state.last_error}" if state.last_error else ""
        self.summary.setText(describe(state) + error)
        snapshot = self._snapshot(name)
        self.tools.clear()
        icons = self._catalog(name)[1]
        for tool in sorted(snapshot.tools) if snapshot else []:
            item = QListWidgetItem(tool, self.tools)
            decorate(item, icons.get(tool))
        self.show_policy()
        self.log.setPlainText("\n".join(snapshot.stderr_tail) if snapshot else "")
        if self.details is not None and self.details.server != name:
            self.details.show_server(name)
        if self.review is not None:
            self.review.show_server(name)
        self.log.verticalScrollBar().setValue(self.log.verticalScrollBar().maximum())

    def selected_tool(self) -> str | None:
        item = self.tools.currentItem()
        return item.text() if item is not None else None

    def show_policy(self) -> None:
        server, tool = self.selected(), self.selected_tool()
        self.policy.clear()
        if self.approvals is None or server is None or tool is None:
            self.policy.setEnabled(False)
            return
        chosen, default = self.approvals.policy_of(server, tool)
        self.policy.addItem(f"Approval: default ({default})", None)
        for policy in POLICIES:
            self.policy.addItem(f"Approval: {policy}", policy)
        self.policy.setCurrentIndex(max(self.policy.findData(chosen), 0) if chosen else 0)
        self.policy.setEnabled(True)

    def _policy_chosen(self) -> None:
        server, tool = self.selected(), self.selected_tool()
        if self.approvals is not None and server is not None and tool is not None:
            self.approvals.set_policy(server, tool, self.policy.currentData())

    def _catalog(self, name: str) -> tuple[Sequence[Any], dict[str, Any]]:
        """The server's own icons, and its tools' by name, once the details know them."""
        found = self.details.surface.catalog(name) if self.details is not None else None
        if found is None:
            return (), {}
        catalog, tools = found
        return catalog.icons, {t.name: t.icons for t in tools}

    def _snapshot(self, name: str) -> ServerSnapshot | None:
        if self.control is None:
            return None
        return next((s for s in self.control.states() if s.name == name), None)

    def restart_selected(self) -> None:
        self._on_selected(lambda control, name: control.restart(name))

    def sign_in_selected(self) -> None:
        self._on_selected(self._sign_in)

    async def _sign_in(self, control: ServerControl, name: str) -> None:
        if await ask_passphrase(self):  # a sign-in kept in a locked token file would be refused
            await control.sign_in(name)

    def _on_selected(self, action: Any) -> None:
        name = self.selected()
        if name is None or self.control is None:
            return
        task = asyncio.ensure_future(action(self.control, name))
        self._tasks.add(task)
        task.add_done_callback(self._restart_done)

    def _restart_done(self, task: asyncio.Future[Any]) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and (error := task.exception()) is not None:
            logger.error("restart failed", exc_info=error)
            self.summary.setText(f"Restart failed: {error}")
