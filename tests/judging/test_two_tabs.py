"""A submit carries the item's revision its page showed, and the outbox's numbering of it (docs/judging.md, "Two tabs"
and "Nothing lost"): a newer revision on the server is never replaced unseen, and the server can tell, from any
browser, how many submits a browser made that it never heard."""
import pytest

from judging import selectors, services
from judging.models import BrowserSubmit, Judgment, JudgmentRevision
from judging.services import GradeInput
from tests.judging.fixtures import assign
from tests.judging.test_judging_ahead import pool, url

pytestmark = pytest.mark.django_db
BROWSER = "0123456789abcdef0123456789abcdef"


def test_a_submit_that_saw_an_older_revision_changes_nothing_and_says_what_changed(answers, ada):
    a = assign(answers, ada, "A.1")
    first = pool(a)[0]
    services.judgment_submit(assignment_pk=a.pk, item_id=first, grades=[GradeInput("2")], user=ada, seen=0)
    with pytest.raises(services.RevisionConflict) as conflict:
        services.judgment_submit(assignment_pk=a.pk, item_id=first, grades=[GradeInput("0")], user=ada, seen=0)
    assert conflict.value.messages() == ["changed in another tab: Medium (2) → Not relevant (0)"]
    assert conflict.value.revision == 1
    assert list(Judgment.objects.values_list("grade", "revision")) == [("2", 1)]
    # The same grade again changes nothing, so nothing is replaced: no conflict.
    same = services.judgment_submit(assignment_pk=a.pk, item_id=first, grades=[GradeInput("2")], user=ada, seen=0)
    assert same.unchanged == 1 and same.revision == 1
    # Submitted again knowing the server's revision: a new revision, deliberately.
    again = services.judgment_submit(assignment_pk=a.pk, item_id=first, grades=[GradeInput("0")], user=ada, seen=1)
    assert again.revised == 1 and again.revision == 2
    assert JudgmentRevision.objects.count() == 2


def test_a_formulas_conflict_names_its_instance(formulas, ada):
    a = assign(formulas, ada, "B.1")
    grades = [GradeInput("3", formula_id="1"), GradeInput("1", formula_id="2")]
    services.judgment_submit(assignment_pk=a.pk, item_id="100", grades=grades, user=ada)
    with pytest.raises(services.RevisionConflict) as conflict:
        services.judgment_submit(assignment_pk=a.pk, item_id="100", grades=[GradeInput("3", formula_id="1"),
                                                                            GradeInput("0", formula_id="2")],
                                 user=ada, seen=1)
    assert conflict.value.messages() == ["instance 2: changed in another tab: Low (1) → Not relevant (0)"]


def test_the_page_shows_its_revision_and_a_conflict_is_a_409_or_the_page_again(ada_client, answers, ada):
    a = assign(answers, ada, "A.1")
    first = pool(a)[0]
    assert 'name="seen_revision" value="0"' in ada_client.get(url(a, 0)).content.decode()
    services.judgment_submit(assignment_pk=a.pk, item_id=first, grades=[GradeInput("2")], user=ada)
    data = {"item_id": first, "grade": "0", "seen_revision": "0", "submit_key": "k" * 32}
    answer = ada_client.post(url(a, 0), data, HTTP_ACCEPT="application/json")
    assert answer.status_code == 409 and answer.json() == {
        "saved": False, "errors": ["changed in another tab: Medium (2) → Not relevant (0)"],
        "conflict": {"revision": 1}}
    page = ada_client.post(url(a, 0), {**data, "submit_key": ""})
    html = page.content.decode()
    assert page.status_code == 400 and "changed in another tab: Medium (2) → Not relevant (0)" in html
    assert "Submit again to save your grades as a new revision" in html
    assert 'name="seen_revision" value="1"' in html           # submitting this page again replaces it, knowingly
    assert Judgment.objects.get().grade == "2"


def test_a_revision_seen_that_is_no_number_is_refused_plainly(ada_client, answers, ada):
    a = assign(answers, ada, "A.1")
    answer = ada_client.post(url(a, 0), {"item_id": pool(a)[0], "grade": "2", "seen_revision": "١"},
                             HTTP_ACCEPT="application/json")
    assert answer.status_code == 400
    assert answer.json()["errors"] == ["the revision seen '١' is not a whole number"]
    assert not Judgment.objects.exists()


def test_the_server_counts_the_submits_a_browser_made_that_never_came(ada_client, answers, ada, bob):
    a = assign(answers, ada, "A.1")
    first, second, third = pool(a)
    for position, item_id, number in ((0, first, 1), (2, third, 3), (2, third, 3)):   # the second never came
        ada_client.post(url(a, position), {"item_id": item_id, "grade": "2", "browser": BROWSER,
                                           "number": str(number)}, HTTP_ACCEPT="application/json")
    ada_client.post(url(a, 1), {"item_id": second, "grade": "2", "browser": "not a browser", "number": "2"})
    assert BrowserSubmit.objects.count() == 2
    assert [(n.browser, n.missing) for n in selectors.submits_not_arrived(user=ada)] == [(BROWSER, 1)]
    assert selectors.submits_not_arrived(user=bob) == []
    home = ada_client.get("/assess/").content.decode()
    assert "The server has 1 judgment fewer than one of your browsers sent" in home
    # Refused, it came all the same: the browser no longer holds it.
    ada_client.post(url(a, 1), {"item_id": second, "grade": "DK", "browser": BROWSER, "number": "2"},
                    HTTP_ACCEPT="application/json")
    assert selectors.submits_not_arrived(user=ada) == []
    assert 'id="not-arrived"' not in ada_client.get("/assess/").content.decode()
