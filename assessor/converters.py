"""URL converters of the judging pages: numbers that fit the database's integers, or no match (a 404)."""
from __future__ import annotations

# The largest integer the databases take as a parameter (SQLite's, a signed 64-bit one): a position or a key past it
# cannot exist, and the written-out SQL would fail on it instead of finding nothing.
MAX_DB_INT = 2**63 - 1


def db_int_or_none(text: str) -> int | None:
    """A non-negative integer of at most MAX_DB_INT from text, else None."""
    if not (text.isascii() and text.isdigit()):
        return None
    value = int(text)
    return value if value <= MAX_DB_INT else None


class DbIntConverter:
    """Like Django's `int`, but a number past MAX_DB_INT does not match: the request is a 404."""
    regex = "[0-9]+"

    def to_python(self, value: str) -> int:
        number = db_int_or_none(value)
        if number is None:
            raise ValueError(value)
        return number

    def to_url(self, value: int) -> str:
        return str(value)
