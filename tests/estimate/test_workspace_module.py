"""``qrelkit.estimate.workspace`` (the product's inputs, moved into the package) and ``qrelkit.estimate(...)``:
the package stays a function that returns a DataFrame whatever module a program imports first (the
package, the pool that imports it, the API that calls it): no import cycle."""
from __future__ import annotations

import subprocess
import sys

import pytest
from test_cli_sample import qk, write_files


@pytest.fixture(scope="module")
def inputs(tmp_path_factory):
    files = write_files(tmp_path_factory.mktemp("ws-module") / "in")
    files["sample"] = files["fwd"].parent / "s.tsv"
    qk("sample", "--runs", files["fwd"], files["bwd"], "--labels", files["judge"], "--size", "18", "--seed", "3",
       "--out", files["sample"])
    return files


@pytest.mark.parametrize("first", ["qrelkit", "qrelkit.estimate", "qrelkit.estimate.workspace",
                                   "qrelkit.pooling.people_sample", "qrelkit.api", "qrelkit.report.estimates"])
def test_qrelkit_estimate_returns_a_dataframe_whatever_is_imported_first(inputs, first):
    f = {k: str(v) for k, v in inputs.items()}
    code = (f"import {first}\nimport qrelkit\n"
            f"df = qrelkit.estimate([{f['fwd']!r}, {f['bwd']!r}], {f['judge']!r}, {f['people']!r}, {f['sample']!r})\n"
            "print(type(df).__name__, len(df), sorted(set(df['measure'])))")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr[-2000:]
    assert p.stdout.strip() == "DataFrame 4 ['P@10', 'nDCG@10']"


def test_the_old_module_name_is_gone():
    with pytest.raises(ModuleNotFoundError):
        __import__("qrelkit.estimating")


def test_the_workspace_module_reads_the_measures_depth():
    from qrelkit.estimate.workspace import DEFAULT_MEASURES, run_depth

    assert DEFAULT_MEASURES == ("P@10", "nDCG@10")
    assert run_depth(["P@10", "nDCG@20"], 10) == 20
    assert run_depth(["P@10", "AP"]) is None
