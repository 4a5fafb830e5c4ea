"""An edit whose text to replace differs from the text read only in punctuation and spacing is
fitted to it; anything less certain is left alone (app.core.fitted)."""

from __future__ import annotations

from app.core.fitted import fitted_edit

CONFIG = '{\n  "name": "tinyshop",\n  "port": 8080,\n  "debug": false\n}\n'


def test_a_loose_edit_is_fitted_word_for_word_to_the_one_place_read() -> None:
    edit = {"path": "c.json", "edits": [{"oldText": "port: 8080", "newText": "port: 9090"}]}
    fitted, what = fitted_edit(edit, [CONFIG]) or ({}, "")
    assert fitted == {"path": "c.json", "edits": [{"oldText": '"port": 8080,', "newText": '"port": 9090,'}]}
    assert what.startswith("'port: 8080' was fitted to the text read")


def test_an_edit_is_left_alone_where_fitting_it_would_be_a_guess() -> None:
    assert (
        fitted_edit({"oldText": "port: 8080", "newText": "port is now 9090"}, [CONFIG]) is None
    )  # words added
    assert fitted_edit({"oldText": "debug true", "newText": "debug false"}, [CONFIG]) is None  # not read
    twice = CONFIG + CONFIG.replace("tinyshop", "bigshop")
    assert fitted_edit({"oldText": "port: 8080", "newText": "port: 9090"}, [twice]) is None  # two places
    assert (
        fitted_edit({"oldText": '"port": 8080,', "newText": "x"}, [CONFIG]) is None
    )  # exact: nothing to fit
    assert fitted_edit({"path": "c.json", "content": "port: 9090"}, [CONFIG]) is None  # no edit at all
