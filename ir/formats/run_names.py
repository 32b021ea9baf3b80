"""ARQMath run names: `<team>-task<N>-<name>-<auto|manual>-<both|math|text>[-<extract|generate>]-<P|A>`, what they say
about a run (its team, kind, data, ...). Read at run ingest (`services.name_facts`) and by evaluation (teams of
runs named after them). Pure Python.

Real names vary (docs/formats.md, "Run names"): `_` in place of `-` (`DPRL_task1_auto_both_A3`), a number after the
P or A (A3: a team's third alternate run), a `prim_` (primary) or `alt_` (alternate) prefix as the organizers' file
names have it, and a `tf.` prefix; the kind told by a prefix when the name has no P or A ending."""
from __future__ import annotations

import re
from dataclasses import dataclass, field


@dataclass(frozen=True)
class RunFacts:
    """What an ARQMath run name says about the run."""

    team: str
    task: int
    name: str  # the team's own name for the run ("" when the name has none, as `psu-task1-auto-both-A`)
    manual: bool
    data: str  # both, math or text
    primary: bool
    kind: str  # extract or generate (Task 3), "" otherwise
    baseline: bool  # the organizers' baselines come from a team named Baseline<year>
    kind_said: str = field(default="", compare=False)  # what told the kind: "ends in -A3", "starts with prim_"


_SEP = r"[-_]"
_PREFIX = re.compile(r"(?P<prefix>prim_|alt_|tf\.)", re.IGNORECASE)
_RUN_NAME = re.compile(
    rf"(?P<team>.+?){_SEP}task(?P<task>[123])(?:{_SEP}(?P<name>.+?))?{_SEP}(?P<mode>auto|manual){_SEP}"
    rf"(?P<data>both|math|text)(?:{_SEP}(?P<kind>extract|generate))?(?:{_SEP}(?P<primary>[PA])(?P<number>\d*))?"
    r"(?:\.\w+)?", re.IGNORECASE)


def parse_run_name(run: str) -> RunFacts | None:
    """`<team>-task<N>-<name>-<auto|manual>-<both|math|text>[-<extract|generate>]-<P|A>` with its variants (module
    docstring), a file extension allowed; None when the name does not follow it."""
    rest, prefixes = run.strip(), []
    while (found := _PREFIX.match(rest)) is not None:
        prefixes.append(found["prefix"].lower())
        rest = rest[found.end():]
    match = _RUN_NAME.fullmatch(rest)
    if match is None:
        return None
    team = match["team"]
    if match["primary"]:
        ending = match["primary"].upper() + match["number"]
        primary, said = ending[0] == "P", f"ends in -{ending}"
    elif "prim_" in prefixes or "alt_" in prefixes:
        primary = "prim_" in prefixes
        said = f"starts with {'prim_' if primary else 'alt_'}"
    else:
        return None
    return RunFacts(team=team, task=int(match["task"]), name=match["name"] or "",
                    manual=match["mode"].lower() == "manual", data=match["data"].lower(), primary=primary,
                    kind=(match["kind"] or "").lower(), baseline=team.lower().startswith("baseline"), kind_said=said)


def facts_said(facts: RunFacts) -> str:
    """The facts a name gave, as the job page and ingest_run say them ("team DPRL, task 1, automatic, text and math,
    alternate")."""
    data = {"both": "text and math", "math": "math only", "text": "text only"}[facts.data]
    parts = [f"team {facts.team}", f"task {facts.task}", "manual" if facts.manual else "automatic", data]
    if facts.kind:
        parts.append("extracted" if facts.kind == "extract" else "generated")
    if facts.baseline:
        parts.append("baseline")
    parts.append("primary" if facts.primary else "alternate")
    return ", ".join(parts)
