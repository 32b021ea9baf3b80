"""Arguments the scoring commands (evaluate, reusability) share: run files against a qrels file, or a campaign; and
the rules of the options that take several values before the run files (docs/evaluation.md, "Commands")."""
from __future__ import annotations

import argparse
import os
from collections.abc import Sequence
from pathlib import PurePath

from evaluation import scoring
from ir.formats.formula_tsv import is_formula_index_header, tsv_header


def runs_arguments(parser: argparse.ArgumentParser, *, campaign_help: str, editions: bool = False
                   ) -> tuple[argparse._ArgumentGroup, argparse._ArgumentGroup]:
    """The two argument groups, returned for more options of their own: run files against a qrels file (with
    `editions`, --qrels may be given several times, each edition's qrels, with a --label each), and a campaign."""
    files = parser.add_argument_group("run files against a qrels file")
    files.add_argument("runs", nargs="*", metavar="RUN", help="run files (with --qrels)")
    if editions:
        files.add_argument("--qrels", action="append", metavar="FILE",
                           help="qrels file: topic 0 item grade; several: the runs scored against each (editions)")
        files.add_argument("--label", action="append", default=[], metavar="L",
                           help="each --qrels file's label, in order (default: the file's name)")
    else:
        files.add_argument("--qrels", help="qrels file: topic 0 item grade")
    files.add_argument("--task", choices=[scoring.ANSWERS, scoring.FORMULAS],
                       help="with --qrels; default: formulas for 6-column ARQMath Task 2 runs, else answers")
    campaign = parser.add_argument_group("a campaign's runs against its judgments")
    campaign.add_argument("--campaign", help=campaign_help)
    return files, campaign


def is_path(value: str) -> bool:
    """Whether a value is written as a file's path, not as a measure's name: it holds a `/` (or the system's
    separator), or its name ends in an extension (a `.` then a letter: `run.tsv`, `results.test`). No measure name
    has either (`nDCG@10`, `AP(rel=1)`, `SetF(beta=0.5)`, `iprec_at_recall_0.10`)."""
    return "/" in value or os.sep in value or PurePath(value).suffix[1:2].isalpha()


class MeasuresThenRuns(argparse.Action):
    """`--measures M... RUN...`: the option takes every value after it, and those written as paths (`is_path`) are
    run files, which go to `runs_after_measures` (after the positional ones). `--` ends the measures as well."""

    def __call__(self, parser, namespace, values, option_string=None) -> None:
        given = list(values or [])
        setattr(namespace, self.dest, [value for value in given if not is_path(value)])
        namespace.runs_after_measures = [value for value in given if is_path(value)]


def measures_argument(parser: argparse.ArgumentParser, group: argparse._ArgumentGroup, *, help: str) -> None:
    """--measures M... (MeasuresThenRuns), its run files in `runs_after_measures` ([] without the option)."""
    group.add_argument("--measures", nargs="+", default=[], metavar="M", action=MeasuresThenRuns, help=help)
    parser.set_defaults(runs_after_measures=[])


def formula_indexes(values: Sequence[str]) -> tuple[list[str], list[str]]:
    """(index files, run files) of `--formula-index FILE... RUN...`: both are TSV files of one shape of name, so the
    first line decides, as the ingest reads an index: a formula index file starts with its header (`id post_id
    thread_id type visual_id formula`, or the v3 one), a run file never does. Runs given before the option, or
    after `--`, need no such rule."""
    indexes = [path for path in values if is_formula_index_header(tsv_header(path))]
    return indexes, [path for path in values if path not in indexes]
