"""A family table's rows: a :class:`Field` (one symbol as KerasHub and transformers spell it,
with its scale, offset, default and names) and a :class:`Require` (a value the formula needs).
Re-exported by :mod:`paramcount.model.mapping`, whose :class:`~paramcount.model.mapping.Table`
reads them."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import sympy

__all__ = ["Field", "Require"]


@dataclass(frozen=True)
class Field:
    """One hyperparameter of a family, as paramcount, KerasHub and transformers spell it.

    Args:
        symbol: str. The paramcount symbol (``v``, ``d_e``, ``M_kv``, ``tied``).
        keras: str or None. The KerasHub constructor argument (None: KerasHub has none; the
            builder then relies on the symbol being fixed or defaulted the way KerasHub does).
        hf: str or None. The key of the transformers config.
        keras_scale: int. KerasHub's value is ``keras_scale`` × the symbol (Gemma: 2·d_f).
        hf_scale: int. The same for the HF key.
        flag: bool. A 0/1 symbol the frameworks hold as a bool.
        hf_default: int, sympy expression or None. The value transformers uses when the key is
            absent or null, as a value of the *symbol*, possibly in other symbols (``M``,
            ``4*d_e``). None: the key is needed (or the architecture's own default applies).
            With ``hf=None`` it is the value transformers always builds (no key sets it).
        keras_default: the same for a KerasHub constructor argument left out or None.
        hf_offset: int. The HF key holds ``hf_scale`` × the symbol + ``hf_offset`` (RoBERTa's
            ``max_position_embeddings`` is n + 2: fairseq's padding offset, whose rows
            transformers keeps and KerasHub trims).
        keras_offset: the same for the KerasHub argument.
        hf_values: mapping or None. The HF key holds a name, each standing for one value of the
            symbol (T5's ``feed_forward_proj``: ``"gated-gelu"`` is gated = 1, ``"relu"`` 0);
            the first name of a value is the one written. Any other name is refused.
        keras_values: the same for the KerasHub argument (ESM's ``position_embedding_type``).
        hf_per: str or None. The HF key (the symbol's only one) holds it × this symbol's value (x_f·d_e).

    With ``hf_presence`` (the symbol is whether the key holds a value), ``hf_default`` is the
    symbol where the key is absent from the file, as the config class's own default decides
    (DeepSeek's q_lora_rank defaults to 1536: present); an explicit null is 0.
    """

    symbol: str
    keras: str | None = None
    hf: str | None = None
    keras_scale: int = 1
    hf_scale: int = 1
    flag: bool = False
    hf_default: int | sympy.Expr | None = None
    keras_default: int | sympy.Expr | None = None
    hf_offset: int = 0
    keras_offset: int = 0
    # A key holding names or enumerated values: raw value → the symbol's value (T5's
    # feed_forward_proj "gated-gelu" → 1; Falcon's num_ln_in_parallel_attn 1 or 2 → split_ln 0
    # or 1); None: the value itself.
    # Keyed by the config's raw value: names (str) or numbers (int), as the model's config holds
    # them; Any, because a Mapping's key type is invariant and each table uses one of the two.
    hf_values: Mapping[Any, int] | None = None
    keras_values: Mapping[Any, int] | None = None
    # A per-block list of kinds (Qwen 3.5's layer_types): the symbol counts the blocks of
    # ``kinds[0]`` among ``len(list)`` = ``per_block`` blocks, the rest are ``kinds[1]``; written
    # with those blocks first (which blocks changes no count).
    kinds: tuple[str, str] | None = None
    per_block: str = "L"
    # A per-block list of one value (Gemma 3n's intermediate_size: one feed-forward width per
    # block, all equal in every released model): the frameworks named here write the symbol's
    # value once per block (``per_block`` entries); reading takes such a list from either
    # framework (or a single value) and refuses entries that differ, naming the key.
    listed: tuple[str, ...] = ()
    # A 0/1 symbol KerasHub holds as whether another argument is set at all (Gemma 4's K = V
    # is ``num_global_key_value_heads`` not None): read as 1 when ``keras`` is set, else 0; never
    # written (the argument's own field, or ``keras_constants``, writes it).
    keras_presence: bool = False
    # The same for a transformers key (DeepSeek's q_lora = q_lora_rank not null); the key's own
    # field, or ``hf_constants``, writes it.
    hf_presence: bool = False
    hf_per: str | None = None
    # Written only where the value is not ``hf_default`` (the class's own value when the key is
    # absent): published configs leave such a key out, and a validator reads it only when set
    # (validate_rope checks a head_dim given; MixtralConfig's is None when absent).
    hf_omit_default: bool = False
    # A count of one kind of block (Qwen MoE's L_moe): ``stack``'s pattern (a LayerKinds) over the
    # ``per_block`` blocks read, ``options`` its option → config key; read only (hf_constants write).
    stack: Any = None
    options: Mapping[str, str] = field(default_factory=dict)

    def key(self, framework: str) -> str | None:
        return self.keras if framework == "keras" else self.hf

    def scale(self, framework: str) -> int:
        return self.keras_scale if framework == "keras" else self.hf_scale

    def offset(self, framework: str) -> int:
        return self.keras_offset if framework == "keras" else self.hf_offset

    def values(self, framework: str) -> Mapping[Any, int] | None:
        return self.keras_values if framework == "keras" else self.hf_values

    def default(self, framework: str):
        return self.keras_default if framework == "keras" else self.hf_default

    def out(self, framework: str, value: int):
        """The framework's value for the symbol's ``value``."""
        names = self.values(framework)
        if names is not None:
            return next(k for k, x in names.items() if x == value)
        if self.flag:
            return bool(value)
        return self.scale(framework) * value + self.offset(framework)


@dataclass(frozen=True)
class Require:
    """A config value the formula needs: any other value is refused, naming the key.

    ``allowed`` holds the accepted values; an absent key (or null) is accepted when
    ``absent_ok`` (the framework's default is then one of the allowed values).
    """

    key: str
    allowed: tuple
    reason: str
    framework: str = "hf"  # "hf" or "keras"
    absent_ok: bool = True
    # The transformers classes it concerns (empty: all): GPT-2's tie_word_embeddings changes
    # GPT2LMHeadModel only, GPT2Model has no head for it to tie
    classes: tuple[str, ...] = ()
