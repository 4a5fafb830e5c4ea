"""Cyclic garbage is collected by a timer on the UI thread, with full walks rate-limited."""

from __future__ import annotations

import gc
import weakref

from app.ui.gc_guard import MainThreadCollector


class _Cycle:
    def __init__(self) -> None:
        self.me = self


def test_automatic_collection_is_off_and_the_ui_timer_collects_cycles(qtbot, main_thread_gc):
    assert not gc.isenabled()
    garbage = _Cycle()
    alive = weakref.ref(garbage)
    del garbage
    threshold = gc.get_threshold()[0]
    padding = [[] for _ in range(threshold * 2)]  # push generation 0 past its threshold
    qtbot.waitUntil(lambda: alive() is None, timeout=5000)
    assert padding


def test_a_full_collection_waits_for_its_interval(qapp):
    enabled_before = gc.isenabled()
    collector = MainThreadCollector()
    collector.start()
    try:
        gc.collect(1)
        while gc.get_count()[2] <= gc.get_threshold()[2]:
            gc.collect(1)  # each one counts towards the oldest generation
        assert collector.check() != 2
        collector._last_full -= 3600
        assert collector.check() == 2
    finally:
        collector.stop()
    assert gc.isenabled() == enabled_before
