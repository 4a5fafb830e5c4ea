"""Shared fixtures: one loaded encoder for the whole run (its 90 MB load is the slow part)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from app.core.tools import ToolInfo
from app.mcp.retrieval.embed import MiniLMEncoder
from app.mcp.retrieval.index import build_index, cache_root
from app.mcp.retrieval.static import StaticEncoder
from tests.mcp.retrieval.catalogue import catalogue


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="session")
def loaded_encoder() -> MiniLMEncoder:
    encoder = MiniLMEncoder()
    encoder.load()
    return encoder


@pytest.fixture
def encoder(loaded_encoder: MiniLMEncoder) -> MiniLMEncoder:
    """The shared encoder with its call counters reset for this test."""
    loaded_encoder.calls = loaded_encoder.texts_encoded = 0
    return loaded_encoder


@pytest.fixture
def tools() -> list[ToolInfo]:
    return catalogue()


@pytest.fixture(scope="session")
def catalogue_cache(loaded_encoder: MiniLMEncoder, tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("retrieval-cache")
    build_index(catalogue(), loaded_encoder, root)
    return root


@pytest.fixture
def warm_cache(catalogue_cache: Path) -> None:
    """The catalogue's vectors already in this test's cache: for tests about ranking, not building."""
    shutil.copytree(catalogue_cache, cache_root(), dirs_exist_ok=True)


@pytest.fixture(scope="session")
def static_encoder(loaded_encoder: MiniLMEncoder, static_table_dir: Path) -> StaticEncoder:
    """Static vectors distilled from the shared model once per run (into ``static_table_dir``)."""
    encoder = StaticEncoder(loaded_encoder)
    encoder.load()
    return encoder
