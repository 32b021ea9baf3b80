"""The judging app's side of deleting a topic: a topic goes only while nothing is judged or shown on it. Its
assignments holding no work go with it (they protect the topic); then pooling.services.topic_delete deletes the
topic, its pool items and its run rows."""
from __future__ import annotations

from django.db import transaction

from ir.problems import InputError
from judging.models import Assignment, SampleItem
from judging.selectors import judged_items_of_campaign, topic_work
from pooling import services as pooling
from pooling.models import Campaign, Topic


@transaction.atomic
def topic_delete(*, campaign: Campaign, topic_id: str) -> pooling.TopicContents:
    """Deletes a topic with nothing judged on it (InputError with the reason otherwise, and nothing changes)."""
    pooling.campaign_lock(campaign=campaign)
    topic = Topic.objects.filter(campaign=campaign, topic_id=topic_id).first()
    if topic is None:
        raise InputError(f"topic '{topic_id}' is not a topic of campaign '{campaign.name}'")
    # A submit locks its assignment's row first (judgment_submit): with the topic's assignments locked, the check
    # waits for a submit in progress and sees its judgment, and a later one finds its assignment gone (404).
    list(Assignment.objects.select_for_update().filter(topic=topic).values_list("pk", flat=True))
    refusal = topic_work(topic=topic).refusal(topic_id)
    if refusal:
        raise InputError(refusal)
    SampleItem.objects.filter(assignment__topic=topic).delete()
    Assignment.objects.filter(topic=topic).delete()
    return pooling.topic_delete(campaign=campaign, topic_id=topic_id,
                                judged_items=judged_items_of_campaign(campaign))
