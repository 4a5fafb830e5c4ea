"""The window's side of ``bench/answer_latency``: run in a fresh process, offscreen.

Builds the window as ``make run`` does (``app.ui.main``: the engine from the settings,
Calculon mode, the bundled servers), submits the first question as soon as the window is
shown, while the servers start and the model loads, then the warm questions one after
another. Prints one JSON line: seconds from process start to the window shown, to the first
answer, and each warm question's seconds from Enter to its answer.

    QT_QPA_PLATFORM=offscreen python -m bench._window_latency Q1 Q2 ...
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import time

STARTED = time.perf_counter()  # as near the process start as Python code gets


async def _run(questions: list[str]) -> dict[str, object]:
    from app.core import events as ev
    from app.settings import load_settings
    from app.ui.main import build_engine, build_window, prepare, start_loading

    settings, _ = load_settings()
    engine = build_engine(settings)
    loading = await start_loading(engine)  # as app.ui.main.run does
    window = build_window(engine, settings)
    said: list[ev.AnswerReady] = []
    engine.subscribe(lambda event: said.append(event) if isinstance(event, ev.AnswerReady) else None)
    window.show()
    shown = time.perf_counter() - STARTED
    warm_up = asyncio.ensure_future(prepare(engine, window, loading=loading))
    answers: list[dict[str, object]] = []
    try:
        for number, question in enumerate(questions):
            asked = time.perf_counter()
            assert window.controller.submit(question), "the window refused the question"
            await asyncio.wait_for(window.controller.wait_idle(), 600)
            done = time.perf_counter()
            answers.append(
                {
                    "question": question,
                    "seconds": round(done - (STARTED if number == 0 else asked), 3),
                    "answer": said[-1].text if said else "",
                    "verdict": said[-1].verdict if said else "",
                }
            )
        await warm_up
    finally:
        window.close()
        await engine.aclose()
    return {"shown_s": round(shown, 3), "answers": answers}


def main() -> None:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    import qasync
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance() or QApplication(["calculon-bench"])
    app.setQuitOnLastWindowClosed(False)  # the coroutine closes the window, then cleans up
    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    with loop:
        result = loop.run_until_complete(_run(sys.argv[1:]))
    print(json.dumps(result), flush=True)


if __name__ == "__main__":
    main()
