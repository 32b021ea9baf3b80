"""ARQMath-3 Task 3 answers in headless Chromium (issue 17): an assessor judges them among the posts, their TeX typeset
and their line breaks kept, a planted `<script>` shown as text; the organizer's leaderboard shows the Task 3 runs
and follows a new judgment of an answer."""
import pytest
from playwright.sync_api import expect

from judging.models import Judgment
from judging.services import judgments_import
from pooling.models import PoolItem
from tests.browser.test_judging import item_url, typeset
from tests.browser.test_organizer_pages import log_in
from tests.judging.fixtures import PLANTED, assign

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_task3_answer_is_judged_among_posts_typeset_and_escaped(page, live_server, task3, ada, screenshot):
    a = assign(task3, ada, "A.1")
    order = list(PoolItem.objects.filter(topic=a.topic).order_by("position").values_list("item_id", flat=True))
    assert sorted(order) == ["10", "11", "12", "d_1", "d_3"]
    log_in(page, live_server, "ada", "assessor-pass-1")

    # The generated answer: inline and display math typeset, its line breaks kept, no thread link, no run named.
    page.goto(item_url(live_server, a, "d_1"))
    typeset(page)
    answer = page.locator("#item-pane .item-view:not(.parked) .answer-text")
    expect(answer.locator("mjx-container[display='true']")).to_have_count(1)
    expect(answer.locator("mjx-container:not([display='true'])")).to_have_count(1)
    assert answer.evaluate("e => getComputedStyle(e).whiteSpace") == "pre-wrap"
    assert answer.inner_text().startswith("By the power rule,\n")  # the break after the first line is on screen
    assert page.locator("#item-pane .item-view:not(.parked) .thread-link").count() == 0
    pane = page.inner_text("#item-pane .item-view:not(.parked)")
    assert "generate" not in pane and "team-task3" not in pane and "d_1" not in pane
    screenshot(page, "task3-judging.png")

    # The extracted answer holds planted HTML: shown as its characters, nothing of it runs or renders.
    page.goto(item_url(live_server, a, "d_3"))
    typeset(page)
    answer = page.locator("#item-pane .item-view:not(.parked) .answer-text")
    expect(answer.locator("mjx-container")).to_have_count(1)  # $x<y$, escaped and still typeset
    assert answer.inner_text().startswith(PLANTED.split("$")[0])
    assert answer.locator("script, b").count() == 0
    assert page.evaluate("window.__pwned") is None

    # Judged like the posts around it, by keyboard, in the pool's order from the first item to the last.
    page.goto(f"{live_server.url}/assess/assignments/{a.pk}/items/{order.index(order[0])}/")
    for n, grade in enumerate(["2", "0", "1", "3", "0"], start=1):
        typeset(page)
        page.keyboard.press(grade)
        with page.expect_navigation():
            page.keyboard.press("Enter")
        if n < 5:
            expect(page.locator("#progress")).to_contain_text(f"{n} of 5 judged")
    assert dict(Judgment.objects.filter(assignment=a).values_list("item_id", "grade")) == dict(
        zip(order, ["2", "0", "1", "3", "0"], strict=True))
    assert "every item is judged" in page.inner_text("main")


def test_the_leaderboard_shows_task3_runs_and_follows_their_judgments(page, live_server, task3, organizer,
                                                                      screenshot):
    judgments_import(campaign=task3, lines=["\t".join(line) for line in (
        ("ada", "A.1", "10", "3", ""), ("ada", "A.1", "11", "1", ""), ("ada", "A.1", "12", "0", ""),
        ("ada", "A.1", "d_1", "3", ""), ("ada", "A.1", "d_3", "1", ""),
        ("ada", "A.2", "20", "2", ""), ("ada", "A.2", "99", "0", ""), ("ada", "A.2", "d_2", "2", ""))])
    page.clock.install()  # the page polls every 30 s: the test moves the clock instead of waiting
    log_in(page, live_server, "olga", "organizer-pass-1")
    page.goto(f"{live_server.url}/campaigns/{task3.pk}/leaderboard/")
    runs = page.locator("#task3-leaderboard tbody tr td:nth-child(1)").all_inner_texts()
    assert runs == ["team-task3-gpt-auto-both-generate-P", "other-task3-se-auto-both-extract-A"]  # best AR first
    extracted = "#task3-leaderboard tr[data-run='other-task3-se-auto-both-extract-A']"
    assert page.inner_text(f"{extracted} td:nth-child(3)") == "1.5000"  # AR: (1 + 2) / 2
    page.locator("#task3").scroll_into_view_if_needed()
    screenshot(page, "task3-leaderboard.png")

    judgments_import(campaign=task3, lines=["ada\tA.1\td_3\t3\trevised"])
    page.clock.fast_forward(31_000)
    expect(page.locator(f"{extracted} td:nth-child(3)")).to_have_text("2.5000")
    assert page.inner_text(f"{extracted} td:nth-child(4)") == "1.0000"  # P@1
