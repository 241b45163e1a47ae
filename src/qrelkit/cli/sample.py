"""``qrelkit sample``: draw the pairs people label, each with its inclusion probability.

Parsing and printing only; the universe, the census and the record are
:mod:`qrelkit.pooling.people_sample`'s, the designs :mod:`qrelkit.estimate.design`'s."""
from __future__ import annotations

import sys
from pathlib import Path
from typing import List, Optional

import typer

from qrelkit.cli._app import JsonOpt, RunNamesOpt, WorkspaceOpt, app, console, print_json
from qrelkit.cli.measure import RunsOpt, SeedOpt
from qrelkit.errors import UsageError

SizeOpt = typer.Option(..., "--size", help="Pairs people label: a count N or P% of the pairs outside the census.")
DesignOpt = typer.Option("weighted", "--design", help="uniform | weighted (by the pair's weight in the runs' "
                         "measures, by topic) | defensive (half weighted, half uniform) | active (by the judge's uncertainty; "
                         "labels with a probability).")


@app.command()
def sample(
    size: str = SizeOpt,
    design: str = DesignOpt,
    seed: int = SeedOpt,
    runs: Optional[List[str]] = RunsOpt,
    labels: Optional[List[str]] = typer.Option(None, "--labels", help="The judge's labels (qrels): their pairs "
                                               "join the universe."),
    depth: int = typer.Option(10, "--depth", min=1, help="Every pair in a run's top K joins the universe."),
    human_depth: Optional[int] = typer.Option(
        None, "--human-depth", min=0, help="Census: people judge every pair some run ranks at or above K "
        "(probability 1, not sample members); -w: default the pool's."),
    out: Optional[Path] = typer.Option(None, "--out", help="Write the sample as TSV (header, then qid docid "
                                       "probability); default: stdout, unless --json."),
    method: Optional[str] = typer.Option(None, "--method", help="-w, --design active: the judge whose "
                                         "probabilities weigh the draw (default: every judge's)."),
    workspace: Optional[Path] = WorkspaceOpt,
    run_names: str = RunNamesOpt,
    as_json: bool = JsonOpt,
) -> None:
    """Draw a probability sample of pairs for people to label (what `qrelkit estimate` corrects the judge with)."""
    from qrelkit.pooling.people_sample import check_design, parse_size

    parsed = parse_size(size)
    check_design(design)
    if workspace is not None:
        if runs or labels:
            raise UsageError("give -w WS (the sample is drawn from its pool) or --runs and --labels, not both")
        drawn, spec, universe, extra = _from_workspace(workspace, parsed, design, seed, human_depth, method)
    else:
        drawn, universe = _from_files(runs, labels, depth, parsed, design, seed, human_depth, run_names)
        spec, extra = None, {}
    if out is not None:
        from qrelkit.estimate.sample_file import write_sample

        write_sample(out, drawn)
    summary = {"design": drawn.design, "seed": drawn.seed, "size": str(parsed), "universe": universe,
               "census": len(drawn.census), "sampled": len(drawn.pairs),
               "out": str(out) if out is not None else None, **({"people": spec} if spec else {}), **extra}
    if as_json:
        print_json(summary)
        return
    if out is None:
        _write_tsv(drawn)
    console.print(f"sampled {summary['sampled']} of {universe} pairs "
                  f"({drawn.design}, seed {drawn.seed}); census: {summary['census']} pairs at probability 1"
                  + (f"; written to {out}" if out is not None else ""), highlight=False, soft_wrap=True)
    if extra.get("message"):
        console.print(extra["message"], highlight=False, soft_wrap=True)


def _from_files(runs, labels, depth, size, design, seed, human_depth, run_names):
    from qrelkit.cli._app import require_runs
    from qrelkit.data import load_qrels
    from qrelkit.pooling.people_sample import draw, file_universe, top_census

    if not labels:
        raise UsageError("pass --labels QRELS (the judge's labels) and --runs PATH, or -w WS")
    if len(labels) > 1:
        raise UsageError(f"--labels takes one qrels file, got {len(labels)}")
    read = require_runs(runs, run_names=run_names, max_depth=depth)
    pairs = load_qrels(labels[0]).pairs
    universe = file_universe(read, pairs, depth)
    drawn = draw(universe, size=size, design=design, seed=seed, runs=read, census=top_census(read, human_depth))
    return drawn, len(universe)


def _from_workspace(ws, size, design, seed, human_depth, method):
    from qrelkit.pooling.people_sample import sample_workspace
    from qrelkit.store import Store
    from qrelkit.store.lock import writer_lock

    with Store.open(ws) as store, writer_lock(ws, "sample"):
        drawn, spec = sample_workspace(store, size, design, seed, human_depth, method)
        counts = store.sample_counts()
        universe = len(store.cases())
    hint = (f"people's share is now {spec}: {counts.waiting} sampled pairs wait for people (`qrelkit annotate serve "
            f"-w {ws}`); the judge labels them too (`qrelkit fill/build -w {ws}` does, and keeps the sample while the "
            f"pool stays the same; or `qrelkit judge -w {ws} --share all`), then `qrelkit estimate -w {ws}`")
    return drawn, spec, universe, {"waiting": counts.waiting, "message": hint}


def _write_tsv(drawn) -> None:
    """The sample as the TSV --out writes, on stdout."""
    import tempfile

    from qrelkit.estimate.sample_file import write_sample

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "sample.tsv"
        write_sample(path, drawn)
        sys.stdout.write(path.read_text())
