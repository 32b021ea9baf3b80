"""An organizer in headless Chromium: the kappa dashboard of a training round (bars, matrix, numbers, CSV) and the
disagreement review of the discussion meeting, normal and projected (SPEC 7)."""
import csv

import pytest

from assessor import services
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
    page.click("a.button:has-text('Agreement')")
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
    # One item fills the screen: the second starts below the first screen.
    second_top = page.locator("article.disagreement").nth(1).bounding_box()["y"]
    assert second_top > page.viewport_size["height"] * 0.9
    page.wait_for_selector(".post-body mjx-container", timeout=20000)
    screenshot(page, "disagreement-projector.png")
