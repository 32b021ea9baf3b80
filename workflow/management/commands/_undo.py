"""What the undo commands share: a run by its name, and the report of what a change did to built pools."""
from __future__ import annotations

from django.core.management.base import BaseCommand

from ir.problems import InputError
from pooling import services
from pooling.models import Campaign, Run


def run_named(campaign: Campaign, name: str) -> Run:
    try:
        return campaign.runs.get(name=name)
    except Run.DoesNotExist:
        raise InputError(f"campaign '{campaign.name}' has no run named '{name}'") from None


def report_pools(command: BaseCommand, after: services.PoolsAfter) -> None:
    """The rebuilt pools' size, and on standard error each judged item they left out (its judgments kept)."""
    for line in after.messages():
        command.stderr.write(line)
    if after.rebuilt is not None:
        command.stdout.write(f"pools rebuilt: {after.rebuilt.items} items in {len(after.rebuilt.sizes)} topics")
