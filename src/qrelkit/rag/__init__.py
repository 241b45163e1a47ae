"""qrelkit.rag: answers generated from each system's top-k, and their correctness.

This is what RAGAlign needs and no other command makes: ``generate`` asks one
generator LLM to answer every topic from every system's top-k retrieved
passages (answers only from that context, strict JSON), ``grade`` asks a
grader LLM whether each answer captures a ground-truth answer, and the
correctness file it writes is ``qrelkit ragalign``'s ``--generation`` input.
Both go through the LLM layer (cache, retries, concurrency, cost accounting)
and store their results in the workspace, so they resume where they stopped.
"""
from qrelkit.rag.files import answer_record, grade_record, read_answers, write_jsonl
from qrelkit.rag.generate import GenerationSummary, agenerate
from qrelkit.rag.grade import GradeSummary, agrade
from qrelkit.store.rag import Answer, Grade

__all__ = [
    "Answer",
    "GenerationSummary",
    "Grade",
    "GradeSummary",
    "agenerate",
    "agrade",
    "answer_record",
    "grade_record",
    "read_answers",
    "write_jsonl",
]
