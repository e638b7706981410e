"""Mixtral's checkpoints: GGUF as ``llama`` (its table reads an ``expert_count`` as Mixtral's
config), and the published layout of its experts, one tensor each under
``block_sparse_moe.experts.N.w1/w3/w2``, which transformers 5 stacks into ``mlp.experts``."""

from __future__ import annotations

from paramcount.model.checkpoint_tables import Layout

GGUF = {"mixtral": ("llama",)}
LAYOUTS = {"mixtral": Layout(((r"\.block_sparse_moe\.", ".mlp."),),
                             r"^(.*\.mlp\.experts\.)(\d+)\.(w1|w3|w2)\.weight$",
                             {"w1": ("gate_up_proj", 0), "w3": ("gate_up_proj", 1),
                              "w2": ("down_proj", 0)})}
PUBLISHED = {"mixtral-8x7b-v0.1.json": ("mistralai/Mixtral-8x7B-v0.1", 46_702_792_704,
                                        "one tensor per expert (w1, w3, w2)", ())}
