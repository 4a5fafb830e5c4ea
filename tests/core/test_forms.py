"""Elicitation forms: fields from a flat schema, typed answers parsed, whole answers checked."""

from __future__ import annotations

import pytest

from app.core import forms

SCHEMA = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "title": "Name", "description": "Your full name"},
        "email": {"type": "string", "format": "email"},
        "site": {"type": "string", "format": "uri"},
        "born": {"type": "string", "format": "date"},
        "seats": {"type": "integer", "minimum": 1, "maximum": 8, "default": 2},
        "score": {"type": "number"},
        "agree": {"type": "boolean"},
        "friend": {"type": "string", "enum": ["Monica", "Ross"]},
        "hero": {
            "type": "string",
            "oneOf": [{"const": "h1", "title": "Superman"}, {"const": "h2", "title": "Batman"}],
        },
        "pet": {"type": "string", "enum": ["p1", "p2"], "enumNames": ["Cats", "Dogs"]},
        "tools": {"type": "array", "items": {"type": "string", "enum": ["Guitar", "Piano"]}, "minItems": 1},
    },
    "required": ["name"],
}


def test_every_kind_of_flat_field_is_read_with_its_title_default_and_choices():
    fields = {f.name: f for f in forms.form_fields(SCHEMA)}
    assert fields["name"].required and fields["name"].title == "Name" and fields["name"].kind == "string"
    assert fields["email"].format == "email" and fields["seats"].kind == "integer"
    assert fields["seats"].default == 2 and fields["agree"].kind == "boolean"
    assert fields["friend"].choices == (("Monica", "Monica"), ("Ross", "Ross"))
    assert fields["hero"].kind == "choice" and fields["hero"].choices[0] == ("h1", "Superman")
    assert fields["pet"].choices == (("p1", "Cats"), ("p2", "Dogs"))
    assert fields["tools"].kind == "choices" and fields["tools"].choices[1] == ("Piano", "Piano")


def test_typed_text_becomes_the_fields_value():
    fields = {f.name: f for f in forms.form_fields(SCHEMA)}
    assert forms.parse_text(fields["seats"], " 3 ") == 3
    assert forms.parse_text(fields["agree"], "yes") is True
    assert forms.parse_text(fields["hero"], "Batman") == "h2"
    assert forms.parse_text(fields["hero"], "1") == "h1"
    assert forms.parse_text(fields["tools"], "Guitar, 2") == ["Guitar", "Piano"]
    assert forms.parse_text(fields["name"], "") is None
    with pytest.raises(ValueError, match="integer"):
        forms.parse_text(fields["seats"], "2.5")
    with pytest.raises(ValueError, match="choices"):
        forms.parse_text(fields["friend"], "Joey")


def test_a_valid_answer_has_no_problems():
    answer = {"name": "Ada", "email": "ada@example.org", "site": "https://ada.dev", "born": "1815-12-10"}
    assert forms.problems(SCHEMA, {**answer, "seats": 4, "hero": "h1", "tools": ["Piano"]}) == {}


def test_each_wrong_field_is_named_with_its_problem():
    found = forms.problems(
        SCHEMA, {"email": "not an address", "born": "10/12/1815", "seats": 12, "friend": "Joey", "tools": []}
    )
    assert found["name"] == "required"
    assert "email" in found["email"] and "date" in found["born"]
    assert "maximum" in found["seats"] or "12" in found["seats"]
    assert "Joey" in found["friend"] and "tools" in found


def test_empty_fields_are_left_out_of_what_is_sent():
    assert forms.cleaned({"name": "Ada", "email": "", "tools": [], "agree": False}) == {
        "name": "Ada",
        "agree": False,
    }


def test_a_links_domain_is_its_host():
    assert forms.domain("https://accounts.example.com:8443/login?x=1") == "accounts.example.com"
