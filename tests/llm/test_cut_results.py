"""The longest tool result of the newest exchange is cut in its middle to fit, keeping its end."""

from __future__ import annotations

from app.core.messages import Message
from app.llm.local.cut_results import cut_to_fit


def chars(messages: tuple[Message, ...]) -> int:
    """A prompt's length in characters, standing in for tokens (one token per four characters)."""
    return sum(len(m.text) for m in messages) // 4


def test_the_result_keeps_its_opening_and_the_apps_count_at_its_end() -> None:
    body = "".join(f"row {n}\n" for n in range(2000))
    messages = (
        Message("user", "How many rows does rows.txt have?"),
        Message("tool", body + "[Counted by the app: this result has 2000 lines.]", tool_call_id="r1"),
    )

    cut = cut_to_fit(messages, 500, chars, 512)

    assert cut is not None and chars(cut) <= 500
    assert cut[0] == messages[0]  # the question is never cut
    text = cut[1].text
    assert text.startswith("row 0\nrow 1\n") and text.endswith(
        "[Counted by the app: this result has 2000 lines.]"
    )
    assert "characters cut here to fit the model's 512-token context" in text


def test_no_cut_where_the_question_itself_leaves_no_room() -> None:
    messages = (Message("user", "word " * 3000), Message("tool", "x" * 5000, tool_call_id="r1"))
    assert cut_to_fit(messages, 500, chars, 512) is None
