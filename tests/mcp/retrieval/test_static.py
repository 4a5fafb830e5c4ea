"""Static token vectors distilled from the real MiniLM weights: what they are, where they are cached."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from app.core.tools import ToolInfo
from app.mcp.retrieval.embed import MiniLMEncoder
from app.mcp.retrieval.encoders import shared_encoder
from app.mcp.retrieval.selector import ToolRetriever
from app.mcp.retrieval.static import StaticEncoder, _read_table, prepare
from app.settings import Settings

pytestmark = pytest.mark.anyio


def test_a_token_alone_gets_the_contextual_models_own_embedding(loaded_encoder: MiniLMEncoder) -> None:
    word = "weather"  # one WordPiece token
    (token_id,) = loaded_encoder._tokenizer(8).encode(word, add_special_tokens=False).ids
    distilled = loaded_encoder.token_vectors(np.array([token_id]))[0]
    assert np.allclose(distilled / np.linalg.norm(distilled), loaded_encoder.encode([word])[0], atol=1e-5)


def test_a_text_is_the_normalised_mean_of_its_centred_token_vectors(static_encoder: StaticEncoder) -> None:
    text = "multiply two numbers"
    vector = static_encoder.encode([text])[0]
    assert static_encoder._table is not None
    ids = static_encoder._tokenizer(64).encode(text, add_special_tokens=False).ids
    expected = static_encoder._table[ids].astype(np.float32).mean(axis=0)
    assert np.allclose(vector, expected / np.linalg.norm(expected), atol=1e-6)
    assert np.linalg.norm(vector) == pytest.approx(1.0, abs=1e-5)
    assert not np.asarray(static_encoder.encode([""])[0]).any()  # no tokens: no direction


def test_the_table_is_distilled_once_then_read_from_the_cache(
    static_encoder: StaticEncoder, loaded_encoder: MiniLMEncoder
) -> None:
    again = StaticEncoder(loaded_encoder)
    again.load()
    assert again.distilled == 0 and again.table_path() == static_encoder.table_path()
    assert again.table_path().is_file()
    assert again._table is not None and static_encoder._table is not None
    assert (again._table == static_encoder._table).all()


def test_make_run_prepares_the_table_only_where_it_is_not_cached(
    static_encoder: StaticEncoder, capsys
) -> None:
    # ``make run`` calls prepare() before the window opens; with the table there it is a file check
    assert prepare(static_encoder.table_path().parent) is False
    assert capsys.readouterr().out == ""


def test_a_damaged_or_foreign_table_is_not_used(tmp_path: Path) -> None:
    damaged = tmp_path / "damaged.npy"
    damaged.write_bytes(b"not an array")
    assert _read_table(damaged, 30522) is None
    wrong_shape = tmp_path / "small.npy"
    np.save(wrong_shape, np.zeros((10, 384), np.float16))
    assert _read_table(wrong_shape, 30522) is None
    assert _read_table(tmp_path / "missing.npy", 30522) is None


@pytest.mark.usefixtures("warm_cache")
async def test_the_static_encoder_ranks_the_tool_the_words_describe(
    tools: list[ToolInfo], static_encoder: StaticEncoder
) -> None:
    retriever = ToolRetriever(threshold=1, encoder=static_encoder)
    await retriever.refresh(tools)
    assert retriever.index is not None and retriever.index.weight == static_encoder.fusion_weight
    assert retriever.rank("email the quarterly numbers to my boss", tools, 1)[0].tool.name == "send_email"
    by_meaning = retriever.rank("how much is 20 dollars in euros", tools, 1)[0]  # no word in common
    assert by_meaning.tool.name == "convert_currency" and by_meaning.bm25 == 0.0


async def test_settings_pick_the_encoder_and_a_change_rebuilds_the_index(
    tools: list[ToolInfo], static_encoder: StaticEncoder
) -> None:
    retriever = ToolRetriever.from_settings(Settings(tool_threshold=1))
    assert retriever.encoder is shared_encoder("static")
    contextual = ToolRetriever.from_settings(Settings(tool_threshold=1, tool_encoder="contextual"))
    assert isinstance(contextual.encoder, MiniLMEncoder)

    retriever.encoder = static_encoder  # the run's already distilled one
    await retriever.refresh(tools)
    assert retriever.ready
    retriever.apply_settings(Settings(tool_threshold=1, tool_encoder="contextual"))
    assert not retriever.ready and retriever.encoder is shared_encoder("contextual")
    assert retriever.select("add 2 and 3", tools) is None  # every tool until the new index is built
    assert retriever.pending is not None and await retriever.pending
    assert retriever.index is not None and retriever.index.weight == MiniLMEncoder.fusion_weight
