"""RFC 6570 expansion and matching, as resource templates use them."""

from __future__ import annotations

from app.mcp.uritemplate import expand, matches, variables


def test_variables_are_listed_in_order_without_their_modifiers():
    assert variables("file:///{dir}/{name:3}{?q,page*}") == ["dir", "name", "q", "page"]


def test_simple_values_are_percent_encoded_and_reserved_ones_keep_their_slashes():
    values = {"id": "a b/c", "path": "x/y"}
    assert expand("demo://r/{id}", values) == "demo://r/a%20b%2Fc"
    assert expand("demo://r/{+path}", values) == "demo://r/x/y"


def test_query_and_path_expressions_name_or_join_their_values_and_drop_missing_ones():
    assert expand("s://find{?q,lang,page}", {"q": "cats", "page": "2"}) == "s://find?q=cats&page=2"
    assert expand("s://root{/a,b}", {"a": "x", "b": "y"}) == "s://root/x/y"
    assert expand("s://find{?q}", {}) == "s://find"


def test_a_uri_matches_the_template_it_could_come_from_and_no_other():
    template = "demo://resource/dynamic/text/{resourceId}"
    assert matches(template, "demo://resource/dynamic/text/3")
    assert not matches(template, "demo://resource/dynamic/blob/3")
    assert not matches(template, "demo://resource/dynamic/text/3/more")
