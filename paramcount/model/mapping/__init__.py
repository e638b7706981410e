"""One table per family: paramcount symbol ↔ KerasHub constructor argument ↔ HF config key.

A family declares its correspondence once, as a :class:`Table` of :class:`Field` rows, and the
table is read both ways:

- forward, hyperparameters → framework arguments: the Keras reference builders take their
  constructor arguments from :meth:`Table.keras_kwargs`, the transformers references their config
  from :meth:`Table.hf_config`;
- backward, a configuration file → hyperparameters: :mod:`paramcount.analyze.configs` reads a Hugging Face
  ``config.json`` with :meth:`Table.from_hf` and a KerasHub preset's ``config.json`` with
  :meth:`Table.from_keras`.

Transforms are small and declared: a scale (KerasHub Gemma's ``intermediate_dim`` is 2·d_f), a
flag held as a bool (``tie_word_embeddings``), the default a framework uses when a key is absent
or null (HF's ``num_key_value_heads`` defaults to the query heads, GPT-2's ``n_inner`` to 4·d_e).
Options the formula cannot represent are :class:`Require` rows: a config that sets them otherwise
is refused, naming the key, rather than counted wrongly.

Nothing here imports a framework: ``count --config`` stays as light as ``count``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

import sympy

from paramcount.core import restrictions as restrict
from paramcount.core import symbols
from paramcount.core.errors import InputFileError
from paramcount.model.mapping.fields import Field, Require
from paramcount.model.mapping.values import (
    count_kinds,
    get_key,
    has_key,
    nest,
    out_value,
    read_value,
    show,
    uniform,
    unread,
)

__all__ = ["HF_GENERIC_KEYS", "KERAS_GENERIC_KEYS", "Field", "Reading", "Require", "Table"]

# Keys of every HF config that never change a parameter count (tokens, dtype, generation,
# bookkeeping). A family lists its own harmless keys in ``Table.free``.
HF_GENERIC_KEYS = frozenset({
    "architectures", "model_type", "transformers_version", "torch_dtype", "dtype",
    "bos_token_id", "eos_token_id", "pad_token_id", "sep_token_id", "decoder_start_token_id",
    "use_cache", "initializer_range", "return_dict", "output_attentions", "output_hidden_states",
    "id2label", "label2id", "problem_type", "task_specific_params", "tokenizer_class",
    "prefix", "finetuning_task", "auto_map", "quantization_config", "gradient_checkpointing",
    "max_length", "num_beams", "temperature", "top_k", "top_p", "do_sample",
})
# Keys of every Keras layer config (``Backbone.get_config()``) that change no count.
# Also the bookkeeping of a nested serialized object (Gemma3Backbone's vision_encoder).
KERAS_GENERIC_KEYS = frozenset({"name", "trainable", "dtype", "module", "class_name",
                                "registered_name", "build_config", "compile_config"})


@dataclass(frozen=True)
class Reading:
    """What a config reader made of a file: the architecture, its hyperparameters, and the keys
    it did not read (shown to the user, never silently dropped)."""

    arch: str
    hparams: dict[str, int]
    source: str  # "transformers config" or "KerasHub config"
    cls: str  # the class the file names (LlamaForCausalLM, LlamaBackbone)
    ignored: tuple[str, ...] = ()
    where: str = ""  # the file read
    quantization: object = None  # what its quantization_config declares (paramcount.model.quantization)
    # The fields that change no weight but a cost (a window's sliding_window), as the file has
    # them: read with the transformers class's defaults by paramcount.analyze.costs.
    costs: tuple[tuple[str, int | None], ...] = ()
    # why the family's table read a model type of its own (paramcount.analyze.hf_types): "sarvam_mla
    # is built by DeepseekV3ForCausalLM"; "" when the table's model type is the file's
    via: str = ""
    # the keys the table reads that the file leaves out, at its config class's declared defaults
    # (paramcount.analyze.hf_defaults), as transformers builds them: (key, value)
    defaulted: tuple[tuple[str, object], ...] = ()
    # the keys the file gives that the family's table reads otherwise, as transformers builds
    # them (its ``hf_normalize``: Zamba 2's num_mem_blocks past its hybrid layers, of which
    # only as many blocks are built): (key, the file's value, the value read)
    reread: tuple[tuple[str, object, object], ...] = ()


@dataclass(frozen=True)
class Table:
    """A family's correspondence, declared once.

    Args:
        fields: tuple of Field.
        model_type: str or None. The HF ``model_type`` of the family.
        hf_classes: mapping HF class name → architecture id (``LlamaForCausalLM`` → Llama's id).
            The first class that names an id is the class its transformers reference builds.
        keras_classes: mapping KerasHub class name → architecture id (``LlamaBackbone``).
        hf_builds: mapping architecture id → HF class, for ids checked against a class whose
            configs read as another id.
        hf_constants: config keys the transformers reference always sets (to the value the
            formula assumes: ``attention_bias=False``); a value may be a function of the resolved
            hyperparameters, as in ``keras_constants`` (Qwen MoE's ``mlp_only_layers``: the
            first L − L_moe blocks).
        keras_constants: constructor arguments the Keras reference always passes, that no
            symbol gives but the constructor requires (SmolLM3's ``rope_theta``); a value may be a
            function of the resolved hyperparameters (a per-layer list of length L). List their
            keys in ``free`` (or ``requires``) for the reader.
        requires: tuple of Require. Options the formula cannot represent otherwise.
        free: keys known to change no count (``rope_theta``, dropouts, epsilons).
    """

    fields: tuple[Field, ...]
    model_type: str | None = None
    hf_classes: Mapping[str, str] = field(default_factory=dict)
    keras_classes: Mapping[str, str] = field(default_factory=dict)
    hf_constants: Mapping[str, object] = field(default_factory=restrict.DerivedMap)
    keras_constants: Mapping[str, object] = field(default_factory=restrict.DerivedMap)
    requires: tuple[Require, ...] = field(default_factory=restrict.Derived)
    # The family's restrictions (paramcount.core.restrictions): ``requires``, ``hf_constants`` and
    # ``keras_constants`` derive from its Requires and Sets rows.
    restrictions: tuple[restrict.Restriction, ...] = field(default=(), compare=False, repr=False)
    free: frozenset[str] = frozenset()
    # Architecture id → HF class it is checked against without being what a config of that class
    # reads as (Llama 3 is built by LlamaForCausalLM, whose configs read as Llama's id).
    hf_builds: Mapping[str, str] = field(default_factory=dict)
    # A config as transformers reads it → the keys the fields read, for a family whose keys
    # decide each other (Falcon-7B's multi_query means one key/value head); None: as it is.
    hf_normalize: Callable[[Mapping], Mapping] | None = None
    # The same for a KerasHub config (Gemma 4's layer_types, when null, follow
    # sliding_window_pattern).
    keras_normalize: Callable[[Mapping], Mapping] | None = None
    # A transformers config → fields of it that change a cost and no weight, beyond the class's
    # ``cost_config`` (key, value) pairs read by paramcount.analyze.costs.config_problem: where
    # the class reads a cost field otherwise than the file gives it (Gemma 3's bidirectional
    # config halves its sliding_window); read after ``cost_config``. Not
    # declared data of a proof (compare=False): it says what a file is, not what is proven.
    hf_cost_reading: Callable[[Mapping], tuple] | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        self.__dict__.update(restrict.table(self, Require))  # frozen: derived attributes set directly
        for f in self.fields:
            symbols.info(f.symbol)  # every symbol must be in the vocabulary
        object.__setattr__(self, "free", frozenset(self.free))

    # --- forward: hyperparameters → framework arguments --------------------------------------
    def keras_kwargs(self, hp: Mapping[str, int]) -> dict[str, object]:
        """KerasHub constructor arguments for resolved hyperparameters ``hp``."""
        out = {f.keras: out_value(f, "keras", hp) for f in self.fields
               if f.keras and f.symbol in hp and not f.keras_presence}
        consts = {k: c(hp) if callable(c) else c for k, c in self.keras_constants.items()}
        return nest({**out, **consts})

    def hf_config(self, hp: Mapping[str, int]) -> dict[str, object]:
        """transformers config keys for ``hp`` (every mapped key explicit, so no HF default
        decides a count), plus the family's constants."""
        out = {f.hf: out_value(f, "hf", hp) for f in self.fields
               if f.hf and f.symbol in hp and not f.hf_presence and not _implied(f, hp)}
        consts = {k: c(hp) if callable(c) else c for k, c in self.hf_constants.items()}
        return nest({**out, **consts})

    def meets(self, config: Mapping, framework: str) -> bool:
        """Whether ``config`` passes this table's requirements for ``framework`` (several
        tables may claim one KerasHub class: Gemma3Backbone with or without a vision encoder)."""
        fw = "keras" if framework == "keras" else "hf"
        config = self.normalized(config, fw)
        for req in self.requires:
            val = get_key(config, req.key)
            if req.framework == fw and not (val is None and req.absent_ok) \
                    and val not in req.allowed:
                return False
        return True

    def normalized(self, config: Mapping, framework: str) -> Mapping:
        """``config`` as the fields read it (the family's ``hf_normalize`` / ``keras_normalize``)."""
        norm = self.keras_normalize if framework == "keras" else self.hf_normalize
        return norm(config) if norm is not None else config

    def hf_class(self, arch_id: str) -> str | None:
        """The transformers class the reference of ``arch_id`` builds."""
        first = next((c for c, a in self.hf_classes.items() if a == arch_id), None)
        return first or self.hf_builds.get(arch_id)

    # --- backward: a config → hyperparameters ------------------------------------------------
    def from_hf(self, config: Mapping, *, where: str, fixed=None) -> tuple[dict[str, int], list[str]]:
        return self._read(config, "hf", where, fixed or {})

    def from_keras(self, config: Mapping, *, where: str,
                   fixed=None) -> tuple[dict[str, int], list[str]]:
        return self._read(config, "keras", where, fixed or {})

    def refusal(self, config: Mapping, framework: str) -> tuple[Require, object] | None:
        """The first requirement ``config`` breaks (and the value it has), or None."""
        return next(iter(self.broken(config, framework)), None)

    def broken(self, config: Mapping, framework: str) -> list[tuple[Require, object]]:
        """Every requirement ``config`` breaks, with the value it has (the table with the fewest
        is the closest to reading it)."""
        archs = config.get("architectures")
        named = archs[0] if isinstance(archs, list) and archs else None
        out = []
        for req in self.requires:
            if req.framework != framework or (req.classes and named not in req.classes):
                continue
            val = get_key(config, req.key)
            if val is None and req.absent_ok:
                continue
            if val not in req.allowed:
                out.append((req, val))
        return out

    def _read(self, config: Mapping, framework: str, where: str,
              fixed: Mapping[sympy.Symbol, sympy.Expr]) -> tuple[dict[str, int], list[str]]:
        """Symbol values from a framework's config (``fixed``: the architecture's fixed values,
        which a config may state only as they are) and the keys nobody reads."""
        config = self.normalized(config, framework)
        broken = self.refusal(config, framework)
        if broken is not None:
            req, val = broken
            raise InputFileError(
                f"{where}: {req.key} = {show(val)} cannot be counted: {req.reason}")
        values: dict[str, int] = {}
        pending: list[Field] = []
        for f in self.fields:
            key = f.key(framework)
            if f.keras_presence if framework == "keras" else f.hf_presence:
                absent = f.default(framework) is not None and not has_key(config, key or f.symbol)
                values[f.symbol] = int(f.default(framework)) if absent else int(
                    get_key(config, key) is not None)
                continue
            if key is None:
                # No key, but a default: the framework fixes the value (BLOOM's MLP width is
                # 4·hidden_size in transformers, which has no key for it).
                if f.default(framework) is not None:
                    pending.append(f)
                continue
            raw = get_key(config, key, where)
            if raw is None or (framework == "hf" and f.hf_per):  # hf_per: read after the rest
                pending.append(f)
                continue
            if f.kinds:
                value = count_kinds(f, raw, where, key, values)
            elif f.listed and isinstance(raw, list):
                value = uniform(f, framework, raw, where, key, values)
            else:
                value = read_value(f, framework, raw, where, key)
            if values.get(f.symbol, value) != value:  # two keys of one symbol must agree
                other = next(g.key(framework) for g in self.fields
                             if g.symbol == f.symbol and get_key(config, g.key(framework)) is not None)
                raise InputFileError(f"{where}: {key} = {raw} differs from {other} = "
                                     f"{get_key(config, other)}; the formula has one {f.symbol}")
            values[f.symbol] = value
        for f in self.fields:  # a count of one kind of block, from the options of its stack
            if f.stack is not None and framework == "hf" and f.per_block in values:
                raw = {o: get_key(config, k) for o, k in f.options.items()}
                try:
                    values[f.symbol] = f.stack.count_of(f.symbol, values[f.per_block], {
                        o: x for o, x in raw.items() if x is not None})
                except ValueError as exc:
                    o, want = exc.args
                    raise InputFileError(f"{where}: {f.options[o]} = {show(raw[o])}: expected "
                                         f"{want}") from None
        for f in pending:  # defaults may use the values read (M_kv defaults to M)
            key, raw = f.key(framework) or f.symbol, get_key(config, f.key(framework))
            if raw is not None:  # key = symbol · the hf_per symbol's value, read by now
                whole, by = read_value(f, framework, raw, where, key), f.hf_per or ""
                if not values.get(by) or whole % values[by]:
                    raise InputFileError(f"{where}: {key} = {raw} is not a multiple of {self.missing(by, 'hf')} = "
                                         f"{values.get(by)}, as {f.symbol} needs ({key} = {f.symbol}·{by})")
                values[f.symbol] = whole // values[by]
                continue
            default = f.default(framework)
            if default is None:
                continue
            expr = sympy.sympify(default).xreplace(
                {symbols.get(k): sympy.Integer(x) for k, x in values.items()})
            if expr.free_symbols or not expr.is_Integer:
                missing = ", ".join(sorted(s.name for s in expr.free_symbols))
                raise InputFileError(f"{where}: {f.key(framework) or f.symbol} is absent and "
                                     f"its default needs {missing or 'an integer'}")
            if values.get(f.symbol, int(expr)) != int(expr):
                # another key gave the symbol otherwise: the framework builds the default on
                # this key's side (T5Gemma's decoder without the encoder's biases)
                other = next((g.key(framework) for g in self.fields if g.symbol == f.symbol
                              and get_key(config, g.key(framework)) is not None), None)
                shown = show(f.out(framework, int(expr))) if f.key(framework) else int(expr)
                said = (f"{other} = {show(get_key(config, other))}" if other is not None
                        else f"another default gives {values[f.symbol]}")
                raise InputFileError(
                    f"{where}: {f.key(framework) or f.symbol} is absent (so {shown}) but "
                    f"{said}; the formula has one {f.symbol}")
            values[f.symbol] = int(expr)
        for f in self.fields:  # a config may state a fixed value only as it is
            sym = symbols.get(f.symbol)
            if sym not in fixed or f.symbol not in values:
                continue
            want = sympy.sympify(fixed[sym]).xreplace(
                {symbols.get(k): sympy.Integer(x) for k, x in values.items() if k != f.symbol})
            if want.free_symbols:
                continue
            if want != values[f.symbol]:
                raise InputFileError(
                    f"{where}: {f.key(framework)} = {show(get_key(config, f.key(framework)))} cannot "
                    f"be counted: the formula fixes {f.symbol} = {fixed[sym]} = {want}")
            del values[f.symbol]
        known = {f.key(framework) for f in self.fields} | {r.key for r in self.requires} \
            | {k for f in self.fields for k in f.options.values() if framework == "hf"}
        generic = HF_GENERIC_KEYS if framework == "hf" else KERAS_GENERIC_KEYS
        return values, unread(config, "", {k for k in known if k}, self.free, generic)

    def missing(self, symbol: str, framework: str) -> str:
        """The config key that would give ``symbol`` (for a 'missing key' message)."""
        f = next((f for f in self.fields if f.symbol == symbol and f.key(framework)), None)
        return (f.key(framework) if f else None) or symbol


def _implied(f: Field, hp: Mapping[str, int]) -> bool:
    """Whether ``f`` (``hf_omit_default``) holds at ``hp`` the value transformers takes when its
    key is absent, so the reference leaves the key out as published configs do."""
    if not f.hf_omit_default or f.hf_default is None:
        return False
    default = sympy.sympify(f.hf_default)
    names = {s.name for s in default.free_symbols}
    if not names <= set(hp):
        return False
    value = default.xreplace({symbols.get(n): sympy.Integer(hp[n]) for n in names})
    return value.is_Integer and int(value) == hp[f.symbol]
