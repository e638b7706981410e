"""A layer count a flag needs more of (issue 32): Zamba ties every hybrid layer's shared block to
the first one's only where tie_word_embeddings is set, and transformers refuses that tie's
pattern where it names no other hybrid layer, so a tied build needs two hybrid layers. Derive
states it as an order that holds only where the flag is set (``2 <= hybrid when tie = 1``), and
the proof draws within it; untied, one hybrid layer builds and is proven too."""

from __future__ import annotations

import pytest

from tests._shared import torch_side


def _tied_pair(cfg):
    """``layers`` plain layers, ``hybrid`` more, and with ``tie`` a head; tied, one hybrid layer
    is refused (Zamba's tie regex, in miniature)."""
    from torch import nn

    if cfg["tie"] and cfg["hybrid"] == 1:
        raise ValueError("the tie's pattern names no other shared layer")
    mods = [nn.Linear(cfg["hidden"], cfg["hidden"]) for _ in range(cfg["layers"] + cfg["hybrid"])]
    if cfg["tie"]:
        mods.append(nn.Linear(cfg["hidden"], 3, bias=False))
    return nn.ModuleList(mods)


_DERIVED: list = []  # the derivation, once per torch worker


def _derived():
    from paramcount.analyze.derive.core import derive
    from paramcount.analyze.derive.probe import Source

    if not _DERIVED:
        src = Source(builder=_tied_pair, defaults={"layers": 3, "hybrid": 2, "tie": True,
                                                   "hidden": 4}, model_type="tp")
        _DERIVED.append((derive(src), src))
    return _DERIVED[0]


@torch_side
def test_a_layer_count_a_flag_needs_more_of_is_an_order_where_the_flag_is_set():
    from paramcount.analyze.derive.store import from_json, to_json
    from paramcount.analyze.derive.tree import architecture
    from paramcount.core.errors import ParamcountError
    from paramcount.output.derive_output import header

    d, _ = _derived()
    assert not d.failures
    assert d.conditional == [("<=", "2", "hybrid", "tie")]
    assert from_json(to_json(d)).conditional == d.conditional
    assert "2 <= hybrid when tie = 1" in "\n".join(header(d, False, {}))
    arch = architecture(d, lambda hp: [])
    arch.resolve({"hybrid": 1, "tie": 0})  # untied, one hybrid layer builds
    with pytest.raises(ParamcountError, match="hybrid"):  # tied, one is refused
        arch.resolve({"hybrid": 1, "tie": 1})


@pytest.mark.slow
@torch_side
def test_a_formula_with_an_order_where_a_flag_is_set_proves_within_it():
    """Without the order, the proof's tied case drew one hybrid layer, whose build raised."""
    from paramcount.analyze.derive.proof import prove_derivation

    d, src = _derived()
    proof = prove_derivation(d, src)
    assert [c.status for c in proof.cases] == ["proven"] * len(proof.cases), proof.cases
