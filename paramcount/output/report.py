"""The markdown conformance report: an index and the pages behind it, deterministic, written
atomically as one group.

Same inputs (formulas, presets, reference models, library versions) give byte-identical pages:
no timestamps, no machine names, sorted everywhere. The index (``INDEX``) and every page behind
it (``PAGES``, and one page per architecture) are lists of sections, each a function of the
report's :class:`~paramcount.output.report_pages.Inputs`, so a new kind of finding is one more section
and a new large section is one more ``Page`` (layout: :mod:`paramcount.output.report_pages`).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path

from paramcount.analyze.parallel import DIED
from paramcount.analyze.prove import record as record_module
from paramcount.analyze.verify import Verification, verify
from paramcount.model import registry
from paramcount.output import report_costs, report_derived
from paramcount.output.report_frameworks import frameworks_section, unlisted_section
from paramcount.output.report_pages import (
    CONVENTION,
    FAMILY_DIR,
    INTRO,
    Inputs,
    Page,
    Section,
    family_pages,
    summary_section,
)
from paramcount.output.report_sections import (
    findings_section,
    frameworks_tally,
    of_results,
    plots_section,
    presets_section,
    presets_tally,
    proofs_section,
    proofs_tally,
    rules_of_thumb,
    transformers_ids,
    transformers_proofs_section,
    transformers_tally,
    versions_section,
)
from paramcount.runtime.files import check_output, write_group

__all__ = ["PAGES", "Page", "check_target", "generate", "verify_all", "versions", "write_report"]

DEFAULT_OUTPUT = Path("reports") / "conformance.md"
DERIVED_RECORD = "derived.json"  # the derive sweep's rows (paramcount.output.report_derived)



def verify_all(arch_ids: Iterable[str] | None = None, *,
               verifier: Callable[..., Verification] = verify,
               progress: Callable[[str], None] | None = None,
               n_jobs: int | None = 1) -> list[Verification]:
    """Verify every hyperparameter set (presets and examples) of the given architectures; with
    the default verifier, in ``n_jobs`` worker processes (None: one per core)."""
    archs = registry.architectures()
    ids = sorted(archs) if arch_ids is None else list(arch_ids)
    ids = [a for a in ids if a not in left_out()]
    jobs = [(aid, hs.preset) for aid in ids for hs in registry.get(aid).hparam_sets()]
    if verifier is verify and n_jobs != 1:
        from paramcount.analyze import parallel

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


def left_out() -> list[str]:
    """The architectures the report leaves out here: those only transformers builds, when torch
    or transformers is not installed (empty otherwise)."""
    from paramcount.analyze.verify import transformers_missing

    if transformers_missing() is None:
        return []
    return sorted(a for a, arch in registry.architectures().items()
                  if "keras" not in arch.checked_by)


def missing_extra_note() -> str | None:
    """What a report written without the transformers extra leaves out, or None."""
    from paramcount.analyze.verify import transformers_missing

    missing = transformers_missing()
    if missing is None:
        return None
    out = ", ".join(left_out())
    return (f"**Written without the transformers extra** ({missing} is not installed): the checks "
            "against transformers are left out (the proofs against transformers"
            + (f", and {out}, which only transformers builds" if out else "")
            + "), so this is not the committed report. `pip install 'paramcount[transformers]'` "
            "and run `paramcount report` again to reproduce it.")


def count_jobs(arch_ids: Iterable[str] | None = None) -> int:
    """How many verifications :func:`verify_all` will run (for a progress bar)."""
    ids = sorted(registry.architectures()) if arch_ids is None else list(arch_ids)
    ids = [a for a in ids if a not in left_out()]
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


# The pages behind the index, in the order the index lists them. A new section page is one
# declaration: PAGES.append(Page("sweep.md", "The derive sweep", (_sweep_section,), _tally)).
PAGES: list[Page] = [
    Page("presets.md", "Presets", (presets_section, of_results(unlisted_section)),
         presets_tally),
    Page("frameworks.md", "Keras and PyTorch side by side", (of_results(frameworks_section),),
         frameworks_tally),
    Page("proofs.md", "Proofs", (proofs_section,),
         lambda inp: proofs_tally(inp.proofs, "Keras")),
    Page("proofs_transformers.md", "Proofs against transformers",
         (transformers_proofs_section,), transformers_tally),
    Page("rules_of_thumb.md", "How good are the rules of thumb",
         (of_results(rules_of_thumb),),
         lambda inp: "12·L·d_e² and the Megatron-LM estimate against the exact count at every "
                     "published preset of a GPT-style stack, and the bytes the weights take"),
    Page("checkpoints.md", "Checkpoints", (lambda inp: _checkpoints(),),
         lambda inp: _checkpoints_tally()),
    Page("memory.md", "Memory and compute", (report_costs.section,), report_costs.tally),
    Page("language_models.md", "Every transformers language model",
         (lambda inp: report_derived.section(inp.derived),),
         lambda inp: report_derived.tally(inp.derived)),
]


def _checkpoints() -> str:
    """The checkpoints page (paramcount.analyze.checkpoints: headers only, no framework)."""
    from paramcount.output.report_checkpoints import checkpoints_section

    return checkpoints_section().rstrip("\n")


def _checkpoints_tally() -> str:
    """The index's line for the checkpoints page: a count, without building the page (the
    section costs seconds, and the index used to build it a second time for this line)."""
    from paramcount.analyze.checkpoints.published import PUBLISHED

    return (f"the formats read from their headers alone, the name tables, and {len(PUBLISHED)} "
            "published full-size headers against the formula")


def _pages_section(inp: Inputs) -> str:
    lines = ["## More", "",
             f"- One page per architecture (under `{FAMILY_DIR}/`), linked from the summary above."]
    lines += [f"- [{p.title}]({p.path})" + (f": {p.tally(inp)}." if p.tally else "")
              for p in PAGES]
    return "\n".join(lines)


def _versions(inp: Inputs) -> str:
    return versions_section(inp.vers)


# The index: what a reader needs first; everything long is on a page behind it.
INDEX: list[Section] = [_versions, summary_section, _pages_section, of_results(plots_section),
                        of_results(findings_section)]



def page_names() -> set[str]:
    """The files a report writes beside its index (relative to the index's folder), but the
    family pages, which sit in their own folder."""
    from paramcount.analyze.prove.record import RECORD_NAME
    from paramcount.output.plots import REPORT_FIGURES

    return {p.path for p in PAGES} | set(REPORT_FIGURES) | {RECORD_NAME, DERIVED_RECORD}


def check_target(path: str | os.PathLike, *, new_folders: bool = True) -> Path:
    """:func:`check_output`, and the index may not take the name of a file written beside it."""
    path = check_output(path, new_folders=new_folders)
    if path.name in page_names():
        from paramcount.core.errors import OutputPathError

        raise OutputPathError(f"cannot write {path}: the report writes its own {path.name} "
                              "beside the index; name the index otherwise")
    return path


def generate(results: list[Verification] | None = None, *,
             vers: dict[str, str] | None = None, proofs: list | None = None,
             transformers_proofs: list | None = None,
             index: str = DEFAULT_OUTPUT.name,
             derived: report_derived.Derived | None = None,
             cost_proofs: Mapping[str, list] | None = None) -> dict[str, str]:
    """The report's pages: file (relative to the index's folder) → text, the index (named
    ``index``) last. Verifies everything when no results are given; proves every architecture
    among them unless their ``proofs`` and ``transformers_proofs`` are given (see
    :func:`proofs_for`); the derive sweep's rows from ``derived``, else the committed record."""
    results = verify_all() if results is None else results
    derived = report_derived.load() if derived is None else derived
    if proofs is None:
        from paramcount.analyze.prove import cached_prove

        proofs = [cached_prove(a) for a in sorted({r.arch for r in results
                                                   if "keras" in registry.get(r.arch).checked_by})]
    if transformers_proofs is None:
        from paramcount.analyze.prove.record import prove_against

        transformers_proofs = [prove_against(a, "transformers") for a in transformers_ids(results)]
    if cost_proofs is None:
        from paramcount.analyze.prove.record import COSTS, prove_against

        cost_proofs = {q: [prove_against(a, q) for a in cost_ids(results, q)] for q in COSTS}
    from paramcount.analyze import keras_cache

    caches = keras_cache.preset_rows(cost_ids(results, "kv"), report_costs.CONTEXTS[0])
    inp = Inputs(results, vers or versions(), proofs, transformers_proofs, index, derived,
                 dict(cost_proofs), tuple(caches))
    pages = {p.path: p.text(inp) for p in PAGES}
    pages.update(family_pages(inp))
    # No grand total of "parameters verified": it would sum fine-tuned twins, example sets and
    # mismatches alike, and mean nothing.
    note = missing_extra_note()  # at the top: what is left out, and that it is not the committed
    intro = INTRO.replace(CONVENTION, f"{note}\n\n{CONVENTION}") if note else INTRO
    pages[index] = intro + "\n" + "\n\n".join(section(inp) for section in INDEX) + "\n"
    return pages


# The record committed with the project's report, where paramcount runs from a checkout.
PROJECT_RECORD = record_module.PROJECT_RECORD


def proofs_source(output: str | os.PathLike, proofs: str | os.PathLike | None = None) -> Path:
    """The proof record a report written to ``output`` reuses: ``proofs`` when given (it must
    be a readable file), else the project's committed ``reports/proofs.json`` when paramcount
    runs from a checkout, else the record beside ``output``. A report written elsewhere (CI's
    artifact folder) so reuses the committed outcomes instead of proving everything cold."""
    from paramcount.analyze.prove import record
    from paramcount.core.errors import ParamcountError

    if proofs is not None:
        from paramcount.runtime import inputs

        inputs.check_regular(proofs, "the proof record")  # a FIFO's read would never return
        try:
            Path(proofs).read_bytes()
        except OSError as exc:
            raise ParamcountError(f"cannot read the proof record {os.fspath(proofs)}: "
                                  f"{exc.strerror or exc}") from None
        return Path(proofs)
    if PROJECT_RECORD.is_file():
        return PROJECT_RECORD
    return Path(output).parent / record.RECORD_NAME


def reusable_record(output: str | os.PathLike | None,
                    proofs: str | os.PathLike | None = None) -> Path | None:
    """The record whose outcomes a report written to ``output`` (``prove``: None) reuses,
    decided before any work: :func:`proofs_source`, or None where no such file exists (a regular
    install has no checkout's ``reports/proofs.json``). Decided late, a missing record once
    failed a report after all its verifications (issue 30)."""
    if output is None and proofs is None:
        return PROJECT_RECORD if PROJECT_RECORD.is_file() else None
    source = proofs_source(output or ".", proofs)
    return source if source.is_file() else None


def cost_ids(results: list[Verification], quantity: str) -> list[str]:
    """The architectures whose ``quantity`` (a cost) the report proves: those with a
    transformers reference whose tree is whole (formulated) and not declared unprovable."""
    from paramcount.analyze.cost_status import unprovable
    from paramcount.analyze.costs import formulated

    return [a for a in transformers_ids(results) if formulated(registry.get(a), quantity) is None
            and unprovable(registry.get(a), quantity) is None]


def proofs_for(results: list[Verification], path: str | os.PathLike, *, progress=None,
               framework: str = "keras", proofs: str | os.PathLike | None = None,
               n_jobs: int | None = 1, reuse: bool = True):
    """The proofs the report at ``path`` shows against ``framework`` (outcomes recorded in
    :func:`proofs_source` reused while their key matches, see :mod:`paramcount.analyze.prove.record`; the
    others proven in ``n_jobs`` worker processes, None: one per core; without ``reuse``, every
    one proven) and the record to write with it."""
    from paramcount.analyze.prove import record

    prover = None
    if n_jobs != 1:
        from paramcount.analyze import parallel

        def prover(ids: list[str]) -> list:
            return parallel.prove_jobs(ids, n_jobs=n_jobs, framework=framework)

    # against Keras: what Keras builds; a model only transformers builds (DeepSeek, Falcon-7B's
    # parallel layout) is proven against transformers, formula + its deltas
    if framework == "keras":
        ids = sorted({r.arch for r in results if "keras" in registry.get(r.arch).checked_by})
    elif framework in record.COSTS:
        ids = cost_ids(results, framework)
    else:
        ids = transformers_ids(results)
    return record.proofs_for(ids, proofs_source(path, proofs) if reuse else None,
                             progress=progress, framework=framework, prover=prover)


class WorkersDied(Exception):
    """Worker processes died during the report's work (a segfault, the OOM killer): nothing is
    written; ``lines`` names what each was on."""

    def __init__(self, lines: list[str]) -> None:
        super().__init__("; ".join(lines))
        self.lines = lines


def write_report(path: str | os.PathLike = DEFAULT_OUTPUT,
                 pages: str | Mapping[str, str] | None = None, *,
                 results: list[Verification] | None = None,
                 proof_record: dict | None = None,
                 transformers_record: dict | None = None,
                 cost_records: dict | None = None,
                 proofs: str | os.PathLike | None = None, n_jobs: int | None = 1,
                 sweep: bool = False, reuse: bool = True) -> Path:
    """Write the report's pages (:func:`generate`; a plain text is the index alone) and, with
    ``results`` (or when neither ``pages`` nor ``results`` is given, so everything is verified
    here), the figures the index links to (``composition.svg``, ``scaling.svg``; see
    :mod:`paramcount.output.plots`) beside it. The last page is the index, written to ``path``; the
    others go to their names relative to ``path``'s folder.

    The pages and figures are one group (:func:`paramcount.runtime.files.write_group`): every target is
    checked and every file written to a synced temporary file before any is renamed, the index
    last, so no page or figure pairs with a different index. Recorded proofs are read from
    ``proofs`` (default: :func:`proofs_source`; without ``reuse``, none: every architecture is
    proven); the record written goes beside the index.
    """
    from paramcount.analyze.prove import record

    path = check_target(path)
    records: dict[str | os.PathLike, str] = {}  # the derive sweep's record, when swept here
    cost_proofs: dict[str, list] = {}  # quantity -> proofs, when proven here
    if pages is None:
        results = verify_all() if results is None else results
        shown, proof_record = proofs_for(results, path, proofs=proofs, n_jobs=n_jobs,
                                         reuse=reuse)
        hf_proofs, transformers_record = proofs_for(results, path, framework="transformers",
                                                    proofs=proofs, n_jobs=n_jobs, reuse=reuse)
        cost_proofs, cost_records = {}, {}
        for quantity in record.COSTS:
            cost_proofs[quantity], cost_records[quantity] = proofs_for(
                results, path, framework=quantity, proofs=proofs, n_jobs=n_jobs, reuse=reuse)
        died = [f"{p.arch} {c.case}: {c.message}"
                for p in (*shown, *hf_proofs, *(p for ps in cost_proofs.values() for p in ps))
                for c in p.cases if c.status == "error" and DIED in c.message]
        if died:  # the report would show a proof that never ran: not written
            raise WorkersDied(died)
        derived, _ = report_derived.record_for(path, n_jobs=n_jobs, fresh=sweep)
        pages = generate(results, proofs=shown, transformers_proofs=hf_proofs, index=path.name,
                         derived=derived, cost_proofs=cost_proofs)
        if derived[0]:
            from paramcount.analyze.derive.sweep import dumps

            records[path.parent / DERIVED_RECORD] = dumps(*derived)
    texts = {path.name: pages} if isinstance(pages, str) else dict(pages)
    *others, index = texts
    files: dict[str | os.PathLike, str | bytes] = dict(records)
    if proof_record is not None:  # the outcomes the report shows, keyed (prove/record.py)
        files[path.parent / record.RECORD_NAME] = record.dumps(proof_record, transformers_record,
                                                               cost_records)
    if results is not None:
        from paramcount.output.plots import report_plots

        files.update({path.parent / name: plot.svg() for name, plot in report_plots(results).items()})
        kv = report_costs.kv_figure(cost_proofs or {})
        if kv is not None:
            files[path.parent / report_costs.FIGURE] = kv.svg()
    files.update({path.parent / name: texts[name] for name in others})
    files[path] = texts[index]
    return write_group(files)[-1]
