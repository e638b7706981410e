"""What ``derive`` prints is a claim, and each kind is tested here (issue 32, defect 3):

- a field is listed as changing no weight only when a build that varies it (its value read back
  changed) shows the same weights; a field no variation of which builds, or whose every build
  reads it back unchanged (Dory's halved layer counts), is *held* at its value, the formula exact
  there only: the architecture (and so an emitted plugin) refuses any other value in one line;
- the proof line says "all hyperparameters" only where nothing is held;
- an order of the layer counts is stated as a constraint only where a build breaking it alone
  is refused (StableLM's ``num_hidden_layers ≤ num_attention_heads`` was not); where such a
  build builds and differs from the formula, it is the formula's domain, said as such.

Tiny torch builders run in the default run; Dory's and StableLM's derivations are slow."""

from __future__ import annotations

import pytest

from tests._shared import on_torch, torch_side

# --- a config that ties its layer counts and rewrites them (Dory's, in miniature) ------------


def _tied(cfg):
    """Layers a + b of them, which the 'config' insists on (Dory's validator)."""
    from torch import nn

    if cfg["a"] + cfg["b"] != cfg["layers"]:
        raise ValueError("a + b must equal layers")
    return nn.ModuleList(nn.Linear(cfg["hidden"], cfg["hidden"]) for _ in range(cfg["layers"]))


TIED = {"layers": 4, "a": 2, "b": 2, "hidden": 8}


_TIED: list = []  # the derivation, once per torch worker


def _tied_derived():
    from paramcount.analyze.derive.core import derive

    if not _TIED:
        _TIED.append(derive(_tied_source()))
    return _TIED[0]


def _tied_source():
    from paramcount.analyze.derive.probe import Source

    class Halving(Source):
        """Reads every layer count back floored to even (Dory's config halves the counts it is
        given in the released layout): an odd variation builds the base model again."""

        def config(self, overrides):
            cfg = super().config(overrides)
            return {k: (v // 2 * 2 if k in ("layers", "a", "b") else v) for k, v in cfg.items()}

    return Halving(builder=_tied, defaults=TIED, model_type="tied")


@torch_side
def test_a_field_no_variation_of_which_takes_is_held_not_inert():
    from paramcount.output.derive_output import header, proof_line

    d = _tied_derived()
    assert not d.failures
    assert d.inert == ()  # layers + 1 built the base model again: no evidence it changes nothing
    assert d.held == {"a": 2, "b": 2, "layers": 4}
    assert d.fields == {"hidden": 8}
    text = "\n".join(header(d, False, {}))
    assert "change no weight" not in text
    assert "held at 2: a, b (no variation built another model: " in text
    assert "held at 4: layers (" in text
    line = proof_line([{"case": "(all)", "status": "proven", "message": ""}], d)
    assert "all hyperparameters" not in line
    assert "for all values of the others, with a = 2, b = 2, layers = 4 held" in line


@torch_side
def test_a_held_field_is_refused_at_another_value_in_one_line():
    from paramcount.analyze.derive.store import from_json, to_json
    from paramcount.analyze.derive.tree import architecture
    from paramcount.core.errors import ParamcountError

    d = _tied_derived()
    assert from_json(to_json(d)).held == d.held  # as an emitted plugin reads it
    arch = architecture(from_json(to_json(d)), lambda hp: [])
    assert arch.count(arch.resolve({"hidden": 4})) == 4 * (4 * 4 + 4)
    assert arch.resolve({"layers": 4})["layers"] == 4
    with pytest.raises(ParamcountError) as e:
        arch.resolve({"layers": 6})
    assert len(str(e.value).splitlines()) == 1 and "layers" in str(e.value) \
        and "fixed to 4" in str(e.value)


def test_the_proof_line_without_held_fields_says_all_hyperparameters():
    from paramcount.output.derive_output import proof_line

    line = proof_line([{"case": "(all)", "status": "proven", "message": ""}])
    assert "all hyperparameters" in line


# --- the layer counts' order: stated only where a build breaking it is refused -------------


def _per_head(cfg):
    """StableLM's per-head norms in miniature: layers·heads of them, no order between the two."""
    from torch import nn

    return nn.ModuleList(nn.ModuleList(nn.LayerNorm(4) for _ in range(cfg["heads"]))
                         for _ in range(cfg["layers"]))


def _first_dense(cfg):
    """DeepSeek's first k dense layers in miniature: min(k, layers) of them, which the formula
    (k dense, layers − k sparse) counts only where k ≤ layers; above, the build builds."""
    from torch import nn

    class Layer(nn.Module):
        def __init__(self, dense):
            super().__init__()
            if dense:
                self.dense = nn.Linear(cfg["hidden"], 2 * cfg["hidden"], bias=False)
            else:
                self.sparse = nn.Linear(cfg["hidden"], cfg["hidden"], bias=False)

    return nn.ModuleList(Layer(i < cfg["k"]) for i in range(cfg["layers"]))


@torch_side
def test_an_order_no_build_needs_is_no_constraint():
    from paramcount.analyze.derive.core import derive
    from paramcount.analyze.derive.probe import Source

    d = derive(Source(builder=_per_head, defaults={"layers": 2, "heads": 3}, model_type="ph"))
    assert not d.failures
    assert d.fields == {"heads": 3, "layers": 2}
    assert d.constraints == [] and d.domain == []
    assert d.count({"layers": 5, "heads": 2})["trainable"] == 5 * 2 * 8


@torch_side
def test_an_order_beyond_which_builds_differ_is_the_formulas_domain():
    from paramcount.analyze.derive.core import derive
    from paramcount.analyze.derive.probe import Source
    from paramcount.analyze.derive.store import from_json, to_json
    from paramcount.analyze.derive.tree import architecture
    from paramcount.core.errors import ParamcountError
    from paramcount.output.derive_output import header

    d = derive(Source(builder=_first_dense, defaults={"layers": 4, "k": 2, "hidden": 4},
                      model_type="fd"))
    assert not d.failures
    assert d.constraints == [] and d.domain == [("<=", "k", "layers")]
    assert from_json(to_json(d)).domain == d.domain
    text = "\n".join(header(d, False, {}))
    assert "constraints:" not in text
    assert "formula's domain: k <= layers" in text
    with pytest.raises(ParamcountError, match="k"):
        architecture(d, lambda hp: []).resolve({"k": 5})


# --- a tie: stated only where the build shares the weight ------------------------------------


def _parallel(cfg):
    """StableLM's use_parallel_residual in miniature: the flag removes the second norm (of the
    same shape as the first), and ``tie`` ties the head to the embedding."""
    from torch import nn

    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            h = cfg["hidden"]
            self.embed = nn.Embedding(cfg["vocab"], h)
            self.norm1 = nn.LayerNorm(h)
            if not cfg["parallel"]:
                self.norm2 = nn.LayerNorm(h)
            self.head = nn.Linear(h, cfg["vocab"], bias=False)
            if cfg["tie"]:
                self.head.weight = self.embed.weight

    return Model()


@torch_side
def test_a_weight_a_flag_removes_is_tied_only_where_the_build_shares_it():
    from paramcount.analyze.derive.core import derive
    from paramcount.analyze.derive.probe import Source
    from paramcount.analyze.derive.store import from_json, to_json
    from paramcount.analyze.derive.tree import ties, tree

    d = derive(Source(builder=_parallel, model_type="parallel", defaults={
        "hidden": 8, "vocab": 20, "parallel": False, "tie": False}))
    assert not d.failures
    assert ties(d) == {"head.weight": ("embed.weight", ("tie",))}  # not norm2 as norm1
    assert ties(from_json(to_json(d))) == ties(d)
    assert "counted once" not in tree(d).find("norm2").note


# --- the transformers models of the issue (slow: a derivation each) --------------------------

SMALL_DORY = {"model_type": "dory", "architectures": ["DoryForCausalLM"], "vocab_size": 256,
              "hidden_size": 64, "intermediate_size": 128, "num_hidden_layers": 6,
              "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 16,
              "n_input_layers": 2, "n_output_layers": 2}


def _dory(config: dict, overrides: dict) -> tuple:
    """(the derivation's fields, held, inert; its count at ``overrides``, the meta build's)."""
    import math

    from paramcount.analyze.derive.core import derive
    from paramcount.analyze.derive.probe import Source

    src = Source(config=config)
    d = derive(src)
    assert not d.failures, d.failures
    model = src.model(src.config({**d.explicit, **overrides}))
    real = sum(math.prod(p.shape) for p in model.parameters())
    values = {k: v for k, v in overrides.items() if k in d.fields}
    return dict(d.fields), dict(d.held), tuple(d.inert), d.count(values)["trainable"], real


def _released(config: dict) -> dict:
    """``config`` as Dory's released config.json has it (DoryConfig.to_dict: each layer an
    attention block and an mlp block, every layer count doubled)."""
    from transformers import DoryConfig

    out = DoryConfig(**{k: v for k, v in config.items()
                        if k not in ("model_type", "architectures")}).to_dict()
    keep = [*config, "layer_types", "n_recurrent_layers"]
    return {k: out.get(k, config.get(k)) for k in keep}


@pytest.mark.slow
def test_dory_derives_its_depth():
    """The layer counts Dory's validator ties (input + recurrent + output = all): the recurrent
    count left to the config (None, the remainder, as the file leaves it), the depth varies
    alone and is a hyperparameter; the input and output counts change no weight."""
    fields, held, inert, count, real = on_torch(_dory, SMALL_DORY, {"num_hidden_layers": 9})
    assert fields["num_hidden_layers"] == 6 and not held
    assert {"n_input_layers", "n_output_layers"} <= set(inert)
    assert "n_recurrent_layers" not in inert
    assert count == real


@pytest.mark.slow
def test_dory_released_layout_holds_its_layer_counts():
    """The released layout (layer_types of attention and mlp blocks, counts doubled): no
    variation of a layer count builds another model (an odd one is halved to the base), so the
    counts are held, and none is said to change no weight."""
    config = on_torch(_released, SMALL_DORY)
    fields, held, inert, count, real = on_torch(_dory, config, {})
    assert held == {"n_input_layers": 4, "n_output_layers": 4, "n_recurrent_layers": 4,
                    "num_hidden_layers": 12} and not set(held) & set(fields)
    assert not {"num_hidden_layers", "n_input_layers", "n_output_layers",
                "n_recurrent_layers"} & set(inert)
    assert count == real


def _emit_and_count(config: dict, plugin: str, value: int) -> tuple:
    """``derive --emit-plugin`` of ``config``, then ``count`` of the plugin's architecture at
    ``num_hidden_layers = value``: (exit status, stderr)."""
    import contextlib
    import io
    import json
    import os

    from paramcount.cli.main import main
    from paramcount.model import registry

    path = os.path.join(os.path.dirname(plugin), "config.json")
    with open(path, "w") as f:
        json.dump(config, f)
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        assert main(["derive", "--config", path, "--no-prove", "--emit-plugin", plugin]) == 0
        try:
            code = main(["--plugin", plugin, "count", "dory_derived", "--set",
                         f"num_hidden_layers={value}"])
        finally:
            registry.unregister("dory_derived")
    return code, err.getvalue()


@pytest.mark.slow
def test_dory_released_layout_plugin_refuses_another_depth(tmp_path):
    """The plugin emitted from the released layout's derivation counts its depth only: another
    is refused in one line (it counted 36 layers at any depth)."""
    config = on_torch(_released, SMALL_DORY)
    code, err = on_torch(_emit_and_count, config, str(tmp_path / "dory_plugin.py"), 14)
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 1 and "num_hidden_layers" in lines[0] \
        and "fixed to 12 there (got 14)" in lines[0], err


SMALL_STABLELM = {"model_type": "stablelm", "architectures": ["StableLmForCausalLM"],
                  "num_hidden_layers": 3, "hidden_size": 256, "vocab_size": 1000,
                  "intermediate_size": 512, "num_attention_heads": 4, "num_key_value_heads": 2,
                  "tie_word_embeddings": False}


def _stablelm_constraints() -> tuple[list, list]:
    from paramcount.analyze.derive.core import derive
    from paramcount.analyze.derive.probe import Source

    d = derive(Source(config=SMALL_STABLELM))
    assert not d.failures, d.failures
    return d.constraints, d.domain


@pytest.mark.slow
def test_stablelm_states_no_order_of_its_layers_and_heads():
    constraints, domain = on_torch(_stablelm_constraints)
    assert not [c for c in constraints + domain if c[0] == "<="], (constraints, domain)
    assert ("divides", "hidden_size", "num_attention_heads") in constraints


# --- a gap an order's refusals need (Gemma 3n's shared keys and values, in miniature) --------


def _kv_refusal(p) -> str | None:
    """Every third layer attends fully; the last ``shared`` reuse the keys and values of the
    layers before them, which must have every layer type the stack has (Gemma 3n's config)."""
    kinds = ["full" if (i + 1) % 3 == 0 else "sliding" for i in range(p["layers"])]
    if p["shared"] and set(kinds[:p["layers"] - p["shared"]]) != set(kinds):
        return "ValueError: the set of layer types producing a cache is different"
    return None


def test_an_order_whose_refusals_need_a_gap_states_the_gap_as_the_domain():
    from paramcount.analyze.derive.claims import gaps
    from paramcount.analyze.derive.core import Derivation

    class Run:
        builds = 0

        def try_build(self, over):
            self.builds += 1
            return _kv_refusal(over) or {}

    d = Derivation("kv", "KV", {}, {"hidden": 8, "layers": 12, "shared": 4}, (), ())
    d.domain = [("<=", "shared", "layers")]
    refused = [({"hidden": 8, "layers": 4, "shared": 3}, "refused"),  # g = 3: 1 unshared of 4
               ({"hidden": 8, "layers": 2, "shared": 2}, "refused")]  # g = 1: 2 sliding
    gaps(Run(), d, refused, {})
    assert d.domain == [("<=", "shared+3", "layers")] and d.constraints == []
    # a refusal no gap cures (a divisibility) leaves the order as it was
    d = Derivation("kv", "KV", {}, {"hidden": 8, "layers": 12, "shared": 4}, (), ())
    d.constraints = [("<=", "shared", "layers")]

    class Divides(Run):
        def try_build(self, over):
            return "ValueError: 3 divides hidden" if over["hidden"] % 3 else {}

    gaps(Divides(), d, [({"hidden": 8, "layers": 5, "shared": 4}, "refused")], {})
    assert d.constraints == [("<=", "shared", "layers")] and d.domain == []


def test_a_refusal_a_wider_gap_cures_only_by_chance_is_no_gap():
    """Cohere 2's refusals are validate_rope's odd head widths, hidden // heads, above 4: a gap
    between heads and hidden that happens to give an even width builds, and one more does not.
    A gap is the domain only where every wider one builds too (checked at the next two), so the
    order stays a constraint (it was stated as 'heads + 28 <= hidden', which the proof then could
    not parametrize)."""
    from paramcount.analyze.derive.claims import gaps
    from paramcount.analyze.derive.core import Derivation

    class Rope:
        builds = 0

        def try_build(self, over):
            self.builds += 1
            width = over["hidden"] // over["heads"] if over["heads"] else 0
            return "ValueError: odd head_dim" if width > 4 and width % 2 else {}

    d = Derivation("rope", "Rope", {}, {"heads": 4, "hidden": 64, "layers": 2}, (), ())
    d.constraints = [("<=", "heads", "hidden")]
    gaps(Rope(), d, [({"heads": 1, "hidden": 5, "layers": 2}, "refused"),
                     ({"heads": 1, "hidden": 7, "layers": 2}, "refused")], {})
    assert d.constraints == [("<=", "heads", "hidden")] and d.domain == []
    # at 4 heads a gap of 28 to 30 keeps 31's odd width 7 at an even 8: a refusal the recorded
    # divisibility (an even hidden // heads) explains is no gap's
    even = ("divides", "hidden//heads", "2")
    d.constraints = [("<=", "heads", "hidden"), even]
    gaps(Rope(), d, [({"heads": 4, "hidden": 31, "layers": 2}, "refused")], {})
    assert d.constraints == [("<=", "heads", "hidden"), even] and d.domain == []


def test_a_gap_is_a_sum_the_architecture_and_its_proof_space_take():
    from paramcount.analyze.derive.claims import _holds

    assert _holds(("<=", "shared+3", "layers"), {"shared": 2, "layers": 5}, {})
    assert not _holds(("<=", "shared+3", "layers"), {"shared": 3, "layers": 5}, {})



def test_a_constraint_side_parsed_once_reads_each_form():
    """``claims.evaluator`` (a side parsed once: the refusal search asks the same sides at
    millions of points) reads each form a side takes, at two points: a field, one kept at its
    base value, a constant, twice a field or a kept one, a quotient (0 by 0), a product, a sum."""
    from paramcount.analyze.derive.claims import evaluator, value

    kept = {"w": 12}
    expected = {"a": (7, 30), "w": (12, 12), "16": (16, 16), "2*a": (14, 60), "2*w": (24, 24),
                "a//b": (2, 6), "a//c": (0, 7), "a*b": (21, 150), "a+b+w": (22, 47),
                "a//w": (0, 2)}
    points = ({"a": 7, "b": 3, "c": 0}, {"a": 30, "b": 5, "c": 4})
    for x, want in expected.items():
        assert tuple(evaluator(x, kept)(p) for p in points) == want, x
        assert tuple(value(p, x, kept) for p in points) == want, x


# --- a field that changes a weight, which no template of the fit reads (Inkling 2 Loop's) ----


def test_a_field_no_template_reads_is_held_and_its_orders_go():
    """Inkling 2 Loop's loop_layer_index_start was 6 in every build the fit accepted: the formula
    counted the looped layers as end - 6, named start a hyperparameter and drew 'loop_num_passes
    divides loop_layer_index_start' from a build that broke it. Unread, start is held at its
    value; an order that read it alone goes, one that still reads a field stays."""
    from paramcount.analyze.derive.claims import unread
    from paramcount.analyze.derive.core import Derivation
    from paramcount.analyze.derive.templates import Template

    looped = Template("layers.*.w", "trainable", ((1, ("end",)), (-6, ())),
                      (((1, ("hidden",)),), ((1, ("hidden",)),)))
    halved = Template("head.w", "trainable", ((1, ()),), (((1, (("//", "hidden", "2"),)),),))
    d = Derivation(model_type="loop", cls="Loop", versions={},
                   fields={"hidden": 8, "end": 12, "start": 6, "passes": 2, "bias": 1,
                           "window": 4},
                   flags=("bias",), inert=(), templates=[looped, halved],
                   explicit={"hidden": 8, "end": 12, "start": 6, "passes": 2, "bias": 1,
                             "window": 4},
                   constraints=[("divides", "start", "passes"), ("<=", "start", "end"),
                                ("divides", "hidden", "2")],
                   domain=[("<=", "start", "passes")],
                   conditional=[("<=", "2", "start", "bias")])
    # window varied among the accepted builds and no template reads it: the proof varies it
    # too, a hyperparameter still (Dots 3 Note's sliding_window, which the first version held)
    d.steady = {"start", "passes", "bias"}
    unread(d)
    assert d.fields == {"hidden": 8, "end": 12, "bias": 1, "window": 4}  # a flag: never held
    assert d.held == {"passes": 2, "start": 6}
    assert d.unvaried["start"].startswith("changes a weight, but every build the fit accepted "
                                          "kept it at 6")
    assert d.constraints == [("<=", "start", "end"), ("divides", "hidden", "2")]
    assert d.domain == [] and d.conditional == []
    assert d.count({}) == {"trainable": 6 * 64 + 4, "frozen": 0, "buffer": 0}
    from paramcount.analyze.derive.tree import architecture

    arch = architecture(d, reference=lambda *_: None)  # the order reads start's value: 6 ≤ end
    assert [str(c.lhs) for c in arch.constraints if hasattr(c, "lhs")] == ["6"]
    assert {str(s): int(v) for s, v in arch.fixed.items()} == {"passes": 2, "start": 6}


def test_the_held_line_says_the_field_changes_a_weight():
    from paramcount.analyze.derive.core import Derivation
    from paramcount.output.derive_output import header

    d = Derivation(model_type="loop", cls="Loop", versions={}, fields={"hidden": 8}, flags=(),
                   inert=(), explicit={"hidden": 8, "start": 6},
                   unvaried={"start": "changes a weight, but every build the fit accepted kept "
                                      "it at 6: the formula is exact there only"})
    text = "\n".join(header(d, False, {}))
    assert "held at 6: start (changes a weight, but every build" in text
    assert "no variation built another model" not in text
