"""Proofs as text: the CLI's lines, the report's section and the method it states."""

from __future__ import annotations

from paramcount.analyze.prove.case import MARGIN
from paramcount.analyze.prove.decide import TARGET_ERROR
from paramcount.analyze.prove.results import ArchProof, CaseProof

MARKS = {"proven": "✅ proven", "refuted": "❌ refuted", "inconclusive": "❔ inconclusive",
         "error": "⚠️ error"}

METHOD_TEXT = f"""\
Both sides are polynomials in the free hyperparameters once the constraints are written as
substitutions (`d_e = M·d_e'` for "d_e divisible by M", `M = M_kv·M'` for "M divisible by M_kv";
a term that is polynomial only piecewise, such as a projection present only when d_emb ≠ d_e,
splits the case in two; a floor or a ceiling by d splits it by residue or by whether d divides;
⌊√x⌋ splits it by whether x is a square, x = s² or x = s² + r with 1 ≤ r ≤ 2s; where a split
draws from a sub-lattice or a sub-region of its case, as each case's notes say, the identity
reaches the rest of the case by the assumption below, and the bound is over the points drawn).
Equality is then decided as an identity of polynomials, component by
component (every formula leaf, plus the Keras weights no leaf claims), for every value of every
0/1 option flag. **Assumption:** Keras' count of each component is a polynomial whose degree in
each parameter is at most the formula's plus {MARGIN} (the bounds are listed per case). Layer
counts (`L`, `L_*`, and any multiplicity that adds Keras weights, measured on two tiny builds) take
the values 1..δ+1: exact interpolation nodes. At each node the other parameters are drawn at
random (each hyperparameter below 2^24; a product of parameters shares that budget) and every
residual must vanish at every draw: by the Schwartz–Zippel lemma a nonzero residual survives one
draw with probability at most Σ δ_x/|S_x|, and draws are added until the bound on a false proof is
below {TARGET_ERROR:g} per case. **A case is proven only when that bound, computed exactly, is
below {TARGET_ERROR:g}** (otherwise it is *inconclusive*) **and no exception went unexplained**: the
one failure retried is a build too large for memory or int32, with smaller values and a note; any
other exception makes the case an *error*. The randomness is seeded, so the outcome is
reproducible. Models are built without allocating any weight (a stateless scope; task models not
compiled), so size costs nothing. The Keras-build counts include the two-build probes of the
multiplicities."""


# The proofs against transformers: the same method, another reference and claim.
TRANSFORMERS_TEXT = """\
The same method with the other reference: the model transformers builds from the family's
config (on torch's meta device, nothing allocated) against the formula with its declared deltas
(see *Keras and PyTorch side by side*), so each case proves formula + deltas ≡ transformers for
every value of its free hyperparameters. Constraints and options are transformers' own where its
class has them (a head count that must divide the width, an option it cannot switch). The
counts of builds below are transformers builds."""


def _builds(framework: str) -> str:
    return "transformers builds" if framework == "transformers" else "Keras builds"


def fmt_bound(b: float) -> str:
    return "0 (exact)" if b == 0 else f"{b:.1e}"


def case_lines(c: CaseProof, *, timing: bool = True, framework: str = "keras") -> list[str]:
    head = f"  [{c.case}] {c.status.upper()} — {c.builds} {_builds(framework)}"
    if timing:
        head += f", {c.seconds:.1f} s"
    lines = [head]
    if c.free:
        lines.append("    free parameters: " + ", ".join(c.free)
                     + (f"  ({'; '.join(c.parametrization)})" if c.parametrization else ""))
        lines.append("    degree bounds assumed (formula + margin): "
                     + ", ".join(f"{k} ≤ {v}" for k, v in c.bounds.items()))
        rng = ", ".join(f"{k} ∈ [{lo}, {hi})" for k, (lo, hi) in c.ranges.items())
        lines.append(f"    method: {c.method}" + (f"; {rng}" if rng else ""))
    if c.status == "proven":
        lines.append(f"    P(false proof) ≤ {fmt_bound(c.error_bound)}, given the degree bounds")
    for r in c.residuals:
        lines.append(f"    residual {r.text()}")
    if c.message:
        lines.append(f"    {c.message}")
    return lines


def proof_text(p: ArchProof, *, timing: bool = True, framework: str = "keras",
               recorded: str | None = None) -> str:
    """``prove``'s lines for ``p``; ``recorded``: the record it was read from, its key unchanged
    (no times then: it was not proven in this run, and its builds are the record's)."""
    n = len(p.cases)
    timing = timing and recorded is None
    head = (f"{p.arch}: {p.status.upper()} ({n} case{'s' if n != 1 else ''}, "
            f"{p.builds} {_builds(framework)}" + (f", {p.seconds:.1f} s)" if timing else ")"))
    if recorded is not None:
        head += f", as recorded in {recorded} under the same key (not proven again)"
    lines = [head]
    for c in p.cases:
        lines += case_lines(c, timing=timing, framework=framework)
    return "\n".join(lines)


def proof_json(p: ArchProof) -> dict:
    return p.to_json()


def _md(text: str) -> str:
    return text.replace("|", "\\|")


def proofs_markdown(proofs: list[ArchProof], framework: str = "keras") -> str:
    """The report's "Proofs" section (or, for transformers, "Proofs against transformers") for
    these proofs, every case (no timings: deterministic)."""
    n_cases = sum(len(p.cases) for p in proofs)
    proven = sum(c.status == "proven" for p in proofs for c in p.cases)
    builds = _builds(framework)
    hf = framework == "transformers"
    lines = ["## Proofs against transformers" if hf else "## Proofs", "",
             (TRANSFORMERS_TEXT if hf else METHOD_TEXT).replace("\n", " "), "",
             f"{sum(p.status == 'proven' for p in proofs)} of {len(proofs)} architectures proven "
             f"({proven} of {n_cases} option cases), {sum(p.builds for p in proofs):,} {builds}. "
             f"`paramcount prove ARCH{' --framework transformers' if hf else ''}` prints the "
             "same with wall-clock times.", "",
             "| architecture | case | outcome | free parameters | degree bounds (assumed) "
             f"| method | {builds} | P(false proof) ≤ |",
             "|---|---|---|---|---|---|---:|---:|"]
    details = []
    for p in proofs:
        for c in p.cases:
            free = ", ".join(c.free) + (f" ({'; '.join(c.parametrization)})"
                                        if c.parametrization else "")
            bounds = ", ".join(f"{k} ≤ {v}" for k, v in c.bounds.items())
            bound = fmt_bound(c.error_bound) if c.status == "proven" else ""
            lines.append(f"| {p.arch} | {_md(c.case)} | {MARKS[c.status]} | {_md(free)} "
                         f"| {_md(bounds)} | {_md(c.method)} | {c.builds} | {bound} |")
            if c.status != "proven" or c.message:
                details.append(f"- **{p.arch} [{_md(c.case)}]**: {_md(c.message)}")
                details += [f"  - residual {_md(r.text())}" for r in c.residuals]
    if details:
        lines += ["", f"Notes and residuals ({'transformers' if hf else 'Keras'} − formula):", "",
                  *details]
    return "\n".join(lines)
