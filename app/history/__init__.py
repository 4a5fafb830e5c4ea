"""Conversations that last: every engine event stored in SQLite as it happens.

No Qt and no MCP here (an import contract holds it): the window, the CLI and the tests all
use the same :class:`History` (the file), :class:`Recorder` (engine events into it),
:func:`model_history` (a conversation back into the model's history) and the exports.
"""

from app.history.recorder import Recorder
from app.history.store import Conversation, History, Hit, history_path

__all__ = ["Conversation", "History", "Hit", "Recorder", "history_path"]
