"""An organizer in headless Chromium records the agreed grade of an item on the disagreement review of a training
round with gold qrels, sees it listed, and downloads the round's adjudicated qrels (docs/agreement.md)."""
import io

import pytest

from agreement import rounds
from judging.models import Judgment
from tests.browser.test_organizer_pages import log_in
from tests.judging.test_agreement_reports import import_lines

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def gold_round(answers, ada, bob):
    rounds.training_round_create(campaign=answers, topic_ids=["A.1"], assessors=[ada, bob], gold_name="qrels-2021.txt",
                                 gold=io.BytesIO(b"A.1\t0\t10\t0\nA.1\t0\t11\t0\nA.1\t0\t12\t0\n"))
    import_lines(answers, {"ada": {"10": "3", "11": "0", "12": "1"}, "bob": {"10": "3", "11": "0", "12": "2"}},
                 comment=lambda name, item: f"{name} on {item}")
    return answers


def test_organizer_records_an_agreed_grade_on_the_review_page_and_sees_it_listed(
        page, live_server, organizer, gold_round, screenshot, tmp_path):
    before = list(Judgment.objects.order_by("pk").values_list("item_id", "grade", "revision"))
    log_in(page, live_server, "olga", "organizer-pass-1")
    page.goto(f"{live_server.url}/campaigns/{gold_round.pk}/disagreements/?kind=training&round=1")
    assert page.locator("article.disagreement").count() == 2
    ten = page.locator("article.disagreement", has_text="answer 10")
    assert "Gold\t0 Not relevant" in ten.locator(".gold-row").inner_text()
    assert page.locator("#recorded-grades").count() == 0
    ten.locator("select[name=grade]").select_option("1")
    ten.locator("textarea[name=note]").fill("relevant in part: gold was strict")
    with page.expect_navigation():
        ten.locator("button[type=submit]").click()
    assert "Recorded grade 1 for 10 of topic A.1." in page.inner_text(".messages")
    row = page.locator("#recorded-grades tbody tr").inner_text()
    assert row.startswith("A.1\t10\t1 Low\trelevant in part: gold was strict\tolga")
    agreed = page.locator("article.disagreement", has_text="answer 10").locator(".adjudicated-row").inner_text()
    assert "1 Low" in agreed
    assert page.locator("article.disagreement", has_text="answer 10").locator("button").inner_text() == \
        "Change agreed grade"
    page.set_viewport_size({"width": 1280, "height": 1500})
    page.wait_for_selector(".post-body mjx-container", timeout=20000)
    page.evaluate("window.scrollTo(0, 0)")
    screenshot(page, "adjudication-review.png")

    with page.expect_download() as info:
        page.click("#adjudicated-qrels")
    path = tmp_path / "adjudicated.txt"
    info.value.save_as(path)
    assert path.read_text() == "A.1\t0\t10\t1\n"
    assert list(Judgment.objects.order_by("pk").values_list("item_id", "grade", "revision")) == before
