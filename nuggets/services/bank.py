"""Writes of nugget banks (docs/nuggets.md): every change to a nugget is kept (NuggetChange) with who and when; a
bank is frozen into a numbered version when support judging of its topic starts."""
from django.db import transaction
from django.utils import timezone

from nuggets.models import BankVersion
from nuggets.selectors import bank_entries, latest_version
from pooling.models import Topic


@transaction.atomic
def bank_freeze(*, topic: Topic, user=None) -> BankVersion:
    """The topic's bank frozen: its latest version when the bank has not changed since, else a new version (number
    one more) of the accepted nuggets as they stand. Locks the topic so that two freezes make one version."""
    Topic.objects.select_for_update().filter(pk=topic.pk).first()
    entries = bank_entries(topic=topic)
    latest = latest_version(topic=topic)
    if latest is not None and latest.nuggets == entries:
        return latest
    return BankVersion.objects.create(campaign_id=topic.campaign_id, topic=topic,
                                      number=(latest.number if latest else 0) + 1, nuggets=entries,
                                      frozen_at=timezone.now(), frozen_by=user)
