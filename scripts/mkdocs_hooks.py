"""MkDocs hooks (mkdocs.yml: ``hooks:``).

Pages that other branches add are listed in the nav already; until a page's file exists its
nav entry is dropped, so ``mkdocs build --strict`` passes before and after those merges.
Only the pages named in PENDING get this grace: any other missing page still fails the build.
Once every PENDING page is merged, empty the set (or delete this hook and its line in mkdocs.yml).
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

PENDING = frozenset({
    "pooling.md", "voting-and-interchange.md", "embedded-judge.md", "portability.md", "compare.md", "robustness.md",
})


def _prune(items: list[Any], docs: Path) -> list[Any]:
    kept = []
    for item in items:
        if isinstance(item, dict):
            (title, value), = item.items()
            if isinstance(value, list):
                value = _prune(value, docs)
                if not value:
                    continue
            elif isinstance(value, str) and value in PENDING and not (docs / value).exists():
                continue
            kept.append({title: value})
        elif isinstance(item, str) and item in PENDING and not (docs / item).exists():
            continue
        else:
            kept.append(item)
    return kept


def on_config(config: Any) -> Any:
    config["nav"] = _prune(config["nav"] or [], Path(config["docs_dir"]))
    return config
