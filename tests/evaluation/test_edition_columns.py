"""A campaign's earlier editions scored on the web (docs/evaluation.md, "Results across editions"): the leaderboard
shows each edition's columns, its CSV and the LaTeX download end with the editions table, all with the values the
`report` command computes, read from the leaderboard's stored scores (never computed in the request)."""
import re

import pytest

from evaluation import editions
from evaluation.editions import edition_add
from tests.commands import command_output
from tests.evaluation.test_campaign import judged_answers  # noqa: F401

pytestmark = pytest.mark.django_db

EDITION = b"A.1\t0\t10\t1\nA.1\t0\t12\t3\nA.2\t0\t20\t0\nA.2\t0\t99\t2\n"


def command_table(fmt: str) -> str:
    """The editions table of `report --campaign answers` (computed by the command), its last part."""
    out, _err = command_output("report", "--campaign", "answers", "--format", fmt, "--table", "results")
    return out[out.index("run,answers ndcg_prime") if fmt == "csv" else out.index(r"\begin{table}", 1):]


@pytest.fixture
def with_edition(judged_answers):  # noqa: F811
    edition_add(campaign=judged_answers, label="2021", data=EDITION, filename="qrels-2021.txt")
    return judged_answers


def test_the_leaderboard_shows_each_editions_columns_as_report_computes_them(client, organizer, with_edition):
    client.force_login(organizer)
    page = client.get(f"/campaigns/{with_edition.pk}/leaderboard/").content.decode()
    assert 'id="editions-leaderboard"' in page
    assert "<th class=\"num\" data-sort=\"number\">2021 nDCG′</th>" in page
    assert "<th class=\"num\" data-sort=\"number\">answers MAP′</th>" in page
    row = command_table("csv").splitlines()[1].split(",")
    assert row[0] == "r1"
    shown = re.search(r'<tr data-run="r1"><td>r1</td>(.*?)</tr>', page[page.index('id="editions-leaderboard"'):])
    assert shown is not None
    assert re.findall(r'<td class="num" data-value="[^"]*">([^<]*)</td>', shown.group(1)) == row[1:]


def test_the_leaderboard_csv_ends_with_the_editions_table(client, organizer, with_edition):
    client.force_login(organizer)
    text = client.get(f"/campaigns/{with_edition.pk}/leaderboard.csv").content.decode().replace("\r\n", "\n")
    start = text.index("edition_run,")
    expected = command_table("csv").replace("run,", "edition_run,", 1)
    assert text[start:start + len(expected)] == expected


def test_the_latex_download_holds_the_editions_table_of_the_command(client, organizer, with_edition):
    client.force_login(organizer)
    response = client.get(f"/campaigns/{with_edition.pk}/report/?format=latex")
    text = b"".join(response.streaming_content).decode()
    assert "Results of answers across editions" in text
    assert text.endswith(command_table("latex"))


def test_the_editions_are_scored_with_the_stored_scores_not_in_the_request(client, organizer, with_edition,
                                                                          monkeypatch):
    client.force_login(organizer)
    client.get(f"/campaigns/{with_edition.pk}/leaderboard/")  # the scores are computed (in-process, no broker)

    def refused(**kwargs):
        raise AssertionError("an edition scored in the request")

    monkeypatch.setattr(editions, "evaluate_campaign_edition", refused)
    for url in ("leaderboard/", "leaderboard.csv", "report/?format=latex"):
        response = client.get(f"/campaigns/{with_edition.pk}/{url}")
        body = b"".join(response.streaming_content) if response.streaming else response.content
        assert response.status_code == 200 and b"2021" in body, url


def test_an_edition_added_later_is_on_the_next_scores(client, organizer, judged_answers):  # noqa: F811
    client.force_login(organizer)
    url = f"/campaigns/{judged_answers.pk}/leaderboard/"
    assert 'id="editions-leaderboard"' not in client.get(url).content.decode()
    edition_add(campaign=judged_answers, label="2021", data=EDITION, filename="qrels-2021.txt")
    assert 'id="editions-leaderboard"' in client.get(url).content.decode()
