"""GGUF files as llama.cpp's converter writes them from a tiny transformers model (the names
gguf's own TensorNameMap gives, the tensors its converter leaves out left out), read back
through paramcount's GGUF tables and checked tensor by tensor. The builds run in torch workers
(this process may hold TensorFlow); skipped without torch or gguf."""

from __future__ import annotations

import json

import pytest

from paramcount.analyze.verify import transformers_missing

if transformers_missing():  # this process may hold TensorFlow: torch runs in torch workers
    pytest.skip("the transformers extra is not installed", allow_module_level=True)
pytest.importorskip("gguf")  # the checkpoints extra

from paramcount.cli.main import main
from paramcount.model import registry
from tests._hf_checkpoints import buildable as _buildable
from tests._hf_checkpoints import state

# Families llama.cpp converts: case → (our id, its GGUF architecture, a set, or the smallest).
# (Falcon-RW's sequential layout, falcon with post_attention_layernorm, is not among them, nor
# an untied Cohere: llama.cpp's command-r has no output tensor.)
_GGUF = {"llama": ("llama", "llama", None), "llama3": ("llama3", "llama", None),
         "mistral": ("mistral", "llama", None), "qwen": ("qwen", "qwen2", None),
         "qwen3": ("qwen3", "qwen3", None), "gemma": ("gemma", "gemma", None),
         "gemma2": ("gemma", "gemma2", "tiny_gemma2"), "gemma3": ("gemma3", "gemma3", None),
         "phi3": ("phi3", "phi3", None), "mixtral": ("mixtral", "llama", None),
         "qwen_moe": ("qwen_moe", "qwen2moe", "tiny_mha_untied"),
         "qwen3_moe": ("qwen3_moe", "qwen3moe", "tiny_default_heads"),
         "gpt2": ("gpt2_causal_lm", "gpt2", None), "gpt_j": ("gpt_j", "gptj", "tiny"),
         "gpt_neo_x": ("gpt_neo_x", "gptneox", "tiny"), "phi": ("phi", "phi2", "tiny"),
         "bloom": ("bloom", "bloom", None),
         "falcon_40b": ("falcon_parallel", "falcon", "tiny_gqa_two_norms"),
         "falcon_7b": ("falcon_parallel", "falcon", "tiny_mqa"),
         "olmo2": ("olmo2", "olmo2", "tiny"), "olmoe": ("olmoe", "olmoe", "tiny"),
         "granite": ("granite", "granite", "tiny"), "cohere": ("cohere", "command-r", "tiny"),
         "deepseek_v2": ("deepseek_v2", "deepseek2", "tiny"),
         # as older llama.cpp converters store MLA: kv_b_proj whole (attn_kv_b)
         "deepseek_v2_kv_b": ("deepseek_v2", "deepseek2", "tiny"),
         "deepseek_v3": ("deepseek_v3", "deepseek2", "tiny"),
         "mamba": ("mamba", "mamba", "tiny"), "mamba2": ("mamba2", "mamba2", "tiny"),
         "smollm3": ("smollm3", "smollm3", "tiny"), "gpt_oss": ("gpt_oss", "gpt-oss", "tiny"),
         "glm4_moe": ("glm4_moe", "glm4moe", "tiny"), "phimoe": ("phimoe", "phimoe", "tiny"),
         "llama4": ("llama4_text", "llama4", "tiny"),
         "granite_biases": ("granite", "granite", "tiny_biases_untied"),
         "starcoder2": ("starcoder2", "starcoder2", None),
         "cohere2": ("cohere2", "cohere2", "tiny"),  # llama.cpp's cohere2 is tied only
         # llama.cpp converts OLMo 3 as olmo2 (the same tensors; sliding windows in metadata)
         "olmo3": ("olmo3", "olmo2", None), "ernie4_5": ("ernie4_5", "ernie4_5", None),
         "ernie4_5_moe": ("ernie4_5_moe", "ernie4_5-moe", None),
         "ernie4_5_moe_shared": ("ernie4_5_moe", "ernie4_5-moe", "tiny"),
         "minimax_m2": ("minimax_m2", "minimax-m2", None), "dbrx": ("dbrx", "dbrx", None),
         "granitemoe": ("granitemoe", "granitemoe", None), "jamba": ("jamba", "jamba", None),
         "falcon_h1": ("falcon_h1", "falcon-h1", None),
         "falcon_h1_norm": ("falcon_h1", "falcon-h1", "tiny"),
         "falcon_h1_biases": ("falcon_h1", "falcon-h1", "tiny_odd_biases_tied"),
         "nemotron_h": ("nemotron_h", "nemotron_h", None),
         "nemotron_h_moe": ("nemotron_h", "nemotron_h_moe", "tiny"),
         "granitemoehybrid": ("granitemoehybrid", "granitehybrid", "tiny"),
         "granitemoehybrid_dense": ("granitemoehybrid", "granitehybrid", "tiny_dense_odd"),
         "qwen3_next": ("qwen3_next", "qwen3next", None),
         # the smallest Qwen 3.5 sets with linear-attention layers
         "qwen3_5": ("qwen3_5", "qwen35", "tiny_odd_tied"),
         "qwen3_5_moe": ("qwen3_5_moe", "qwen35moe", "tiny_odd_tied"),
         "gemma3_embedding": ("gemma3_embedding", "gemma-embedding", None),
         # llama.cpp converts DistilBERT, BERT, RoBERTa and XLM-R as bert
         "distil_bert": ("distil_bert", "bert", None), "t5": ("t5", "t5", None),
         # its converter leaves out the pooler and MLM heads, and RoBERTa's padding rows
         "bert": ("bert", "bert", None), "bert_masked_lm": ("bert_masked_lm", "bert", None),
         "distil_bert_masked_lm": ("distil_bert_masked_lm", "bert", None),
         "roberta": ("roberta", "bert", None), "xlm_roberta": ("xlm_roberta", "bert", None),
         "gemma3n": ("gemma3n", "gemma3n", "tiny"),  # the smallest set with AltUp projections
         "gemma4": ("gemma4", "gemma4", None), "gemma4_k_eq_v": ("gemma4", "gemma4", "tiny_k_eq_v")}


# Lone files that read as another family with the same tensors (llama.cpp writes Mistral as
# llama, OLMo 3 as olmo2, Llama 3 is Llama's architecture) or the head its converter drops
_ALIASED = {"mistral", "olmo3", "llama3", "bert_masked_lm", "distil_bert_masked_lm"}


def _nested(cfg: dict, key: str):
    for k in key.split("."):
        cfg = cfg.get(k) if isinstance(cfg, dict) else None  # type: ignore[assignment]
    return cfg


def metadata(table, cfg: dict, garch: str, layers: int) -> dict:
    """The metadata llama.cpp's converter writes for ``cfg``: the keys its base class writes
    (the table's direct ones, read back from the config's keys) and those its model class adds
    (:data:`_WRITES`, written here from the converter's code, not from the table)."""
    cfg = {"num_experts": cfg.get("num_local_experts"), **cfg}  # Qwen MoE's published key
    kv = {g: v for g, h in table.config.items()
          if isinstance(v := _nested(cfg, h), int) and not isinstance(v, bool)}
    kv["block_count"] = layers  # every converter writes it (NemotronHConfig: a derived key)
    return {**kv, **(_WRITES[garch](cfg) if garch in _WRITES else {})}


def _bert_meta(cfg: dict) -> dict:
    """llama.cpp's BertModel.set_gguf_parameters and set_vocab (RoBERTa's context length cut by
    its padding offset, DistilBERT's keys read through find_hparam)."""
    offset = cfg["pad_token_id"] + 1 if cfg["model_type"] in ("roberta", "xlm-roberta") else 0
    get = lambda *keys: next(cfg[k] for k in keys if k in cfg)  # noqa: E731
    tok = {"xlm-roberta": "t5", "roberta": "gpt2"}.get(cfg["model_type"], "bert")
    return {"context_length": cfg["max_position_embeddings"] - offset,
            "embedding_length": get("hidden_size", "dim"),
            "feed_forward_length": get("intermediate_size", "hidden_dim"),
            "block_count": get("num_hidden_layers", "n_layers"),
            "attention.head_count": get("num_attention_heads", "n_heads"),
            "tokenizer.ggml.model": tok, "tokenizer.ggml.padding_token_id": cfg["pad_token_id"]}


_WRITES = {"bert": _bert_meta,
           # MambaModel.set_gguf_parameters: the inner width (expand × d_model)
           "mamba": lambda cfg: {"ssm.inner_size": cfg["intermediate_size"]},
           # DeepseekV2Model: MLA's key width (no-rope and rope parts) as key_length_mla
           "deepseek2": lambda cfg: {
               "attention.key_length_mla": cfg["qk_nope_head_dim"] + cfg["qk_rope_head_dim"]},
           # Qwen3NextModel (Qwen 3.5's alike): the value heads' inner size
           **dict.fromkeys(("qwen3next", "qwen35", "qwen35moe"), lambda cfg: {
               "ssm.inner_size": cfg["linear_value_head_dim"] * cfg["linear_num_value_heads"]}),
           # GraniteHybridModel: d_inner, and the key/value heads per block (0: Mamba)
           "granitehybrid": lambda cfg: {
               "ssm.inner_size": cfg["mamba_expand"] * cfg["hidden_size"],
               "attention.head_count_kv": [cfg["num_key_value_heads"] if t in (
                   "attention", "full_attention") else 0 for t in cfg["layer_types"]]},
           # JambaModel: d_inner, the key/value heads per block (0: Mamba)
           "jamba": lambda cfg: {
               "ssm.inner_size": cfg["mamba_expand"] * cfg["hidden_size"],
               "attention.head_count_kv": [
                   cfg["num_key_value_heads"] if i >= cfg["attn_layer_offset"] and (
                       i - cfg["attn_layer_offset"]) % cfg["attn_layer_period"] == 0 else 0
                   for i in range(cfg["num_hidden_layers"])]},
           # Gemma3nModel: the key/value-sharing blocks
           "gemma3n": lambda cfg: {"attention.shared_kv_layers": cfg["num_kv_shared_layers"]},
           # Mamba2Model: d_inner, and its heads as time_step_rank
           "mamba2": lambda cfg: {"ssm.inner_size": cfg["num_heads"] * cfg["head_dim"]},
           # FalconModel: feed_forward_length 4 × n_embd; n_head_kv, else 1 (multi-query)
           "falcon": lambda cfg: {
               "feed_forward_length": 4 * cfg["hidden_size"],
               "attention.head_count_kv": cfg["num_kv_heads"] if cfg[
                   "new_decoder_architecture"] else 1 if cfg["multi_query"] else cfg[
                   "num_attention_heads"]}}


def _bert_converter(tensors, cfg: dict) -> list[tuple[str, str, tuple]]:
    """What llama.cpp's BertModel converter (and its DistilBERT, RoBERTa and XLM-RoBERTa
    subclasses: filter_tensors, modify_tensors) writes of a transformers state dict: prefixes
    stripped; position_ids, the pooler and the MLM and next-sentence heads skipped; RoBERTa's
    and XLM-R's first pad_token_id + 1 position rows cut."""
    out = []
    for name, dtype, shape in tensors:
        for prefix in ("bert.", "distilbert.", "roberta."):
            name = name.removeprefix(prefix)
        if name in ("embeddings.position_ids", "pooler.dense.weight", "pooler.dense.bias") or (
                name.startswith(("cls.predictions", "cls.seq_relationship", "vocab_"))):
            continue
        if (name == "embeddings.position_embeddings.weight"
                and cfg["model_type"] in ("roberta", "xlm-roberta")):
            shape = (shape[0] - cfg["pad_token_id"] - 1, *shape[1:])
        out.append((name, dtype, shape))
    return out


def _gguf_name(names, name: str, shape: tuple, cfg: dict, split_kv_b: bool = True
               ) -> list[tuple[str, str, tuple]]:
    """llama.cpp's name for a transformers tensor, as its converter stores it: stacked experts'
    gate_up_proj split into ffn_gate_exps and ffn_up_exps, MLA's kv_b_proj into attn_k_b
    (transposed) and attn_v_b, DeepSeek's router bias renamed first, BLOOM's prefix dropped,
    DBRX's experts reshaped to one slice each."""
    if ".altup_" in name and "projections." in name:  # Gemma 3n's, stacked by llama.cpp
        n = cfg["altup_num_inputs"] - 1
        stem = "altup_unembd_proj" if "unembed" in name else "altup_proj"
        return [(f"{stem}.weight", "F32", (n, *shape))] if ".0.weight" in name else []
    if ".shared_mlp." in name:  # Granite 4.0-H's: ffn_*_shexp beside experts, else ffn_*
        blk, sh = f"blk.{name.split('.')[2]}.ffn_", "_shexp" if cfg.get("num_local_experts") else ""
        if "input_linear" in name:
            return [(f"{blk}{p}{sh}.weight", "F32", (shape[0] // 2, shape[1]))
                    for p in ("gate", "up")]
        return [(f"{blk}down{sh}.weight", "F32", shape)]
    if ".mixer.experts." in name:  # Nemotron-H's, stacked by llama.cpp's converter itself
        return [(f"blk.{name.split('.')[2]}.ffn_{name.rpartition('.')[2][:-5]}_exps.weight",
                 "F32", shape)]
    name = name.replace("block_sparse_moe.experts.", "mlp.experts.")  # Granite MoE's
    if name.endswith("experts.gate_up_proj"):
        e, two_f, d = shape
        blk = names.get_name(name.replace("gate_up_proj", "down_proj")).replace("down", "{}")
        return [(blk.format(p) + ".weight", "F32", (e, two_f // 2, d)) for p in ("gate", "up")]
    if name.endswith("experts.gate_up_proj_bias"):  # gpt-oss
        e, two_f = shape
        blk = names.get_name(name.replace("gate_up_proj_bias", "down_proj")).replace("down", "{}")
        return [(blk.format(p) + ".bias", "F32", (e, two_f // 2)) for p in ("gate", "up")]
    if name.endswith("experts.down_proj_bias"):
        return [(names.get_name(name.replace("down_proj_bias", "down_proj")) + ".bias", "F32",
                 shape)]
    if split_kv_b and name.endswith("self_attn.kv_b_proj.weight"):
        h, nope, v = (cfg["num_attention_heads"], cfg["qk_nope_head_dim"], cfg["v_head_dim"])
        blk = names.get_name(name.replace("kv_b_proj", "k_b_proj"), try_suffixes=(".weight",))
        return [(blk, "F32", (h, shape[1], nope)),
                (blk.replace("attn_k_b", "attn_v_b"), "F32", (h, v, shape[1]))]
    if ".ffn.experts.mlp." in name:  # DBRX's (E·F, D) experts, stored per expert
        e = cfg["ffn_config"]["moe_num_experts"]
        ef, d = shape
        shape = (e, d, ef // e) if name.endswith(".w2") else (e, ef // e, d)
    name = name.replace("e_score_correction_bias", "e_score_correction.bias").replace(
        "mixer.dt_bias", "mixer.dt_proj.bias").replace(".gate.moe_statics.", ".moe_statics.").replace(
        "mamba.dt_bias", "mamba.dt_proj.bias").replace(
        "linear_attn.dt_bias", "linear_attn.dt_proj.bias").replace(
        "block_sparse_moe.router.weight", "block_sparse_moe.router.layer.weight")
    g = names.get_name(name, try_suffixes=(".weight", ".bias"))
    if g is None and name.startswith("transformer."):
        g = names.get_name(name.removeprefix("transformer."), try_suffixes=(".weight", ".bias"))
    if g is None and name.startswith("model."):  # Nemotron-H's hub names: backbone.
        g = names.get_name("backbone." + name.removeprefix("model."),
                           try_suffixes=(".weight", ".bias"))
    if g is not None and name.endswith(("_scale", "layer_scalar")):  # Gemma 3n's, Gemma 4's
        g += ".weight"  # as llama.cpp's converter stores its bare scales
    if g is not None and name.endswith((".weight", ".bias")) and not g.endswith(
            (".weight", ".bias")):
        g += "." + name.rpartition(".")[2]
    return [(g, "F32", shape)]


@pytest.mark.parametrize("case", sorted(_GGUF))
def test_gguf_named_by_llama_cpps_own_map_matches(case, tmp_path, capsys):
    """The tiny transformers model's tensors under the GGUF names llama.cpp's converter gives
    them (gguf's TensorNameMap), written by GGUFWriter: read back through paramcount's table
    (gguf's map inverted, the candidate the family's tree claims kept), every tensor lands on
    its formula leaf. The config is the GGUF metadata's where the table reads them, else the
    config.json beside the file."""
    pytest.importorskip("gguf")  # the checkpoints extra
    import gguf

    from paramcount.analyze.checkpoints.gguf_io import gguf_arch
    from paramcount.analyze.checkpoints.gguf_names import TABLES
    from tests._checkpoints import write_gguf

    arch_id, garch, preset = _GGUF[case]
    arch = registry.get(arch_id)
    if preset is None:
        _, tensors, cfg, hp = _buildable(arch)
    else:
        hp = arch.resolve(arch.preset(preset).hparams)
        tensors, cfg = state(arch, hp)
    names = gguf.get_tensor_name_map(gguf_arch(garch), hp["L"])
    if garch == "bert":
        tensors = _bert_converter(tensors, cfg)
    named = [g for n, _, s in tensors
             for g in _gguf_name(names, n, s, cfg, not case.endswith("_kv_b"))]
    assert any(".attn_kv_b." in n for n, _, _ in named) == case.endswith("_kv_b")
    assert all(n for n, _, _ in named), [t[0] for t in tensors]
    table = TABLES[garch]
    if table.config is None:  # the config beside the file
        (tmp_path / "config.json").write_text(json.dumps(cfg))
        kv = {"block_count": hp["L"]}
    else:  # a lone file: the metadata llama.cpp writes, from the config's keys
        kv = metadata(table, cfg, garch, hp["L"])
    path = write_gguf(tmp_path / "m.gguf", garch, kv, named)
    # llama.cpp converts Mistral as "llama", OLMo 3 as "olmo2": the file reads as the family
    # its metadata name (the same weights)
    named_id = [] if arch_id in ("mistral", "olmo3") else [arch_id]
    assert main(["verify", *named_id, "--checkpoint", str(path)]) == 0, capsys.readouterr()
    if table.config is not None and case not in _ALIASED:  # the metadata alone say which
        capsys.readouterr()
        assert main(["verify", "--checkpoint", str(path)]) == 0, capsys.readouterr()
        assert f"match    {arch_id} " in capsys.readouterr().out


def _bert_gguf(tmp_path, arch_id: str, drop: str = ""):
    import gguf

    from paramcount.analyze.checkpoints.gguf_io import gguf_arch
    from tests._checkpoints import write_gguf

    arch = registry.get(arch_id)
    _, tensors, cfg, hp = _buildable(arch)
    names = gguf.get_tensor_name_map(gguf_arch("bert"), hp["L"])
    named = [g for n, _, s in _bert_converter(tensors, cfg) if n != drop
             for g in _gguf_name(names, n, s, cfg)]
    (tmp_path / "config.json").write_text(json.dumps(cfg))
    return write_gguf(tmp_path / "m.gguf", "bert", {"block_count": hp["L"]}, named), hp, cfg


@pytest.mark.parametrize("arch_id", ["roberta", "xlm_roberta", "bert_masked_lm"])
def test_what_llama_cpps_bert_converter_leaves_out_is_named_terms(arch_id, tmp_path, capsys):
    """The pooler (RoBERTa's a transformers delta), the MLM head and RoBERTa's padding
    position rows: each a term with its reason and delta, the stored count the formula's with
    them applied, nothing unexplained."""
    path, hp, cfg = _bert_gguf(tmp_path, arch_id)
    assert main(["count", "--checkpoint", str(path), "--json"]) == 0
    out = capsys.readouterr().out
    data = json.loads(out[out.index("{\n"):])
    d, n = hp["d_e"], hp["n"]
    mlm = d * d + d + 2 * d + hp["v"]  # transform, its norm, the output bias (decoder tied)
    want = ([("MLM head dropped by the converter", "mlm_head", -mlm)] if arch_id.endswith("lm")
            else [("pooler dropped by the converter", "pooler", -(d * d + d)),
                  ("padding position rows trimmed by the converter", "embeddings.position",
                   -(cfg["pad_token_id"] + 1) * d)])
    assert [(t["term"], t["delta"], t["difference"]) for t in data["terms"]] == want
    assert cfg["max_position_embeddings"] == n + 2 or arch_id.startswith("bert")
    assert "we are only using" not in out and "llama.cpp's converter" in out
    assert data["stored_total"] == data["built"] + sum(w[2] for w in want)
    assert data["unexplained"] == 0 and data["status"] == "match"


def test_a_tensor_the_converter_keeps_is_still_missing_when_absent(tmp_path, capsys):
    path, _, _ = _bert_gguf(tmp_path, "roberta", drop="embeddings.LayerNorm.weight")
    assert main(["verify", "--checkpoint", str(path)]) == 1
    out = capsys.readouterr().out
    assert "MISMATCH roberta" in out and "pooler dropped by the converter" in out


@pytest.mark.parametrize("arch_id", ["bert", "roberta", "xlm_roberta", "distil_bert"])
def test_a_lone_bert_file_says_which_encoder_it_holds(arch_id, tmp_path, capsys):
    """llama.cpp writes all four as bert: the type table and the vocabulary tell them apart,
    and RoBERTa's context length gets its padding rows back, from the metadata alone."""
    import gguf

    from paramcount.analyze.checkpoints.gguf_io import gguf_arch
    from tests._checkpoints import write_gguf

    arch = registry.get(arch_id)
    _, tensors, cfg, hp = _buildable(arch)
    names = gguf.get_tensor_name_map(gguf_arch("bert"), hp["L"])
    named = [g for n, _, s in _bert_converter(tensors, cfg) for g in _gguf_name(names, n, s, cfg)]
    path = write_gguf(tmp_path / "m.gguf", "bert", _bert_meta(cfg), named)
    assert main(["verify", "--checkpoint", str(path)]) == 0
    out = capsys.readouterr().out
    assert f"read {path} (GGUF metadata, " in out and f") as {arch_id}: " in out
    assert "transformers config" not in out  # one description: the file's
    assert f"n={hp['n']}" in out and f"match    {arch_id} " in out


def test_every_family_with_a_transformers_reference_has_a_gguf_check_or_a_reason():
    """paramcount.analyze.checkpoints.coverage against the registry and the cases above: every family
    with a transformers reference (each has a safetensors check,
    test_checkpoints_hf.py's parametrization) has a GGUF case here or a named reason."""
    from paramcount.analyze.checkpoints.coverage import GGUF, NO_GGUF, rows
    from paramcount.analyze.checkpoints.gguf_names import TABLES

    refs = {a for a, x in registry.architectures().items() if x.transformers is not None}
    assert not set(GGUF) & set(NO_GGUF)
    assert refs == set(GGUF) | set(NO_GGUF), sorted(refs ^ (set(GGUF) | set(NO_GGUF)))
    declared = {(a, g) for a, gs in GGUF.items() for g in gs}
    assert {(a, g) for a, g, _ in _GGUF.values()} == declared
    assert {g for _, g in declared} <= set(TABLES) and all(NO_GGUF.values())
    assert [r[0] for r in rows()] == sorted(refs) and not any("neither" in r[2] for r in rows())


def test_deepseek_v32_has_no_llama_cpp_architecture():
    """The reason deepseek_v32 has no GGUF check, as a fact of the gguf package: deepseek2 (the
    architecture V2/V3 convert as) names no indexer tensor; only GLM's glm-dsa does. When gguf
    gains one, this fails, and DeepSeek-V3.2 gets a table."""
    import gguf

    arch = {v: k for k, v in gguf.MODEL_ARCH_NAMES.items()}
    assert not any("INDEXER" in t.name for t in gguf.MODEL_TENSORS[arch["deepseek2"]])
    assert any("INDEXER" in t.name for t in gguf.MODEL_TENSORS[arch["glm-dsa"]])
    assert not any("deepseek" in name and name not in ("deepseek", "deepseek2", "deepseek2-ocr")
                   for name in arch)
