"""Reads of nugget banks (docs/nuggets.md)."""
from django.db.models import QuerySet

from nuggets.models import BankVersion, Nugget
from pooling.models import Topic


def bank_nuggets(*, topic: Topic) -> QuerySet[Nugget]:
    """The topic's bank as it stands: its accepted nuggets in bank order."""
    return Nugget.objects.filter(topic=topic, status=Nugget.Status.ACCEPTED).order_by("position", "pk")


def bank_entries(*, topic: Topic) -> list[dict]:
    """The bank as a frozen version stores it: [{id, text, importance}, ...] in bank order."""
    return [{"id": nugget.pk, "text": nugget.text, "importance": nugget.importance}
            for nugget in bank_nuggets(topic=topic)]


def latest_version(*, topic: Topic) -> BankVersion | None:
    return BankVersion.objects.filter(topic=topic).order_by("-number").first()
