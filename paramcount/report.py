"""The markdown conformance report: an index and the pages behind it, deterministic, written
atomically as one group.

Same inputs (formulas, presets, reference models, library versions) give byte-identical pages:
no timestamps, no machine names, sorted everywhere. The index (``INDEX``) and every page behind
it (``PAGES``, and one page per architecture) are lists of sections, each a function of the
report's :class:`~paramcount.report_pages.Inputs`, so a new kind of finding is one more section
and a new large section is one more ``Page`` (layout: :mod:`paramcount.report_pages`).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path

from paramcount import registry
from paramcount._io import check_output, write_group
from paramcount.render import _md_escape
from paramcount.report_pages import (
    FAMILY_DIR,
    Inputs,
    Page,
    Section,
    family_link,
    family_pages,
    results_table,
    summary_section,
    totals_line,
)
from paramcount.verify import Verification, verify

__all__ = ["PAGES", "Page", "check_target", "generate", "verify_all", "versions", "write_report"]

DEFAULT_OUTPUT = Path("reports") / "conformance.md"

CONVENTION = """\
## Counting convention

- **Trainable and non-trainable apart.** Every figure is the number of trainable parameters (the
  paper's quantity). Non-trainable weights are counted separately and shown only where a model
  has any; the formula states which of its terms are non-trainable.
- **Tied weights counted once**, where they are defined: a token embedding reused as the output
  projection of an LM head appears under the embedding; the head shows a zero term that says so.
- **Heads:** a *backbone* (ids without a suffix, KerasHub's `*Backbone`) has no LM head; task
  models (`*_causal_lm`, `*_masked_lm`) include theirs. Each architecture's "counts" line says
  exactly which parts are included.
- **Zero-parameter parts** (sinusoidal or rotary positions, ALiBi, dropout, softmax, tied heads)
  are listed as zero terms, so a breakdown says why they cost nothing.
- **Three figures per preset:** the formula evaluated at the preset's hyperparameters; the
  reference model built in Keras from those hyperparameters (no weights allocated, nothing
  downloaded), summed weight by weight; and, where KerasHub publishes one, the `params` figure of
  its installed preset metadata. *Status* compares the first two, component by component: every
  Keras weight is attributed by its path to exactly one formula component.
"""


def verify_all(arch_ids: Iterable[str] | None = None, *,
               verifier: Callable[..., Verification] = verify,
               progress: Callable[[str], None] | None = None,
               n_jobs: int | None = 1) -> list[Verification]:
    """Verify every hyperparameter set (presets and examples) of the given architectures; with
    the default verifier, in ``n_jobs`` worker processes (None: one per core)."""
    archs = registry.architectures()
    ids = sorted(archs) if arch_ids is None else list(arch_ids)
    jobs = [(aid, hs.preset) for aid in ids for hs in registry.get(aid).hparam_sets()]
    if verifier is verify and n_jobs != 1:
        from paramcount import parallel

        return parallel.verify_jobs(
            [parallel.Job(registry.get(aid), registry.get(aid).resolve(p.hparams), p.name, p,
                          framework=_framework(registry.get(aid)))
             for aid, p in jobs],
            n_jobs=n_jobs, progress=progress)
    out = []
    for aid, preset in jobs:
        if progress:
            progress(f"{aid} {preset.name}")
        arch = registry.get(aid)
        if "keras" in arch.checked_by:
            out.append(verifier(aid, preset=preset.name))
        else:
            out.append(verifier(aid, preset=preset.name, framework=_framework(arch)))
    return out


def _framework(arch) -> str:
    """Keras where it builds the model; else (Falcon-7B/40B) the framework that does."""
    return "keras" if "keras" in arch.checked_by else arch.checked_by[0]


def count_jobs(arch_ids: Iterable[str] | None = None) -> int:
    """How many verifications :func:`verify_all` will run (for a progress bar)."""
    ids = sorted(registry.architectures()) if arch_ids is None else list(arch_ids)
    return sum(len(registry.get(aid).hparam_sets()) for aid in ids)


def versions() -> dict[str, str]:
    from importlib.metadata import PackageNotFoundError, version

    import reference_models

    reference_models.import_keras()  # muted, should nothing have imported it yet
    import keras
    import keras_hub
    import sympy
    import tensorflow as tf

    try:  # the figures beside the report are drawn by it (not imported here: version only)
        mpl = version("matplotlib")
    except PackageNotFoundError:
        mpl = "not installed"
    return {"TensorFlow": tf.__version__, "Keras": keras.__version__,
            "KerasHub": keras_hub.__version__, "SymPy": sympy.__version__, "Matplotlib": mpl}


def _findings(results: list[Verification]) -> str:
    lines = ["## Findings", ""]
    differs = [r for r in results if r.metadata_status == "differs"]
    bad = [r for r in results if not r.ok]
    if not differs and not bad:
        lines.append("None: every formula equals its Keras build, and every KerasHub published "
                     "figure equals KerasHub's own build.")
        return "\n".join(lines)
    for r in bad:
        lines.append(f"- **{family_link(r.arch)} [{r.name}]: formula and Keras differ by "
                     f"{r.difference:+,}.**")
        lines += [f"  - {_md_escape(m)}" for m in r.mismatches()]
    for r in differs:
        lines.append(_differs_finding(r))
    return "\n".join(lines)


def _differs_finding(r: Verification) -> str:
    """The computed figures, then the explanation the preset file gives, marked as quoted with
    its source: its prose (and any figure in it) is typed by a person, not computed here."""
    arch = registry.get(r.arch)
    reason = arch.preset(r.name).keras_hub_differs
    assert r.keras_hub_params is not None  # "differs" is decided against a published figure
    built = r.keras + r.keras_nontrainable
    head = (f"- **`{r.keras_hub_preset}`** ({family_link(r.arch)}): KerasHub publishes "
            f"{r.keras_hub_params:,}; its own build holds {built:,} "
            f"(published {r.keras_hub_params - built:+,}).")
    if not reason:
        return head + " No explanation recorded."
    files = arch.presets if isinstance(arch.presets, tuple) else (arch.presets,)
    where = ", ".join(f if str(f).endswith(".toml") else f"presets/{f}.toml"
                      for f in map(str, files) if f)
    return f"{head} Quoted from `{where}` (not computed): “{_md_escape(reason)}”"


def _versions_section(vers: dict[str, str]) -> str:
    lines = ["## Versions", "", "| package | version |", "|---|---|"]
    lines += [f"| {k} | {v} |" for k, v in vers.items()]
    return "\n".join(lines)


def _plots_section(results: list[Verification]) -> str:
    """Links to the figures :func:`write_report` draws beside the report (paramcount.plots)."""
    from paramcount.plots import REPORT_FIGURES, report_figure_names

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
                  "class when they agree, else *other* (`paramcount.plots.RULES`)."]
    return "\n".join(lines)


def transformers_ids(results: list[Verification]) -> list[str]:
    """The architectures among ``results`` proven against transformers too (those with a
    transformers reference), or none when torch and transformers are not installed."""
    import importlib.util

    if not (importlib.util.find_spec("torch") and importlib.util.find_spec("transformers")):
        return []
    return sorted({r.arch for r in results if registry.get(r.arch).transformers is not None})


def of_results(f: Callable[[list[Verification]], str]) -> Section:
    """A section written over the verifications alone, as a section of :class:`Inputs`."""
    def section(inp: Inputs) -> str:
        return f(inp.results)

    section.__name__ = f.__name__
    return section


def _proofs_section(inp: Inputs) -> str:
    from paramcount.prove.output import proofs_markdown

    return proofs_markdown(inp.proofs)


def _transformers_proofs_section(inp: Inputs) -> str:
    from paramcount.prove.output import proofs_markdown

    if not transformers_ids(inp.results):
        return ("## Proofs against transformers\n\ntorch and transformers are not installed "
                "here: `pip install 'paramcount[transformers]'` and the report proves formula + "
                "deltas ≡ transformers too.")
    return proofs_markdown(inp.transformers_proofs, framework="transformers")


def _rules_of_thumb_section(results: list[Verification]) -> str:
    from paramcount.render import rules_of_thumb_section

    return rules_of_thumb_section(results, {r.arch: registry.get(r.arch) for r in results})


def _frameworks_section(results: list[Verification]) -> str:
    from paramcount.report_frameworks import frameworks_section

    return frameworks_section(results)


def _unlisted_section(results: list[Verification]) -> str:
    from paramcount.report_frameworks import unlisted_section

    return unlisted_section(results)


def _presets_section(inp: Inputs) -> str:
    return "\n".join(["## Every hyperparameter set", "", totals_line(inp.results), "",
                      *results_table(inp.results)])


# --- tallies: the index's one line per page ----------------------------------------------------
def _presets_tally(inp: Inputs) -> str:
    from paramcount.keras_hub_meta import UNLISTED

    examples = sum(not registry.get(r.arch).preset(r.name).official for r in inp.results)
    return (f"every hyperparameter set in one table: {len(inp.results) - examples} published "
            f"presets and {examples} example sets; {len(UNLISTED)} KerasHub presets of covered "
            "families not listed, each with the reason")


def _frameworks_tally(inp: Inputs) -> str:
    archs = [registry.get(a) for a in sorted({r.arch for r in inp.results})]
    refs = [a.transformers for a in archs if a.transformers is not None]
    deltas = sum(len(t.deltas) for ref in refs for t in ref.all())
    return (f"{len(refs)} architectures with a transformers reference; {deltas} declared "
            f"delta{'s' * (deltas != 1)} (a term transformers builds otherwise), each with its "
            "reason")


def _proofs_tally(proofs: list, framework: str) -> str:
    cases = [c for p in proofs for c in p.cases]
    return (f"{sum(p.status == 'proven' for p in proofs)} of {len(proofs)} architectures proven "
            f"formula ≡ {framework} for all hyperparameters "
            f"({sum(c.status == 'proven' for c in cases)} of {len(cases)} option cases)")


def _transformers_tally(inp: Inputs) -> str:
    if not transformers_ids(inp.results):
        return "torch and transformers are not installed here: not proven"
    return _proofs_tally(inp.transformers_proofs, "transformers (with its deltas)")


# The pages behind the index, in the order the index lists them. A new section page is one
# declaration: PAGES.append(Page("sweep.md", "The derive sweep", (_sweep_section,), _tally)).
PAGES: list[Page] = [
    Page("presets.md", "Presets", (_presets_section, of_results(_unlisted_section)),
         _presets_tally),
    Page("frameworks.md", "Keras and PyTorch side by side", (of_results(_frameworks_section),),
         _frameworks_tally),
    Page("proofs.md", "Proofs", (_proofs_section,),
         lambda inp: _proofs_tally(inp.proofs, "Keras")),
    Page("proofs_transformers.md", "Proofs against transformers",
         (_transformers_proofs_section,), _transformers_tally),
    Page("rules_of_thumb.md", "How good are the rules of thumb",
         (of_results(_rules_of_thumb_section),),
         lambda inp: "12·L·d_e² and the Megatron-LM estimate against the exact count at every "
                     "published preset of a GPT-style stack, and the bytes the weights take"),
]


def _pages_section(inp: Inputs) -> str:
    lines = ["## More", "",
             f"- One page per architecture (under `{FAMILY_DIR}/`), linked from the summary above."]
    lines += [f"- [{p.title}]({p.path})" + (f": {p.tally(inp)}." if p.tally else "")
              for p in PAGES]
    return "\n".join(lines)


def _versions(inp: Inputs) -> str:
    return _versions_section(inp.vers)


# The index: what a reader needs first; everything long is on a page behind it.
INDEX: list[Section] = [_versions, summary_section, _pages_section, of_results(_plots_section),
                        of_results(_findings)]

INTRO = (
    "# paramcount conformance report\n\n"
    "Generated by `paramcount report`; do not edit by hand. Every number in the tables is "
    "computed: formulas by SymPy, builds by Keras / KerasHub, published figures read from "
    "KerasHub's installed preset metadata. Text marked *quoted* comes from the preset files "
    "(explanations written by hand, with their figures) and is named as such. The same "
    "inputs give byte-identical pages: this index, one page per architecture and one per "
    "large section (listed under *More*).\n\n" + CONVENTION)


def page_names() -> set[str]:
    """The files a report writes beside its index (relative to the index's folder), but the
    family pages, which sit in their own folder."""
    from paramcount.plots import REPORT_FIGURES
    from paramcount.prove.record import RECORD_NAME

    return {p.path for p in PAGES} | set(REPORT_FIGURES) | {RECORD_NAME}


def check_target(path: str | os.PathLike) -> Path:
    """:func:`check_output`, and the index may not take the name of a file written beside it."""
    path = check_output(path)
    if path.name in page_names():
        from paramcount.errors import OutputPathError

        raise OutputPathError(f"cannot write {path}: the report writes its own {path.name} "
                              "beside the index; name the index otherwise")
    return path


def generate(results: list[Verification] | None = None, *,
             vers: dict[str, str] | None = None, proofs: list | None = None,
             transformers_proofs: list | None = None,
             index: str = DEFAULT_OUTPUT.name) -> dict[str, str]:
    """The report's pages: file (relative to the index's folder) → text, the index (named
    ``index``) last. Verifies everything when no results are given; proves every architecture
    among them unless their ``proofs`` and ``transformers_proofs`` are given (see
    :func:`proofs_for`)."""
    results = verify_all() if results is None else results
    if proofs is None:
        from paramcount.prove import cached_prove

        proofs = [cached_prove(a) for a in sorted({r.arch for r in results})]
    if transformers_proofs is None:
        from paramcount.prove.record import prove_against

        transformers_proofs = [prove_against(a, "transformers") for a in transformers_ids(results)]
    inp = Inputs(results, vers or versions(), proofs, transformers_proofs, index)
    pages = {p.path: p.text(inp) for p in PAGES}
    pages.update(family_pages(inp))
    # No grand total of "parameters verified": it would sum fine-tuned twins, example sets and
    # mismatches alike, and mean nothing.
    pages[index] = INTRO + "\n" + "\n\n".join(section(inp) for section in INDEX) + "\n"
    return pages


def proofs_for(results: list[Verification], path: str | os.PathLike, *, progress=None,
               framework: str = "keras"):
    """The proofs the report at ``path`` shows against ``framework`` (outcomes recorded beside
    it reused while their key matches, see :mod:`paramcount.prove.record`) and the record to
    write with it."""
    from paramcount.prove import record

    ids = {r.arch for r in results} if framework == "keras" else transformers_ids(results)
    return record.proofs_for(ids, Path(path).parent / record.RECORD_NAME, progress=progress,
                             framework=framework)


def write_report(path: str | os.PathLike = DEFAULT_OUTPUT,
                 pages: str | Mapping[str, str] | None = None, *,
                 results: list[Verification] | None = None,
                 proof_record: dict | None = None,
                 transformers_record: dict | None = None) -> Path:
    """Write the report's pages (:func:`generate`; a plain text is the index alone) and, with
    ``results`` (or when neither ``pages`` nor ``results`` is given, so everything is verified
    here), the figures the index links to (``composition.svg``, ``scaling.svg``; see
    :mod:`paramcount.plots`) beside it. The last page is the index, written to ``path``; the
    others go to their names relative to ``path``'s folder.

    The pages and figures are one group (:func:`paramcount._io.write_group`): every target is
    checked and every file written to a synced temporary file before any is renamed, the index
    last, so no page or figure pairs with a different index.
    """
    from paramcount.prove import record

    path = check_target(path)
    if pages is None:
        results = verify_all() if results is None else results
        proofs, proof_record = proofs_for(results, path)
        hf_proofs, transformers_record = proofs_for(results, path, framework="transformers")
        pages = generate(results, proofs=proofs, transformers_proofs=hf_proofs, index=path.name)
    texts = {path.name: pages} if isinstance(pages, str) else dict(pages)
    *others, index = texts
    files: dict[str | os.PathLike, str | bytes] = {}
    if proof_record is not None:  # the outcomes the report shows, keyed (prove/record.py)
        files[path.parent / record.RECORD_NAME] = record.dumps(proof_record, transformers_record)
    if results is not None:
        from paramcount.plots import report_plots

        files.update({path.parent / name: plot.svg() for name, plot in report_plots(results).items()})
    files.update({path.parent / name: texts[name] for name in others})
    files[path] = texts[index]
    return write_group(files)[-1]
