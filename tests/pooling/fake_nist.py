"""A zero-shot judge that answers TREC DL 2019's NIST grade, served over HTTP by tests/fakeserver.py.

It plays a perfect assessor on real data (../shared/data/trec-dl-2019, beside the repository): the
prompt's query text names the topic, the document block names the passage (its whole text, or the
opening of one the prompt cut), and the reply is the NIST grade (0 for a pair NIST did not judge).
Each log line is ``qid docid grade``.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

DATA = Path(__file__).resolve().parents[2] / ".." / "shared" / "data" / "trec-dl-2019"  # beside the repository
KEY = 300  # characters of a passage's opening that name it
TOPICS = {text: qid for qid, text in (line.split("\t", 1) for line in
                                       (DATA / "topics.tsv").read_text().strip().split("\n"))}
QRELS = {(q, d): int(g) for q, _, d, g in (line.split() for line in (DATA / "qrels.txt").read_text().split("\n") if line)}
WHOLE, OPENING = {}, {}  # a passage's whole text (when the prompt kept it all) or its opening -> docid
with open(DATA / "passages.jsonl") as f:
    for line in f:
        p = json.loads(line)
        text = " ".join(p["doc"].split())
        WHOLE.setdefault(text, p["docid"])
        OPENING.setdefault(text[:KEY], p["docid"])
DOCUMENT = re.compile(r"<<<DOCUMENT \w+>>>\n(.*?)\n<<<END DOCUMENT", re.S)


def answer(messages: list[dict]) -> tuple[str, str]:
    user = messages[-1]["content"]
    qid = TOPICS[max((t for t in TOPICS if t.strip() in user), key=len)]  # the longest: one may contain another
    shown = " ".join(DOCUMENT.search(user).group(1).split())
    docid = WHOLE.get(shown) or OPENING[shown[:KEY]]
    grade = QRELS.get((qid, docid), 0)
    return f"{qid} {docid} {grade}", json.dumps({"reason": "NIST's grade", "grade": grade})
