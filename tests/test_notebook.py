"""The example notebook (docs/notebooks/demo.ipynb) runs, top to bottom, in a fresh kernel
(the ``notebook`` extra: nbclient, nbformat, ipykernel; .ci/run installs it)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

NOTEBOOK = Path(__file__).resolve().parents[1] / "docs" / "notebooks" / "demo.ipynb"


@pytest.mark.slow
def test_the_example_notebook_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    nbclient = pytest.importorskip("nbclient", reason="pip install -e '.[notebook]'")
    nbformat = pytest.importorskip("nbformat", reason="pip install -e '.[notebook]'")
    # a kernel of this interpreter (ipykernel's installed spec says "python", which may be
    # another one, without pooltool)
    spec = tmp_path / "jupyter" / "kernels" / "pooltool-test"
    spec.mkdir(parents=True)
    (spec / "kernel.json").write_text(json.dumps({
        "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "pooltool's tests", "language": "python"}))
    monkeypatch.setenv("JUPYTER_PATH", str(tmp_path / "jupyter"))
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    nbclient.NotebookClient(notebook, timeout=120, kernel_name="pooltool-test",
                            resources={"metadata": {"path": str(tmp_path)}}).execute()
    outputs = [output for cell in notebook.cells if cell.cell_type == "code"
               for output in cell.outputs]
    assert not [output for output in outputs if output.output_type == "error"]
    table = next(output for output in outputs[1:] if output.output_type == "execute_result")
    assert "nDCG@10" in table.data["text/plain"] and "titlematch" in table.data["text/plain"]
