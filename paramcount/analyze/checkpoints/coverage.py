"""Which checkpoint formats each family with a transformers reference is checked in.

- safetensors: every one (``tests/test_checkpoints_hf.py`` writes each family's checkpoint as
  ``save_pretrained`` does, from a meta-device build, and checks it tensor by tensor);
- GGUF: :data:`GGUF` names the architecture llama.cpp's converter writes the family as
  (``tests/test_checkpoints_gguf_hf.py`` writes that file and reads it back through the table);
  :data:`NO_GGUF` says why a family has no GGUF check.

``tests/test_checkpoints_gguf_hf.py`` holds the two to the registry: a new family with a
transformers reference and neither fails, as does an entry here no test backs.
"""

from __future__ import annotations

__all__ = ["GGUF", "NO_GGUF", "rows"]

# family id → the GGUF architectures (general.architecture) llama.cpp writes it as
GGUF: dict[str, tuple[str, ...]] = {
    "llama": ("llama",), "llama3": ("llama",), "mistral": ("llama",), "mixtral": ("llama",),
    "qwen": ("qwen2",), "qwen3": ("qwen3",), "qwen_moe": ("qwen2moe",), "qwen3_moe": ("qwen3moe",),
    "qwen3_next": ("qwen3next",), "qwen3_5": ("qwen35",), "qwen3_5_moe": ("qwen35moe",),
    "gemma": ("gemma", "gemma2"), "gemma3": ("gemma3",), "gemma3_embedding": ("gemma-embedding",),
    "gemma3n": ("gemma3n",), "gemma4": ("gemma4",), "phi": ("phi2",), "phi3": ("phi3",),
    "phimoe": ("phimoe",), "gpt2_causal_lm": ("gpt2",), "gpt_j": ("gptj",),
    "gpt_neo_x": ("gptneox",), "bloom": ("bloom",), "falcon_parallel": ("falcon",),
    "falcon_h1": ("falcon-h1",), "olmo2": ("olmo2",), "olmo3": ("olmo2",), "olmoe": ("olmoe",),
    "granite": ("granite",), "granitemoe": ("granitemoe",), "granitemoehybrid": ("granitehybrid",),
    "cohere": ("command-r",), "cohere2": ("cohere2",), "deepseek_v2": ("deepseek2",),
    "deepseek_v3": ("deepseek2",), "mamba": ("mamba",), "mamba2": ("mamba2",),
    "smollm3": ("smollm3",), "gpt_oss": ("gpt-oss",), "glm4_moe": ("glm4moe",),
    "llama4_text": ("llama4",), "starcoder2": ("starcoder2",), "ernie4_5": ("ernie4_5",),
    "ernie4_5_moe": ("ernie4_5-moe",), "minimax_m2": ("minimax-m2",), "dbrx": ("dbrx",),
    "jamba": ("jamba",), "nemotron_h": ("nemotron_h", "nemotron_h_moe"), "t5": ("t5",),
    "bert": ("bert",), "bert_masked_lm": ("bert",), "roberta": ("bert",), "xlm_roberta": ("bert",),
    "distil_bert": ("bert",), "distil_bert_masked_lm": ("bert",),
}

_NO_ARCH = "llama.cpp has no architecture for it (gguf declares none)"
_MMPROJ = ("llama.cpp splits it in two files: the text model (a GGUF of its language model's "
           "architecture) and the vision tower as a separate mmproj file (clip), which no table "
           "reads")
_NOT_REGISTERED = ("llama.cpp's converter does not take this class ({}); it converts the base "
                   "model, which is checked")

# family id → why no GGUF of it is checked
NO_GGUF: dict[str, str] = {
    "albert": _NO_ARCH, "albert_masked_lm": _NO_ARCH, "bart": _NO_ARCH, "deberta_v3": _NO_ARCH,
    "electra": _NO_ARCH, "esm": _NO_ARCH, "f_net": _NO_ARCH, "gpt_neo": _NO_ARCH,
    "opt": _NO_ARCH, "t5gemma": _NO_ARCH, "t5gemma2": _NO_ARCH, "xlnet": _NO_ARCH,
    "zamba2": _NO_ARCH, "vit": _NO_ARCH + "; an image encoder", "moonshine": _NO_ARCH,
    "whisper": _NO_ARCH + " (whisper.cpp keeps its own format)",
    "gemma3_vision": _MMPROJ, "pali_gemma": _MMPROJ,
    "bert_pretraining": _NOT_REGISTERED.format("BertForPreTraining"),
    "roberta_masked_lm": _NOT_REGISTERED.format("RobertaForMaskedLM"),
    "xlm_roberta_masked_lm": _NOT_REGISTERED.format("XLMRobertaForMaskedLM"),
    "gpt2": "GPT2Model is GPT-2 without its head, which is the tied embedding: its GGUF is the "
            "one gpt2_causal_lm's check writes (llama.cpp's gpt2 stores no separate head)",
    "falcon": "KerasHub's Falcon-RW layout (a sequential block, post_attention_layernorm): "
              "llama.cpp's falcon is the parallel block, checked as falcon_parallel",
    "deepseek_v32": "llama.cpp has no DeepSeek-V3.2 architecture: the gguf package's deepseek2 "
                    "names no indexer tensor (DeepSeek Sparse Attention's indexer is named only "
                    "under GLM's glm-dsa), so a V3.2 GGUF cannot store the model this formula counts",
}


def rows() -> list[tuple[str, str, str]]:
    """(family id, safetensors, GGUF) for every family with a transformers reference."""
    from paramcount.model import registry

    out = []
    for arch_id, arch in sorted(registry.architectures().items()):
        if arch.transformers is None:
            continue
        gguf = ", ".join(f"`{g}`" for g in GGUF[arch_id]) if arch_id in GGUF else (
            f"none: {NO_GGUF[arch_id]}" if arch_id in NO_GGUF else "**neither**")
        out.append((arch_id, "checked", gguf))
    return out
