"""The HTML report (with a JSON twin) of what changed in a collection."""
from __future__ import annotations

from qrelkit.report.report import (
    CostRow,
    EscalationRow,
    ReportFiles,
    ReportInputs,
    build_report,
    report_from_store,
    report_from_workspace,
    write_report,
)

__all__ = [
    "CostRow", "EscalationRow", "ReportFiles", "ReportInputs", "build_report", "report_from_store", "report_from_workspace",
    "write_report",
]
