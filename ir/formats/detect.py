"""Tells which collection file format a file is in, by its content rather than its name."""
from __future__ import annotations

import os
from typing import NoReturn

from ir.formats.formula_tsv import extra_columns, header_guess, is_formula_index_header, tsv_header
from ir.formats.se_xml import xml_root_name
from ir.formats.textio import BOM
from ir.problems import InputError, Problem, Problems

COLLECTION_KINDS = ("posts", "comments", "formulas", "formula_extra", "jsonl")
# Enough to get past an XML declaration, comments or leading blank lines.
PEEK = 1 << 16


def collection_file_kind(path: str | os.PathLike) -> str:
    """One of COLLECTION_KINDS, or InputError saying why the file is none of them."""
    with open(path, "rb") as stream:
        start = stream.read(PEEK).removeprefix(BOM).lstrip()
    if not start:
        _refuse(path, "the file is empty")
    if start.startswith(b"{"):
        return "jsonl"
    if start.startswith(b"<"):
        problems = Problems()
        root = xml_root_name(path, problems)
        if root in ("posts", "comments"):
            return root
        if root is not None:
            what = f"XML with root element <{root}>"
        elif problems.items:  # the parser's reason, with its line
            found = problems.items[0]
            what = f"XML that is not well-formed at line {found.line} ({found.message.removeprefix('malformed XML: ')})"
        else:
            what = "XML that is not well-formed"
        _refuse(path, f"{what}; expected <posts> or <comments>")
    unreadable = Problems()
    header = tsv_header(path, unreadable)
    if unreadable.items:  # a header with bad bytes: say which line and what, not only that the kind is unknown
        found = unreadable.items[0]
        guess = header_guess(path)
        what = f"{guess} that cannot be read" if guess else "the first line cannot be read"
        raise InputError(Problem(found.line, f"{what}: {found.message}", os.path.basename(path)))
    if is_formula_index_header(header):
        return "formulas"
    if extra_columns(header):
        return "formula_extra"
    _refuse(
        path,
        "expected Stack Exchange XML (<posts> or <comments>), a formula index TSV, "
        "a TSV with id and slt or opt columns, or JSONL",
    )


def _refuse(path: str | os.PathLike, reason: str) -> NoReturn:
    raise InputError(Problem(None, f"cannot tell what kind of file this is: {reason}", os.path.basename(path)))
