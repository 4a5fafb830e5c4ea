"""A small catalogue of realistic tools from several made-up servers, for ranking tests."""

from __future__ import annotations

from typing import Any

from app.core.tools import ToolInfo


def _schema(**params: str) -> dict[str, Any]:
    properties = {name: {"type": "string", "description": text} for name, text in params.items()}
    return {"type": "object", "properties": properties, "required": list(params)}


_SPECS: list[tuple[str, str, str, dict[str, str]]] = [
    ("calculator", "add", "Add two numbers exactly.", {"a": "The first number.", "b": "The second number."}),
    ("calculator", "subtract", "Subtract b from a.", {"a": "The minuend.", "b": "The subtrahend."}),
    ("calculator", "multiply", "Multiply two numbers.", {"a": "A factor.", "b": "Another factor."}),
    ("calculator", "divide", "Divide a by b exactly.", {"a": "The dividend.", "b": "The divisor."}),
    (
        "calculator",
        "power",
        "Raise a base to an exponent.",
        {"base": "The base.", "exponent": "The exponent."},
    ),
    ("calculator", "sqrt", "Square root of a number.", {"x": "The number."}),
    (
        "converter",
        "convertUnits",
        "Convert a quantity between units of length, mass or volume.",
        {"value": "The quantity.", "from_unit": "Unit to convert from.", "to_unit": "Unit to convert to."},
    ),
    (
        "converter",
        "convert_currency",
        "Convert money from one currency to another at today's rate.",
        {"amount": "The amount of money.", "source": "ISO currency code.", "target": "ISO currency code."},
    ),
    (
        "clock",
        "get_current_time",
        "The current date and time in a time zone.",
        {"timezone": "IANA time zone name, e.g. Asia/Tokyo."},
    ),
    (
        "clock",
        "days_between",
        "Number of days between two calendar dates.",
        {"start": "First date, YYYY-MM-DD.", "end": "Second date, YYYY-MM-DD."},
    ),
    (
        "weather",
        "get_forecast",
        "Weather forecast: temperature, rain and wind for a city.",
        {"city": "The city name.", "days": "How many days ahead."},
    ),
    (
        "mail",
        "send_email",
        "Send an email message to a recipient.",
        {"to": "Recipient address.", "subject": "Subject line.", "body": "Message text."},
    ),
    (
        "mail",
        "search_inbox",
        "Search received email messages by words or sender.",
        {"query": "Search words."},
    ),
    ("files", "read_file", "Read a text file from disk.", {"path": "Path of the file."}),
    (
        "files",
        "write_file",
        "Write text to a file on disk, replacing it.",
        {"path": "Path of the file.", "content": "The text to write."},
    ),
    ("files", "list_directory", "List the entries of a folder.", {"path": "Path of the folder."}),
    (
        "calendar",
        "create_event",
        "Put a meeting or appointment in the calendar.",
        {"title": "What the event is.", "when": "Start date and time."},
    ),
    (
        "maps",
        "get_directions",
        "Driving or walking directions between two places.",
        {"origin": "Where to start.", "destination": "Where to go."},
    ),
    ("music", "play_song", "Play a song or album on the speaker.", {"title": "Song or album title."}),
    ("notes", "create_note", "Save a short text note.", {"text": "The note."}),
    (
        "stocks",
        "get_stock_price",
        "Latest share price of a company on the stock market.",
        {"ticker": "Stock ticker symbol."},
    ),
    (
        "translate",
        "translate_text",
        "Translate text into another language.",
        {"text": "What to translate.", "language": "Target language."},
    ),
]


def catalogue() -> list[ToolInfo]:
    return [ToolInfo(server, tool, tool, text, _schema(**params)) for server, tool, text, params in _SPECS]


def by_name(tools: list[ToolInfo], name: str) -> ToolInfo:
    return next(t for t in tools if t.name == name)
