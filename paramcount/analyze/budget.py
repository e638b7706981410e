"""The cost of a reference build, estimated from the formula before anything is built.

A Keras build's time and memory grow with the number of layer instances it creates, not with the
parameters (weights are never allocated): ``verify gpt2 --preset tiny --set L=100000`` holds tiny
matrices, but 1.2 million layer objects, and ran for minutes while its memory passed 6.5 GB. The
formula tree says how many instances there are: each leaf (one weight, or the slices of one) is
repeated by the product of its own and its ancestors' ``times`` (``blocks × L``, ``experts × E``).
That sum is the estimate, exact for the tree and computed without SymPy's help beyond
substitution.

The largest published preset (Qwen3-MoE 235B-A22B) comes to 24,914 instances. Builds above
:data:`DEFAULT_LIMIT` (four times that) are refused before they start, naming the estimate and the
override (``--max-build N``, or ``PARAMCOUNT_MAX_BUILD=N``; 0 means no limit). Builds above
:data:`NOTICE_AT` are announced on stderr while they run.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from paramcount.core.errors import ParamcountError

__all__ = [
    "DEFAULT_LIMIT",
    "LIMIT_ENV",
    "NOTICE_AT",
    "BuildTooLargeError",
    "build_size",
    "check",
    "limit",
    "setting",
]

DEFAULT_LIMIT = 100_000
NOTICE_AT = 5_000
LIMIT_ENV = "PARAMCOUNT_MAX_BUILD"


class BuildTooLargeError(ParamcountError):
    pass


def build_size(arch, hparams: Mapping[str, int]) -> int:
    """Layer instances the reference build creates: Σ over formula leaves of their multiplicity."""
    from paramcount.core.formula import to_int

    values = arch.values(hparams)
    return sum(to_int(leaf.multiplier, values, leaf.path) for leaf in arch.formula.leaves())


def limit(option: int | None = None) -> int:
    """The limit in force: the option, else ``$PARAMCOUNT_MAX_BUILD``, else the default."""
    return setting(option, LIMIT_ENV, DEFAULT_LIMIT, 0, "a non-negative integer (0: no limit)")


def setting(option: int | None, env: str, default: int, least: int, expected: str) -> int:
    """An integer setting in force: the command's option, else the environment variable ``env``
    (an integer of at least ``least``; any other value is one line naming it and ``expected``),
    else ``default``."""
    if option is not None:
        return option
    raw = os.environ.get(env, "").strip()
    if not raw:
        return default
    from paramcount.core.hparams import parse_int_literal

    value = parse_int_literal(raw)
    if value is None or value < least:
        raise ParamcountError(f"${env} = {raw!r}: expected {expected}")
    return value


def check(arch, hparams: Mapping[str, int], name: str, max_build: int | None = None) -> int:
    """The estimate; raises BuildTooLargeError above the limit (0: no limit)."""
    size = build_size(arch, hparams)
    cap = limit(max_build)
    if cap and size > cap:
        raise BuildTooLargeError(
            f"{arch.id} [{name}]: the Keras build would create about {size:,} layer instances "
            f"(limit {cap:,}; the largest published preset needs 24,914); raise the limit with "
            f"--max-build {size} or {LIMIT_ENV}={size} (0: no limit)")
    return size
