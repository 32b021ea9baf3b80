"""Downloads: the one rule for naming downloaded files (parts joined by "-", no spaces, nothing a shell or a header
could trip on: "ARQMath-3 Task 1" gives ARQMath-3_Task_1-qrels.txt), and CSV cells a spreadsheet will not run."""
import re

from django.utils.http import content_disposition_header
from django.utils.text import get_valid_filename


def download_name(*parts: str, extension: str) -> str:
    """`parts` (empty ones left out) joined by "-", made a plain file name (Django's get_valid_filename: spaces
    become underscores, anything else but letters, digits, "-", "_" and "." is dropped), plus ".extension"."""
    stem = get_valid_filename("-".join(" ".join(str(p).split()) for p in parts if p).replace("/", "-"))
    return f"{stem}.{extension}"


def attachment(*parts: str, extension: str) -> str:
    """A Content-Disposition header value that makes the browser save the response as download_name(...)."""
    return content_disposition_header(True, download_name(*parts, extension=extension))


def spreadsheet_safe(value) -> str:
    """A CSV cell that a spreadsheet will not run as a formula: text starting with = + - @ (or a tab or CR) gets a
    leading apostrophe. Usernames and run names come from uploads, so they may start so. A number stays a number
    (an int or float, or text that is a plain decimal number such as a kappa of "-0.3333"): a spreadsheet reads it
    as a value, never as a formula, and the apostrophe would turn it into text."""
    text = str(value)
    if isinstance(value, int | float) or text[:1] not in ("=", "+", "-", "@", "\t", "\r") or _NUMBER.fullmatch(text):
        return text
    return "'" + text


# A plain decimal number, as Python and the measures write one: "-0.3333", "+1", "-2e-05"; nothing else may follow.
_NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?")
