"""notebooks/explore.ipynb runs top to bottom, offline, in a kernel of this environment's Python,
and shows what it promises: LaTeX formulas, markdown tables, verifications, SVG plots."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
pytest.importorskip("ipykernel")

NOTEBOOK = Path(__file__).resolve().parent.parent / "notebooks" / "explore.ipynb"


@pytest.fixture(scope="module")
def executed():
    nb = nbformat.read(NOTEBOOK, as_version=4)
    # One cell more, in memory only: which Python the kernel ran (must be this venv's).
    nb.cells.append(nbformat.v4.new_code_cell("import sys; print(sys.executable)"))
    client = nbclient.NotebookClient(nb, kernel_name="python3", timeout=300,
                                     resources={"metadata": {"path": str(NOTEBOOK.parent)}})
    client.execute()  # raises CellExecutionError on the first failing cell
    return nb


def _outputs(nb, mime):
    return [o["data"][mime] for c in nb.cells if c.cell_type == "code"
            for o in c.get("outputs", []) if mime in o.get("data", {})]


def test_kernel_is_this_environment(executed):
    printed = executed.cells[-1].outputs[0]["text"].strip()
    assert Path(printed).resolve() == Path(sys.executable).resolve()


def test_notebook_is_stored_without_outputs():
    nb = nbformat.read(NOTEBOOK, as_version=4)
    assert all(not c.get("outputs") and not c.get("execution_count")
               for c in nb.cells if c.cell_type == "code")


def test_notebook_shows_formulas_tables_verifications_and_plots(executed):
    latex = _outputs(executed, "text/latex")
    assert any(r"N_{\mathrm{token}} = d_{e} v" in t for t in latex)
    assert any(r"N_{\mathrm{lstm\_lm}}" in t for t in latex)
    markdown = "\n".join(_outputs(executed, "text/markdown"))
    assert "| **embeddings** |" in markdown and "llama2_70b" in markdown
    for verified in ("**gpt2** [gpt2_base_en]", "**bert** [bert_base_en_uncased]",
                     "**lstm_lm** [zaremba_2014_large]", "**llama** [llama2_7b_en]"):
        assert f"{verified}" in markdown
    assert "MISMATCH" not in markdown and markdown.count(": **match**") == 4
    svgs = _outputs(executed, "image/svg+xml")
    assert len(svgs) == 3 and all(s.lstrip().startswith("<?xml") for s in svgs)
    assert "KV cache against context" in svgs[2]  # memory and compute, section 9
    assert any("T^{2}" in t for t in latex)  # the forward FLOPs: attention over T keys
    plain = "\n".join(_outputs(executed, "text/plain"))  # KerasHub's cache beside transformers'
    assert "'KerasHub': 536870912" in plain and "'transformers': 268369920" in plain
    errors = [o for c in executed.cells for o in c.get("outputs", [])
              if o.get("output_type") == "error" or o.get("name") == "stderr"]
    assert not errors, errors
