"""Guards against Qt binding releases that break the window in ways a short test would miss."""

from __future__ import annotations

import sys

from PySide6.QtCore import QObject, Signal


class _Emitter(QObject):
    fired = Signal(object)


def test_emitting_a_signal_keeps_reference_counts_balanced(qapp):
    # PySide6 6.12.0 drops a reference to True on every emit(); on Python 3.11, where True is
    # not immortal, the process aborts after some thousands of events. pyproject excludes it.
    emitter = _Emitter()
    before = sys.getrefcount(True)
    for n in range(1000):
        emitter.fired.emit(n)
    assert abs(sys.getrefcount(True) - before) < 10
