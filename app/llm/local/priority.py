"""llama.cpp's threads run at a lower OS priority than the UI thread.

On a small CPU, generation keeps every core busy; the UI thread then waits for
a time slice and the window stutters (hundreds of ms on two cores). Lowering
the priority of the backend's worker thread fixes that at no cost when the UI
is idle: llama.cpp's compute threads (an OpenMP team, or ggml's own pool) are
created by that worker and inherit its nice value, so the scheduler lets the
UI thread in first whenever it wakes.

Linux only: there nice is per thread. On macOS and Windows ``setpriority``
would lower the whole process, UI included, so nothing is changed there.
"""

from __future__ import annotations

import logging
import os
import sys
import threading

logger = logging.getLogger(__name__)

# Nice +5 weighs a busy llama.cpp thread at a third of a nice-0 thread: enough for
# the UI to run as soon as it wakes, while generation still gets the cores whenever
# the window is idle.
BACKGROUND_NICE_STEP = 5
MAX_NICE = 19


def supported() -> bool:
    return sys.platform.startswith("linux") and hasattr(os, "setpriority")


def lower_current_thread(step: int = BACKGROUND_NICE_STEP) -> int | None:
    """Raise this thread's nice value by ``step``; returns the new value, or None if unchanged.

    Call it on the worker before it touches llama.cpp, so the threads llama.cpp
    starts from it inherit the lower priority.
    """
    if not supported():
        return None
    tid = threading.get_native_id()
    try:
        nice = min(MAX_NICE, os.getpriority(os.PRIO_PROCESS, tid) + step)
        os.setpriority(os.PRIO_PROCESS, tid, nice)
    except OSError:
        logger.warning("could not lower the model thread's priority", exc_info=True)
        return None
    return nice


def thread_nice(tid: int) -> int:
    """A thread's nice value (Linux), for diagnostics and tests."""
    return os.getpriority(os.PRIO_PROCESS, tid)
