from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from app.mcp.retrieval.embed import EmbeddingUnavailable, MiniLMEncoder

REFERENCE = Path(__file__).parent / "data" / "minilm_reference.json"


def test_embeddings_match_sentence_transformers_reference(encoder: MiniLMEncoder) -> None:
    reference = json.loads(REFERENCE.read_text(encoding="utf-8"))
    ours = encoder.encode(reference["sentences"])
    np.testing.assert_allclose(ours, np.array(reference["embeddings"]), atol=1e-4)


def test_embeddings_are_unit_length(encoder: MiniLMEncoder) -> None:
    vectors = encoder.encode(["one", "a somewhat longer sentence about the weather in Paris"])
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)


def test_paraphrase_is_closer_than_an_unrelated_sentence(encoder: MiniLMEncoder) -> None:
    anchor, paraphrase, unrelated = encoder.encode(
        ["How warm will it be in Rome tomorrow?", "Tomorrow's temperature forecast for Rome", "Add 7 to 12"]
    )
    assert anchor @ paraphrase > anchor @ unrelated + 0.3


def test_padding_in_a_batch_does_not_change_a_texts_vector(encoder: MiniLMEncoder) -> None:
    texts = ["short", "a much longer text that forces the short one to be padded in its batch"]
    together = encoder.encode(texts)
    alone = np.vstack([encoder.encode([t]) for t in texts])
    np.testing.assert_allclose(together, alone, atol=1e-5)


def test_truncation_limits_what_the_model_sees(encoder: MiniLMEncoder) -> None:
    head = "the calculator multiplies numbers"
    long = head + " and then" + " it also converts units" * 60
    short_view, full_view = encoder.encode([long], max_tokens=8)[0], encoder.encode([long])[0]
    head_vector = encoder.encode([head + " and then"], max_tokens=8)[0]
    assert short_view @ head_vector > 0.999
    assert full_view @ head_vector < short_view @ head_vector


def test_missing_model_files_raise_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(EmbeddingUnavailable, match="cannot read"):
        MiniLMEncoder(tmp_path).load()
