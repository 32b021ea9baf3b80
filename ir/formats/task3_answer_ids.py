"""What ARQMath-3 Task 3's evaluation reads beside the runs and qrels. The organizers' answer-id map
(`teams_document_id.tsv`): `run<TAB>topic<TAB>answer_id` per line, the id (`d_N`) they gave each distinct answer,
which the Task 3 qrels judge; and an organizer's team map, `run<TAB>team`. UTF-8 with or without BOM, LF or CRLF (the
real map has CRLF), blank lines skipped; problems with their lines, the file refused whole."""
from __future__ import annotations

from typing import BinaryIO

from ir.formats.textio import iter_lines, shown
from ir.problems import Problems

COLUMNS = "run topic answer_id"
AnswerIds = dict[str, dict[str, str]]  # run -> topic -> answer id


def read_answer_ids(stream: BinaryIO, problems: Problems) -> AnswerIds:
    """Every run's answer id per topic, runs and topics in file order."""
    found: AnswerIds = {}
    lines: dict[tuple[str, str], int] = {}
    for line, text in iter_lines(stream, problems):
        if not text.strip():
            continue
        fields = [field.strip() for field in text.split("\t")]
        if len(fields) != 3:
            problems.add(line, f"expected 3 tab-separated columns ({COLUMNS}), found {len(fields)}")
            continue
        run, topic, answer_id = fields
        empty = [name for name, value in zip(COLUMNS.split(), fields, strict=True) if not value]
        if empty:
            problems.add(line, f"empty {' and '.join(empty)}")
            continue
        earlier = lines.get((run, topic))
        if earlier is not None:
            problems.add(line, f"run '{shown(run)}' has a second answer id for topic '{shown(topic)}' "
                               f"(the first is on line {earlier})")
            continue
        lines[(run, topic)] = line
        found.setdefault(run, {})[topic] = answer_id
    if not found and not problems:
        problems.add(None, "the answer-id map has no lines")
    return found


def read_teams(stream: BinaryIO, problems: Problems) -> dict[str, str]:
    """An organizer's team map, `run<TAB>team` per line (for runs whose names do not start with their team; blank
    lines skipped): run -> team. Problems: not two fields, an empty one, a run given twice."""
    teams: dict[str, str] = {}
    lines: dict[str, int] = {}
    for line, text in iter_lines(stream, problems):
        if not text.strip():
            continue
        fields = [field.strip() for field in text.split("\t")]
        if len(fields) != 2 or not all(fields):
            problems.add(line, f"expected a run and its team, tab-separated; found {len(fields)} field(s)"
                               + (", one empty" if len(fields) == 2 else ""))
            continue
        run, team = fields
        if run in lines:
            problems.add(line, f"run '{shown(run)}' given twice (the first on line {lines[run]})")
            continue
        lines[run] = line
        teams[run] = team
    if not teams and not problems:
        problems.add(None, "the team map has no lines")
    return teams
