"""Whether GPU offload can work here, found out without blocking the window.

Two honest, cheap signals: whether the installed llama.cpp build can offload
at all (its import is slow, so it runs on a worker), and which NVIDIA GPUs
``nvidia-smi`` lists, if that tool exists.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import shutil

logger = logging.getLogger(__name__)

SMI_TIMEOUT_S = 5.0


def llama_offload_supported() -> bool | None:
    """True/False from llama.cpp itself; None when llama.cpp is not installed."""
    try:
        import llama_cpp
    except ImportError:
        return None
    return bool(llama_cpp.llama_supports_gpu_offload())


async def nvidia_gpus() -> list[str]:
    """GPU names from ``nvidia-smi -L``; empty when the tool is absent or fails."""
    smi = shutil.which("nvidia-smi")
    if smi is None:
        return []
    try:
        process = await asyncio.create_subprocess_exec(
            smi, "-L", stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL
        )
        out, _ = await asyncio.wait_for(process.communicate(), SMI_TIMEOUT_S)
    except OSError:
        logger.info("nvidia-smi could not run", exc_info=True)
        return []
    except TimeoutError:
        logger.info("nvidia-smi did not answer within %.0f s", SMI_TIMEOUT_S)
        process.kill()
        return []
    return [line.split(" (UUID")[0] for line in out.decode(errors="replace").splitlines() if line.strip()]


def describe(offload: bool | None, gpus: list[str]) -> str:
    if offload is None:
        return "llama.cpp is not installed, so the local model cannot run."
    if not offload:
        return "This llama.cpp build is CPU-only: every layer runs on the CPU, whatever GPU layers says."
    if gpus:
        return "GPU offload available: " + "; ".join(gpus)
    return "This llama.cpp build can offload to a GPU, but nvidia-smi found no NVIDIA GPU."


async def probe_gpu() -> str:
    # A plain worker thread of our own: qasync's default executor runs QThreads, and a
    # library import there has crashed the process.
    with concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="gpu-probe") as worker:
        offload = await asyncio.get_running_loop().run_in_executor(worker, llama_offload_supported)
    return describe(offload, await nvidia_gpus())
