"""The names of the text encoders tool retrieval can use, apart from the encoders themselves:
settings check a choice against them at start-up, before numpy and the tokenizer need loading."""

from __future__ import annotations

from typing import Literal, get_args

EncoderKind = Literal["static", "contextual"]
ENCODER_KINDS: tuple[EncoderKind, ...] = get_args(EncoderKind)  # the registry settings choose from
