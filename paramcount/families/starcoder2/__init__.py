"""StarCoder2 (Lozhkov et al. 2024, "StarCoder 2 and The Stack v2"), as transformers builds it:
Starcoder2ForCausalLM. KerasHub has no StarCoder2, so transformers is the reference.

Pre-norm blocks with layer norms (γ and β); grouped-query attention with rotary positions and,
with ``use_bias`` (as released), biases on all four projections; a GELU MLP of width d_f
(``c_fc``, ``c_proj``) whose projections carry biases under the same switch; a final layer norm
and an LM head without a bias, tied to the token table in the 3B and 7B models. Sliding-window
attention holds no weight.
"""

from __future__ import annotations

from paramcount.core.restrictions import Fixed
from paramcount.core.symbols import b_att
from paramcount.core.symbols import b_ffn
from paramcount.core.symbols import tied
from paramcount.families._decoders import causal_lm_counting
from paramcount.families._decoders import hf_causal_lm
from paramcount.families._decoders import pre_norm_causal_lm
from paramcount.families._decoders import sliding
from paramcount.families._lineages import GQA
from paramcount.families._lineages import HF_CAUSAL_LM_FIELDS
from paramcount.families._lineages import HF_HEAD_DIM
from paramcount.families._lineages import HF_TIED_YES
from paramcount.families._lineages import ROTARY_PAIRS
from paramcount.families._lineages import split_heads
from paramcount.model.components.basic import layer_norm
from paramcount.model.components.hf_decoder import attention
from paramcount.model.components.hf_decoder import plain_mlp
from paramcount.model.frameworks import Transformers
from paramcount.model.frameworks import own_weights
from paramcount.model.mapping import Field
from paramcount.model.registry import register

IDS = ("starcoder2",)  # the ids this folder registers


FORMULA = pre_norm_causal_lm("starcoder2", attention(qkv_bias=b_att, o_bias=b_att), plain_mlp(bias=b_ffn),
                             norm=layer_norm, note="pre-norm blocks: attention, GELU MLP")

register(hf_causal_lm(
    "starcoder2",
    hf="Starcoder2ForCausalLM",
    formula=FORMULA,
    # no window unless a config sets one (every layer then): the cache's kept positions
    transformers=Transformers(weights=own_weights(FORMULA), **sliding(default=None)),
    optional={tied: 1, b_att: 1},
    restrictions=(
        split_heads("Starcoder2Config"),
        Fixed(b_ffn, b_att, why="use_bias switches the attention's and the MLP's biases together"),
        ROTARY_PAIRS,
        GQA,
    ),
    counting=causal_lm_counting("L blocks", "layer norm", ", as the 3B and 7B are"),
    # head_dim: read by the attention (getattr; issue 32), refused unless d_e/M
    fields=(*HF_CAUSAL_LM_FIELDS, HF_HEAD_DIM, Field("b_att", hf="use_bias", flag=True, hf_default=1), HF_TIED_YES),
))
