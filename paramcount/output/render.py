"""Text, markdown and JSON renderings of formulas, counts and verifications.

Everything a user sees is rendered here from the one formula tree (and a Verification), so the
CLI, the report and the notebook say the same thing the same way.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING

import sympy

from paramcount.analyze.counting import component_label, count_rows, counted
from paramcount.core import symbols
from paramcount.core.formula import Term, pretty
from paramcount.output.count_output import context_json, context_lines, human, size_text

if TYPE_CHECKING:
    from paramcount.model.registry import Architecture

__all__ = [
    "Breakdown",
    "breakdown_markdown",
    "component_label",
    "context_json",
    "context_lines",
    "count_json",
    "count_rows",
    "count_text",
    "formula_json",
    "formula_latex",
    "formula_text",
    "human",
    "md_escape",
    "rules_of_thumb_section",
    "symbols_markdown",
    "verification_markdown",
]


_pretty = pretty


# --- formula ------------------------------------------------------------------------------------
def _roles(arch: Architecture) -> list[tuple[str, str, str]]:
    rows = [(s.name, "required", "") for s in arch.required]
    rows += [(s.name, "optional", f"default {_pretty(v)}") for s, v in arch.optional.items()]
    rows += [(s.name, "fixed", f"= {_pretty(v)}") for s, v in arch.fixed.items()]
    return rows


def formula_text(arch: Architecture) -> str:
    lines = [f"{arch.id}: {arch.title}", f"source: {arch.source}", f"counts: {arch.counting}", "",
             f"N = {_pretty(arch.total())}"]
    if arch.formula.has_active:
        lines.append(f"N_active = {_pretty(arch.formula.active_total())}  (per token)")
    lines += ["", "symbols:"]
    for name, role, extra in _roles(arch):
        desc = symbols.info(name).description
        lines.append(f"  {name:<8} {role:<9} {desc}{'; ' + extra if extra else ''}")
    if arch.constraints:
        lines += ["", "constraints:"] + [f"  {c.describe()}" for c in arch.constraints]
    if arch.notes:  # what a forward pass needs, no build: a note beside a count, not a refusal
        lines += ["", "a forward pass needs (noted, not refused):"] + [
            f"  {r.constraint.describe()}: {r.why}" for r in arch.notes]
    lines += ["", "components (per instance):"]
    for _, depth, term in arch.formula.walk():
        if depth == 0:
            continue
        label = "  " * depth + component_label(term)
        expr = _pretty(term.per_instance())
        note = f"   [{term.note}]" if term.note and term.is_leaf else ""
        lines.append(f"{label:<40} {expr}{note}")
    return "\n".join(lines)


def formula_latex(arch: Architecture) -> str:
    out = f"N_{{\\mathrm{{{_tex_name(arch.id)}}}}} = {sympy.latex(arch.total())}"
    if arch.formula.has_active:
        out += f"\n\nN_{{\\mathrm{{active}}}} = {sympy.latex(arch.formula.active_total())}"
    return out


def _tex_name(name: str) -> str:
    return name.replace("_", r"\_")


def formula_json(arch: Architecture) -> dict:
    def nested(term: Term) -> dict | str:
        if term.is_leaf:
            return str(term.expr) if term.times == 1 else f"{term.times}*({term.expr})"
        return {c.name: nested(c) for c in term.children} | (
            {} if term.times == 1 else {"__times__": str(term.times)})

    out = {
        "arch": arch.id,
        "title": arch.title,
        "source": arch.source,
        "counting": arch.counting,
        "total": str(arch.total()),
        "latex": sympy.latex(arch.total()),
        "symbols": {name: {"description": symbols.info(name).description, "role": role,
                           **({"value": extra} if extra else {})}
                    for name, role, extra in _roles(arch)},
        "constraints": [c.describe() for c in arch.constraints],
        "forward_needs": [r.constraint.describe() for r in arch.notes],
        "components": nested(arch.formula),
    }
    if arch.formula.has_active:
        out["active"] = str(arch.formula.active_total())
    return out


# --- counts -------------------------------------------------------------------------------------
def count_text(arch: Architecture, hparams: Mapping[str, int], name: str | None = None) -> str:
    from paramcount.output import count_output

    return count_output.count_text(counted(arch, hparams, name))


def count_json(arch: Architecture, hparams: Mapping[str, int], name: str | None = None) -> dict:
    from paramcount.output import count_output

    return count_output.count_json(counted(arch, hparams, name))


# --- markdown -----------------------------------------------------------------------------------
def md_escape(text: str) -> str:
    """``text`` for a markdown table cell (its pipes escaped)."""
    return text.replace("|", "\\|")


def symbols_markdown(arch: Architecture) -> str:
    lines = ["| symbol | meaning | role |", "|---|---|---|"]
    for name, role, extra in _roles(arch):
        sym = symbols.get(name)
        lines.append(f"| ${sympy.latex(sym)}$ | {md_escape(symbols.info(name).description)} | "
                     f"{role}{' ' + md_escape(extra) if extra else ''} |")
    return "\n".join(lines)


def breakdown_markdown(arch: Architecture, sets: Sequence[tuple[str, Mapping[str, int]]]) -> str:
    """Component | formula (per instance) | one count column per hyperparameter set."""
    head = "| component | formula (per instance) | " + " | ".join(n for n, _ in sets) + " |"
    lines = [head, "|---|---|" + "---:|" * len(sets)]
    per_set = [count_rows(arch, hp) for _, hp in sets]
    walk = [(d, t) for _, d, t in arch.formula.walk() if d > 0]
    for i, (depth, term) in enumerate(walk):
        label = "&nbsp;&nbsp;" * (depth - 1) + md_escape(component_label(term))
        if not term.is_leaf:
            label = f"**{label}**"
        tex = f"${sympy.latex(term.per_instance())}$"
        if term.is_leaf and term.note and term.expr == 0:
            tex += f" ({md_escape(term.note)})"
        counts = " | ".join(f"{rows[i][2]:,}" for rows in per_set)
        lines.append(f"| {label} | {tex} | {counts} |")
    totals = " | ".join(f"**{arch.count(hp):,}**" for _, hp in sets)
    lines.append(f"| **total (trainable)** | ${sympy.latex(arch.total())}$ | {totals} |")
    if any(arch.count_nontrainable(hp) for _, hp in sets):
        frozen = " | ".join(f"{arch.count_nontrainable(hp):,}" for _, hp in sets)
        lines.append(f"| non-trainable | | {frozen} |")
    if arch.formula.has_active:
        act = [f"{arch.count_active(hp):,}" for _, hp in sets]
        lines.append(f"| active per token | ${sympy.latex(arch.formula.active_total())}$ | "
                     + " | ".join(act) + " |")
    return "\n".join(lines)


def verification_markdown(v) -> str:
    hp = ", ".join(f"{k}={val}" for k, val in v.hparams.items())
    lines = [f"**{v.arch}** [{v.name}] ({hp}): **{v.status}**", "",
             "| | count |", "|---|---:|",
             f"| formula | {v.formula:,} |", f"| Keras | {v.reference:,} |",
             f"| difference | {v.difference:+,} |"]
    if v.reference_nontrainable or v.formula_nontrainable:
        lines.append(f"| non-trainable (formula / Keras) | {v.formula_nontrainable:,} / "
                     f"{v.reference_nontrainable:,} |")
    if v.keras_hub_params is not None:
        lines.append(f"| KerasHub published ({v.keras_hub_preset}) | {v.keras_hub_params:,} |")
    problems = v.mismatches()
    if problems:
        lines += ["", "Mismatches:", ""] + [f"- {md_escape(p)}" for p in problems]
    return "\n".join(lines)


# --- context (paramcount.analyze.context's data; count's own lines: paramcount.output.count_output) -------
def rules_of_thumb_section(results, archs: Mapping[str, Architecture]) -> str:
    """The report's "How good are the rules of thumb" section: per published preset where the
    approximations apply, their exact relative errors; and the bytes the weights take.
    ``archs`` maps each result's architecture id to the architecture."""
    from paramcount.analyze.context import BYTES_CONVENTION, EMBEDDING_RULE, context

    rows, mem, moe = [], [], []
    for r in sorted(results, key=lambda r: (r.arch, r.name)):
        arch = archs[r.arch]
        if not arch.preset(r.name).official:
            continue
        ctx = context(arch, r.hparams)
        b = ctx.bytes()
        if arch.formula.has_active:  # a mixture of experts: what one token uses, of the total
            active = arch.count_active(r.hparams)
            moe.append(f"| {r.arch} | {r.name} | {ctx.trainable:,} ({human(ctx.trainable)}) | "
                       f"{active:,} ({human(active)}) | "  # exact ratio, rounded for display
                       f"{float(Fraction(100 * active, ctx.trainable)):.3g}% |")
        mem.append(f"| {r.arch} | {r.name} | {ctx.total:,} | {size_text(b['fp32'])} | "
                   f"{size_text(b['bf16'])} | {size_text(b['int8'])} | "
                   f"{size_text(b['adam_fp32'])} |")
        if not ctx.approximations:
            continue
        kap, meg = ctx.approximations
        rows.append(f"| {r.arch} | {r.name} | {ctx.trainable:,} | {ctx.non_embedding:,} "
                    f"({human(ctx.non_embedding)}) | {kap.value:,} | {kap.error_text()} | "
                    f"{meg.value:,} | {meg.error_text()} |")
    out = [
        "## How good are the rules of thumb", "",
        "Two closed forms are used everywhere to size a transformer: **12·L·d_e²** (Kaplan et al. "
        "2020, eq. 2.1: the non-embedding parameters of a stack with d_ff = 4·d_e, biases and "
        "norms neglected) and the **Megatron-LM** total 12·L·d_e²·(1 + 13/(12·d_e) + "
        "(v+n)/(12·L·d_e)) (Narayanan et al. 2021, §5.1; n = 0 without learned positions). "
        "Below, each against the exact count at every published preset of a GPT-style stack "
        "(L, d_e, v, attention; no cross-attention; no router): the error is "
        "(approximation − exact)/exact, computed exactly and rounded for display. "
        f"Non-embedding: {EMBEDDING_RULE}.", "",
    ]
    if rows:
        out += ["| architecture | preset | exact total | non-embedding | 12·L·d_e² | error "
                "| Megatron-LM | error |", "|---|---|---:|---:|---:|---:|---:|---:|", *rows]
    else:
        out.append("No published preset of a GPT-style stack among these results.")
    if moe:
        out += ["", "Neither closed form sizes a mixture of experts, whose cost per token is not "
                "its size: the parameters one token uses (top-k of the routed experts, every shared "
                "expert, attention, norms, the token table and the head), exact, beside the total, both "
                "as the architecture's formula counts them (DeepSeek-V3's with its MTP module):",
                "", "| architecture | preset | total | active per token | active share |",
                "|---|---|---:|---:|---:|", *moe]
    if mem:
        out += ["", f"Memory of the weights ({BYTES_CONVENTION}):", "",
                "| architecture | preset | weights (all) | fp32 | bf16 | int8 | with Adam |",
                "|---|---|---:|---:|---:|---:|---:|", *mem]
    return "\n".join(out)


@dataclass(frozen=True)
class Breakdown:
    """An architecture's per-component counts at one or more hyperparameter sets.

    In Jupyter it displays as the component table of the report (``_repr_markdown_``: formulas
    in LaTeX, exact counts); ``str()`` gives the text of ``paramcount count``.
    """

    arch: Architecture
    sets: tuple[tuple[str, dict[str, int]], ...]

    @property
    def totals(self) -> dict[str, int]:
        return {name: self.arch.count(hp) for name, hp in self.sets}

    @property
    def total(self) -> int:
        """The total of the first (often the only) hyperparameter set."""
        return self.arch.count(self.sets[0][1])

    def to_dict(self) -> dict[str, dict]:
        """Set name -> nested component -> count (as ``paramcount count --json``)."""
        return {name: self.arch.formula.breakdown(self.arch.values(hp)) for name, hp in self.sets}

    def __str__(self) -> str:
        return "\n\n".join(count_text(self.arch, hp, name) for name, hp in self.sets)

    def _repr_markdown_(self) -> str:
        return breakdown_markdown(self.arch, list(self.sets))


def breakdown(arch: Architecture | str, *presets: str, **hparams: int) -> Breakdown:
    """Per-component counts of ``arch`` (an id or an Architecture), one column per preset
    (``hparams`` on top of each), or one column of ``hparams`` alone; displays itself as a table
    in Jupyter (``paramcount.breakdown``).

    Example:
        >>> breakdown("gpt2", "gpt2_base_en").total
        124439808
    """
    if isinstance(arch, str):
        from paramcount.model.registry import get

        arch = get(arch)
    return Breakdown(arch, arch.columns(*presets, **hparams))
