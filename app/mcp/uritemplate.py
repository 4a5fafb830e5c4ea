"""RFC 6570 URI templates, as far as resource templates use them: the variable names, expansion
(simple ``{x}``, reserved ``{+x}``, fragment ``{#x}``, path ``{/x}``, label ``{.x}`` and query
``{?x,y}``/``{&x}`` expressions), and whether a URI fits a template (to find its server)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from urllib.parse import quote

_EXPRESSION = re.compile(r"\{([+#./;?&]?)([^}]*)\}")
_UNRESERVED = "-._~"
_RESERVED = ":/?#[]@!$&'()*+,;="
# operator -> (first character, separator, named, keeps reserved characters)
_OPERATORS = {
    "": ("", ",", False, False),
    "+": ("", ",", False, True),
    "#": ("#", ",", False, True),
    ".": (".", ".", False, False),
    "/": ("/", "/", False, False),
    ";": (";", ";", True, False),
    "?": ("?", "&", True, False),
    "&": ("&", "&", True, False),
}


def variables(template: str) -> list[str]:
    """The variable names of ``template`` in order (modifiers such as ``:3`` and ``*`` dropped)."""
    names = []
    for _, body in _EXPRESSION.findall(template):
        names += [_name(spec) for spec in body.split(",") if spec]
    return names


def expand(template: str, values: Mapping[str, str]) -> str:
    """``template`` with each variable replaced by its encoded value; missing ones are left out."""

    def one(match: re.Match[str]) -> str:
        first, separator, named, reserved = _OPERATORS[match.group(1)]
        safe = _UNRESERVED + (_RESERVED if reserved else "")
        parts = []
        for spec in match.group(2).split(","):
            name = _name(spec)
            if name in values:
                value = quote(str(values[name]), safe=safe)
                parts.append(f"{name}={value}" if named else value)
        return first + separator.join(parts) if parts else ""

    return _EXPRESSION.sub(one, template)


def matches(template: str, uri: str) -> bool:
    """Whether ``uri`` could be an expansion of ``template``."""
    pattern, last = [], 0
    for match in _EXPRESSION.finditer(template):
        pattern.append(re.escape(template[last : match.start()]))
        pattern.append(".*" if match.group(1) else "[^/?#]*")
        last = match.end()
    pattern.append(re.escape(template[last:]))
    return re.fullmatch("".join(pattern), uri) is not None


def _name(spec: str) -> str:
    return spec.split(":", 1)[0].rstrip("*")
