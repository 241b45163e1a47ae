"""The guard's precision on real prose in other languages: paragraphs of the machine's translated
manual pages (issue 44).

    python benchmarks/guard_manpages.py [MODEL.json.gz ...] [--per-lang 1500] [--show 2] [--semantic E5.json]

TREC DL 2019 and LLMJudge dev are English, and the classifier's training reads non-English real
text only as short interface strings. Manual pages are the one body of translated prose that a
Linux machine has (``/usr/share/man/<lang>``); they are instructions to people ("use this option",
"note:", "if you find an error in this page, report it"), so they test whether the classifier
mistakes ordinary directions for instructions to a judge. The pages are read, never copied: they
depend on the machine, like the training's gettext strings. Each paragraph (the roff text between
paragraph macros, over 60 characters) is one document; at most ``--per-lang`` per language. With
no model file, the shipped one; ``--semantic``: the embedding stage's model from a file
(``guard_semantic_train.py --out``) instead of the shipped one.
"""
from __future__ import annotations

import argparse
import gzip
import json
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from qrelkit.judging import guard, guard_model, guard_semantic  # noqa: E402

LANGS = ("de", "fr", "es", "pt_BR", "it", "nl", "pl", "ru", "ja", "ko", "zh_CN", "tr", "id", "vi", "ar", "hi", "sv", "cs", "uk")  # the last three since the phrasings of set 6 were trained on
_BREAK = (".PP", ".SH", ".TP", ".IP", ".LP", ".P", ".SS")
_ESCAPE = re.compile(r"\\f[BIRP]|\\\(..|\\-|\\&|\\e")


def paragraphs(lang: str, cap: int) -> list[str]:
    """The paragraphs of the manual pages in ``lang``, in file order, at most ``cap``."""
    out: list[str] = []
    for path in sorted(Path(f"/usr/share/man/{lang}").rglob("*.gz")):
        try:
            raw = gzip.decompress(path.read_bytes()).decode("utf-8", "ignore")
        except (OSError, EOFError):
            continue
        buf: list[str] = []
        for line in raw.splitlines():
            if line.startswith((".", "'")):
                if line[:3] in _BREAK and buf:
                    out.append(" ".join(buf))
                    buf = []
                continue
            buf.append(_ESCAPE.sub(" ", line))
        if buf:
            out.append(" ".join(buf))
    return [t for t in out if len(t) > 60][:cap]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("models", type=Path, nargs="*")
    ap.add_argument("--per-lang", type=int, default=1500)
    ap.add_argument("--show", type=int, default=2, help="flagged paragraphs shown per language and model")
    ap.add_argument("--semantic", type=Path, help="an embedding-stage model file instead of the shipped one")
    a = ap.parse_args()
    if a.semantic:
        e5 = guard_semantic.from_dict(json.loads(a.semantic.read_text(encoding="utf-8")))
        guard_semantic.load = lambda: e5  # the stage asks load() for its model
    data = {lang: ps for lang in LANGS if (ps := paragraphs(lang, a.per_lang))}
    models = [(str(p), guard_model.from_dict(json.loads(gzip.decompress(p.read_bytes())))) for p in a.models]
    for name, model in models or [("shipped", guard_model.load())]:
        guard_model.load = lambda model=model: model  # the guard asks load() for its model
        flagged = {lang: [t for t in ps if guard.check(t).flagged] for lang, ps in data.items()}
        total = sum(map(len, flagged.values()))
        print(f"{name}: {total} of {sum(map(len, data.values())):,} paragraphs flagged; "
              + ", ".join(f"{lang} {len(flagged[lang])}/{len(data[lang])}" for lang in data))
        for lang, texts in flagged.items():
            for t in texts[:a.show]:
                print(f"  {lang}: {guard.check(t).span[:110]!r}")


if __name__ == "__main__":
    main()
