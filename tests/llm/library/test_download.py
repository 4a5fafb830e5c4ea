"""Downloads from the stand-in Hub on 127.0.0.1 (tests/hub_standin.py), never the internet."""

from __future__ import annotations

import hashlib
import threading

import pytest

from app.llm.library import download
from app.llm.library.curated import CuratedModel
from app.llm.library.download import (
    DownloadCancelled,
    DownloadError,
    DownloadFinished,
    DownloadProgress,
    DownloadStarted,
    DownloadVerifying,
    pull,
)
from tests.hub_standin import HostedFile, gguf_bytes, running_hub

REPO, FILE = "standin/Tiny-GGUF", "tiny-q4_k_m.gguf"
MODEL = CuratedModel(REPO, FILE, "Tiny", "hermes", "Q4_K_M", 0, 2048, 4, 0)


@pytest.fixture
def hub():
    with running_hub() as hub:
        yield hub


def test_a_download_reports_progress_and_lands_checked(hub, tmp_path):
    data = gguf_bytes(3 * 1024 * 1024)
    hub.host(REPO, FILE, HostedFile(data, pause_s=0.02))
    events = []
    target = tmp_path / "models" / FILE
    assert pull(MODEL, target, events.append, endpoint=hub.url) == target
    assert target.read_bytes() == data
    assert isinstance(events[0], DownloadStarted) and events[0].total == len(data)
    progress = [e for e in events if isinstance(e, DownloadProgress)]
    assert len(progress) >= 3 and progress[-1].done == len(data)
    assert [p.done for p in progress] == sorted(p.done for p in progress)
    assert any(p.speed > 0 and p.seconds_left is not None for p in progress[:-1])
    sha = hashlib.sha256(data).hexdigest()
    assert DownloadVerifying(sha) in events
    assert events[-1] == DownloadFinished(target, sha, verified=True)
    assert [p.name for p in target.parent.iterdir()] == [FILE]


def test_hf_endpoint_names_the_hub_when_no_endpoint_is_given(hub, tmp_path, monkeypatch):
    hub.host(REPO, FILE, HostedFile(gguf_bytes(100_000)))
    monkeypatch.setenv("HF_ENDPOINT", hub.url)
    target = pull(MODEL, tmp_path / FILE, lambda _e: None)
    assert target.stat().st_size == 100_000
    assert [s.method for s in hub.seen] == ["HEAD", "GET"]


def test_a_file_whose_checksum_differs_is_refused_and_removed(hub, tmp_path):
    hub.host(REPO, FILE, HostedFile(gguf_bytes(200_000), claimed_sha256="ab" * 32))
    target = tmp_path / FILE
    with pytest.raises(DownloadError, match="failed its checksum"):
        pull(MODEL, target, lambda _e: None, endpoint=hub.url)
    assert list(tmp_path.iterdir()) == []


def test_an_expected_sha256_the_hub_contradicts_is_refused_before_downloading(hub, tmp_path):
    hub.host(REPO, FILE, HostedFile(gguf_bytes(200_000)))
    pinned = CuratedModel(REPO, FILE, "Tiny", "hermes", "Q4_K_M", 0, 2048, 4, 0, sha256="cd" * 32)
    with pytest.raises(DownloadError, match="not the expected"):
        pull(pinned, tmp_path / FILE, lambda _e: None, endpoint=hub.url)
    assert [s.method for s in hub.seen] == ["HEAD"]


def test_a_download_larger_than_the_free_space_is_refused_before_starting(hub, tmp_path):
    hub.host(REPO, FILE, HostedFile(gguf_bytes(1000), claimed_size=10**18))  # an exabyte
    events = []
    with pytest.raises(DownloadError, match="Not enough free space"):
        pull(MODEL, tmp_path / FILE, events.append, endpoint=hub.url)
    assert events == []
    assert [s.method for s in hub.seen] == ["HEAD"]


def test_cancel_stops_the_download_and_the_next_pull_resumes_it(hub, tmp_path):
    data = gguf_bytes(2 * 1024 * 1024)
    hub.host(REPO, FILE, HostedFile(data, chunk=32 * 1024, pause_s=0.01))
    cancel = threading.Event()
    seen: list[int] = []

    def cancel_midway(event: download.DownloadEvent) -> None:
        if isinstance(event, DownloadProgress):
            seen.append(event.done)
            if event.done >= len(data) // 4:
                cancel.set()

    target = tmp_path / FILE
    with pytest.raises(DownloadCancelled):
        pull(MODEL, target, cancel_midway, cancel, endpoint=hub.url)
    partial = target.with_name(FILE + ".partial")
    kept = partial.stat().st_size
    assert len(data) // 4 <= kept < len(data) and not target.exists()
    events = []
    pull(MODEL, target, events.append, endpoint=hub.url)
    assert events[0] == DownloadStarted(MODEL.id, len(data), kept)
    assert hub.ranges() == [f"bytes={kept}-"]
    assert target.read_bytes() == data


@pytest.mark.parametrize(
    ("kept", "etag"),
    [(1000, "an older upload"), (400_000, None)],  # another version; longer than the file
    ids=["another version", "longer than the file"],
)
def test_a_partial_that_cannot_be_part_of_the_file_is_not_resumed(hub, tmp_path, kept, etag):
    data = gguf_bytes(300_000)
    hub.host(REPO, FILE, HostedFile(data))
    target = tmp_path / FILE
    target.with_name(FILE + ".partial").write_bytes(b"x" * kept)
    recorded = etag or hashlib.sha256(data).hexdigest()
    target.with_name(FILE + ".partial.json").write_text(f'{{"etag": "{recorded}"}}')
    pull(MODEL, target, lambda _e: None, endpoint=hub.url)
    assert hub.ranges() == [] and target.read_bytes() == data


def test_a_missing_file_is_a_clear_error(hub, tmp_path):
    with pytest.raises(DownloadError, match="Cannot reach"):
        pull(MODEL, tmp_path / FILE, lambda _e: None, endpoint=hub.url)


def test_a_second_download_of_the_same_file_is_refused_while_the_first_runs(hub, tmp_path):
    import filelock

    hub.host(REPO, FILE, HostedFile(gguf_bytes(100_000)))
    target = tmp_path / FILE
    busy = filelock.FileLock(str(target) + ".partial.lock")
    with busy, pytest.raises(DownloadError, match="already being"):
        pull(MODEL, target, lambda _e: None, endpoint=hub.url)
    assert not target.exists()
    pull(MODEL, target, lambda _e: None, endpoint=hub.url)  # once the first is done, it may
    assert target.stat().st_size == 100_000
