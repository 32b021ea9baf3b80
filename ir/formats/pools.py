"""Writer of the pool export TSV (SPEC 9), shared by `export_pools` and the API download."""
from __future__ import annotations

from collections.abc import Iterable

from ir.formats.textio import TextSink

# The header line SPEC 9 fixes for each task.
POOL_TSV_HEADERS: dict[str, tuple[str, ...]] = {
    "answers": ("topic", "post_id"),
    "formulas": ("topic", "visual_id", "formula_id", "post_id"),
}


def write_pool_tsv(rows: Iterable[tuple[str, ...]], task: str, out: TextSink) -> int:
    """Writes the task's header line, then one line per row (the rows without their header); returns the rows.

    `out` is anything with a `write(str)` method: a text file, a command's stdout, an HttpResponse.
    """
    header = POOL_TSV_HEADERS[task]
    out.write("\t".join(header) + "\n")
    count = 0
    for row in rows:
        if len(row) != len(header):
            raise ValueError(f"pool row {row!r} does not have the {len(header)} columns of {task} pools")
        out.write("\t".join(row) + "\n")
        count += 1
    return count
