"""Llama's checkpoints: GGUF ``llama`` (which Mistral, Llama 3 and Mixtral convert as too: an
``expert_count`` in the metadata makes it Mixtral's config), and the published Llama headers
the tests write."""

from __future__ import annotations

from paramcount.model.checkpoint_tables import EXPERTS
from paramcount.model.checkpoint_tables import GGUFTable

GGUF = {"llama": ("llama",)}
GGUF_TABLES = {"llama": GGUFTable("llama", "LlamaForCausalLM", fuse=EXPERTS,
                                  moe=("mixtral", "MixtralForCausalLM"))}

# config file in tests/configs → (Hub repository, the Hub's safetensors total, stored layout,
# the stored-versus-built terms that explain the Hub figure: (term, elements))
PUBLISHED = {
    "llama-3.1-405b.json": ("meta-llama/Llama-3.1-405B", 405_853_388_800, "dense", ()),
    "llama-2-70b-hf.json": ("meta-llama/Llama-2-70b-hf", 68_976_648_192, "dense", ()),
    "meta-llama-3-8b.json": ("meta-llama/Meta-Llama-3-8B", 8_030_261_248, "dense", ()),
}
