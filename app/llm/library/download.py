"""Downloading a curated GGUF from Hugging Face (or the endpoint ``HF_ENDPOINT`` names).

Through ``huggingface_hub``: its URL, its HEAD for size/SHA-256/commit, its ``http_get``
for the bytes. Its own ``hf_hub_download`` is not used because it deletes a partial
file on any failure, and a 5 GB model must resume after a crash, a kill or a cancel.
The partial file sits beside the target with a note of the file version (ETag) it
belongs to, so a partial of an older upload is never resumed into a newer one.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import logging
import os
import re
import shutil
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, BinaryIO

import filelock

from app.core.backend import BackendError
from app.llm.checksum import sha256_of as _sha256
from app.llm.library.curated import CuratedModel

logger = logging.getLogger(__name__)

SHA256 = re.compile(r"[0-9a-f]{64}")
EVENT_INTERVAL_S = 0.1
SPEED_WINDOW_S = 3.0
WRITE_BLOCK = 512 * 1024


@dataclasses.dataclass(frozen=True)
class DownloadStarted:
    model_id: str
    total: int | None
    resumed_from: int  # bytes already here from an earlier try


@dataclasses.dataclass(frozen=True)
class DownloadProgress:
    done: int
    total: int | None
    speed: float  # bytes per second over the last few seconds
    seconds_left: float | None


@dataclasses.dataclass(frozen=True)
class DownloadVerifying:
    sha256: str | None  # what the file must hash to; None: the Hub gave none


@dataclasses.dataclass(frozen=True)
class DownloadFinished:
    path: Path
    sha256: str
    verified: bool


DownloadEvent = DownloadStarted | DownloadProgress | DownloadVerifying | DownloadFinished
Listener = Callable[[DownloadEvent], None]


class DownloadError(BackendError):
    def __init__(self, message: str) -> None:
        super().__init__(message, category="model")


class DownloadCancelled(DownloadError):
    """Cancelled by the person; the partial file stays, so the next pull resumes."""


def pull(
    model: CuratedModel,
    target: Path,
    listener: Listener,
    cancel: threading.Event | None = None,
    endpoint: str | None = None,
) -> Path:
    """Download ``model`` to ``target``, resuming a partial file, and check its SHA-256."""
    from huggingface_hub import constants, get_hf_file_metadata, hf_hub_url

    # The Hub is asked for the file and nothing else: with telemetry on, the client first
    # fetches a list of "agent harnesses" to describe its caller in the User-Agent.
    constants.HF_HUB_DISABLE_TELEMETRY = True
    endpoint = endpoint or os.environ.get("HF_ENDPOINT") or None  # read now, not at import
    url = hf_hub_url(model.repo_id, model.file_name, revision=model.revision, endpoint=endpoint)
    try:
        meta = get_hf_file_metadata(url, endpoint=endpoint)
    except _transfer_errors() as exc:
        raise DownloadError(f"Cannot reach {url}: {exc}") from exc
    expected = _expected_sha(model, meta.etag)
    if target.is_file():
        listener(DownloadFinished(target, expected or "", verified=False))
        return target
    partial, note = _partial_paths(target)
    with _only_download(partial):
        resumed = _resumable(partial, note, meta.etag, meta.size)
        _check_space(target.parent, (meta.size or 0) - resumed)
        listener(DownloadStarted(model.id, meta.size, resumed))
        note.write_text(json.dumps({"etag": meta.etag, "commit": meta.commit_hash}), encoding="utf-8")
        with partial.open("ab") as handle:
            writer = _ReportingWriter(handle, resumed, meta.size, listener, cancel or threading.Event())
            _fetch(meta.location, writer, resumed, meta.size)
        return _finish(partial, note, target, expected, listener)


@contextlib.contextmanager
def _only_download(partial: Path) -> Iterator[None]:
    """One writer per partial file: the window and ``calculon models pull`` may race for it.

    Nobody waits for the lock (a second download is refused at once), so removing the lock
    file afterwards leaves no waiter holding a lock on a file no one else sees."""
    path = Path(str(partial) + ".lock")
    lock = filelock.FileLock(str(path))
    try:
        lock.acquire(timeout=0)
    except filelock.Timeout:
        raise DownloadError(f"{partial.name[: -len('.partial')]} is already being downloaded.") from None
    try:
        yield
    finally:
        lock.release()
        path.unlink(missing_ok=True)


def _expected_sha(model: CuratedModel, etag: str | None) -> str | None:
    reported = etag.lower() if etag and SHA256.fullmatch(etag.lower()) else None
    if model.sha256 and reported and model.sha256 != reported:
        raise DownloadError(
            f"The Hub reports SHA-256 {reported} for {model.file_name}, not the expected "
            f"{model.sha256}; not downloading it."
        )
    return model.sha256 or reported


def _partial_paths(target: Path) -> tuple[Path, Path]:
    target.parent.mkdir(parents=True, exist_ok=True)
    return target.with_name(target.name + ".partial"), target.with_name(target.name + ".partial.json")


def _resumable(partial: Path, note: Path, etag: str | None, size: int | None) -> int:
    """Bytes of ``partial`` that belong to this version of the file; others are removed."""
    try:
        recorded = json.loads(note.read_text(encoding="utf-8")).get("etag")
    except (OSError, ValueError, AttributeError):
        recorded = None
    if partial.is_file() and recorded == etag and (size is None or partial.stat().st_size <= size):
        return partial.stat().st_size
    partial.unlink(missing_ok=True)
    return 0


def _check_space(folder: Path, needed: int) -> None:
    free = shutil.disk_usage(folder).free
    if needed > free:
        raise DownloadError(
            f"Not enough free space in {folder}: the download needs {_size(needed)}, "
            f"only {_size(free)} is free."
        )


def _fetch(url: str, writer: _ReportingWriter, resumed: int, size: int | None) -> None:
    from huggingface_hub import constants
    from huggingface_hub.file_download import http_get
    from huggingface_hub.utils import build_hf_headers
    from tqdm.auto import tqdm

    # http_get writes in blocks of this size; its 10 MiB default would make progress and
    # cancel answer once per 10 MiB, a second or more on an ordinary connection.
    constants.DOWNLOAD_CHUNK_SIZE = min(constants.DOWNLOAD_CHUNK_SIZE, WRITE_BLOCK)

    class Silent(tqdm):  # type: ignore[type-arg,misc]  # progress goes to our listener instead
        monitor_interval = 0  # no tqdm monitor thread

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            kwargs["disable"] = True
            super().__init__(*args, **kwargs)

    headers = build_hf_headers()
    try:
        http_get(url, writer, resume_size=resumed, headers=headers, expected_size=size, tqdm_class=Silent)  # type: ignore[arg-type]
    except _transfer_errors() as exc:
        raise DownloadError(f"The download stopped: {exc}. Pulling it again resumes it.") from exc
    writer.report(final=True)


def _transfer_errors() -> tuple[type[Exception], ...]:
    """What the Hub client raises for HTTP statuses and broken connections."""
    import httpx2  # huggingface_hub's HTTP client
    from huggingface_hub.errors import HfHubHTTPError

    return (HfHubHTTPError, httpx2.HTTPError, OSError)


def _finish(partial: Path, note: Path, target: Path, expected: str | None, listener: Listener) -> Path:
    listener(DownloadVerifying(expected))
    actual = _sha256(partial)
    if expected is not None and actual != expected:
        partial.unlink(missing_ok=True)
        note.unlink(missing_ok=True)
        raise DownloadError(
            f"{target.name} failed its checksum (SHA-256 {actual}, expected {expected}); "
            "the file was removed."
        )
    os.replace(partial, target)
    note.unlink(missing_ok=True)
    listener(DownloadFinished(target, actual, verified=expected is not None))
    return target


class _ReportingWriter:
    """The file ``http_get`` writes to: counts bytes, reports speed, and stops on cancel."""

    def __init__(
        self, handle: BinaryIO, done: int, total: int | None, listener: Listener, cancel: threading.Event
    ) -> None:
        self._handle, self._listener, self._cancel = handle, listener, cancel
        self._total = total
        self._samples: list[tuple[float, int]] = [(time.monotonic(), done)]
        self._last_report = 0.0

    def write(self, data: bytes) -> int:
        if self._cancel.is_set():
            raise DownloadCancelled("Download cancelled; pulling it again resumes where it stopped.")
        written = self._handle.write(data)
        self._handle.flush()  # a kill must leave every byte reported as done on disk
        self.report()
        return written

    def report(self, final: bool = False) -> None:
        now, done = time.monotonic(), self._handle.tell()
        if not final and now - self._last_report < EVENT_INTERVAL_S:
            return
        self._last_report = now
        self._samples = [s for s in self._samples if now - s[0] <= SPEED_WINDOW_S] or self._samples[-1:]
        self._samples.append((now, done))
        (start, d0) = self._samples[0]
        elapsed = now - start
        speed = (done - d0) / elapsed if elapsed > 0 else 0.0
        left = (self._total - done) / speed if self._total and speed > 0 else None
        self._listener(DownloadProgress(done, self._total, speed, left))

    def tell(self) -> int:
        return self._handle.tell()

    def seek(self, offset: int, whence: int = 0) -> int:
        return self._handle.seek(offset, whence)

    def truncate(self, size: int | None = None) -> int:
        return self._handle.truncate(size)


def _size(size: float) -> str:
    return f"{size / 1000**3:.2f} GB" if size >= 1000**3 else f"{size / 1000**2:.1f} MB"


def progress_text(event: DownloadProgress) -> str:
    """'1.2 GB of 4.7 GB (26%), 11.3 MB/s, 5 min 10 s left': for the CLI and the window alike."""
    done = _size(event.done)
    if not event.total:
        return f"{done}, {_size(event.speed)}/s"
    percent = 100 * event.done // event.total
    left = "" if event.seconds_left is None else f", {_duration(event.seconds_left)} left"
    return f"{done} of {_size(event.total)} ({percent}%), {_size(event.speed)}/s{left}"


def _duration(seconds: float) -> str:
    whole = round(seconds)
    if whole < 60:
        return f"{whole} s"
    if whole < 3600:
        return f"{whole // 60} min {whole % 60} s"
    return f"{whole // 3600} h {whole % 3600 // 60} min"
