"""Carry a GGUF's layout without its weights, and rebuild a same-shaped file from it.

The GPU machine is reached with at most 64 MiB of files, and the built-in model
is 253 MB. A model's speed depends on its tensor shapes and quantisation types,
not on the weight values, so the GPU check runs on a file with the real header,
metadata, vocabulary and tensor table, and zeros where the weights were.

    python bench/_gguf_skeleton.py cut MODEL.gguf SKELETON      # here: header + size
    python bench/_gguf_skeleton.py restore SKELETON MODEL.gguf  # there: header + zeros
"""

from __future__ import annotations

import json
import struct
import sys
from pathlib import Path
from typing import BinaryIO

_SCALARS = {0: 1, 1: 1, 2: 2, 3: 2, 4: 4, 5: 4, 6: 4, 7: 1, 10: 8, 11: 8, 12: 8}  # GGUF value type: bytes
_STRING, _ARRAY = 8, 9


def data_offset(path: Path) -> int:
    """Where the tensor data starts: after the key/values, the tensor table and alignment padding."""
    with path.open("rb") as f:
        if f.read(4) != b"GGUF":
            raise SystemExit(f"{path} is not a GGUF file")
        _version, tensors, keys = struct.unpack("<IQQ", f.read(20))
        alignment = 32
        for _ in range(keys):
            key = _string(f)
            value = _value(f, _u32(f))
            if key == b"general.alignment" and isinstance(value, int):
                alignment = value
        for _ in range(tensors):
            _string(f)
            dims = _u32(f)
            f.seek(8 * dims + 4 + 8, 1)  # dims, type, offset
        return -(-f.tell() // alignment) * alignment


def _u32(f: BinaryIO) -> int:
    return int(struct.unpack("<I", f.read(4))[0])


def _string(f: BinaryIO) -> bytes:
    (size,) = struct.unpack("<Q", f.read(8))
    return f.read(size)


def _value(f: BinaryIO, kind: int) -> object:
    if kind == _STRING:
        return _string(f)
    if kind == _ARRAY:
        item_kind = _u32(f)
        (count,) = struct.unpack("<Q", f.read(8))
        if item_kind in _SCALARS:
            f.seek(_SCALARS[item_kind] * count, 1)
        else:
            for _ in range(count):
                _value(f, item_kind)
        return None
    raw = f.read(_SCALARS[kind])
    return int.from_bytes(raw, "little") if kind in (4, 5, 10, 11) else raw


def cut(model: Path, skeleton: Path) -> None:
    offset = data_offset(model)
    with model.open("rb") as source:
        head = source.read(offset)
    skeleton.write_bytes(head)
    meta = {"size": model.stat().st_size, "data_offset": offset, "source": model.name}
    skeleton.with_name(skeleton.name + ".json").write_text(json.dumps(meta))
    print(f"{skeleton}: {offset} bytes of {meta['size']} ({model.name})")


def restore(skeleton: Path, model: Path) -> None:
    meta = json.loads(skeleton.with_name(skeleton.name + ".json").read_text())
    with model.open("wb") as out:
        out.write(skeleton.read_bytes())
        out.truncate(meta["size"])  # the weights: zeros (a sparse file where the filesystem allows)
    print(f"{model}: {meta['size']} bytes, layout of {meta['source']}, weights zeroed")


if __name__ == "__main__":
    if len(sys.argv) != 4 or sys.argv[1] not in ("cut", "restore"):
        raise SystemExit(__doc__)
    (cut if sys.argv[1] == "cut" else restore)(Path(sys.argv[2]), Path(sys.argv[3]))
