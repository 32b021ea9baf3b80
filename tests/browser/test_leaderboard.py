"""An organizer reads the leaderboard in headless Chromium: sorts it, drills into a run, and sees it follow a new
judgment without reloading."""
import pytest
from playwright.sync_api import expect

from judging.services import judgments_import
from tests.browser.test_organizer_pages import log_in
from tests.pooling.run_files import ingest, task1_lines

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def judge(campaign, *lines):
    judgments_import(campaign=campaign, lines=["\t".join(line) for line in lines])


def column(page, index: int) -> list[str]:
    return page.locator(f"#leaderboard tbody tr td:nth-child({index})").all_inner_texts()


def test_organizer_sorts_the_leaderboard_drills_down_and_sees_new_judgments(page, live_server, answers, organizer,
                                                                            screenshot, tmp_path):
    # r1 ranks 10 (high) first; r2 puts the non-relevant 12 first; r3 finds only 12 and 20.
    ingest(answers, tmp_path, "r2", task1_lines("A.1", ["12", "11", "10"], "r2")
           + task1_lines("A.2", ["99", "20"], "r2"), alternate=True)
    ingest(answers, tmp_path, "r3", task1_lines("A.1", ["12"], "r3") + task1_lines("A.2", ["20"], "r3"))
    judge(answers, ("ada", "A.1", "10", "3", ""), ("ada", "A.1", "11", "1", ""), ("ada", "A.1", "12", "0", ""),
          ("ada", "A.2", "20", "2", ""), ("ada", "A.2", "99", "0", ""))
    page.clock.install()  # the page polls every 30 s: the test moves the clock instead of waiting
    log_in(page, live_server, "olga", "organizer-pass-1")
    page.goto(f"{live_server.url}/campaigns/{answers.pk}/leaderboard/")
    assert column(page, 1) == ["r1", "r2", "r3"]  # best nDCG' first
    screenshot(page, "leaderboard.png")

    page.click("#leaderboard th:has-text('Unjudged@10')")
    assert page.get_attribute("#leaderboard th:has-text('Unjudged@10')", "aria-sort") == "ascending"
    page.focus("#leaderboard th:has-text('MAP′')")
    page.keyboard.press("Enter")  # best first: r3's MAP' (0.5) is above r2's (0.4167), unlike their nDCG'
    assert column(page, 1) == ["r1", "r3", "r2"]
    page.keyboard.press("Enter")  # again: the other way
    assert column(page, 1) == ["r2", "r3", "r1"]

    # r3 retrieved only 12 (0) for A.1: a revision to "high" must show up without a reload.
    r3_before = page.inner_text("#leaderboard tr[data-run='r3'] td:nth-child(3)")
    judge(answers, ("ada", "A.1", "12", "3", "on reflection"))
    page.clock.fast_forward(31_000)
    expect(page.locator("#poll-status")).to_contain_text("Updated at")
    assert page.inner_text("#leaderboard tr[data-run='r3'] td:nth-child(3)") != r3_before

    page.click("#leaderboard a:has-text('r2')")
    page.wait_for_selector("#run-topics")
    assert page.locator("#run-topics tbody td:first-child").all_inner_texts() == ["A.1", "A.2"]
