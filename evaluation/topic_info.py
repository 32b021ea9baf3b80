"""A campaign's topic information: ingested from a CSV (a Topic column and any others), read back for the
category breakdown of `evaluate --campaign ... --by COLUMN` and the leaderboard."""
from __future__ import annotations

from pathlib import Path

from django.contrib.auth.models import User
from django.db import transaction

from evaluation.models import CampaignTopicInfo
from ir.formats.topic_info import TopicInfo, decode_topic_info
from ir.prime import natural_key
from pooling.models import Campaign

SHOWN = 10  # topics named in a warning


@transaction.atomic
def topic_info_ingest(*, campaign: Campaign, data: bytes, filename: str, user: User | None = None
                      ) -> tuple[CampaignTopicInfo, list[str]]:
    """Reads a topic information CSV (its bytes) and stores it as the campaign's, replacing any earlier one; a file
    with any problem changes nothing. Returns it with warnings: topics the campaign does not have (kept: they group
    nothing), and the campaign's topics the file does not describe (in no group)."""
    name = Path(filename).name
    info = decode_topic_info(data, name=name)
    stored, _created = CampaignTopicInfo.objects.update_or_create(
        campaign=campaign, defaults={"filename": name[:255], "columns": info.columns, "rows": info.topics,
                                     "uploaded_by": user})
    campaign_topics = set(campaign.topics.values_list("topic_id", flat=True))
    warnings = []
    unknown = sorted(set(info.topics) - campaign_topics, key=natural_key)
    if unknown:
        warnings.append(f"{len(unknown)} topic{'s' if len(unknown) != 1 else ''} of the file "
                        f"{'are' if len(unknown) != 1 else 'is'} not in the campaign: {_some(unknown)}")
    missing = sorted(campaign_topics - set(info.topics), key=natural_key)
    if missing:
        warnings.append(f"{len(missing)} topic{'s' if len(missing) != 1 else ''} of the campaign "
                        f"{'have' if len(missing) != 1 else 'has'} no row in the file: {_some(missing)}")
    return stored, warnings


def _some(topics: list[str]) -> str:
    return ", ".join(topics[:SHOWN]) + (f" and {len(topics) - SHOWN} more" if len(topics) > SHOWN else "")


def campaign_topic_info(*, campaign: Campaign) -> TopicInfo | None:
    """The campaign's topic information, or None before any was ingested."""
    stored = CampaignTopicInfo.objects.filter(campaign=campaign).first()
    if stored is None:
        return None
    return TopicInfo(columns=list(stored.columns),
                     topics={topic: dict(values) for topic, values in stored.rows.items()})
