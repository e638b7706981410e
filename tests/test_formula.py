"""The formula tree and the weight-to-component attribution."""

from __future__ import annotations

import pytest
import sympy

from paramcount.analyze.verify import Weight, compare
from paramcount.core.formula import group, leaf, zero
from paramcount.core.symbols import L, M, d_e, d_k, d_v
from paramcount.model import components as C
from paramcount.model import registry


def test_attention_tree_sums_to_the_papers_closed_form():
    tree = C.attention()
    assert sympy.expand(tree.total() - C.paper_attention_total()) == 0


def test_grouped_query_attention_reduces_key_and_value():
    M_kv = sympy.Symbol("M_kv", integer=True, positive=True)
    tree = C.attention(kv_heads=M_kv, bias=0)
    assert sympy.expand(tree.total() - (2 * M * d_e * d_k + 2 * M_kv * d_e * d_k)).subs(d_v, d_k) == 0


def test_times_multiplies_and_breakdown_nests():
    t = group("m", leaf("a", d_e, match="a"), group("b", leaf("c", 2, match="c"), times=L))
    assert t.total() == d_e + 2 * L
    assert t.breakdown({d_e: 5, L: 3}) == {"a": 5, "b": {"c": 6}}
    assert [lf.path for lf in t.leaves()] == ["m.a", "m.b.c"]


def test_zero_terms_keep_their_reason():
    z = C.sinusoidal_positions()
    assert z.total() == 0 and "not learned" in z.note


def test_term_validation():
    with pytest.raises(ValueError, match="duplicate"):
        group("g", leaf("a", 1), leaf("a", 2))
    with pytest.raises(ValueError, match=r"'\.'"):
        leaf("a.b", 1)


def test_match_is_by_whole_path_segments():
    t = group("m", group("blk", leaf("q", 1, match="query"), match=r"layer_\d+"))
    (lf,) = t.leaves()
    assert lf.claims("layer_3/query/kernel")
    assert not lf.claims("layer_3/query_norm/kernel")  # a segment prefix is not a match
    assert not lf.claims("other/query/kernel")  # the ancestor's match is required too


def test_replace_removes_and_swaps():
    arch = registry.get("gpt2")
    smaller = arch.formula.replace("blocks.norm_2", None)
    assert sympy.expand(arch.total() - smaller.total()) == 2 * L * d_e
    swapped = arch.formula.replace("final_norm", zero("final_norm", "none"))
    assert sympy.expand(arch.total() - swapped.total()) == 2 * d_e


def _weights(**sizes):
    return [Weight(p, s, True, (s,)) for p, s in sizes.items()]


def test_compare_reports_unclaimed_contested_and_component_differences():
    arch = registry.get("gpt2")
    hp = arch.resolve(dict(v=10, n=4, d_e=8, M=2, d_f=16, L=1))
    # A model missing the final norm and carrying a stray weight.
    good = compare(arch, hp, _real_weights(arch, hp))
    assert good.ok
    weights = [w for w in _real_weights(arch, hp) if not w.path.startswith("layer_norm/")]
    weights.append(Weight("stray/kernel", 7, True, (7,)))
    bad = compare(arch, hp, weights)
    assert not bad.ok
    text = "\n".join(bad.mismatches())
    assert "final_norm: formula 16, Keras 0 (-16)" in text
    assert "unclaimed Keras weight stray/kernel" in text
    assert bad.difference == 7 - 16


def test_compare_flags_a_weight_claimed_twice():
    from paramcount.model.registry import Architecture

    f = group("x", leaf("a", d_e, match="w"), leaf("b", 0, match="w"))
    arch = Architecture(id="twice", title="t", source="s", formula=f, required=(d_e,),
                        reference="none:none", counting="c")
    res = compare(arch, {"d_e": 3}, [Weight("w/kernel", 3, True, (3,))])
    assert not res.ok
    assert any("claimed by several components: x.a, x.b" in m for m in res.mismatches())


def test_nontrainable_weights_are_counted_apart():
    from paramcount.model.registry import Architecture

    f = group("x", leaf("a", d_e, match="w"))
    arch = Architecture(id="nt", title="t", source="s", formula=f, required=(d_e,),
                        reference="none:none", counting="c")
    res = compare(arch, {"d_e": 3}, [Weight("w/kernel", 3, False, (3,))])
    assert not res.ok
    assert res.reference == 0 and res.reference_nontrainable == 3
    # the former names (README's pytest fixture returns a Verification): read, with a warning
    with pytest.warns(DeprecationWarning):
        assert (res.keras, res.keras_nontrainable) == (0, 3)


def _real_weights(arch, hp):
    from paramcount.analyze.verify import build_reference, keras_weights

    return keras_weights(build_reference(arch, hp))


def test_registered_formulas_use_only_declared_symbols():
    for arch in registry.architectures().values():
        declared = set(arch.required) | set(arch.optional) | set(arch.fixed)
        assert arch.formula.free_symbols() <= declared


def test_latex_hooks():
    arch = registry.get("gpt2")
    assert arch.formula._repr_latex_().startswith("$\\displaystyle N_{\\mathrm{gpt2}} = ")
    assert sympy.latex(arch.formula) == sympy.latex(arch.total())


def test_public_surface_counts_without_tensorflow():
    import subprocess
    import sys

    code = ("import sys, paramcount; "
            "assert paramcount.count('gpt2', preset='gpt2_base_en') == 124_439_808; "
            "assert paramcount.count('gpt2', {'L': 1}, preset='gpt2_base_en') < 124_439_808; "
            "assert 'tensorflow' not in sys.modules and 'keras' not in sys.modules")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr


def test_pytest_plugin_import_stays_light():
    import subprocess
    import sys

    code = ("import sys, paramcount.pytest_plugin; "
            "assert 'sympy' not in sys.modules and 'tensorflow' not in sys.modules")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr


def _exact_against_sympy(arch_id: str, sets) -> int:
    """Every leaf, group sum and total of the tree evaluated by the generated exact Python
    (formula.to_int) and by SymPy's substitution alone: the same integers."""
    from paramcount.core.formula import _exact, sympy_int, to_int

    arch = registry.get(arch_id)
    exprs = [lf.expr for lf in arch.formula.leaves()]
    exprs += [t.per_instance() for _, _, t in arch.formula.walk()]
    exprs += [arch.formula.trainable_total(True), arch.formula.trainable_total(False),
              arch.formula.active_total()]
    checked = 0
    for hs in sets:
        values = arch.values(hs.hparams)
        for e in exprs:
            assert to_int(e, values) == sympy_int(e, values), (arch_id, hs.name, e)
            checked += _exact(e) is not None
    return checked


@pytest.mark.parametrize("arch_id", sorted(registry.architectures()))
def test_exact_python_evaluation_equals_sympy(arch_id):
    """to_int's fast path (paramcount.core.exact) is held to SymPy, one set per architecture here;
    every set with --runslow (test_exact_python_evaluation_equals_sympy_at_every_set)."""
    assert _exact_against_sympy(arch_id, registry.get(arch_id).hparam_sets()[:1]) > 0


@pytest.mark.slow
@pytest.mark.parametrize("arch_id", sorted(registry.architectures()))
def test_exact_python_evaluation_equals_sympy_at_every_set(arch_id):
    assert _exact_against_sympy(arch_id, registry.get(arch_id).hparam_sets()) > 0


def test_exact_python_defers_to_sympy_where_it_cannot_say():
    """A non-integer value, a missing symbol, a division by zero: SymPy's own answer or error."""
    from paramcount.core.formula import to_int

    with pytest.raises(ValueError, match="not an integer"):
        to_int(d_e / M, {d_e: 3, M: 2})
    with pytest.raises(ValueError, match="no value for M"):
        to_int(d_e / M, {d_e: 3})
    with pytest.raises(ValueError, match="not an integer"):
        to_int(d_e / M, {d_e: 3, M: 0})
    assert to_int(sympy.floor(d_e / M) * L + sympy.Rational(1, 2) * M, {d_e: 7, M: 2, L: 3}) == 10
    assert to_int(sympy.Max(d_e, M), {d_e: 7, M: 2}) == 7  # no exact code for Max: SymPy's


@pytest.mark.parametrize("arch_id", sorted(registry.architectures()))
def test_defaults_and_constraints_by_exact_python_equal_sympy(arch_id):
    """hparams._val's fast path against SymPy's substitution, at the first set and with a
    symbol missing (SymPy's partial result either way)."""
    from paramcount.core.hparams import _sympy_val, _val

    arch = registry.get(arch_id)
    values = arch.values(arch.hparam_sets()[0].hparams)
    exprs = [*arch.optional.values(), *arch.fixed.values()]
    for c in arch.constraints:
        exprs += [sympy.sympify(v) for v in vars(c).values() if isinstance(v, sympy.Basic)]
    for e in exprs:
        assert _val(e, values) == _sympy_val(e, values), (arch_id, e)
        for s in sympy.sympify(e).free_symbols:
            partial = {k: v for k, v in values.items() if k != s}
            assert _val(e, partial) == _sympy_val(e, partial), (arch_id, e, s)


def test_a_term_at_two_places_of_a_tree_counts_at_each():
    """One Term object may sit at several places (a block reused by an MTP module): the
    breakdown reads each place's own count (it once read the last place's for both)."""
    shared = leaf("w", d_e)
    t = group("root", group("a", shared, times=L), group("b", shared))
    assert t.breakdown({d_e: 5, L: 3}) == {"a": {"w": 15}, "b": {"w": 5}}
