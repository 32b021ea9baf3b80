"""What an LLM judge's replies mean (docs/llm.md): the grade at the end of a reply (UMBRELA's
`##final score: N`), the majority of several samples (a tie going to the lower grade, as UMBRELA's ensemble), the
probability of each grade (read from the grade token's log probabilities, or the samples' shares), and a prompt
template filled with a topic and an item. Plain text in, plain data out; no Django."""
from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Collection, Iterable, Mapping, Sequence

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


# Where a grade's probabilities came from (llm.models.LlmGrade.probability_source, docs/llm.md "Grade probabilities").
LOGPROBS, SAMPLES, SINGLE, FILE = "logprobs", "samples", "single", "file"
# What may surround a grade's numeral in its token (" 2", "**2", ":2", "2."): taken off before the numeral is read.
_AROUND = " \t\r\n*_#:=\"'`."

# A reply's token as the endpoint gives it with `logprobs`: its text, its log probability, and its top alternatives
# at that position (text, log probability), the token itself usually among them.
TokenLogprob = tuple[str, float, Sequence[tuple[str, float]]]


def token_grade(token: str, grades: Collection[int]) -> int | None:
    """The grade a token names: its text, without the spaces and marks around it (`_AROUND`), is the grade's numeral
    ("2", " 2", "**2"; not "02", "two" or "2a"); None for any other token."""
    text = token.strip(_AROUND)
    if not text.isascii() or not text.isdigit() or str(int(text)) != text:
        return None
    return int(text) if int(text) in grades else None


def logprob_distribution(tokens: Sequence[TokenLogprob], *, grades: Collection[int]) -> dict[int, float] | None:
    """The probability of each of `grades` read from a reply's token log probabilities: the token where the number
    of the reply's last `final score` phrase starts (as `reply_grade` reads it), and its alternatives (the token
    itself among them), each alternative whose text names a grade (`token_grade`) adding its probability to that
    grade's, renormalised over the scheme's grades (a grade no alternative names gets 0). None when the tokens hold
    no grade, when the number goes on into the next token (a "1" then a "0" of grade 10: no one token's alternatives
    are the grades), or when no alternative names a grade."""
    text = "".join(token for token, _logprob, _top in tokens)
    found = list(_FINAL_SCORE.finditer(text))
    if not found or int(found[-1].group(1)) not in grades:
        return None
    start, end = found[-1].span(1)
    offset = 0
    for at in tokens:  # the token holding the number's first digit
        if offset + len(at[0]) > start:
            break
        offset += len(at[0])
    else:
        return None
    token, logprob, top = at
    if offset + len(token) < end:
        return None
    alternatives = dict(top)
    alternatives.setdefault(token, logprob)
    mass: dict[int, float] = dict.fromkeys(sorted(grades), 0.0)
    for alternative, value in alternatives.items():
        grade = token_grade(alternative, grades)
        if grade is not None and math.isfinite(value):
            mass[grade] += math.exp(min(value, 0.0))
    total = math.fsum(mass.values())
    if total <= 0.0:
        return None
    return {grade: p / total for grade, p in mass.items()}


def sample_distribution(sample_grades: Sequence[int | None], *, grades: Collection[int]) -> dict[int, float] | None:
    """Each of `grades`' share of the samples that gave one (a sample without a grade left out, as `majority`
    does); None when none did."""
    given = [grade for grade in sample_grades if grade is not None and grade in grades]
    if not given:
        return None
    counts = Counter(given)
    return {grade: counts[grade] / len(given) for grade in sorted(grades)}


def mean_distribution(distributions: Iterable[Mapping[int, float]], *, grades: Collection[int]
                      ) -> dict[int, float] | None:
    """The mean of several distributions over `grades` (each sample's, read from its log probabilities)."""
    rows = list(distributions)
    if not rows:
        return None
    return {grade: math.fsum(row.get(grade, 0.0) for row in rows) / len(rows) for grade in sorted(grades)}


def template_fields(template: str) -> list[str]:
    """The fields a template names, in order of first appearance."""
    return list(dict.fromkeys(_FIELD.findall(template)))


def prompt_fill(template: str, values: Mapping[str, str]) -> str:
    """The template with each `{field}` it names replaced by its value (missing: empty). Not str.format: the values
    and the organizer's own text hold LaTeX braces, which must stay as they are."""
    return _FIELD.sub(lambda match: values.get(match.group(1), ""), template)
