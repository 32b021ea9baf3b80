"""Writer of the pool export TSV (docs/pooling.md), shared by `export_pools` and the API download."""
from __future__ import annotations

from collections.abc import Iterable, Iterator

from ir.formats.textio import TextSink

# The header line of each task.
POOL_TSV_HEADERS: dict[str, tuple[str, ...]] = {
    "answers": ("topic", "post_id"),
    "formulas": ("topic", "visual_id", "formula_id", "post_id"),
}


def pool_tsv_lines(rows: Iterable[tuple[str, ...]], task: str) -> Iterator[str]:
    """The task's header line, then one line per row (the rows without their header), as they come: what a download
    streams."""
    header = POOL_TSV_HEADERS[task]
    yield "\t".join(header) + "\n"
    for row in rows:
        if len(row) != len(header):
            raise ValueError(f"pool row {row!r} does not have the {len(header)} columns of {task} pools")
        yield "\t".join(row) + "\n"


def write_pool_tsv(rows: Iterable[tuple[str, ...]], task: str, out: TextSink) -> int:
    """Writes `pool_tsv_lines` to `out` (anything with a `write(str)` method: a text file, a command's stdout);
    returns the rows."""
    count = -1  # the header is not a row
    for line in pool_tsv_lines(rows, task):
        out.write(line)
        count += 1
    return count
