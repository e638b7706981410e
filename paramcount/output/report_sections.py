"""The sections of the conformance report (:mod:`paramcount.output.report`): each a function of the
verifications or of the report's :class:`~paramcount.output.report_pages.Inputs`, returning markdown,
and the one-line tallies the index gives each page."""

from __future__ import annotations

from collections.abc import Callable

from paramcount.analyze.verify import Verification
from paramcount.model import registry
from paramcount.model.discovery import preset_label
from paramcount.output.render import md_escape
from paramcount.output.report_pages import (
    Inputs,
    Section,
    family_link,
    results_table,
    totals_line,
)


def findings_section(results: list[Verification]) -> str:
    lines = ["## Findings", ""]
    differs = [r for r in results if r.metadata_status == "differs"]
    bad = [r for r in results if not r.ok]
    cards, agree = _card_findings(results)
    if not differs and not bad and not cards:
        lines.append("None: every formula equals its Keras build, every KerasHub published "
                     "figure equals KerasHub's own build, and every model card's figure is the "
                     "count rounded.")
        return "\n".join(lines)
    for r in bad:
        lines.append(f"- **{family_link(r.arch)} [{r.name}]: formula and Keras differ by "
                     f"{r.difference:+,}.**")
        lines += [f"  - {md_escape(m)}" for m in r.mismatches()]
    for r in differs:
        lines.append(_differs_finding(r))
    if cards or agree:
        lines += ["", f"Model cards: {agree} figures a card states are the formula's count at "
                  "its config, rounded as the card writes it (`paramcount.model.cards`); "
                  f"{len(cards)} are not:", ""]
    return "\n".join([*lines, *cards])


def _card_findings(results: list[Verification]) -> tuple[list[str], int]:
    """Each model-card figure the count does not round to, with the preset file's reason; and
    how many agree. The counts are the formula's at the preset (trainable; active: per token),
    never a framework's build with its deltas."""
    from paramcount.model import cards

    out, agree, seen = [], 0, set()
    for r in results:
        arch = registry.get(r.arch)
        if (r.arch, r.name) in seen or r.name not in arch.presets_table():
            continue
        seen.add((r.arch, r.name))
        card = arch.preset(r.name).card
        if card is None:
            continue
        for what, figure in (("total", card.total), ("active", card.active)):
            if figure is None:
                continue
            # the formula's own count (a verification's may carry a framework's deltas)
            count = arch.count(r.hparams) if what == "total" else arch.count_active(r.hparams)
            if cards.agrees(count, figure):
                agree += 1
                continue
            why = (f" Quoted from the preset file (not computed): “{md_escape(card.why)}”"
                   if card.why else " No explanation recorded.")
            out.append(f"- **`{r.name}`** ({family_link(r.arch)}): the card states {figure} "
                       f"{'in all' if what == 'total' else 'active per token'}; the formula "
                       f"counts {count:,} ({cards.shown(count, figure)}).{why}")
    return out, agree


def _differs_finding(r: Verification) -> str:
    """The computed figures, then the explanation the preset file gives, marked as quoted with
    its source: its prose (and any figure in it) is typed by a person, not computed here."""
    arch = registry.get(r.arch)
    reason = arch.preset(r.name).keras_hub_differs
    assert r.keras_hub_params is not None  # "differs" is decided against a published figure
    built = r.reference + r.reference_nontrainable
    head = (f"- **`{r.keras_hub_preset}`** ({family_link(r.arch)}): KerasHub publishes "
            f"{r.keras_hub_params:,}; its own build holds {built:,} "
            f"(published {r.keras_hub_params - built:+,}).")
    if not reason:
        return head + " No explanation recorded."
    files = arch.presets if isinstance(arch.presets, tuple) else (arch.presets,)
    where = ", ".join(f if str(f).endswith(".toml") else preset_label(f)
                      for f in map(str, files) if f)
    return f"{head} Quoted from `{where}` (not computed): “{md_escape(reason)}”"


def versions_section(vers: dict[str, str]) -> str:
    lines = ["## Versions", "", "| package | version |", "|---|---|"]
    lines += [f"| {k} | {v} |" for k, v in vers.items()]
    return "\n".join(lines)


def plots_section(results: list[Verification]) -> str:
    """Links to the figures :func:`write_report` draws beside the report (paramcount.output.plots)."""
    from paramcount.output.plots import REPORT_FIGURES, report_figure_names

    names = report_figure_names(results)
    if not names:
        return "## Plots\n\nNo published presets among these results: nothing to draw."
    lines = ["## Plots", "",
             "Drawn from the formulas at every published preset (example sets left out; a task "
             "model that shares its backbone's presets is drawn once, as the backbone)."]
    for name in names:
        lines += ["", f"![{REPORT_FIGURES[name]}]({name})"]
    if "composition.svg" in names:
        lines += ["", "Classes of component: each formula leaf is classified by its component "
                  "names, read from the leaf upwards; the first name that contains `norm` makes it "
                  "a norm, `attention` (or is `query`/`key`/`value`) attention, `ffn`/`mlp`/"
                  "`moe`/`experts`/`router` feed-forward, `rnn`/`lstm`/`gru` (or a gate name) "
                  "recurrent, `embed` (or is `token`/`position`/`segment`) embeddings, `head`/"
                  "`pooler`/`classifier` head. A leaf with no such name takes its sibling leaves' "
                  "class when they agree, else *other* (`paramcount.output.plots.RULES`)."]
    return "\n".join(lines)


def transformers_ids(results: list[Verification]) -> list[str]:
    """The architectures among ``results`` proven against transformers too (those with a
    transformers reference), or none when torch and transformers are not installed."""
    from paramcount.analyze.verify import transformers_missing

    if transformers_missing() is not None:
        return []
    return sorted({r.arch for r in results if registry.get(r.arch).transformers is not None})


def of_results(f: Callable[[list[Verification]], str]) -> Section:
    """A section written over the verifications alone, as a section of :class:`Inputs`."""
    def section(inp: Inputs) -> str:
        return f(inp.results)

    section.__name__ = f.__name__
    return section


def proofs_section(inp: Inputs) -> str:
    from paramcount.output.proofs import proofs_markdown

    return proofs_markdown(inp.proofs)


def transformers_proofs_section(inp: Inputs) -> str:
    from paramcount.output.proofs import proofs_markdown

    if not transformers_ids(inp.results):
        return ("## Proofs against transformers\n\ntorch and transformers are not installed "
                "here: `pip install 'paramcount[transformers]'` and the report proves formula + "
                "deltas ≡ transformers too.")
    return proofs_markdown(inp.transformers_proofs, framework="transformers")


def rules_of_thumb(results: list[Verification]) -> str:
    from paramcount.output.render import rules_of_thumb_section

    return rules_of_thumb_section(results, {r.arch: registry.get(r.arch) for r in results})


def presets_section(inp: Inputs) -> str:
    return "\n".join(["## Every hyperparameter set", "", totals_line(inp.results), "",
                      *results_table(inp.results)])


# --- tallies: the index's one line per page ----------------------------------------------------
def presets_tally(inp: Inputs) -> str:
    from paramcount.model.keras_hub_meta import unlisted

    examples = sum(not registry.get(r.arch).preset(r.name).official for r in inp.results)
    return (f"every hyperparameter set in one table: {len(inp.results) - examples} published "
            f"presets and {examples} example sets; {len(unlisted())} KerasHub presets of covered "
            "families not listed, each with the reason")


def frameworks_tally(inp: Inputs) -> str:
    archs = [registry.get(a) for a in sorted({r.arch for r in inp.results})]
    refs = [a.transformers for a in archs if a.transformers is not None]
    deltas = sum(len(t.deltas) for ref in refs for t in ref.all())
    return (f"{len(refs)} architectures with a transformers reference; {deltas} declared "
            f"delta{'s' * (deltas != 1)} (a term transformers builds otherwise), each with its "
            "reason")


def proofs_tally(proofs: list, framework: str) -> str:
    cases = [c for p in proofs for c in p.cases]
    return (f"{sum(p.status == 'proven' for p in proofs)} of {len(proofs)} architectures proven "
            f"formula ≡ {framework} for all hyperparameters "
            f"({sum(c.status == 'proven' for c in cases)} of {len(cases)} option cases)")


def transformers_tally(inp: Inputs) -> str:
    if not transformers_ids(inp.results):
        return "torch and transformers are not installed here: not proven"
    return proofs_tally(inp.transformers_proofs, "transformers (with its deltas)")
