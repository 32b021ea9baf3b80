"""Downloads: the one rule for naming downloaded files (parts joined by "-", no spaces, nothing a shell or a header
could trip on: "ARQMath-3 Task 1" gives ARQMath-3_Task_1-qrels.txt), and CSV cells a spreadsheet will not run."""
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
    leading apostrophe. Usernames and run names come from uploads, so they may start so."""
    text = str(value)
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text
