"""A clock lookup asked in so many words, transcribed for the clock.

"What time is it in Tokyo?" names one city of the tz database and asks nothing else: the call
is ``get_time(timezone="Asia/Tokyo")``, whoever writes it. Left to the built-in model, it made no
call and wrote "The time in Tokyo is TOKITADASADA". A question that asks more ("what time is it in
Tokyo when it is 9:00 in Paris?") is left to the model.
"""

from __future__ import annotations

import re

from app.core.backend import FormulaHint
from app.core.zones import named_zones

_NOW = r"(?: (?:now|right now|currently|at the moment))?"
_ASKS = re.compile(
    r"(?:what(?: is|'s) the (?:current |local )?time|what time is it|what's the time|tell me the time"
    rf"|(?:the )?(?:current |local )?time){_NOW} in (?P<place>[a-z .'-]+?){_NOW}"
)


def lookup_hint(text: str) -> FormulaHint | None:
    """The clock's call for a question that asks only the time in one named city; else None."""
    plain = " ".join(text.lower().replace("please", " ").split()).strip(" ?.!")
    match = _ASKS.fullmatch(plain)
    if match is None:
        return None
    zones = named_zones(match["place"])
    if len(zones) != 1 or len(match["place"].split()) > 3:
        return None
    place = " ".join(word.capitalize() for word in match["place"].split())
    # the bundled clock's tool, or the reference time server's (mcp-server-time)
    clocks = ("get_time", "get_current_time")
    return FormulaHint("", place, "transcription", call=(clocks, (("timezone", zones[0]),)))
