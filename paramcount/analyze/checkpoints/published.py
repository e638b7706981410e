"""Published checkpoints whose full-size headers the tests write (``tests/configs/<file>``, the
names as the published safetensors store them) and the figure the Hugging Face Hub shows for
each: the sum of the shapes in its safetensors headers."""

from __future__ import annotations

__all__ = ["PUBLISHED"]

# config file in tests/configs → (Hub repository, the Hub's safetensors total, stored layout,
# the stored-versus-built terms that explain the Hub figure: (term, elements))
PUBLISHED: dict[str, tuple[str, int, str, tuple[tuple[str, int], ...]]] = {
    "llama-3.1-405b.json": ("meta-llama/Llama-3.1-405B", 405_853_388_800, "dense", ()),
    "llama-2-70b-hf.json": ("meta-llama/Llama-2-70b-hf", 68_976_648_192, "dense", ()),
    "meta-llama-3-8b.json": ("meta-llama/Meta-Llama-3-8B", 8_030_261_248, "dense", ()),
    "mixtral-8x7b-v0.1.json": ("mistralai/Mixtral-8x7B-v0.1", 46_702_792_704,
                               "one tensor per expert (w1, w3, w2)", ()),
    "qwen3-30b-a3b.json": ("Qwen/Qwen3-30B-A3B", 30_532_122_624,
                           "one tensor per expert (gate_proj, up_proj, down_proj)", ()),
    "qwen2.5-7b.json": ("Qwen/Qwen2.5-7B", 7_615_616_512, "dense", ()),
    "gemma-2-9b.json": ("google/gemma-2-9b", 9_241_705_984, "dense, head tied (stored once)", ()),
    # DeepSeek-V3 stores its multi-token-prediction module as layer 61 (the config's model stops
    # at 61 layers) and FP8 weights with a 128 × 128-block scale beside each: the Hub's 685B.
    "deepseek-v3.json": ("deepseek-ai/DeepSeek-V3", 684_531_386_000,
                         "FP8 with block scales, one tensor per expert, MTP module as layer 61",
                         (("FP8 block scales", 41_540_496),
                          ("multi-token-prediction layers", 13_463_426_304))),
    # GPT-2's safetensors (names without the transformer. prefix) store each block's causal
    # mask buffer attn.bias, 1 × 1 × 1024 × 1024: the Hub shows 137M for a 124M model.
    "gpt2.json": ("openai-community/gpt2", 137_022_720,
                  "no transformer. prefix, head tied (stored once), attn.bias mask buffers",
                  (("attention mask buffers", 12 * 1024 * 1024),)),
}
