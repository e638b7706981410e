"""The rest of the frontier (issue 20 §5), hand-written: MiniMax-M2, OLMo 3, Granite 3 MoE,
StarCoder2, Cohere 2, GPT-Neo, DBRX, ERNIE 4.5 dense and MoE. Each published config reads as what
transformers builds, the model cards' figures come out of the formulas (the active counts of the
MoE families as named terms), and the formula + deltas equal transformers' build (slow: proven
for all hyperparameters)."""

from __future__ import annotations

import pytest

from paramcount import registry
from tests.test_frontier import CONFIGS, _count, _values

# file → (architecture read, transformers' count of the class the file names). The files are the
# published config.json values, hand-written (auto_map and quantization_config left out: they
# change no count).
PUBLISHED = {
    # MiniMaxAI/MiniMax-M2 and MiniMax-M2.1 config.json: "230B total" on the cards (228.7B)
    "minimax-m2.json": ("minimax_m2", 228_689_748_992),
    "minimax-m2.1.json": ("minimax_m2", 228_689_748_992),
    # allenai/Olmo-3-1025-7B and Olmo-3-1125-32B config.json: "7B" (7.3B) and "32B" (32.2B)
    "olmo-3-1025-7b.json": ("olmo3", 7_298_011_136),
    "olmo-3-1125-32b.json": ("olmo3", 32_233_522_176),
}


@pytest.mark.parametrize("name", sorted(PUBLISHED))
def test_published_config_counts_as_transformers_builds_it(capsys, name):
    arch, total = PUBLISHED[name]
    data = _count(capsys, "--config", str(CONFIGS / name))
    assert data["arch"] == arch and data["total"] == total
    assert data["framework"] == "transformers"


def _active(arch_id: str, preset: str) -> tuple[int, int]:
    """(active per token, the token table's size) at a preset, as transformers builds it."""
    arch, values = _values(arch_id, preset, "transformers")
    active = int(arch.formula.active_total().subs(values))
    return active, int(arch.formula.find("embeddings.token").total().subs(values))


def test_minimax_m2_10b_activated_leaves_out_the_token_table_and_head():
    """MiniMax-M2's "10B activated": 8 of the 256 experts in each of the 62 blocks, attention
    and norms once; 11.0B with the token table and the (untied) LM head, 9.8B without them. The
    router's score-correction bias is a buffer: one per expert per block, not trained."""
    active, table = _active("minimax_m2", "minimax_m2")
    assert active == 11_030_537_216 and active - 2 * table == 9_801_344_000
    arch, values = _values("minimax_m2", "minimax_m2", "transformers")
    assert int(arch.formula.trainable_total(False).subs(values)) == 256 * 62


def test_olmo3_is_olmo2s_formula():
    """OLMo 3 changes which blocks attend through a window, not a weight: OLMo 2's count at
    the same values."""
    hp = registry.get("olmo3").preset("olmo3_1025_7b").hparams
    o2, o3 = registry.get("olmo2"), registry.get("olmo3")
    assert o3.count(o3.resolve(hp)) == o2.count(o2.resolve(hp)) == 7_298_011_136


REST = ["minimax_m2", "olmo3"]


@pytest.mark.parametrize("arch_id", REST)
def test_checked_by_transformers_only(arch_id):
    assert registry.get(arch_id).checked_by == ("transformers",)


@pytest.mark.slow
@pytest.mark.parametrize("arch_id", REST)
def test_formula_with_deltas_is_proven_against_transformers(arch_id):
    from paramcount.prove import transformers as hf_prove

    result = hf_prove.prove(registry.get(arch_id))
    assert result.status == "proven", result
