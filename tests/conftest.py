"""Every test gets fresh, empty config, cache and data folders of its own, and fails if it leaves a
thread or a child process running (:mod:`tests.leaks`)."""

from __future__ import annotations

import os

import pytest

from tests.leaks import no_leftovers  # noqa: F401  (an autouse fixture, registered by import)
from tests.machine_cache import held

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

# A test's property of this name is printed at the end of the run: the report reaches the run's
# own process also from a worker (pytest -n), where a worker's own printing would be lost.
SUMMARY = "summary"
_summaries: list[str] = []


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    if report.when == "call":
        _summaries.extend(str(value) for name, value in report.user_properties if name == SUMMARY)


def pytest_terminal_summary(terminalreporter) -> None:
    for text in _summaries:
        terminalreporter.write_sep("-", text.splitlines()[0])
        for line in text.splitlines()[1:]:
            terminalreporter.write_line(line)


@pytest.fixture(scope="session", autouse=True)
def run_data_dirs(tmp_path_factory):
    """Config and data folders for the whole run, for the fixtures that start before a test's own
    (a module's servers): without them, those read and wrote the user's real tool pins, and a test
    server changed since an earlier run had its changed tool held back as a rug pull."""
    with pytest.MonkeyPatch.context() as patch:
        folder = tmp_path_factory.mktemp("run-dirs")
        patch.setenv("CALCULON_CONFIG_DIR", str(folder / "config"))
        patch.setenv("CALCULON_DATA_DIR", str(folder / "data"))
        yield folder


@pytest.fixture(scope="session", autouse=True)
def static_table_dir(tmp_path_factory):
    """Tool retrieval's static token table lives in one folder for the whole run: it is
    distilled from the embedding model once (about a minute), not once per test. Where the
    run is split over worker processes (``pytest -n``), the workers share the folder and the
    first distils it while the others wait: each distilling its own took a minute of CPU apiece."""
    from app.mcp.retrieval import static

    worker = os.environ.get("PYTEST_XDIST_WORKER")
    base = tmp_path_factory.getbasetemp()
    with pytest.MonkeyPatch.context() as patch:
        if worker is None:
            folder = tmp_path_factory.mktemp("shared-cache") / "retrieval" / "static"
        else:  # the workers' base folders sit side by side in the run's own
            folder = base.parent / "shared-cache" / "retrieval" / "static"
        folder.mkdir(parents=True, exist_ok=True)
        patch.setattr(static, "table_root", lambda: folder)
        if worker is not None:
            with held(base.parent / "shared-cache.lock"):
                from app.mcp.retrieval.encoders import shared_encoder

                shared_encoder("static").load()
        yield folder


@pytest.fixture(scope="session")
def shared_cache_dir(static_table_dir, tmp_path_factory):
    """A cache folder for child processes (``calculon ask``) that holds the run's static table,
    distilled here first, so a child does not distil its own (a minute on two busy cores)
    inside a test's time limit. Each worker process has its own folder (the table linked into
    it): the children also keep their prompt states and tool lists there."""
    from app.mcp.retrieval.encoders import shared_encoder

    shared_encoder("static").load()
    folder = tmp_path_factory.mktemp("child-cache")
    tables = folder / static_table_dir.relative_to(static_table_dir.parents[1])
    tables.mkdir(parents=True)
    for table in static_table_dir.iterdir():
        os.link(table, tables / table.name)
    return folder


@pytest.fixture(autouse=True)
def isolated_dirs(tmp_path, monkeypatch):
    monkeypatch.setenv("CALCULON_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.setenv("CALCULON_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("CALCULON_DATA_DIR", str(tmp_path / "data"))
    # The app's own secrets must never leak into a test or a child server.
    secrets = (
        "GEMINI_API_KEY",
        "GOOGLE_API_KEY",
        "GOOGLE_GEMINI_BASE_URL",
        "OPENAI_API_KEY",
        "OPENAI_BASE_URL",
        "CALCULON_TOKEN_PASSPHRASE",
    )
    for key in secrets:
        monkeypatch.delenv(key, raising=False)
    return tmp_path
