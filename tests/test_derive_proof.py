"""Derived formulas on their way to a proof: the tree of a derivation whose dimensions mix fields
and floors, refusals recorded as constraints, and layer counts that are floors of a field."""

from __future__ import annotations

from paramcount.derive.core import Derivation, Template


def _derivation(**templates) -> Derivation:
    d = Derivation("mixed", "Mixed", {}, {"hidden": 64, "heads": 4, "vocab": 100, "tie": 0},
                   ("tie",), ())
    d.templates = [Template(name, "trainable", mult, dims)
                   for name, (mult, dims) in templates.items()]
    return d


def test_tree_of_dimensions_that_mix_fields_and_floors():
    """Cohere's, RecurrentGemma's and X-MOD's trees: a template whose dimensions are a field and
    a floor (hidden · hidden // heads) beside a tied head; comparing shapes compared a field's
    name with a floor atom (TypeError: '<' not supported between 'tuple' and 'str')."""
    from paramcount.derive.tree import ties, tree

    one = ((1, ()),)
    hidden, vocab = ((1, ("hidden",)),), ((1, ("vocab",)),)
    per_head = ((1, (("floor", "hidden", "heads"),)),)
    d = _derivation(**{"embed.weight": (one, (vocab, hidden)),
                       "head.weight": (((1, ()), (-1, ("tie",))), (vocab, hidden)),
                       "proj.weight": (one, (hidden, per_head)),
                       "gate.weight": (one, (per_head, hidden))})
    assert ties(d) == {"head.weight": ("embed.weight", ("tie",))}
    from paramcount.derive.tree import field_symbols

    syms = field_symbols(d)
    at = {syms["hidden"]: 64, syms["heads"]: 4, syms["vocab"]: 100}
    assert tree(d).evaluate({**at, syms["tie"]: 0}) == 2 * 100 * 64 + 2 * 64 * 16
    assert tree(d).evaluate({**at, syms["tie"]: 1}) == 100 * 64 + 2 * 64 * 16
