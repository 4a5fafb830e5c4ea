"""Settings → Local model's library: listing, the estimate, downloads from the stand-in Hub
on 127.0.0.1 (tests/hub_standin.py) with progress and cancel, and choosing a model."""

from __future__ import annotations

import pytest

from app.llm.library.curated import CURATED
from app.llm.library.library import download_path
from app.llm.library.offload import GpuMemory
from app.mcp import config as mcp_config
from app.settings import Settings
from app.ui.model_library import COLUMNS, MEMORY_COLUMN
from app.ui.model_panel import ModelLibraryPanel
from app.ui.settings_dialog import SettingsDialog
from tests.hub_standin import HostedFile, gguf_bytes, running_hub

SMALLEST = CURATED[0]


@pytest.fixture
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    folder = tmp_path / "home" / ".lmstudio" / "models" / "me" / "M-GGUF"
    folder.mkdir(parents=True)
    (folder / "m.gguf").write_bytes(gguf_bytes(40_000, layers=6, context=8192, name="Mine"))
    return folder / "m.gguf"


@pytest.fixture
def hub(monkeypatch):
    with running_hub() as hub:
        monkeypatch.setenv("HF_ENDPOINT", hub.url)
        yield hub


@pytest.fixture
def panel(qtbot, qloop, home):
    made = ModelLibraryPanel(gpu_probe=None)
    qtbot.addWidget(made)
    qtbot.waitSignal(made.listed, timeout=10_000).wait()
    yield made
    made.close_down()


def _cells(panel, entry_id):
    row = panel.model.row_of(entry_id)
    return [panel.model.index(row, column).data() for column in range(len(COLUMNS))]


def test_the_library_lists_built_in_on_disk_and_downloadable_models_with_what_fits(panel, home):
    cells = _cells(panel, str(home))
    assert cells[:5] == ["me/M-GGUF/m.gguf", "LM Studio", "0.00 GB", "Q4_K_M", "8,192"]
    assert cells[MEMORY_COLUMN].startswith("fits: CPU only, RAM ")
    assert _cells(panel, "smollm2-135m-instruct")[3:5] == ["Q4_1", "8,192"]
    hub_row = _cells(panel, SMALLEST.id)
    assert hub_row[1:5] == ["Hugging Face", "0.49 GB", "Q4_K_M", "32,768"]
    assert panel.select(SMALLEST.id) and panel.download_button.isEnabled()
    assert not panel.use_button.isEnabled()
    assert "CPU-only" in panel.estimate.text() and "Layers that fit the free VRAM: 0" in panel.estimate.text()


async def standin_gpu() -> GpuMemory:
    """A stand-in for what llama.cpp would report on a machine with a GPU (this one has none)."""
    return GpuMemory(offload=True, free=2 * 1024**3, names=("Stand-in GPU",))


def test_the_estimate_follows_the_gpu_layers_being_edited(qtbot, qloop, home):
    panel = ModelLibraryPanel(gpu_probe=standin_gpu)
    qtbot.addWidget(panel)
    qtbot.waitSignal(panel.listed, timeout=10_000).wait()
    qtbot.waitUntil(lambda: "Stand-in GPU" in panel.estimate.text(), timeout=5000)
    panel.select(CURATED[-1].id)  # about 5 GB, 36 layers
    assert "Layers that fit the free VRAM: " in panel.estimate.text()
    suggested = int(panel.estimate.text().rsplit(": ", 1)[1].rstrip("."))
    assert 0 < suggested < CURATED[-1].layers
    panel.set_offload(suggested, 4096)
    memory = _cells(panel, CURATED[-1].id)[MEMORY_COLUMN]
    assert f"{suggested}/36 layers on the GPU" in memory and "VRAM" in memory
    assert "(does not fit)" not in memory
    panel.set_offload(-1, 4096)
    whole = _cells(panel, CURATED[-1].id)[MEMORY_COLUMN]
    assert whole.startswith("does not fit: all 36 layers and the output on the GPU")
    panel.close_down()


def test_a_download_shows_progress_then_the_model_can_be_used(panel, hub, qtbot):
    data = gguf_bytes(3 * 1024 * 1024, layers=24, context=32768)
    hub.host(SMALLEST.repo_id, SMALLEST.file_name, HostedFile(data, pause_s=0.02))
    values = []
    panel.progress.valueChanged.connect(values.append)
    panel.select(SMALLEST.id)
    relisted = qtbot.waitSignal(panel.listed, timeout=30_000)  # the list is re-read after a download
    with relisted, qtbot.waitSignal(panel.download_ended, timeout=30_000) as ended:
        panel.download_selected()
        assert panel.cancel_button.isVisibleTo(panel) and not panel.download_button.isEnabled()
        qtbot.waitUntil(lambda: "MB/s" in panel.status.text(), timeout=20_000)
        assert " left" in panel.status.text() or "(100%)" in panel.status.text()
    assert ended.args == [f"Downloaded {SMALLEST.label} and checked its SHA-256."]
    assert [v for v in values if v > 0] and max(values) == 1000
    target = download_path(SMALLEST)
    assert target.read_bytes() == data
    assert panel.selected().path == target and panel.use_button.isEnabled()
    assert _cells(panel, str(target))[1] == "downloaded"
    with qtbot.waitSignal(panel.chosen) as chosen:
        panel.use_button.click()
    assert chosen.args[0].path == target


def test_cancel_stops_a_download_and_keeps_the_part_for_later(panel, hub, qtbot):
    data = gguf_bytes(4 * 1024 * 1024)
    hub.host(SMALLEST.repo_id, SMALLEST.file_name, HostedFile(data, chunk=32 * 1024, pause_s=0.02))
    panel.select(SMALLEST.id)
    with qtbot.waitSignal(panel.download_ended, timeout=30_000) as ended:
        panel.download_selected()
        qtbot.waitUntil(lambda: panel.progress.value() > 0, timeout=20_000)
        panel.cancel_button.click()
    assert "cancelled" in ended.args[0] and not panel.cancel_button.isVisibleTo(panel)
    qtbot.waitSignal(panel.listed, timeout=10_000).wait()
    target = download_path(SMALLEST)
    assert not target.exists() and 0 < target.with_name(target.name + ".partial").stat().st_size < len(data)
    assert panel.download_button.isEnabled()


def test_a_file_whose_checksum_differs_is_refused_in_the_window(panel, hub, qtbot):
    hub.host(SMALLEST.repo_id, SMALLEST.file_name, HostedFile(gguf_bytes(200_000), claimed_sha256="1" * 64))
    panel.select(SMALLEST.id)
    with qtbot.waitSignal(panel.download_ended, timeout=30_000) as ended:
        panel.download_selected()
    assert "failed its checksum" in ended.args[0] and panel.status.text() == ended.args[0]
    assert not download_path(SMALLEST).parent.exists() or not list(download_path(SMALLEST).parent.iterdir())


def test_choosing_a_model_in_the_settings_dialog_sets_the_model_path(qtbot, qloop, home):
    dialog = SettingsDialog(Settings(), mcp_config.load_config(), gpu_probe=None)
    qtbot.addWidget(dialog)
    qtbot.waitSignal(dialog.library.listed, timeout=10_000).wait()
    assert dialog.library.select(str(home))
    dialog.library.use_button.click()
    assert dialog.form.values()["model_path"] == str(home)
    dialog.library.select("gemma3-270m")
    dialog.library.use_selected()
    values = dialog.form.values()
    assert (values["model_path"], values["builtin_model"]) == ("", "gemma3-270m")
    dialog.form.editors["n_gpu_layers"].setValue(-1)
    assert dialog.library.model.layers == -1
    dialog.reject()
