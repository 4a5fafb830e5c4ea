"""Real chat templates of the model families users run, read at test time from a package on PyPI.

llama-cpp-python's source distribution carries llama.cpp's ``models/templates/``: the
``tokenizer.chat_template`` texts of many published models (Qwen3, Llama 3.x, Mistral, Granite,
SmolLM3, Phi, Gemma, Hermes...), which llama.cpp's own tests render. The source distribution of the
installed version is fetched with pip once per machine, and only those template files are kept,
in a cache folder outside the tests' temporary ones; nothing of them is part of this repository.
A test that needs them is skipped, saying why, only where pip cannot fetch the package.
"""

from __future__ import annotations

import functools
import importlib.metadata
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

import pytest

from tests.machine_cache import machine_cache, machine_cache_lock

PACKAGE = "llama-cpp-python"
_INSIDE = "vendor/llama.cpp/models/templates/"


def _version() -> str:
    return importlib.metadata.version(PACKAGE)


def _cache() -> Path:
    return machine_cache(f"chat-templates-{_version()}")


@functools.cache
def _folder() -> Path | str:
    """The folder of template files, or why it could not be had."""
    with machine_cache_lock(_cache().name):
        return _fetch(_cache())


def _fetch(folder: Path) -> Path | str:
    if folder.is_dir() and any(folder.glob("*.jinja")):
        return folder
    with tempfile.TemporaryDirectory(prefix="llama-sdist-") as download:
        command = [sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", ":all:", "-q"]
        command += ["-d", download, f"{PACKAGE}=={_version()}"]
        try:
            done = subprocess.run(command, capture_output=True, text=True, timeout=600, check=False)
        except subprocess.TimeoutExpired:
            return "pip download of the llama-cpp-python source timed out"
        archives = list(Path(download).glob("*.tar.gz"))
        if done.returncode != 0 or not archives:
            return f"pip could not fetch the llama-cpp-python source: {done.stderr.strip()[-300:]}"
        partial = folder.with_name(folder.name + ".partial")
        partial.mkdir(parents=True, exist_ok=True)
        with tarfile.open(archives[0]) as archive:
            for member in archive.getmembers():
                name = member.name.split("/", 1)[-1]
                if member.isfile() and name.startswith(_INSIDE) and name.endswith(".jinja"):
                    source = archive.extractfile(member)
                    if source is not None:
                        (partial / Path(name).name).write_bytes(source.read())
        partial.rename(folder)
    return folder


def chat_template(name: str) -> str:
    """The template text of ``name`` (its file name without ``.jinja``); skips the test without them."""
    folder = _folder()
    if isinstance(folder, str):
        pytest.skip(f"chat templates unavailable: {folder}")
    path = folder / f"{name}.jinja"
    if not path.is_file():
        pytest.fail(f"llama-cpp-python {_version()} carries no template {name}")
    return path.read_text(encoding="utf-8")
