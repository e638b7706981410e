"""GPT-NeoX (Black et al. 2022) as KerasHub builds it: keras_hub.models.GPTNeoXBackbone.

Token embedding only (rotary positions on a fraction of each head, no learned positions), L
blocks with *parallel* attention and feed-forward (x + attn(LN₁(x)) + ffn(LN₂(x)): two norms, as
in the sequential block, so the count is the same), a fused query-key-value projection with
biases, and a final layer norm.
"""

from __future__ import annotations

from paramcount.components import dense, embedding, feed_forward, layer_norm
from paramcount.components.decoders import fused_qkv
from paramcount.components.modern import rotary_positions
from paramcount.formula import group
from paramcount.hparams import Divisible
from paramcount.registry import Architecture, register
from paramcount.symbols import L, M, d_e, d_f, d_k, v

register(Architecture(
    id="gpt_neo_x",
    title="GPT-NeoX backbone (keras_hub.models.GPTNeoXBackbone): parallel attention + MLP, "
          "fused QKV, partial rotary",
    source="Black et al. 2022, 'GPT-NeoX-20B'; keras_hub/src/models/gpt_neo_x/"
           "gpt_neo_x_{backbone,decoder,attention}.py",
    formula=group(
        "gpt_neo_x",
        group(
            "embeddings",
            embedding("token", v, match="token_embedding"),
            rotary_positions(),
        ),
        group(
            "blocks",
            group(
                "attention",
                fused_qkv(),
                dense("output", d_e, d_e, match="attention_output"),
                match="self_attention",
                kind="attention",
            ),
            layer_norm("norm_1", match="self_attention_layer_norm"),
            feed_forward(),
            layer_norm("norm_2", match="feedforward_layer_norm"),
            times=L,
            match=r"transformer_layer_\d+",
            note="parallel residual: attention and feed-forward both read the block input, "
                 "each through its own layer norm",
        ),
        layer_norm("final_norm", match="layer_norm"),
    ),
    required=(v, d_e, M, d_f, L),
    fixed={d_k: d_e / M},
    constraints=(Divisible(d_e, M),),
    reference="reference_models.gpt_neo_x:backbone",
    counting="trainable weights of the backbone: token embedding, L parallel blocks, final norm; "
             "no LM head (KerasHub's GPTNeoXCausalLM ties it to the token embedding, whereas "
             "EleutherAI's checkpoints keep an untied embed_out of v·d_e more)",
    presets="gpt_neo_x",
    family="keras_hub",
    examples={
        "tiny": dict(v=100, d_e=32, M=4, d_f=64, L=2),
        "odd_sizes": dict(v=997, d_e=45, M=5, d_f=13, L=3),
    },
))
