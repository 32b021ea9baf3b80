"""An organizer in headless Chromium: the kappa dashboard of a training round (bars, matrix, numbers, CSV) and the
disagreement review of the discussion meeting, normal and projected (SPEC 7)."""
import csv
import datetime as dt

import pytest
from django.utils import timezone

from judging import services
from judging.models import ItemVisit
from tests.browser.test_organizer_pages import log_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# Four assessors, round 1 of the answers campaign (A.1: 10, 11, 12; A.2: 20, 99).
GRADES = {
    "ada": {"10": "3", "11": "2", "12": "0", "20": "1", "99": "0"},
    "bob": {"10": "3", "11": "1", "12": "0", "20": "1", "99": "2"},
    "cy": {"10": "2", "11": "2", "12": "0", "20": "SF", "99": "2"},
    "dee": {"10": "3", "11": "3", "12": "1", "20": "0", "99": "1"},
}
TOPIC = {"10": "A.1", "11": "A.1", "12": "A.1", "20": "A.2", "99": "A.2"}
COMMENTS = {("ada", "11"): "a path, not an answer", ("dee", "11"): "answers it fully",
            ("cy", "20"): "the thread link is broken"}


@pytest.fixture
def round_1(answers):
    lines = ["\t".join([name, TOPIC[item], item, grade, COMMENTS.get((name, item), ""), "training", "1"])
             for name, items in GRADES.items() for item, grade in items.items()]
    services.judgments_import(campaign=answers, lines=lines)
    return answers


def test_organizer_reads_the_kappa_dashboard_and_downloads_the_csv(page, live_server, organizer, round_1,
                                                                   screenshot, tmp_path):
    log_in(page, live_server, "olga", "organizer-pass-1")
    page.click("text=answers")
    page.click(".tabs a:has-text('Agreement')")
    assert page.inner_text("h1") == "Agreement: training round 1"
    # One pair of bars per assessor (four grades, binary), drawn by the server as SVG.
    assert page.locator("#kappa-chart g.assessor").count() == 4
    assert page.locator("#kappa-chart g.assessor rect.bar.graded").count() == 4
    assert page.locator("#kappa-chart g.assessor rect.bar.binary").count() == 4
    names = page.locator("#kappa-chart text.name").all_text_contents()
    assert names == ["ada", "bob", "cy", "dee"]
    assert page.locator("#pair-matrix tbody tr").count() == 4
    assert page.locator("#pair-matrix td.self").count() == 4
    rows = page.locator("#assessor-kappas tbody tr").all_inner_texts()
    assert [r.split("\t")[0] for r in rows] == ["ada", "bob", "cy", "dee"]
    assert "Krippendorff's alpha (ordinal)" in page.inner_text("#alpha")
    screenshot(page, "agreement-dashboard.png")

    with page.expect_download() as info:
        page.click("#csv")
    path = tmp_path / "agreement.csv"
    info.value.save_as(path)
    with open(path, newline="") as f:
        table = list(csv.reader(f))
    assert table[0] == ["kind", "round", "assessor", "other", "scale", "kappa", "items", "reason"]
    assert len(table) == 1 + 4 * (3 * 2 + 2)


def test_organizer_projects_the_disagreements_of_a_round(page, live_server, organizer, round_1, screenshot):
    log_in(page, live_server, "olga", "organizer-pass-1")
    page.goto(f"{live_server.url}/campaigns/{round_1.pk}/agreement/")
    with page.expect_navigation():
        page.click("text=Disagreement review")
    # Every item was graded differently by someone: all five, with the four grades beside each.
    assert page.locator("article.disagreement").count() == 5
    first = page.locator("article.disagreement").first
    assert "answer" in first.locator(".item-head").inner_text()
    assert first.locator(".grades-side tbody tr").count() == 4
    page.wait_for_selector(".post-body mjx-container", timeout=20000)   # the item's math, typeset
    eleven = page.locator("article.disagreement", has_text="answer 11")
    assert "a path, not an answer" in eleven.inner_text() and "answers it fully" in eleven.inner_text()
    twenty = page.locator("article.disagreement", has_text="answer 20").inner_text()
    assert "System failure" in twenty and "the thread link is broken" in twenty
    screenshot(page, "disagreement-review.png")

    with page.expect_navigation():   # to its load event: the stylesheets apply before anything is measured
        page.click("#projector")
    page.wait_for_selector("body.projector")
    assert not page.locator(".topbar").is_visible()
    # One item at a time, filling the screen; Next item moves on to the second.
    assert page.locator("article.disagreement").count() == 1
    assert page.locator("article.disagreement").bounding_box()["height"] > page.viewport_size["height"] * 0.9
    page.wait_for_selector(".post-body mjx-container", timeout=20000)
    screenshot(page, "disagreement-projector.png")
    with page.expect_navigation():
        page.locator("a.next-page").first.click()
    assert page.locator("article.disagreement .item-head").inner_text().startswith("#2 ")


def test_organizer_sets_up_a_round_with_gold_qrels_and_watches_progress(page, live_server, organizer, answers, ada,
                                                                        bob, screenshot, tmp_path):
    gold = tmp_path / "qrels-2021.tsv"
    gold.write_text("A.1\t0\t10\t3\nA.1\t0\t11\t2\nA.9\t0\t7\t1\n")
    log_in(page, live_server, "olga", "organizer-pass-1")
    page.goto(f"{live_server.url}/campaigns/{answers.pk}/")
    page.click(".tabs a:has-text('Training rounds')")
    page.check("#round-form label:has-text('ada') input")
    page.check("#round-form label:has-text('bob') input")
    page.check("#round-form label:has-text('A.1') input")
    page.set_input_files("#id_gold", str(gold))
    with page.expect_navigation():
        page.click("button:has-text('Create the round and assign it')")
    assert "Training round 1: 2 assignments created, 2 gold judgments (1 line for other topics left out)." in \
        page.inner_text(".messages")
    row = page.locator("#rounds tbody tr").first.inner_text()
    assert "A.1" in row and "ada, bob" in row and "qrels-2021.tsv (2 judgments)" in row
    screenshot(page, "training-rounds.png")

    # ada judges one item of the round: the progress page shows it, with her time.
    a = ada.assignments.get(kind="training", round=1)
    ItemVisit.objects.create(assignment=a, item_id="10", first_shown_at=timezone.now() - dt.timedelta(seconds=90))
    services.judgment_submit(assignment_pk=a.pk, item_id="10", user=ada, active_seconds=42,
                             grades=[services.GradeInput(grade="3")])
    page.goto(f"{live_server.url}/campaigns/{answers.pk}/")
    page.click(".tabs a:has-text('Progress')")
    rows = page.locator("#progress-table tbody tr").all_inner_texts()
    assert len(rows) == 2 and "1 / 3" in rows[0] and "42.0" in rows[0] and "0 / 3" in rows[1]
    assert "\t9" in rows[0]   # about 90 s on the server's clock, first shown to submitted
    screenshot(page, "progress.png")
