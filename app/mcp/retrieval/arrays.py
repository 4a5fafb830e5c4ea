"""Cached numpy arrays on disk: read only when whole and of the expected shape, written atomically.

Both caches of tool retrieval (index vectors, the static token table) are
derived data: anything unreadable is logged and rebuilt, never fatal.
"""

from __future__ import annotations

import logging
import os
import tempfile
from pathlib import Path

import numpy as np

logger = logging.getLogger(__name__)


def read_array(path: Path, shape: tuple[int, ...], dtype: type[np.generic], what: str) -> np.ndarray | None:
    """The array at ``path``, or None when missing, unreadable, of another shape or type, or not finite."""
    try:
        array = np.load(path, allow_pickle=False)
    except FileNotFoundError:
        return None
    except (OSError, ValueError):
        logger.warning("ignoring unreadable %s %s", what, path, exc_info=True)
        return None
    if array.shape != shape or array.dtype != dtype or not np.isfinite(array).all():
        logger.warning("ignoring %s %s of shape %s, type %s", what, path, array.shape, array.dtype)
        return None
    return array


def write_array(path: Path, array: np.ndarray, what: str) -> bool:
    """Atomic (a reader never sees half a file); a failure is only logged. True if written."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.stem}.", suffix=".tmp", dir=path.parent)
    except OSError:
        logger.warning("could not write the %s in %s", what, path.parent, exc_info=True)
        return False
    try:
        with os.fdopen(fd, "wb") as handle:
            np.save(handle, array, allow_pickle=False)
        os.replace(tmp, path)
        return True
    except OSError:
        logger.warning("could not write the %s in %s", what, path.parent, exc_info=True)
        return False
    finally:
        Path(tmp).unlink(missing_ok=True)
