"""Text, markdown and JSON renderings of formulas, counts and verifications.

Everything a user sees is rendered here from the one formula tree (and a Verification), so the
CLI, the report and the notebook say the same thing the same way.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import sympy

from paramcount import symbols
from paramcount.context import human
from paramcount.formula import Term
from paramcount.registry import Architecture

__all__ = [
    "component_label",
    "count_rows",
    "count_text",
    "count_json",
    "formula_text",
    "formula_json",
    "formula_latex",
    "breakdown_markdown",
    "symbols_markdown",
    "verification_markdown",
    "human",
]


def _pretty(expr: sympy.Expr) -> str:
    return str(expr).replace("**", "^").replace("*", "·")


def component_label(term: Term) -> str:
    if term.times == 1:
        return term.name
    times = _pretty(term.times)
    return f"{term.name} × ({times})" if term.times.is_Add else f"{term.name} × {times}"


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
        "components": nested(arch.formula),
    }
    if arch.formula.has_active:
        out["active"] = str(arch.formula.active_total())
    return out


# --- counts -------------------------------------------------------------------------------------
def count_rows(arch: Architecture, hparams: Mapping[str, int]) -> list[tuple[int, str, int]]:
    """(depth, label, count) per component, counts including every multiplicity above them."""
    values = arch.values(hparams)
    rows = []
    mults: dict[str, sympy.Expr] = {}
    for path, depth, term in arch.formula.walk():
        parent = path.rpartition(".")[0]
        mult = mults.get(parent, sympy.Integer(1)) * term.times
        mults[path] = mult
        if depth == 0:
            continue
        count = int(sympy.sympify(mult * term.per_instance()).xreplace(
            {k: sympy.Integer(v) for k, v in values.items()}))
        rows.append((depth, component_label(term), count))
    return rows


def counted(arch: Architecture, hparams: Mapping[str, int], name: str | None = None):
    """Everything ``count`` shows, evaluated by SymPy (the reference for paramcount.compiled)."""
    from paramcount.context import context
    from paramcount.count_output import Counted

    values = arch.values(hparams)
    active = None
    if arch.formula.has_active:
        active = int(arch.formula.active_total().xreplace(
            {k: sympy.Integer(v) for k, v in values.items()}))
    return Counted(arch.id, name, dict(hparams), tuple(count_rows(arch, hparams)),
                   arch.formula.breakdown(values), arch.count(hparams),
                   arch.count_nontrainable(hparams), active, context(arch, hparams))


def count_text(arch: Architecture, hparams: Mapping[str, int], name: str | None = None) -> str:
    from paramcount import count_output

    return count_output.count_text(counted(arch, hparams, name))


def count_json(arch: Architecture, hparams: Mapping[str, int], name: str | None = None) -> dict:
    from paramcount import count_output

    return count_output.count_json(counted(arch, hparams, name))


# --- markdown -----------------------------------------------------------------------------------
def _md_escape(text: str) -> str:
    return text.replace("|", "\\|")


def symbols_markdown(arch: Architecture) -> str:
    lines = ["| symbol | meaning | role |", "|---|---|---|"]
    for name, role, extra in _roles(arch):
        sym = symbols.get(name)
        lines.append(f"| ${sympy.latex(sym)}$ | {_md_escape(symbols.info(name).description)} | "
                     f"{role}{' ' + _md_escape(extra) if extra else ''} |")
    return "\n".join(lines)


def breakdown_markdown(arch: Architecture, sets: Sequence[tuple[str, Mapping[str, int]]]) -> str:
    """Component | formula (per instance) | one count column per hyperparameter set."""
    head = "| component | formula (per instance) | " + " | ".join(n for n, _ in sets) + " |"
    lines = [head, "|---|---|" + "---:|" * len(sets)]
    per_set = [count_rows(arch, hp) for _, hp in sets]
    walk = [(d, t) for _, d, t in arch.formula.walk() if d > 0]
    for i, (depth, term) in enumerate(walk):
        label = "&nbsp;&nbsp;" * (depth - 1) + _md_escape(component_label(term))
        if not term.is_leaf:
            label = f"**{label}**"
        tex = f"${sympy.latex(term.per_instance())}$"
        if term.is_leaf and term.note and term.expr == 0:
            tex += f" ({_md_escape(term.note)})"
        counts = " | ".join(f"{rows[i][2]:,}" for rows in per_set)
        lines.append(f"| {label} | {tex} | {counts} |")
    totals = " | ".join(f"**{arch.count(hp):,}**" for _, hp in sets)
    lines.append(f"| **total (trainable)** | ${sympy.latex(arch.total())}$ | {totals} |")
    if any(arch.count_nontrainable(hp) for _, hp in sets):
        frozen = " | ".join(f"{arch.count_nontrainable(hp):,}" for _, hp in sets)
        lines.append(f"| non-trainable | | {frozen} |")
    if arch.formula.has_active:
        act = []
        for _, hp in sets:
            vals = {k: sympy.Integer(v) for k, v in arch.values(hp).items()}
            act.append(f"{int(arch.formula.active_total().xreplace(vals)):,}")
        lines.append(f"| active per token | ${sympy.latex(arch.formula.active_total())}$ | "
                     + " | ".join(act) + " |")
    return "\n".join(lines)


def verification_markdown(v) -> str:
    hp = ", ".join(f"{k}={val}" for k, val in v.hparams.items())
    lines = [f"**{v.arch}** [{v.name}] ({hp}): **{v.status}**", "",
             "| | count |", "|---|---:|",
             f"| formula | {v.formula:,} |", f"| Keras | {v.keras:,} |",
             f"| difference | {v.difference:+,} |"]
    if v.keras_nontrainable or v.formula_nontrainable:
        lines.append(f"| non-trainable (formula / Keras) | {v.formula_nontrainable:,} / "
                     f"{v.keras_nontrainable:,} |")
    if v.keras_hub_params is not None:
        lines.append(f"| KerasHub published ({v.keras_hub_preset}) | {v.keras_hub_params:,} |")
    problems = v.mismatches()
    if problems:
        lines += ["", "Mismatches:", ""] + [f"- {_md_escape(p)}" for p in problems]
    return "\n".join(lines)
