"""An assessor characterises a sample in headless Chromium: the item with its math typeset, the questions answered by
mouse, the next item, a revision; nothing planted in the collection runs (issue 17 point 4)."""
import pytest

from characterisation import services as characterising
from judging.models import CharacterisationAnswer
from tests.browser.test_judging import typeset
from tests.browser.test_organizer_pages import log_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_assessor_answers_the_questions_item_by_item(page, live_server, answers, ada):
    characterising.questions_arqmath(campaign=answers)
    a = characterising.characterisation_assign(campaign=answers, assessors=[ada], topic_ids=["A.1"], size=3).created[0]
    order = list(a.sample.values_list("item_id", flat=True))
    log_in(page, live_server, "ada", "assessor-pass-1")
    assert "0 of 3 judged" in page.inner_text("#assignments")
    page.click("text=Continue")
    typeset(page)
    assert "Was this answer machine-generated?" in page.inner_text("#characterise-form")
    assert page.evaluate("window.__pwned") is None

    page.click("#question-MG >> text=No")
    page.click("#question-UI >> text=Yes")
    with page.expect_navigation():
        page.click("#submit")
    assert "1 of 3 answered" in page.inner_text("#progress")
    assert page.url.endswith(f"/assess/characterisations/{a.pk}/items/1/")

    with page.expect_navigation():
        page.click("#back")
    assert page.is_checked("#question-UI input[value=yes]")
    page.click("#question-UI >> text=No")
    with page.expect_navigation():
        page.click("#submit")
    stored = {(x.question.label, x.answer, x.revision) for x in CharacterisationAnswer.objects.filter(
        item_id=order[0])}
    assert stored == {("MG", False, 1), ("UI", False, 2)}
