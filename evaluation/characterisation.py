"""The characterisation report (assessor.characterisation.characterisation_report: per run, the fraction of its
characterised answers marked yes to each question, ARQMath-3's MG and UI) as `evaluate --campaign` writes it."""
from __future__ import annotations

from collections.abc import Iterator

from characterisation.selectors import CharacterisationReport
from ir.prime import MEAN, format_value

PREFIX = "char:"  # the measure column: char:MG, char:UI


def characterisation_lines(report: CharacterisationReport) -> Iterator[str]:
    """run<TAB>char:LABEL<TAB>all<TAB>fraction (four decimals; n/a for a run none of whose items was characterised),
    for each run and question; nothing when no topic was characterised."""
    if not report.topics:
        return
    for run in report.runs:
        for label in report.labels:
            yield f"{run.run}\t{PREFIX}{label}\t{MEAN}\t{format_value(run.fractions[label])}\n"
