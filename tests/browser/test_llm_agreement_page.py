"""An organizer in headless Chromium: the agreement dashboard's LLM co-assessor rows (kappas, confusion matrix, flip
rate), and the review's LLM disagreements sent to an assessor as a check assignment, which that assessor then judges
(issue 26, points 5 to 7)."""
import pytest

from judging import services
from judging.models import Assignment, CheckItem
from pooling.models import PoolItem
from tests.browser.test_organizer_pages import log_in
from tests.factories import CanaryFactory, LlmGradeFactory, UserFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

TOPIC = {"10": "A.1", "11": "A.1", "12": "A.1", "20": "A.2", "99": "A.2"}
OFFICIAL = {"10": "3", "11": "2", "12": "0", "20": "1", "99": "0"}
DUAL = {"10": "3", "11": "1", "12": "0"}
LLM = {"10": 3, "11": 1, "12": 2, "20": 1, "99": 0}


@pytest.fixture
def graded(answers):
    UserFactory(username="bob", password="assessor-pass-2")
    services.judgments_import(campaign=answers, lines=[f"ada\t{TOPIC[i]}\t{i}\t{g}\t\tofficial"
                                                       for i, g in OFFICIAL.items()])
    services.judgments_import(campaign=answers, lines=[f"bob\t{TOPIC[i]}\t{i}\t{g}\t\tdual" for i, g in DUAL.items()])
    topics = {t.topic_id: t for t in answers.topics.all()}
    for item, grade in LLM.items():
        LlmGradeFactory(topic=topics[TOPIC[item]], item_id=item, grade=grade, model="qwen2.5:7b-instruct")
    for source, kind, grade in (("12", "instruction", 3), ("99", "instruction", 0), ("12", "stuffed", 2),
                                ("99", "stuffed", 0)):
        canary = CanaryFactory(topic=topics[TOPIC[source]], source_item_id=source, kind=kind)
        LlmGradeFactory(topic=canary.topic, item_id=source, canary=canary, grade=grade, model="qwen2.5:7b-instruct")
    return answers


def test_organizer_reads_the_llm_rows_of_the_agreement_dashboard(page, live_server, organizer, graded, screenshot):
    log_in(page, live_server, "olga", "organizer-pass-1")
    page.goto(f"{live_server.url}/campaigns/{graded.pk}/agreement/?kind=dual")
    section = page.locator("#llm-agreement")
    rows = section.locator("#llm-rows tbody tr").all_inner_texts()
    # Against the official qrels, ada, bob, then the mean over the assessors.
    assert len(rows) == 4
    assert rows[0].startswith("llm:qwen2.5:7b-instruct") and "official qrels" in rows[0]
    assert "mean over assessors" in rows[-1]
    assert section.locator("table.confusion tbody tr").count() == 4
    assert section.locator("table.flips td.flip-rate").all_inner_texts() == ["0.50", "0.50"]
    page.evaluate("document.getElementById('llm-agreement').scrollIntoView()")
    screenshot(page, "agreement-llm.png")


def test_organizer_sends_llm_disagreements_to_an_assessor_who_judges_them(page, live_server, organizer, graded,
                                                                          screenshot):
    log_in(page, live_server, "olga", "organizer-pass-1")
    page.goto(f"{live_server.url}/campaigns/{graded.pk}/disagreements/?kind=dual#llm-disagreements")
    listed = page.locator("#llm-disagreement-list tbody tr")
    # 12: the model says relevant, the official grade says not; 11: the other way round. Relevant-by-LLM first.
    assert listed.count() == 2
    assert "12" in listed.nth(0).inner_text() and "11" in listed.nth(1).inner_text()
    page.check("#llm-unit-1")
    page.select_option("#id_llm_assessor", label="bob")
    page.evaluate("document.getElementById('llm-disagreements').scrollIntoView()")
    screenshot(page, "disagreement-llm.png")
    with page.expect_navigation():
        page.click("#llm-check-form button[type=submit]")
    assert "Sent 1 item to bob as a check assignment" in page.inner_text("body")
    check = Assignment.objects.get(kind="check")
    assert list(CheckItem.objects.filter(assignment=check).values_list("item_id", flat=True)) == ["12"]
    # bob opens the check and meets item 12 only: one item to judge.
    page.context.clear_cookies()
    log_in(page, live_server, "bob", "assessor-pass-2")
    page.goto(f"{live_server.url}/assess/assignments/{check.pk}/")
    page.wait_for_selector(".item-view[data-bound='1']")
    twelve = PoolItem.objects.get(topic=check.topic, item_id="12").position
    assert page.url.endswith(f"/items/{twelve}/")
    assert page.inner_text("#progress").strip() == "0 of 1 judged"
