"""`calculon models list|pull|rm` through the installed script, against the stand-in Hub
on 127.0.0.1 (tests/hub_standin.py) named by HF_ENDPOINT: never the internet."""

from __future__ import annotations

import hashlib
import json
import os
import re
import signal
import subprocess

import pytest

from app.llm.library.curated import CURATED
from app.llm.library.library import download_path
from tests.hub_standin import HostedFile, gguf_bytes, running_hub
from tests.test_cli import SCRIPT, calculon

REPO, FILE = "standin/Tiny-GGUF", "tiny-q4_k_m.gguf"
NAME = f"{REPO}/{FILE}"


@pytest.fixture
def hub(monkeypatch):
    with running_hub() as hub:
        monkeypatch.setenv("HF_ENDPOINT", hub.url)
        yield hub


def _target():
    return download_path(CURATED[0]).parents[2] / REPO / FILE


def test_list_shows_every_kind_of_model_with_its_estimate(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    folder = tmp_path / "home" / ".lmstudio" / "models" / "me" / "M-GGUF"
    folder.mkdir(parents=True)
    (folder / "m.gguf").write_bytes(gguf_bytes(40_000, layers=6, context=8192, name="Mine"))
    done = calculon("models", "list", "--json", "--gpu-layers", "-1", "--ctx", "2048")
    assert done.returncode == 0, done.stderr
    listed = json.loads(done.stdout)
    assert listed["gpu_layers"] == -1 and listed["n_ctx"] == 2048
    assert listed["gpu"]["offload"] in (True, False)
    models = {m["source"]: m for m in listed["models"]}
    mine = models["lm-studio"]
    assert (mine["label"], mine["size"], mine["quantisation"]) == ("me/M-GGUF/m.gguf", 40_000, "Q4_K_M")
    assert (mine["context_length"], mine["layers"], mine["downloaded"]) == (8192, 6, True)
    assert mine["estimate"]["fits"] is True and mine["estimate"]["text"]
    smollm2 = next(m for m in listed["models"] if m["id"] == "smollm2-135m-instruct")
    assert (smollm2["source"], smollm2["quantisation"], smollm2["layers"]) == ("built-in", "Q4_1", 30)
    hub = [m for m in listed["models"] if m["source"] == "hugging-face"]
    assert [m["id"] for m in hub] == [m.id for m in CURATED]
    assert all(not m["downloaded"] and m["estimate"] for m in hub)
    text = calculon("models", "list")
    assert text.returncode == 0 and text.stdout.startswith("GPU: ") and "me/M-GGUF/m.gguf" in text.stdout


def test_pull_downloads_with_progress_then_rm_removes_it(hub):
    data = gguf_bytes(2 * 1024 * 1024)
    hub.host(REPO, FILE, HostedFile(data, pause_s=0.02))
    done = calculon("models", "pull", NAME, "--json")
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result == {"path": str(_target()), "sha256": hashlib.sha256(data).hexdigest(), "verified": True}
    assert _target().read_bytes() == data
    assert re.search(r"of 2\.1 MB \(\d+%\), [\d.]+ MB/s", done.stderr)
    assert "checking SHA-256" in done.stderr
    assert [s.method for s in hub.seen] == ["HEAD", "GET"]  # the file, and nothing else asked of the Hub
    listed = json.loads(calculon("models", "list", "--json").stdout)["models"]
    assert [m["source"] for m in listed if m["path"] == str(_target())] == ["calculon"]
    removed = calculon("models", "rm", FILE)
    assert removed.returncode == 0 and not _target().exists()
    assert calculon("models", "rm", FILE).returncode == 2


def test_a_killed_pull_resumes_where_it_stopped(hub):
    data = gguf_bytes(4 * 1024 * 1024)
    hub.host(REPO, FILE, HostedFile(data, pause_s=0.05))
    command = [str(SCRIPT), "models", "pull", NAME]
    child = subprocess.Popen(command, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True)
    try:
        for line in child.stderr:  # wait for the first progress line, then kill mid-download
            if re.search(r"\((\d|[1-9]\d)%\)", line):
                break
        os.kill(child.pid, signal.SIGKILL)
    finally:
        child.wait(10)
        child.stderr.close()
    assert child.returncode == -signal.SIGKILL
    partial = _target().with_name(FILE + ".partial")
    kept = partial.stat().st_size
    assert 0 < kept < len(data) and not _target().exists()
    done = calculon("models", "pull", NAME)
    assert done.returncode == 0, done.stderr
    assert f"resuming at {kept} bytes" in done.stderr
    assert hub.ranges()[-1] == f"bytes={kept}-"
    assert _target().read_bytes() == data and not partial.exists()


def test_pull_refuses_a_file_whose_checksum_differs(hub):
    hub.host(REPO, FILE, HostedFile(gguf_bytes(300_000), claimed_sha256="0" * 64))
    done = calculon("models", "pull", NAME)
    assert done.returncode == 1
    assert "failed its checksum" in done.stderr and "was removed" in done.stderr
    assert not _target().parent.exists() or list(_target().parent.iterdir()) == []


def test_pull_refuses_a_file_larger_than_the_free_space(hub):
    hub.host(REPO, FILE, HostedFile(gguf_bytes(1000), claimed_size=10**18))
    done = calculon("models", "pull", NAME)
    assert done.returncode == 1 and "Not enough free space" in done.stderr
    assert [s.method for s in hub.seen] == ["HEAD"]


def test_pull_and_rm_refuse_names_they_do_not_know():
    assert calculon("models", "pull", "no-such-model").returncode == 2
    refused = calculon("models", "rm", "smollm2-135m-instruct")
    assert refused.returncode == 1 and "not one of Calculon's downloads" in refused.stderr


def test_pull_takes_a_built_in_models_id_as_list_suggests_it():
    # `models list` says "download with `calculon models pull qwen2.5-coder-1.5b-instruct`" for a
    # built-in not yet fetched; pull used to answer "no curated model" for every built-in id
    done = calculon("models", "pull", "smollm2-135m-instruct", "--json")
    assert done.returncode == 0, done.stderr
    pulled = json.loads(done.stdout)
    assert pulled["path"].endswith("SmolLM2-135M-Instruct.Q4_1.gguf") and os.path.isfile(pulled["path"])
