"""Nemotron-H's checkpoints: GGUF ``nemotron_h``, and ``nemotron_h_moe`` with routed experts
(llama.cpp stacks them itself: gguf's map names none). The blocks' kinds and widths come from
their tensors; transformers 5 names the hub's ``backbone.`` as ``model.``."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from paramcount.model.checkpoint_tables import DT_BIAS
from paramcount.model.checkpoint_tables import GGUFTable

_CONFIG = MappingProxyType({
    "embedding_length": "hidden_size", "block_count": "num_hidden_layers",
    "attention.head_count": "num_attention_heads", "expert_used_count": "num_experts_per_tok",
    "ssm.conv_kernel": "conv_kernel", "ssm.state_size": "ssm_state_size",
    "ssm.group_count": "n_groups"})
_EXPERTS = (
    (r"^blk\.(\d+)\.ffn_(up|down)_exps(\.weight)?$", r"model.layers.\1.mixer.experts.\2_proj"),
    (r"^blk\.(\d+)\.exp_probs_b\.bias$", r"model.layers.\1.mixer.gate.e_score_correction_bias"))


def _blocks(meta: Mapping, shapes: Mapping) -> dict:
    """Nemotron-H's blocks from their tensors (hybrid_override_pattern: M Mamba, * attention,
    - MLP, E experts) and its widths from their shapes: the head width and key/value heads from
    attn_q and attn_k, the Mamba heads from ssm_dt's bias, the MLP's, the experts' and the
    shared expert's widths from their projections"""
    def first(stem: str):
        return next((shapes[n] for i in range(meta["block_count"]) for n in (
            f"blk.{i}.{stem}.weight", f"blk.{i}.{stem}", f"blk.{i}.{stem}.bias") if n in shapes),
            None)

    def kind(i: int) -> str:
        has = {n.split(".")[2] for n in shapes if n.startswith(f"blk.{i}.")}
        return ("*" if "attn_q" in has else "E" if "ffn_gate_inp" in has else
                "-" if "ffn_up" in has else "M")

    out: dict = {"hybrid_override_pattern": "".join(kind(i) for i in range(meta["block_count"])),
                 "use_conv_bias": any(n.endswith("ssm_conv1d.bias") for n in shapes),
                 "use_bias": any(n.endswith("ssm_in.bias") for n in shapes),
                 "mlp_bias": any(n.endswith(("ffn_up.bias", "ffn_up_exps.bias")) for n in shapes)}
    if (q := first("attn_q")) is not None and (k := first("attn_k")) is not None:
        out["head_dim"] = q[0] // meta["attention.head_count"]
        out["num_key_value_heads"] = k[0] // out["head_dim"]
    if (dt := first("ssm_dt")) is not None and (o := first("ssm_out")) is not None:
        out["mamba_num_heads"], out["mamba_head_dim"] = dt[0], o[-1] // dt[0]
    if (up := first("ffn_up")) is not None:
        out["intermediate_size"] = up[0]
    if (router := first("ffn_gate_inp")) is not None:
        out["n_routed_experts"] = router[0]
        out["moe_intermediate_size"] = first("ffn_down_exps")[-1]
    if (shared := first("ffn_up_shexp")) is not None:
        out["moe_shared_expert_intermediate_size"] = shared[0]
    return out


GGUF = {"nemotron_h": ("nemotron_h", "nemotron_h_moe")}
GGUF_TABLES = {
    "nemotron_h": GGUFTable("nemotron_h", "NemotronHForCausalLM", DT_BIAS, config=_CONFIG,
                            derive=_blocks, prefix=(("backbone.", "model."),)),
    "nemotron_h_moe": GGUFTable("nemotron_h", "NemotronHForCausalLM", (*DT_BIAS, *_EXPERTS),
                                config=_CONFIG, derive=_blocks, prefix=(("backbone.", "model."),)),
}
