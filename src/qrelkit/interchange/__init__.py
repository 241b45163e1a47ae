"""What qrelkit exchanges with the tools next to it.

- :mod:`.columns`: merged qrels under the column names ir_measures (``query_id, doc_id,
  relevance``) and PyTerrier (``qid, docno, label``) read, provenance columns alongside;
- :mod:`.lara`: the confidence judge's probabilities in LARA's input form
  (``topic_id, doc_id, annotation, prob_yes, prob_no``);
- :mod:`.imports`: other tools' judgments (TREC qrels with a source name, UMBRELA's JSONL) as a
  labelled qrels version with provenance ``imported``, to compare with ``agree``, merge and evaluate.
"""
