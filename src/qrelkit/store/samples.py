"""The people's probability sample of a workspace: which pairs people label, with what chance.

An estimate from people's labels on a sample is unbiased only if each pair's inclusion
probability is known exactly as the draw made it; recomputing it later from a pool that has
changed since would silently bias it. So the draw is stored whole, here: one row per draw in
draw order (a design with replacement may draw a pair twice), each with its probability, and
the census stratum (pairs people judge by another design, probability 1) flagged. How it was
drawn (design, size, seed, the pool it was drawn from) is kept in the meta table beside it.

A sampled pair *waits* until people have labelled it (a judgment with source ``human``);
`status` counts those, and `estimate` reports them instead of dropping them.
"""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, NamedTuple, Optional

SAMPLE_META = "people_sample"


class SampleRow(NamedTuple):
    """One draw of the people's sample (``census``: a pair judged by census, probability 1)."""

    qid: str
    docid: str
    probability: float
    census: bool = False


@dataclass(frozen=True)
class SampleCounts:
    """Where the stored people's sample stands: its pairs and how many wait for people."""

    pairs: int  # distinct sampled pairs (census excluded)
    census: int  # census pairs (probability 1)
    labelled: int  # distinct sampled pairs people have labelled
    waiting: int  # distinct sampled pairs people have not labelled yet

    def to_json(self) -> dict:
        return {"pairs": self.pairs, "census": self.census, "labelled": self.labelled,
                "waiting": self.waiting}


class SampleStore:
    """The people's sample (mixin of :class:`qrelkit.store.Store`)."""

    def replace_people_sample(self, rows: Iterable[SampleRow], design: dict[str, Any]) -> int:
        """Store a new draw (the previous one goes) and how it was drawn; returns the rows written."""
        data = [(r.qid, r.docid, float(r.probability), int(bool(r.census))) for r in rows]
        with self.transaction() as c:
            c.execute("DELETE FROM people_sample")
            c.executemany("INSERT INTO people_sample(qid, docid, probability, census) VALUES(?,?,?,?)", data)
            self.set_meta(SAMPLE_META, design)
        return len(data)

    def people_sample(self) -> list[SampleRow]:
        """The stored draw, census rows included, in draw order (empty: no sample)."""
        return [SampleRow(q, d, p, bool(c)) for q, d, p, c in self.query(
            "SELECT qid, docid, probability, census FROM people_sample ORDER BY position")]

    def people_sample_design(self) -> Optional[dict[str, Any]]:
        """How the stored sample was drawn (None: the workspace has no sample)."""
        return self.get_meta(SAMPLE_META)

    def clear_people_sample(self) -> None:
        with self.transaction() as c:
            c.execute("DELETE FROM people_sample")
            c.execute("DELETE FROM meta WHERE key=?", (SAMPLE_META,))

    def sample_counts(self) -> SampleCounts:
        """Pairs, census and the sampled pairs still waiting for a people's label."""
        pairs, census = self.query(
            "SELECT COUNT(DISTINCT CASE WHEN census=0 THEN qid || char(0) || docid END), "
            "COUNT(DISTINCT CASE WHEN census=1 THEN qid || char(0) || docid END) FROM people_sample")[0]
        labelled = self.query(
            "SELECT COUNT(*) FROM (SELECT DISTINCT s.qid, s.docid FROM people_sample s WHERE s.census=0 AND EXISTS "
            "(SELECT 1 FROM judgments j WHERE j.qid=s.qid AND j.docid=s.docid AND j.source='human'))")[0][0]
        return SampleCounts(pairs, census, labelled, pairs - labelled)

    def sample_waiting(self) -> list[tuple[str, str]]:
        """The sampled pairs (census excluded) people have not labelled yet, in draw order, each once."""
        rows = self.query(
            "SELECT s.qid, s.docid FROM people_sample s WHERE s.census=0 AND NOT EXISTS (SELECT 1 FROM judgments j "
            "WHERE j.qid=s.qid AND j.docid=s.docid AND j.source='human') ORDER BY s.position")
        return list(dict.fromkeys((q, d) for q, d in rows))
