"""The judging order and budget options of create_campaign and edit_campaign (docs/pooling.md, "Judging order"),
declared once for both, and what the commands print of them."""
from __future__ import annotations

import argparse

from pooling.models import Campaign


def add_order_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--order", dest="judging_order", choices=Campaign.JudgingOrder.values,
                        help="the order of each assessor's items: random (ARQMath's, the default), move-to-front, "
                             "bandit or uncertain (random until the LLM is calibrated; docs/pooling.md, Live order "
                             "and budgets); it may change while judging")
    parser.add_argument("--warm-up", type=int, help="the first N items of each assignment in random order "
                                                    "(default 5)")
    parser.add_argument("--min-depth", type=int, help="every run's top D items are always judged (default 0)")
    parser.add_argument("--topic-budget", type=int, help="the most items judged per topic and assignment (0: no "
                                                         "budget, the whole pool)")
    parser.add_argument("--hours-budget", type=float, help="assessor hours for the whole campaign, spread over its "
                                                           "topics (0: no budget)")
    parser.add_argument("--budget-spread", choices=Campaign.BudgetSpread.values,
                        help="the hours spread evenly (default) or in proportion to each topic's relevant items "
                             "found so far")


def order_summary(campaign: Campaign) -> str:
    """", judging order bandit (warm-up 5, minimum depth 10), budget 100 items per topic": nothing for the default
    random order without budgets, as before the setting existed."""
    text = ""
    if campaign.judging_order != Campaign.JudgingOrder.RANDOM:
        text += (f", judging order {campaign.judging_order} (warm-up {campaign.warm_up}, minimum depth "
                 f"{campaign.min_depth})")
    if campaign.topic_budget is not None:
        text += f", budget {campaign.topic_budget} items per topic"
    if campaign.hours_budget is not None:
        text += f", budget {campaign.hours_budget:g} hours spread {campaign.budget_spread}"
    return text
