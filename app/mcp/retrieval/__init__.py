"""Tool retrieval: offer the model only the tools that fit the question once there are many.

BM25 over tool names, descriptions and parameters, fused with embeddings from
all-MiniLM-L6-v2: static token vectors distilled from it (default), or the
whole model run in numpy. :class:`ToolRetriever` is the turn loop's
``ToolSelector``; :func:`rank`/:func:`format_ranking` serve ``calculon tools
--query``; :func:`context_meter` tells how much of the prompt tool schemas take.
"""

from app.mcp.encoder_kinds import EncoderKind
from app.mcp.retrieval.embed import EmbeddingUnavailable, MiniLMEncoder
from app.mcp.retrieval.encoders import Encoder, shared_encoder
from app.mcp.retrieval.index import ToolIndex, build_index, fingerprint
from app.mcp.retrieval.meter import ContextMeter, context_meter, schema_tokens
from app.mcp.retrieval.ranking import format_ranking, rank, ranking_dicts
from app.mcp.retrieval.selector import Ranked, ToolRetriever, is_pinned
from app.mcp.retrieval.static import StaticEncoder

__all__ = [
    "ContextMeter",
    "EmbeddingUnavailable",
    "Encoder",
    "EncoderKind",
    "MiniLMEncoder",
    "Ranked",
    "StaticEncoder",
    "ToolIndex",
    "ToolRetriever",
    "build_index",
    "context_meter",
    "fingerprint",
    "format_ranking",
    "is_pinned",
    "rank",
    "ranking_dicts",
    "schema_tokens",
    "shared_encoder",
]
