"""One rule, one message, whatever the way in (issue 15): a grade and its comment through the judging page, the API
and import_judgments; an assignment's kind and round through assign_topics, the assignments page and the import;
an assignment's progress the same on the assessor's start page, the API, and the organizer's progress report."""
from html import unescape

import pytest
from django.utils import timezone

from judging import progress
from judging.models import Assignment, Judgment
from pooling.models import PoolItem
from tests.commands import rejected
from tests.factories import AssignmentFactory, ItemVisitFactory, PoolItemFactory
from tests.judging.fixtures import assign

pytestmark = pytest.mark.django_db

NO_GRADE = "'5' is not a grade: use 3, 2, 1, 0, SF or DK"
NO_COMMENT = "a comment is required with Do not know (DK): say what went wrong"
ROUND = "a round is given for training assignments only, not for official"


def page_errors(client, assignment, grade: str, comment: str) -> str:
    item = PoolItem.objects.get(topic=assignment.topic, item_id="10")
    response = client.post(f"/assess/assignments/{assignment.pk}/items/{item.position}/",
                           {"item_id": "10", "grade": grade, "comment": comment})
    assert response.status_code == 400
    return unescape(response.content.decode())


def api_errors(client, assignment, grade: str, comment: str) -> str:
    response = client.post("/api/judgments/", {"assignment": assignment.pk, "item_id": "10",
                                               "grades": [{"grade": grade, "comment": comment}]},
                           content_type="application/json")
    assert response.status_code == 400
    return str(response.json())


def import_errors(tmp_path, line: str) -> list[str]:
    path = tmp_path / "j.tsv"
    path.write_text(line + "\n")
    return rejected("import_judgments", "--campaign", "answers", str(path))


@pytest.mark.parametrize(("grade", "comment", "message"), [("5", "", NO_GRADE), ("DK", " ", NO_COMMENT)])
def test_a_refused_grade_reads_the_same_on_the_page_the_api_and_the_import(client, answers, ada, tmp_path,
                                                                           grade, comment, message):
    a = assign(answers, ada, "A.1")
    client.force_login(ada)
    assert message in page_errors(client, a, grade, comment)
    assert message in api_errors(client, a, grade, comment)
    assert import_errors(tmp_path, f"ada\tA.1\t10\t{grade}\t{comment}") == [f"j.tsv:line 1: {message}"]
    assert not Judgment.objects.exists()


def test_a_round_for_another_kind_reads_the_same_in_the_command_the_page_and_the_import(client, organizer, answers,
                                                                                       ada, tmp_path):
    assert rejected("assign_topics", "--campaign", "answers", "--assessor", "ada", "--kind", "official",
                    "--round", "2", "A.1") == [ROUND]
    client.force_login(organizer)
    page = client.post(f"/campaigns/{answers.pk}/assignments/", {"action": "assign", "assessors": [ada.pk],
                                                                "topics": ["A.1"], "kind": "official", "round": "2"})
    assert ROUND in unescape(page.content.decode())
    assert import_errors(tmp_path, "ada\tA.1\t10\t3\t\tofficial\t2") == [f"j.tsv:line 1: {ROUND}"]
    assert rejected("assign_topics", "--campaign", "answers", "--assessor", "ada", "--kind", "nightly",
                    "A.1") == ["unknown kind 'nightly': use official, training, dual or characterisation"]
    assert import_errors(tmp_path, "ada\tA.1\t10\t3\t\tnightly") == [
        "j.tsv:line 1: unknown kind 'nightly': use official, training, dual or characterisation"]
    assert not Assignment.objects.exists()


def test_progress_is_the_same_on_the_start_page_the_api_and_the_organizer_s_report(client):
    a = AssignmentFactory()
    first, second, _third = PoolItemFactory.create_batch(3, topic=a.topic)
    ItemVisitFactory(assignment=a, item_id=first.item_id, completed_at=timezone.now())
    ItemVisitFactory(assignment=a, item_id=second.item_id)          # shown, not judged
    client.force_login(a.assessor)
    assert "1 of 3 judged" in client.get("/assess/").content.decode()
    assert [(x["done"], x["total"]) for x in client.get("/api/assignments/").json()["results"]] == [(1, 3)]
    row = progress.progress_report(campaign=a.campaign).rows[0]
    assert (row.judged, row.total) == (1, 3)


def test_a_comment_with_a_nul_character_is_refused_not_a_server_error(client, answers, ada):
    a = assign(answers, ada, "A.1")
    client.force_login(ada)
    assert "the comment contains a NUL character" in page_errors(client, a, "DK", "odd\x00byte")
    assert not Judgment.objects.exists()
