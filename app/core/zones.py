"""The time zones a question names, offered as the only values of a tool's time-zone argument.

Asked "A call is at 15:00 Berlin time today. What time is that in Los Angeles?", Qwen2.5-Coder-1.5B
called ``convert_time`` with ``source_timezone: "Europe/London"``: a real zone, the wrong city, and
a wrong answer that read well. A model copies a zone's name badly; the user's words name the city.
Where they name cities of the tz database, a string argument called ``timezone`` (``tz``,
``source_timezone`` ...) takes only those cities' zones, UTC and this machine's own zone: an enum
in the schema the model sees, which the local backend's grammar enforces and remote models read.
A question that names no such city leaves the argument free.
"""

from __future__ import annotations

import dataclasses
import functools
import re
import zoneinfo
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from app.core.messages import ToolSpec
from app.core.named import without_names

_ZONE_ARGUMENT = re.compile(r"time_?zone|(?:^|_)tz(?:$|_)", re.IGNORECASE)
# Zones under a continent or an ocean; not the old aliases ("US/Pacific", "Canada/Central")
# whose last part is an everyday word.
_REGIONS = ("Africa/", "America/", "Asia/", "Atlantic/", "Australia/", "Europe/", "Indian/", "Pacific/")
# Cities whose names are everyday words more often than places ("New Jersey" is no Jersey).
_UTC = frozenset({"UTC", "Etc/UTC", "Etc/Universal", "Universal", "Zulu", "Etc/Zulu"})
_WORDS = frozenset({"christmas", "easter", "jersey", "mayotte", "guam", "midway", "wake", "truk"})


@functools.cache
def _cities() -> tuple[dict[str, str], re.Pattern[str] | None]:
    """Each city's name (lower case, spaces for underscores) and its zone, and one pattern for
    them all, longest first ("New York" before "York")."""
    found: dict[str, str] = {}
    for zone in sorted(zoneinfo.available_timezones()):
        if not zone.startswith(_REGIONS):
            continue
        city = zone.rsplit("/", 1)[-1].replace("_", " ").lower()
        if city not in _WORDS:
            found.setdefault(city, zone)
    if not found:  # no tz database on this machine: nothing is narrowed
        return found, None
    names = sorted(found, key=len, reverse=True)
    return found, re.compile(r"\b(?:" + "|".join(re.escape(n) for n in names) + r")\b", re.IGNORECASE)


def named_zones(text: str) -> list[str]:
    """The zones of the tz-database cities ``text`` names, in the order named."""
    cities, pattern = _cities()
    if pattern is None:
        return []
    return list(dict.fromkeys(cities[m[0].lower()] for m in pattern.finditer(without_names(text))))


def _local_zone() -> str:
    try:
        target = str(Path("/etc/localtime").resolve())
    except OSError:
        return ""
    return target.split("zoneinfo/", 1)[1] if "zoneinfo/" in target else ""


def choices(text: str) -> list[str]:
    """The values a time-zone argument may take for the question ``text``; [] where it names no city."""
    named = named_zones(text)
    if not named:
        return []
    local = _local_zone()
    mine = [local] if local and local not in _UTC else []
    return list(dict.fromkeys([*named, "UTC", *mine]))


def with_zones(spec: ToolSpec, zones: Sequence[str]) -> ToolSpec:
    """``spec`` with its free string time-zone arguments held to ``zones``; unchanged where there
    are none, or no zones."""
    schema = spec.input_schema
    properties = schema.get("properties") if isinstance(schema, Mapping) else None
    if not zones or not isinstance(properties, Mapping):
        return spec
    narrowed = {name: _narrowed(name, value, zones) for name, value in properties.items()}
    if narrowed == dict(properties):
        return spec
    return dataclasses.replace(spec, input_schema={**schema, "properties": narrowed})


def _narrowed(name: str, value: Any, zones: Sequence[str]) -> Any:
    if not (_ZONE_ARGUMENT.search(name) and isinstance(value, Mapping)):
        return value
    if value.get("type", "string") != "string" or "enum" in value or "const" in value:
        return value
    return {**value, "enum": list(zones)}


# A time of day written out: "9:30", "3 pm". Not "at 3" (a count as often as an hour).
_CLOCK_READING = r"\b\d{1,2}:\d{2}\b|\b\d{1,2} ?(?:am|pm|a\.m\.|p\.m\.)"
# What asks anything of time: a clock's words, a time of day, a day named relative to today, a
# weekday. Not "per month" or "a day": rates in a story are no question for a clock.
_OF_TIME = re.compile(
    r"\b(?:times? ?zones?|timezones?|time|clocks?|o'clock|utc|gmt|dst|daylight|date|today|tonight"
    r"|tomorrow|yesterday|hours? (?:ahead|behind)|ahead of|behind|noon|midnight|morning|evening"
    r"|afternoon|now|monday|tuesday|wednesday|thursday|friday|saturday|sunday|what day)\b"
    rf"|{_CLOCK_READING}",
    re.IGNORECASE,
)


def asks_of_time(text: str) -> bool:
    """Whether ``text`` asks anything a clock answers: it names a city of the tz database, a
    time, a date or a day, or a clock's words."""
    plain = without_names(text)
    return bool(_OF_TIME.search(plain)) or bool(named_zones(plain))


# A time of day the request gives: a clock reading, "noon" or "midnight".
_CLOCK_TIME = re.compile(rf"{_CLOCK_READING}|\b(?:noon|midnight)\b", re.IGNORECASE)
_CLOCK_ARGUMENT = re.compile(r"^(?:\w+_)?time$", re.IGNORECASE)
_TIME_OF_DAY_SAID = re.compile(r"\bHH:MM\b|\b(?:12|24)-hour\b", re.IGNORECASE)


def gives_clock_time(text: str) -> bool:
    """Whether ``text`` gives a time of day ("if it's 9:30 in New York")."""
    return bool(_CLOCK_TIME.search(text))


def takes_clock_time(schema: object) -> bool:
    """Whether a tool needs a time of day from the request: a required string argument called
    ``time`` (or ``..._time``) whose schema says it is a time of day (``format: time``, or "HH:MM"
    or "24-hour" in its description); a date-time or a zone is not one. The time server's
    convert_time ("Time to convert in 24-hour format (HH:MM)") ranked first for "What hour is it
    in Tokyo right now?", which gives no time to convert: the model would have to make one up."""
    if not isinstance(schema, Mapping):
        return False
    properties, required = schema.get("properties"), schema.get("required")
    if not isinstance(properties, Mapping) or not isinstance(required, Sequence):
        return False
    return any(
        isinstance(name, str)
        and _CLOCK_ARGUMENT.search(name) is not None
        and not _ZONE_ARGUMENT.search(name)
        and _time_of_day(properties.get(name))
        for name in required
    )


def _time_of_day(spec: object) -> bool:
    if not isinstance(spec, Mapping) or spec.get("type", "string") != "string":
        return False
    said = str(spec.get("description", ""))
    return spec.get("format") == "time" or bool(_TIME_OF_DAY_SAID.search(said))


def keeps_time(schema: object) -> bool:
    """Whether a tool's input schema has a time-zone argument (``timezone``, ``source_tz`` ...)."""
    properties = schema.get("properties") if isinstance(schema, Mapping) else None
    return isinstance(properties, Mapping) and any(_ZONE_ARGUMENT.search(str(name)) for name in properties)
