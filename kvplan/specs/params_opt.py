"""Parameter count of OPT (`opt`), as transformers/models/opt/modeling_opt.py builds it.

OPTDecoder: token embedding [vocab, word_embed_proj_dim]; learned positions
[max_position_embeddings + 2, hidden] (OPTLearnedPositionalEmbedding's offset of 2);
project_in / project_out [proj, hidden] without bias when word_embed_proj_dim differs from
hidden_size; a final LayerNorm when do_layer_norm_before (and not _remove_final_layer_norm).
Each layer: q, k, v and out projections [hidden, hidden] (bias when enable_bias), two
LayerNorms (weight and bias when layer_norm_elementwise_affine), fc1 [hidden, ffn_dim] and
fc2 [ffn_dim, hidden] (bias when enable_bias). lm_head is tied to the token embedding
(tie_word_embeddings, default true), else [vocab, word_embed_proj_dim].
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kvplan.specs.params_base import ParamCount, _flag, _int, _int_or


def opt_params(cfg: Mapping[str, Any]) -> ParamCount:
    hidden, layers = _int(cfg, "hidden_size"), _int(cfg, "num_hidden_layers")
    vocab, ffn = _int(cfg, "vocab_size"), _int(cfg, "ffn_dim")
    proj = _int_or(cfg, "word_embed_proj_dim", 0) or hidden
    bias = _flag(cfg, "enable_bias", True)
    norm = 2 * hidden if _flag(cfg, "layer_norm_elementwise_affine", True) else 0
    embed = vocab * proj + (_int(cfg, "max_position_embeddings") + 2) * hidden
    if proj != hidden:
        embed += 2 * proj * hidden
    if _flag(cfg, "do_layer_norm_before", True) and not _flag(cfg, "_remove_final_layer_norm", False):
        embed += norm
    if not _flag(cfg, "tie_word_embeddings", True):
        embed += vocab * proj
    attention = 4 * hidden * hidden + (4 * hidden if bias else 0)
    mlp = 2 * hidden * ffn + ((ffn + hidden) if bias else 0)
    return ParamCount(embed + layers * (attention + mlp + 2 * norm))
