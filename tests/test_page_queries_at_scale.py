"""Issue 24: the organizer pages and downloads ask as many queries for a campaign of six topics as for one of two
(a query per topic is what made the pools page and the qrels downloads slow at full ARQMath-3 scale)."""
from django.db import connection
from django.test.utils import CaptureQueriesContext

from tests.factories import (
    AssignmentFactory,
    CampaignFactory,
    JudgmentFactory,
    PoolItemFactory,
    RunEntryFactory,
    RunFactory,
    TopicFactory,
)


def add_topics(campaign, runs, first: int, count: int) -> None:
    """Topics each pooled from every run, with an official judgment."""
    for n in range(first, first + count):
        topic = TopicFactory(campaign=campaign, topic_id=f"A.{n}", position=n)
        for run in runs:
            RunEntryFactory(run=run, topic=topic, item_id=str(1000 * n), rank=1)
        PoolItemFactory(topic=topic, item_id=str(1000 * n))
        JudgmentFactory(assignment=AssignmentFactory(campaign=campaign, topic=topic), item_id=str(1000 * n))


def test_pages_and_downloads_ask_as_many_queries_for_six_topics_as_for_two(client, organizer):
    campaign = CampaignFactory()
    runs = [RunFactory(campaign=campaign) for _ in range(2)]
    add_topics(campaign, runs, 1, 2)
    c = f"/campaigns/{campaign.pk}"
    paths = [f"{c}/pools/", f"{c}/qrels.txt", f"/api/campaigns/{campaign.pk}/qrels/", f"{c}/report/?format=latex",
             f"{c}/delete/", f"{c}/runs/{runs[0].pk}/replace/"]
    client.force_login(organizer)

    def queries() -> dict[str, int]:
        counts = {}
        for path in paths:
            client.get(path)  # the first request after judgments changed brings the scores up to date
            with CaptureQueriesContext(connection) as captured:
                response = client.get(path)
                if response.streaming:
                    b"".join(response.streaming_content)
            assert response.status_code == 200, path
            counts[path] = len(captured)
        return counts

    two = queries()
    add_topics(campaign, runs, 3, 4)
    six = queries()
    assert six == two
    lines = b"".join(client.get(f"{c}/qrels.txt").streaming_content).decode().splitlines()
    assert [line.split()[0] for line in lines] == ["A.1", "A.2", "A.3", "A.4", "A.5", "A.6"]
