"""What an LLM judge's replies mean (docs/llm.md): the grade at the end of a reply (UMBRELA's
`##final score: N`), the majority of several samples (a tie going to the lower grade, as UMBRELA's ensemble), and a
prompt template filled with a topic and an item. Plain text in, plain data out; no Django."""
from __future__ import annotations

import re
from collections import Counter
from collections.abc import Collection, Mapping, Sequence

# UMBRELA's prompts end "Provide each score in the format of: ##final score: score". Models decorate it (bold,
# quotes, "is"); the last one in the reply counts (a reasoning model may quote the format before answering).
_FINAL_SCORE = re.compile(r"final[ _]score[\"'*\s]*(?:is\b|[:=-])?[\"'*\s]*(\d+)", re.IGNORECASE)
# The fields a template may name; anything else in braces (LaTeX's `\frac{a}{b}`) is left as written. `scale` and
# `grades` are the campaign's judging scheme's ("0 to 2", and a line per grade with its label and definition).
FIELDS = ("query", "passage", "query_formula", "formula", "scale", "grades")
# ARQMath's grades, the scale of a campaign without a scheme of its own.
ARQMATH_GRADES = (0, 1, 2, 3)
_FIELD = re.compile(r"\{(" + "|".join(FIELDS) + r")\}")


def reply_grade(reply: str | None, *, grades: Collection[int] = ARQMATH_GRADES) -> int | None:
    """The grade a reply ends with (`##final score: N`, the last such phrase), or None when there is none or it is
    not one of `grades` (the campaign's scheme's): an unparseable reply is a failure to record, never a grade (UMBRELA
    made it 0)."""
    if not reply:
        return None
    found = _FINAL_SCORE.findall(reply)
    if not found:
        return None
    grade = int(found[-1])
    return grade if grade in grades else None


def majority(grades: Sequence[int | None]) -> int | None:
    """The most frequent of the samples' grades (None: a sample with no grade, left out); a tie goes to the lower
    grade. None when no sample has a grade."""
    counts = Counter(grade for grade in grades if grade is not None)
    if not counts:
        return None
    most = max(counts.values())
    return min(grade for grade, n in counts.items() if n == most)


def template_fields(template: str) -> list[str]:
    """The fields a template names, in order of first appearance."""
    return list(dict.fromkeys(_FIELD.findall(template)))


def prompt_fill(template: str, values: Mapping[str, str]) -> str:
    """The template with each `{field}` it names replaced by its value (missing: empty). Not str.format: the values
    and the organizer's own text hold LaTeX braces, which must stay as they are."""
    return _FIELD.sub(lambda match: values.get(match.group(1), ""), template)
