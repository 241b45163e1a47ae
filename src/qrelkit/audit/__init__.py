"""How a judge behaves under probes built from the collection's own labelled pairs (``qrelkit audit``).

:mod:`.probes` alters labelled pairs (query words stuffed into non-relevant passages, an
instruction to the assessor, an off-topic paragraph appended to relevant ones), :mod:`.flips`
counts the labels that change and their interval, :mod:`.run` judges it all through the judging
pipeline in the workspace's scratch copy and stores the result for the report.
"""
from qrelkit.audit.run import Audit, AuditRequest, aaudit, audit

__all__ = ["Audit", "AuditRequest", "aaudit", "audit"]
