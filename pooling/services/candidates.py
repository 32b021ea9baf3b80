"""A campaign's candidates (docs/pooling.md): items pooled beside its runs, read from a candidates file."""
from __future__ import annotations

import os

from django.db import transaction

from ir.formats.candidates import read_candidates
from ir.problems import InputError
from pooling.bulk import bulk_insert
from pooling.models import Campaign, Candidate
from pooling.services.pools import IMPORTED, campaign_lock


@transaction.atomic
def candidates_ingest(*, campaign: Campaign, path: str | os.PathLike) -> int:
    """Replaces the campaign's candidates with the file's (but those an import of judgments added); returns how many.
    The next pool build pools them.
    Refused, with nothing stored, when a line names a topic the campaign does not have."""
    campaign_lock(campaign=campaign)
    if campaign.task != Campaign.Task.ANSWERS:
        raise InputError(f"campaign '{campaign.name}' pools formulas: candidates are answers (posts)")
    candidates = read_candidates(path)
    topics = dict(campaign.topics.values_list("topic_id", "pk"))
    unknown = sorted({c.topic for c in candidates if c.topic not in topics})
    if unknown:
        raise InputError(f"topics not in campaign '{campaign.name}': {', '.join(unknown)}")
    # The items an import of judgments added to the pools stay: they are judged, not the file's.
    Candidate.objects.filter(campaign=campaign).exclude(source=IMPORTED).delete()
    positions: dict[str, int] = {}
    rows = []
    for c in candidates:
        positions[c.topic] = positions.get(c.topic, 0) + 1
        rows.append((campaign.pk, topics[c.topic], c.item_id, c.source, c.note, positions[c.topic]))
    return bulk_insert(Candidate, ["campaign", "topic", "item_id", "source", "note", "position"], rows)
