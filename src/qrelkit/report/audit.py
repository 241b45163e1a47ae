"""The report's audit section: how each audited judge behaved under the probes (``qrelkit audit``).

Shown only when the workspace holds an audit: a workspace never audited has nothing to say
here, so the section is left out rather than listed as empty (as the RAG section is). Each
audit is shown as ``qrelkit audit --json`` printed it: the probes' flips, flip rates with their
Wilson intervals, and the judge's relevant rate on the untouched pairs beside the altered ones.
"""
from __future__ import annotations

from typing import Optional, Sequence


def audit_section(audits: Sequence[dict]) -> Optional[dict]:
    """The JSON of the section, or None when there is nothing to show."""
    if not audits:
        return None
    return {"available": True, "audits": list(audits)}
