"""Loading a GGUF leaves the rest of the process alone (app/llm/local/loader.py)."""

from __future__ import annotations

import os
import sys

from app.llm.local.loader import LoadRequest, load_llama
from app.llm.local.model_file import resolve_model


def test_the_standard_streams_stay_as_they_are_while_a_model_loads():
    # llama-cpp-python's quiet load pointed fds 1 and 2 at /dev/null and swapped sys.stdout and
    # sys.stderr meanwhile: the CLI's own lines, printed from the loop while the model loaded in its
    # worker, vanished. The load's progress callback runs inside that window; look from there.
    before = (sys.stdout, sys.stderr, os.fstat(1).st_ino, os.fstat(2).st_ino)
    seen: list[tuple[object, object, int, int]] = []

    def progress(value: float) -> bool:
        seen.append((sys.stdout, sys.stderr, os.fstat(1).st_ino, os.fstat(2).st_ino))
        return True

    path = resolve_model("", lambda *_: None)
    model = load_llama(LoadRequest(path, n_ctx=512), progress)
    assert seen and all(during == before for during in seen)
    assert model.n_ctx() == 512
