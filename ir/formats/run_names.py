"""ARQMath run names: `<team>-task<N>-<name>-<auto|manual>-<both|math|text>[-<extract|generate>]-<P|A>`, what they say
about a run (its team, kind, data, ...). Read at run ingest (`services.name_facts`) and by evaluation (teams of
runs named after them). Pure Python."""
from __future__ import annotations

import re
from dataclasses import dataclass


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


_RUN_NAME = re.compile(
    r"(?P<team>.+?)-task(?P<task>[123])(?:-(?P<name>.+?))?-(?P<mode>auto|manual)-(?P<data>both|math|text)"
    r"(?:-(?P<kind>extract|generate))?-(?P<primary>[PA])(?:\.\w+)?", re.IGNORECASE)


def parse_run_name(run: str) -> RunFacts | None:
    """`<team>-task<N>-<name>-<auto|manual>-<both|math|text>[-<extract|generate>]-<P|A>`, a file extension allowed;
    None when the name does not follow it."""
    match = _RUN_NAME.fullmatch(run.strip())
    if match is None:
        return None
    team = match["team"]
    return RunFacts(team=team, task=int(match["task"]), name=match["name"] or "",
                    manual=match["mode"].lower() == "manual", data=match["data"].lower(),
                    primary=match["primary"].upper() == "P", kind=(match["kind"] or "").lower(),
                    baseline=team.lower().startswith("baseline"))
