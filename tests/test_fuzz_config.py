"""The servers-file and settings parsers, fed anything: a result or a worded error, never a crash."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from app.jsonfile import JsonProblem, decode, loads
from app.mcp.config import ConfigError, parse_servers
from app.settings import Settings, SettingsError

FUZZ = settings(max_examples=200, deadline=None, database=None)

scalars = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), st.text(max_size=20))
json_values = st.recursive(
    scalars,
    lambda children: st.one_of(
        st.lists(children, max_size=4), st.dictionaries(st.text(max_size=12), children, max_size=4)
    ),
    max_leaves=20,
)
KEYS = ["command", "args", "env", "url", "disabled", "extra"]
entries = st.dictionaries(st.sampled_from(KEYS), json_values, max_size=5)
documents = st.one_of(
    json_values,
    st.fixed_dictionaries({"mcpServers": st.dictionaries(st.text(max_size=12), entries, max_size=4)}),
)


@FUZZ
@given(documents)
def test_any_parsed_servers_document_is_entries_or_a_config_error(data):
    try:
        servers = parse_servers(data)
    except ConfigError as error:
        assert str(error).startswith("servers config")
    else:
        assert all(entry.name == name for name, entry in servers.items())


@FUZZ
@given(st.one_of(st.text(max_size=300), documents.map(json.dumps)))
def test_any_text_is_json_or_a_json_problem(text):
    try:
        loads(text)
    except JsonProblem as problem:
        assert str(problem)


@FUZZ
@given(st.binary(max_size=300))
def test_any_bytes_decode_as_utf8_or_say_which_byte_is_wrong(data):
    try:
        decode(data)
    except JsonProblem as problem:
        assert "UTF" in str(problem)


settings_values = st.dictionaries(
    st.sampled_from([*Settings.model_fields, "unknown"]), json_values, max_size=6
)


@FUZZ
@given(settings_values)
def test_any_settings_object_is_settings_or_a_settings_error_naming_keys(data):
    try:
        Settings.from_dict(data)
    except SettingsError as error:
        assert error.keys and all(key in data for key in error.keys)
    salvaged, _ = Settings.salvage(data)
    assert isinstance(salvaged, Settings)
