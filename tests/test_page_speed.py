"""What keeps the slowest pages fast at full ARQMath-3 scale (docs/benchmarks.md, "Pages at full scale"): a download
that sends its first line before it reads its rows, and no query that must read every run row of every campaign."""
import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from rest_framework.test import APIClient

from tests.factories import CampaignFactory, PoolItemFactory, RunEntryFactory, RunFactory, TopicFactory

pytestmark = pytest.mark.django_db


def campaign_with_runs(topics: int = 3, runs: int = 2):
    campaign = CampaignFactory()
    all_runs = [RunFactory(campaign=campaign) for _ in range(runs)]
    for n in range(1, topics + 1):
        topic = TopicFactory(campaign=campaign, topic_id=f"A.{n}", position=n)
        for run in all_runs:
            for rank in range(1, 4):
                RunEntryFactory(run=run, topic=topic, item_id=f"{n}{rank}", rank=rank)
        for position in range(1, 4):
            PoolItemFactory(topic=topic, item_id=f"{n}{position}", position=position)
    return campaign


def test_pools_export_api_sends_its_header_before_it_reads_the_pool_rows(organizer):
    campaign = campaign_with_runs()
    api = APIClient()
    api.force_authenticate(organizer)
    with CaptureQueriesContext(connection) as queries:
        response = api.get(f"/api/campaigns/{campaign.pk}/pools/export/")
        assert response.status_code == 200 and response.streaming
        chunks = iter(response.streaming_content)
        first = next(chunks)
        before = len(queries)
        rest = b"".join(chunks)
    assert first == b"topic\tpost_id\n"
    assert len(queries) > before  # the rows were read after the header went out
    lines = (first + rest).decode().splitlines()
    assert lines[1:4] == ["A.1\t11", "A.1\t12", "A.1\t13"] and len(lines) == 1 + 9


def test_topic_delete_confirmation_finds_the_topics_run_rows_through_an_index(client, organizer):
    """Its counts of the topic's run rows go down the primary key (run, topic, item) from its leading column: with
    sequential scans priced out, a condition on the topic alone still walks the whole index, and at ARQMath-3's size
    both read 2.6 million rows for the 33,000 of one topic."""
    campaign = campaign_with_runs()
    topic = campaign.topics.get(topic_id="A.2")
    client.force_login(organizer)
    with CaptureQueriesContext(connection) as queries:
        page = client.get(f"/campaigns/{campaign.pk}/topics/{topic.pk}/delete/")
    assert page.status_code == 200
    assert "its 6 rows in 2 runs" in page.content.decode() and "its 3 pool items" in page.content.decode()
    run_rows = [q["sql"] for q in queries.captured_queries if '"pooling_runentry"' in q["sql"]]
    assert run_rows
    with connection.cursor() as cursor:
        cursor.execute("SET LOCAL enable_seqscan = off")
        for sql in run_rows:
            cursor.execute("EXPLAIN " + sql)
            plan = "\n".join(row[0] for row in cursor.fetchall())
            assert "Seq Scan on pooling_runentry" not in plan, (sql, plan)
            conditions = [line for line in plan.splitlines() if "Index Cond" in line]
            assert conditions and all("run_id" in line for line in conditions), (sql, plan)
