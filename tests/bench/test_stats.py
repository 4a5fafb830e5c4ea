"""The paired-ratio helper every ours-against-raw bench reports through."""

from __future__ import annotations

import pytest

from bench import _stats


def test_paired_ratio_is_the_median_of_per_pair_quotients_not_the_ratio_of_medians():
    figures = _stats.paired([1.0, 10.0, 3.0], [2.0, 4.0, 6.0])
    assert (figures.ours, figures.raw) == (3.0, 4.0)
    assert figures.ratio == pytest.approx(0.5)  # quotients 0.5, 2.5, 0.5; the medians' ratio is 0.75


def test_the_sides_take_turns_at_going_first():
    assert [_stats.order(i) for i in range(3)] == [("ours", "raw"), ("raw", "ours"), ("ours", "raw")]
    assert _stats.first_flags(6, per_round=2) == [True, True, False, False, True, True]


def test_a_first_mover_advantage_shows_in_the_split_by_who_went_first():
    figures = _stats.paired([2.0, 1.0, 2.0, 1.0], [1.0, 1.0, 1.0, 1.0])
    assert (figures.ours_first, figures.raw_first) == (2.0, 1.0)
    assert "ours first 2.000, raw first 1.000" in _stats.sentence(figures, "s")


def test_samples_of_different_lengths_are_refused():
    with pytest.raises(ValueError, match="equal in number"):
        _stats.paired([1.0, 2.0], [1.0])
