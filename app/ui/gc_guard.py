"""Garbage collection only on the UI thread, and full collections seldom.

Python's cyclic collector runs in whichever thread happens to allocate. If that
is a worker (the llama.cpp generation thread, the GPU probe), a collected cycle
that holds a Qt object destroys it on the wrong thread, and Qt aborts ("Timers
cannot be stopped from another thread"). So automatic collection is switched
off while the window runs, and a timer on the UI thread collects instead.

A full (oldest-generation) collection walks every tracked object: about 130 ms
with the app's 150,000 objects on two busy cores, far past a frame. Objects
that exist once the app has started are frozen out of those walks, and full
collections run at most every few minutes.
"""

from __future__ import annotations

import gc
import time

from PySide6.QtCore import QObject, QTimer

CHECK_INTERVAL_MS = 200
FULL_COLLECTION_EVERY_S = 300.0


class MainThreadCollector(QObject):
    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._was_enabled = gc.isenabled()
        self._last_full = time.monotonic()
        self._timer = QTimer(self)
        self._timer.setInterval(CHECK_INTERVAL_MS)
        self._timer.timeout.connect(self.check)

    def start(self) -> None:
        gc.disable()
        self._timer.start()

    def stop(self) -> None:
        self._timer.stop()
        gc.unfreeze()
        gc.collect()
        if self._was_enabled:
            gc.enable()

    def freeze_startup(self) -> None:
        """Keep everything alive now (modules, widgets, the model) out of later full walks."""
        gc.freeze()

    def check(self) -> int:
        """Collect the generation the allocation counts call for; returns it, or -1."""
        counts, thresholds = gc.get_count(), gc.get_threshold()
        now = time.monotonic()
        if counts[2] > thresholds[2] and now - self._last_full >= FULL_COLLECTION_EVERY_S:
            self._last_full = now
            gc.collect(2)
            return 2
        for generation in (1, 0):
            if counts[generation] > thresholds[generation]:
                gc.collect(generation)
                return generation
        return -1
