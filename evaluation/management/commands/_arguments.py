"""Arguments the scoring commands (evaluate, reusability) share: run files against a qrels file, or a campaign."""
from __future__ import annotations

import argparse

from evaluation import services


def runs_arguments(parser: argparse.ArgumentParser, *, campaign_help: str) -> None:
    parser.add_argument("runs", nargs="*", metavar="RUN", help="run files (with --qrels)")
    parser.add_argument("--qrels", help="qrels file: topic 0 item grade")
    parser.add_argument("--campaign", help=campaign_help)
    parser.add_argument("--task", choices=[services.ANSWERS, services.FORMULAS],
                        help="with --qrels; default: formulas for 6-column ARQMath Task 2 runs, else answers")
