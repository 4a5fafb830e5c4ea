"""The library's list: built-in models, GGUFs in Calculon's, LM Studio's and Ollama's folders,
and curated downloads, each described from its GGUF header."""

from __future__ import annotations

import hashlib
import json

import pytest

from app.core.backend import BackendError
from app.llm.library import places
from app.llm.library.curated import CURATED
from app.llm.library.gguf_info import GgufError, read_info
from app.llm.library.library import download_path, find_entry, list_models, remove
from app.llm.library.offload import GpuMemory
from app.llm.local import catalog
from tests.hub_standin import gguf_bytes


def test_the_header_gives_quantisation_context_and_layers_without_the_weights(tmp_path):
    path = tmp_path / "m.gguf"
    path.write_bytes(gguf_bytes(50_000, layers=7, context=4096, name="Seven"))
    info = read_info(path)
    assert (info.architecture, info.name, info.quantisation) == ("llama", "Seven", "Q4_K_M")
    assert (info.context_length, info.layers) == (4096, 7)
    assert info.kv_bytes_per_token() == 2 * 7 * (64 * 2 // 4) * 2  # K and V, f16, 2 of 4 heads


def test_a_head_size_of_its_own_sizes_the_cache(tmp_path):
    # Qwen3's and Gemma 3's heads are wider than embedding / heads; their headers say so
    path = tmp_path / "wide.gguf"
    path.write_bytes(gguf_bytes(50_000, layers=7, head_size=128))
    info = read_info(path)
    assert info.head_size == 128 and info.kv_bytes_per_token() == 2 * 7 * 2 * 128 * 2


def test_the_built_in_smollm2_header_is_read_from_the_real_file():
    info = read_info(catalog.packaged_file(catalog.SMOLLM2))
    assert (info.quantisation, info.context_length, info.layers) == ("Q4_1", 8192, 30)


def test_a_file_that_is_not_a_gguf_is_refused(tmp_path):
    path = tmp_path / "notes.gguf"
    path.write_bytes(b"PK\x03\x04 a zip file")
    with pytest.raises(GgufError, match="signature"):
        read_info(path)
    path.write_bytes(b"GGUF\x03\x00")
    with pytest.raises(GgufError, match="cut short"):
        read_info(path)


def _ollama(home, name, tag, data):
    root = home / ".ollama" / "models"
    digest = hashlib.sha256(data).hexdigest()
    (root / "blobs").mkdir(parents=True, exist_ok=True)
    (root / "blobs" / f"sha256-{digest}").write_bytes(data)
    manifest = root / "manifests" / "registry.ollama.ai" / "library" / name / tag
    manifest.parent.mkdir(parents=True)
    layers = [
        {"mediaType": "application/vnd.ollama.image.template", "digest": "sha256-" + "0" * 64},
        {"mediaType": "application/vnd.ollama.image.model", "digest": f"sha256:{digest}"},
    ]
    manifest.write_text(json.dumps({"schemaVersion": 2, "layers": layers}))


def test_models_in_lm_studio_ollama_and_calculon_folders_are_listed_with_their_headers(tmp_path):
    home = tmp_path / "home"
    lm = home / ".lmstudio" / "models" / "lmstudio-community" / "Q-GGUF"
    lm.mkdir(parents=True)
    (lm / "q.gguf").write_bytes(gguf_bytes(10_000, layers=3, name="LM"))
    (lm / "mmproj-q.gguf").write_bytes(gguf_bytes(9_000))  # a vision projector, not a model
    _ollama(home, "qwen2.5", "0.5b", gguf_bytes(12_000, layers=5, context=32768))
    downloaded = download_path(CURATED[0])
    downloaded.parent.mkdir(parents=True)
    downloaded.write_bytes(gguf_bytes(11_000, layers=24))
    entries = list_models(home)
    by_source = {e.source: e for e in entries if e.on_disk and e.source != "built-in"}
    assert by_source["lm-studio"].label == "lmstudio-community/Q-GGUF/q.gguf"
    assert by_source["lm-studio"].layers == 3
    assert by_source["ollama"].label == "qwen2.5:0.5b"
    assert by_source["ollama"].context_length == 32768
    assert by_source["calculon"].curated == CURATED[0] and by_source["calculon"].size == 11_000
    assert not [e for e in entries if "mmproj" in str(e.path)]
    # the downloaded curated model is listed once, as the file on disk
    assert [e.source for e in entries if e.curated == CURATED[0]] == ["calculon"]
    assert [e.builtin for e in entries if e.source == "built-in"] == list(catalog.BUILTIN_MODELS)


def test_only_calculons_own_downloads_can_be_removed(tmp_path):
    home = tmp_path / "home"
    lm = home / ".cache" / "lm-studio" / "models" / "a"
    lm.mkdir(parents=True)
    (lm / "theirs.gguf").write_bytes(gguf_bytes(1000))
    mine = places.models_dir() / "me" / "R" / "mine.gguf"
    mine.parent.mkdir(parents=True)
    mine.write_bytes(gguf_bytes(1000))
    mine.with_name("mine.gguf.partial").write_bytes(b"half")
    entries = list_models(home)
    with pytest.raises(BackendError, match="lm-studio"):
        remove(find_entry("a/theirs.gguf", entries))
    assert remove(find_entry(str(mine), entries)) == mine
    assert list(places.models_dir().iterdir()) == []  # its OWNER/REPO folders went with it
    assert (lm / "theirs.gguf").exists()


def test_each_entry_says_whether_it_fits_with_the_chosen_layers(tmp_path):
    entry = find_entry(CURATED[-1].id, list_models(tmp_path))  # about 5 GB
    no_gpu = GpuMemory(offload=False, free=None)
    cpu = entry.plan(gpu_layers=-1, n_ctx=4096, gpu=no_gpu, free_ram=64 * 1024**3)
    assert cpu.gpu_layers == 0 and cpu.fits_ram and cpu.fits_vram is None
    assert not entry.plan(0, 4096, no_gpu, free_ram=2 * 1024**3).fits
    gpu = GpuMemory(offload=True, free=4 * 1024**3, names=("GPU",))
    half = entry.plan(18, 4096, gpu, free_ram=8 * 1024**3)
    assert half.gpu_layers == 18 and half.fits_vram and half.fits
    assert not entry.plan(-1, 4096, gpu, free_ram=8 * 1024**3).fits_vram
    assert entry.suggested_gpu_layers(4096, no_gpu) == 0
    assert 0 < entry.suggested_gpu_layers(4096, gpu) < entry.layers
