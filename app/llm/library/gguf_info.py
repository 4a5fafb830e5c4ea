"""What a GGUF says about itself, read from its header without loading weights.

Only the key/value section is read, and only up to the vocabulary: reading stops once
every wanted key is found, or at the first ``tokenizer.`` key (converters write the
model's shape before it); arrays on the way are skipped by their lengths.
"""

from __future__ import annotations

import dataclasses
import struct
from pathlib import Path
from typing import BinaryIO

_SCALARS = {
    0: "<B",
    1: "<b",
    2: "<H",
    3: "<h",
    4: "<I",
    5: "<i",
    6: "<f",
    7: "<?",
    10: "<Q",
    11: "<q",
    12: "<d",
}
_STRING, _ARRAY = 8, 9
_WANTED_SUFFIXES = (
    "context_length",
    "block_count",
    "embedding_length",
    "attention.head_count",
    "attention.head_count_kv",
)

# llama.cpp's LLAMA_FTYPE values, as converters write them in general.file_type.
FILE_TYPES = {
    0: "F32", 1: "F16", 2: "Q4_0", 3: "Q4_1", 7: "Q8_0", 8: "Q5_0", 9: "Q5_1", 10: "Q2_K",
    11: "Q3_K_S", 12: "Q3_K_M", 13: "Q3_K_L", 14: "Q4_K_S", 15: "Q4_K_M", 16: "Q5_K_S",
    17: "Q5_K_M", 18: "Q6_K", 19: "IQ2_XXS", 20: "IQ2_XS", 21: "Q2_K_S", 22: "IQ3_XS",
    23: "IQ3_XXS", 24: "IQ1_S", 25: "IQ4_NL", 26: "IQ3_S", 27: "IQ3_M", 28: "IQ2_S",
    29: "IQ2_M", 30: "IQ4_XS", 31: "IQ1_M", 32: "BF16", 36: "TQ1_0", 37: "TQ2_0", 38: "MXFP4_MOE",
}  # fmt: skip


class GgufError(ValueError):
    """The file is not a GGUF, or its header is cut short."""


@dataclasses.dataclass(frozen=True)
class GgufInfo:
    architecture: str = ""
    name: str = ""
    quantisation: str = ""
    context_length: int | None = None
    layers: int | None = None
    embedding: int | None = None
    heads: int | None = None
    kv_heads: int | None = None
    head_size: int | None = None  # attention.key_length, where a model's heads are not embedding / heads

    def kv_bytes_per_token(self) -> int | None:
        """The f16 K and V cache one token takes over every layer (llama.cpp's default cache type)."""
        if not (self.layers and self.embedding and self.heads):
            return None
        head_size = self.head_size or self.embedding // self.heads
        return 2 * self.layers * (self.kv_heads or self.heads) * head_size * 2


def read_info(path: Path) -> GgufInfo:
    with path.open("rb") as handle:
        values = read_values(handle)
    arch = str(values.get("general.architecture", ""))

    def number(suffix: str) -> int | None:
        value = values.get(f"{arch}.{suffix}")
        if isinstance(value, list):  # some models give per-layer head counts
            value = max(value) if value else None
        return int(value) if isinstance(value, int | float) else None

    file_type = values.get("general.file_type")
    return GgufInfo(
        architecture=arch,
        name=str(values.get("general.name", "")),
        quantisation=FILE_TYPES.get(file_type, f"type {file_type}") if isinstance(file_type, int) else "",
        context_length=number("context_length"),
        layers=number("block_count"),
        embedding=number("embedding_length"),
        heads=number("attention.head_count"),
        kv_heads=number("attention.head_count_kv"),
        head_size=number("attention.key_length"),
    )


def read_values(handle: BinaryIO) -> dict[str, object]:
    """The header's scalar and string values (and numeric arrays under 4096 items)."""
    if handle.read(4) != b"GGUF":
        raise GgufError("not a GGUF file (no GGUF signature)")
    version, _tensors, count = struct.unpack("<IQQ", _exact(handle, 20))
    if version < 2:
        raise GgufError(f"GGUF version {version} is too old to read")
    values: dict[str, object] = {}
    for _ in range(count):
        key = _string(handle)
        if key.startswith("tokenizer.") and _has_all(values):
            break  # the vocabulary follows the model's shape: nothing wanted lies past it
        values[key] = _value(handle, _unpack(handle, "<I"))
        if _has_all(values) and f"{values['general.architecture']}.attention.key_length" in values:
            break
    return values


def _has_all(values: dict[str, object]) -> bool:
    arch = values.get("general.architecture")
    if not arch or "general.file_type" not in values or "general.name" not in values:
        return False
    return all(f"{arch}.{suffix}" in values for suffix in _WANTED_SUFFIXES)


def _value(handle: BinaryIO, kind: int) -> object:
    if kind in _SCALARS:
        return _unpack(handle, _SCALARS[kind])
    if kind == _STRING:
        return _string(handle)
    if kind != _ARRAY:
        raise GgufError(f"unknown GGUF value type {kind}")
    item_kind, length = _unpack(handle, "<I"), _unpack(handle, "<Q")
    if item_kind in _SCALARS and length < 4096:
        return [_unpack(handle, _SCALARS[item_kind]) for _ in range(length)]
    if item_kind in _SCALARS:
        handle.seek(struct.calcsize(_SCALARS[item_kind]) * length, 1)
    elif item_kind == _STRING:
        _skip_strings(handle, length)
    else:
        for _ in range(length):
            _value(handle, item_kind)
    return None


def _skip_strings(handle: BinaryIO, count: int) -> None:
    """Past a vocabulary (Gemma 3's has 262,144 tokens) with one read and one seek each."""
    read, seek, unpack = handle.read, handle.seek, struct.Struct("<Q").unpack
    for _ in range(count):
        head = read(8)
        if len(head) != 8:
            raise GgufError("the GGUF header is cut short")
        seek(unpack(head)[0], 1)


def _string(handle: BinaryIO) -> str:
    return _exact(handle, _unpack(handle, "<Q")).decode("utf-8", errors="replace")


def _unpack(handle: BinaryIO, fmt: str) -> int:
    (value,) = struct.unpack(fmt, _exact(handle, struct.calcsize(fmt)))
    return value  # type: ignore[no-any-return]


MAX_FIELD = 16 * 1024**2  # no key or string in a real header comes near; a damaged one claims exabytes


def _exact(handle: BinaryIO, size: int) -> bytes:
    if size > MAX_FIELD:
        raise GgufError(f"the GGUF header claims a field of {size} bytes: the file is damaged")
    data = handle.read(size)
    if len(data) != size:
        raise GgufError("the GGUF header is cut short")
    return data
