"""Arguments the scoring commands (evaluate, reusability) share: run files against a qrels file, or a campaign."""
from __future__ import annotations

import argparse

from evaluation import services


def runs_arguments(parser: argparse.ArgumentParser, *, campaign_help: str, editions: bool = False) -> None:
    """`editions`: --qrels may be given several times (a list), each edition's qrels, with a --label each."""
    parser.add_argument("runs", nargs="*", metavar="RUN", help="run files (with --qrels)")
    if editions:
        parser.add_argument("--qrels", action="append", metavar="FILE",
                            help="qrels file: topic 0 item grade; several: the runs scored against each (editions)")
        parser.add_argument("--label", action="append", default=[], metavar="L",
                            help="each --qrels file's label, in order (default: the file's name)")
    else:
        parser.add_argument("--qrels", help="qrels file: topic 0 item grade")
    parser.add_argument("--campaign", help=campaign_help)
    parser.add_argument("--task", choices=[services.ANSWERS, services.FORMULAS],
                        help="with --qrels; default: formulas for 6-column ARQMath Task 2 runs, else answers")
