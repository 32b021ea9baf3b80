"""Problems of one kind grouped into one line with their count and lines, once (ir/problems.py), on every
surface: the command's standard error, the API (a job's problems, a 400 body) and the job page."""
import io
import re

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from rest_framework.test import APIClient

from ir.formats.runs import read_run
from ir.problems import GROUP_AFTER, InputError, Problem, Problems, kind_of
from jobs.models import Job
from pooling import services
from pooling.models import Run, RunEntry
from tests.commands import rejected

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("jobs_run_on_commit")]
ROWS = 98_000
GROUPED = ("big.tsv:line 1: topic 'A.1' is not a topic of this campaign (98,000 like this one, on lines 1, 2, 3, 4, 5, "
           "..., 98000)")



@pytest.fixture
def campaign(tmp_path):
    campaign = services.campaign_create(name="other", task="answers")
    topics = tmp_path / "topics.xml"
    topics.write_text('<Topics><Topic number="X.1"><Title>t</Title><Question>q</Question></Topic></Topics>')
    services.topics_ingest(campaign=campaign, path=topics)
    return campaign


def big_run() -> bytes:
    """98 topics of 1000 rows, none of them a topic of the campaign."""
    return "".join(f"A.{t}\t{1000 * t + r}\t{r}\t{1000 - r}.5\trun\n"
                   for t in range(1, 99) for r in range(1, 1001)).encode()


def test_many_problems_of_one_kind_are_one_line_with_count_and_lines():
    problems = Problems(file="big.tsv")
    for line in range(1, ROWS + 1):
        problems.add(line, f"topic 'A.{1 + (line - 1) // 1000}' is not a topic of this campaign")
    assert problems.count == ROWS
    assert problems.messages() == [GROUPED]
    with pytest.raises(InputError) as caught:
        problems.raise_if_any()
    assert caught.value.messages() == [GROUPED] and caught.value.total == ROWS
    [entry] = caught.value.as_dicts()
    assert (entry["line"], entry["file"], entry["count"], entry["lines"], entry["last_line"]) == (
        1, "big.tsv", ROWS, [1, 2, 3, 4, 5], ROWS)
    assert entry["kind"] == "topic … is not a topic of this campaign"


def test_one_problem_reads_exactly_as_before_and_a_few_of_a_kind_each_on_its_line():
    one = Problems(file="r.tsv")
    one.add(7, "rank 'x' is not a whole number >= 1")
    assert one.messages() == ["r.tsv:line 7: rank 'x' is not a whole number >= 1"]
    few = Problems(file="r.tsv")
    for line in range(1, GROUP_AFTER + 1):
        few.add(line, f"rank '{line}x' is not a whole number >= 1")
    few.add(9, "empty topic id")
    assert few.messages() == [f"r.tsv:line {n}: rank '{n}x' is not a whole number >= 1"
                              for n in range(1, GROUP_AFTER + 1)] + ["r.tsv:line 9: empty topic id"]


def test_kinds_are_grouped_apart_and_reported_in_line_order():
    problems = Problems(file="r.tsv")
    for line in range(1, 11):
        problems.add(line * 2, f"score 'n{line}' is not a finite number")
        problems.add(line * 2 + 1, f"rank '{line}y' is not a whole number >= 1")
    problems.add(None, "the file has no rows")
    assert problems.messages() == [
        "r.tsv:line 2: score 'n1' is not a finite number (10 like this one, on lines 2, 4, 6, 8, 10, ..., 20)",
        "r.tsv:line 3: rank '1y' is not a whole number >= 1 (10 like this one, on lines 3, 5, 7, 9, 11, ..., 21)",
        "r.tsv: the file has no rows",
    ]
    kind = kind_of("'5' appears twice for topic A.1 (first on line 1)")
    assert kind == "… appears twice for topic A.… (first on line …)"


def test_an_error_made_from_a_list_groups_too():
    error = InputError([Problem(n, f"post id '{n}' appears twice (first on line 1)", "Posts.xml") for n in range(2, 7)])
    assert error.messages() == ["Posts.xml:line 2: post id '2' appears twice (first on line 1) (5 like this one, "
                                "on lines 2, 3, 4, 5, 6)"]


def test_command_reports_98000_bad_rows_in_a_line_and_exits_2(campaign, tmp_path):
    path = tmp_path / "big.tsv"
    path.write_bytes(big_run())
    lines = rejected("ingest_run", "--campaign", "other", str(path))  # exit status 2
    assert lines == [GROUPED]
    assert not Run.objects.exists() and not RunEntry.objects.exists()


def test_api_and_job_page_report_98000_bad_rows_in_a_line(campaign, organizer, client):
    api = APIClient()
    api.force_login(organizer)  # a session the upload bound sees (force_authenticate would pass it by)
    response = api.post(f"/api/campaigns/{campaign.pk}/runs/",
                        {"file": SimpleUploadedFile("big.tsv", big_run())})
    job = api.get(f"/api/jobs/{response.json()['id']}/").json()
    assert job["status"] == "failed" and job["message"] == "rejected: 98,000 problems, nothing was written"
    [problem] = job["problems"]
    assert problem["count"] == ROWS and problem["line"] == 1 and problem["last_line"] == ROWS
    assert "98,000 like this one" in problem["message"]

    client.force_login(organizer)
    response = client.post(f"/campaigns/{campaign.pk}/runs/upload/",
                           {"file": SimpleUploadedFile("big.tsv", big_run())}, follow=True)
    page = response.content.decode()
    problems = re.search(r'<div class="problems".*?</div>', page, re.S).group(0)
    assert problems.count("<li>") == 1
    assert ("big.tsv: line 1: topic &#x27;A.1&#x27; is not a topic of this campaign (98,000 like this one, on lines "
            "1, 2, 3, 4, 5, ..., 98000)") in problems
    assert not Run.objects.exists()


def test_api_400_body_keeps_its_lines_and_adds_the_groups(organizer, campaign):
    api = APIClient()
    api.force_authenticate(organizer)
    answer = api.post("/api/campaigns/", {"name": "other", "task": "answers"}, format="json")
    assert answer.status_code == 400
    body = answer.json()
    assert body == {"detail": "rejected input", "problems": ["a campaign named 'other' already exists"], "total": 1,
                    "problem_groups": [{"line": None, "message": "a campaign named 'other' already exists", "file": "",
                                        "kind": "a campaign named … already exists", "count": 1, "lines": [],
                                        "last_line": None}]}
    assert Job.objects.count() == 0


def test_the_run_reader_gives_kinds_so_repeats_in_different_topics_are_one_kind():
    rows = "".join(f"A.{t}\t{d}\t{r}\t1\tx\n" for t in (1, 2) for r, d in enumerate(["5", "5", "6", "6"], 1))
    problems = Problems(file="r.tsv")
    list(read_run(io.BytesIO(rows.encode()), problems, Problems(), topics={"A.1": 1, "A.2": 2}, task="answers"))
    assert problems.messages() == [
        "r.tsv:line 2: '5' appears twice for topic A.1 (first on line 1) (4 like this one, on lines 2, 4, 6, 8)"]
    assert problems.groups[0].kind == "… appears twice for topic …"
