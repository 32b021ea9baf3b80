"""The organizer's and the assessor's pages in headless Chromium (issue 13.6, 13.12, 13.13): math typeset on the
organizer's pages, campaign tabs on one line, the pools page's topics opening their pool items, the assignment
grid (select-all, topics already assigned, the round for training only, confirmation before close and withdraw),
the new-campaign form, the assessor's home, Task 2's highlight after a partial save, the ? key, no text under
12 px."""
import pytest

from judging import services as assessor_services
from judging.models import Assignment, ItemVisit, Judgment
from pooling import services
from pooling.models import Campaign, Collection, PoolItem
from tests.browser.test_organizer_pages import log_in
from tests.factories import CampaignFactory, TopicFactory
from tests.judging.fixtures import assign

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# Every element that holds text directly, with its computed size: none under 12 px (hidden MathML copies for
# screen readers excepted, they are clipped to nothing).
SMALL_TEXT = """() => Array.from(document.querySelectorAll('body *')).filter(e =>
    !e.closest('mjx-assistive-mml, script, style, title') && e.getClientRects().length &&
    Array.from(e.childNodes).some(n => n.nodeType === 3 && n.textContent.trim()) &&
    parseFloat(getComputedStyle(e).fontSize) < 12).map(e => e.tagName + '.' + e.className + ': ' +
    getComputedStyle(e).fontSize)"""


def typeset_done(page) -> None:
    page.wait_for_function("window.MathJax && MathJax.startup && MathJax.startup.promise", timeout=20000)
    page.evaluate("() => MathJax.startup.promise")


@pytest.fixture
def infinity(db):
    """A Task 2 campaign whose topic titles and query formulas are math, one title longer than the table shows."""
    campaign = CampaignFactory(name="ARQMath-3 Task 2", task=Campaign.Task.FORMULAS, primary_depth=3,
                               alternate_depth=3)
    TopicFactory(campaign=campaign, topic_id="B.1", position=0, title="Why is $\\sum_{n=1}^\\infty 1/n^2$ finite?",
                 latex="\\sum_{n=1}^\\infty \\frac{1}{n^2}")
    TopicFactory(campaign=campaign, topic_id="B.2", position=1,
                 title="A long title " + "with words " * 9 + "and then $\\lim_{x\\to\\infty} \\frac{\\sin x}{x}$",
                 latex="\\lim_{x\\to\\infty} f(x)")
    return campaign


def test_topic_titles_and_query_formulas_are_typeset_and_never_cut_inside(page, live_server, organizer, infinity,
                                                                          screenshot):
    log_in(page, live_server, "olga", "organizer-pass-1")
    page.goto(f"{live_server.url}/campaigns/{infinity.pk}/")
    typeset_done(page)
    rows = page.locator("#topics tbody tr")
    # Title and query formula of both topics: typeset, and no raw "\infty" left on the page.
    assert rows.nth(0).locator("mjx-container").count() == 2
    assert rows.nth(1).locator("mjx-container").count() == 1     # the long title's formula is left out whole
    assert "…" in rows.nth(1).inner_text()
    assert "\\infty" not in page.inner_text("#topics") and "$" not in page.inner_text("#topics")
    assert page.evaluate(SMALL_TEXT) == []
    screenshot(page, "campaign-formulas.png")


def test_campaign_tabs_stay_on_one_line_and_show_the_active_one(page, live_server, organizer, infinity):
    log_in(page, live_server, "olga", "organizer-pass-1")
    for path, active in (("", "Runs and topics"), ("pools/", "Pools and planner"),
                         ("assignments/", "Assignments"), ("leaderboard/", "Qrels and leaderboard"),
                         ("training/", "Training rounds"), ("progress/", "Progress"),
                         ("characterisation/", "Characterisation")):
        page.goto(f"{live_server.url}/campaigns/{infinity.pk}/{path}")
        tops = page.eval_on_selector_all(".tabs a", "links => links.map(a => a.getBoundingClientRect().top)")
        assert len(tops) == 8 and len(set(tops)) == 1, (path, tops)      # one line at 1280 px
        current = page.locator(".tabs a[aria-current=page]")
        assert current.count() == 1 and current.inner_text() == active
        weight = current.evaluate("a => getComputedStyle(a).fontWeight")
        other = page.locator(".tabs a:not([aria-current])").first.evaluate("a => getComputedStyle(a).fontWeight")
        assert int(weight) > int(other)
        # One breadcrumb trail, the same include on every campaign page.
        assert page.locator("nav.crumbs").count() == 1
        assert page.inner_text("nav.crumbs").startswith("Campaigns ›")
        icon = page.get_attribute("link[rel=icon]", "href")
        assert page.request.get(f"{live_server.url}{icon}").status == 200


def test_pools_page_topics_open_their_pool_items(page, live_server, organizer, tmp_path, screenshot):
    campaign = CampaignFactory(name="many topics", task=Campaign.Task.ANSWERS, primary_depth=3, alternate_depth=3)
    topics = [f"A.{n}" for n in range(1, 31)]
    for position, topic in enumerate(topics):
        TopicFactory(campaign=campaign, topic_id=topic, position=position, title=f"Topic {topic} about $x^{position}$")
    path = tmp_path / "r1.tsv"
    path.write_text("".join(f"{t}\t{t[2:]}{i}\t{i}\t{10 - i}\tr1\n" for t in topics for i in range(1, 4)))
    services.run_ingest(campaign=campaign, path=path)
    services.pool_build(campaign=campaign, judged_items={})

    log_in(page, live_server, "olga", "organizer-pass-1")
    page.goto(f"{live_server.url}/campaigns/{campaign.pk}/pools/")
    # 30 topics: the table starts folded, one click opens it.
    assert not page.locator("#pool-topics").is_visible()
    page.click("#pool-topics-box summary")
    assert page.locator("#pool-topics tbody tr").count() == 30
    typeset_done(page)
    assert page.locator("#pool-topics tbody tr").first.locator("mjx-container").count() == 1
    screenshot(page, "pools-topics.png")
    with page.expect_navigation():
        page.click("#pool-topics a:has-text('A.2')")
    assert page.inner_text("h1").startswith("Pool of topic A.2")
    rows = page.locator("#pool-items tbody tr").all_inner_texts()
    assert sorted(r.split("\t")[1:] for r in rows) == [["21", "r1: 1"], ["22", "r1: 2"], ["23", "r1: 3"]]
    assert page.inner_text("nav.crumbs") == "Campaigns › many topics › Pools and planner ›"
    screenshot(page, "pool-topic.png")


@pytest.fixture
def bob(django_user_model):
    return django_user_model.objects.create_user("bob", password="assessor-pass-2")


def test_assignment_grid_selects_all_marks_assigned_topics_and_confirms_close_and_withdraw(
        page, live_server, organizer, answers, ada, bob, screenshot):
    assign(answers, ada, "A.1")
    log_in(page, live_server, "olga", "organizer-pass-1")
    page.goto(f"{live_server.url}/campaigns/{answers.pk}/assignments/")
    grid = page.locator("#topic-grid")
    assert "assigned: ada" in grid.locator("label.assigned").inner_text()
    assert grid.locator("label.assigned").count() == 1
    # The round is asked for training only.
    assert not page.locator("#round-field").is_visible()
    page.select_option("#id_kind", "training")
    assert page.locator("#round-field").is_visible()
    page.select_option("#id_kind", "official")
    # All topics, then only the unassigned ones.
    page.check("input[data-select-all=topics]")
    assert page.locator("#topic-grid input[name=topics]:checked").count() == 2
    page.click("button[data-select-unassigned=topics]")
    checked = page.eval_on_selector_all("#topic-grid input[name=topics]:checked", "b => b.map(x => x.value)")
    assert checked == ["A.2"]
    assert not page.is_checked("input[data-select-all=topics]")
    page.check("#assign-form label:has-text('bob') input")
    screenshot(page, "assignments.png")
    with page.expect_navigation():
        page.click("#assign-form button[type=submit]")
    assert "1 assignment created." in page.inner_text(".messages")

    # Withdraw asks first; Cancel changes nothing, Withdraw removes it.
    bobs = Assignment.objects.get(assessor=bob)
    row = page.locator("#assignment-table tr", has_text="bob")
    with page.expect_navigation():
        row.locator("a:has-text('Withdraw')").click()
    assert page.inner_text("h1") == "Withdraw A.2 from bob?"
    screenshot(page, "confirm-withdraw.png")
    with page.expect_navigation():
        page.click("a:has-text('Cancel')")
    assert Assignment.objects.filter(pk=bobs.pk).exists()
    with page.expect_navigation():
        page.locator("#assignment-table tr", has_text="bob").locator("a:has-text('Withdraw')").click()
    with page.expect_navigation():
        page.click("#confirm")
    assert not Assignment.objects.filter(pk=bobs.pk).exists()

    # Closing a topic asks too, and says "1 assignment".
    with page.expect_navigation():
        page.locator("#assignment-table tr", has_text="ada").locator("a:has-text('Close topic')").click()
    assert page.inner_text("h1") == "Close topic A.1?"
    with page.expect_navigation():
        page.click("#confirm")
    assert "Topic A.1 closed (1 assignment)." in page.inner_text(".messages")
    assert Assignment.objects.get(assessor=ada).closed_at is not None


def test_new_campaign_form_picks_a_collection_and_shows_task_fields_for_their_task(page, live_server, organizer,
                                                                                   screenshot):
    Collection.objects.create(name="arqmath")
    log_in(page, live_server, "olga", "organizer-pass-1")
    page.goto(f"{live_server.url}/campaigns/")
    page.click("summary:has-text('New campaign')")
    options = page.eval_on_selector_all("#id_collection option", "o => o.map(x => x.textContent)")
    assert "arqmath" in options and "Create a new collection…" in options
    assert not page.locator("#field-new_collection").is_visible()
    page.select_option("#id_task", "answers")
    assert not page.locator("#field-instances").is_visible()
    page.select_option("#id_task", "formulas")
    assert page.locator("#field-instances").is_visible() and page.locator("#field-selection").is_visible()
    page.select_option("#id_collection", "+new")
    assert page.locator("#field-new_collection").is_visible()
    screenshot(page, "new-campaign.png")
    page.select_option("#id_collection", "arqmath")
    page.fill("#id_name", "Task 2 2026")
    page.fill("#id_instances", "3")
    with page.expect_navigation():
        page.click("button:has-text('Create campaign')")
    campaign = Campaign.objects.get(name="Task 2 2026")
    assert campaign.collection.name == "arqmath" and campaign.instances == 3
    assert Collection.objects.count() == 1


def test_assessor_home_shows_titles_and_skipped_items(page, live_server, answers, ada, screenshot):
    a = assign(answers, ada, "A.1")
    item = a.topic.pool_items.order_by("position").first()
    assessor_services.item_visit(assignment=a, item_id=item.item_id)
    assessor_services.item_skip(assignment=a, item_id=item.item_id)
    log_in(page, live_server, "ada", "assessor-pass-1")
    typeset_done(page)
    row = page.locator("#assignments tbody tr").first
    assert "How do I integrate" in row.inner_text()
    assert row.locator("mjx-container").count() == 1
    assert "1 skipped" in row.inner_text()
    assert "1 skipped for later" in page.inner_text("#overall")
    assert page.evaluate(SMALL_TEXT) == []
    screenshot(page, "assessor-home.png")


def test_task2_highlight_moves_to_the_next_ungraded_instance_after_a_partial_save(page, live_server, formulas,
                                                                                  ada):
    a = assign(formulas, ada, "B.1")
    log_in(page, live_server, "ada", "assessor-pass-1")
    two = PoolItem.objects.get(topic=a.topic, item_id="100").position     # visual id 100: two instances
    page.goto(f"{live_server.url}/assess/assignments/{a.pk}/items/{two}/")
    page.wait_for_selector(".instance.active")
    assert page.get_attribute(".instance.active", "id") == "instance-0"
    page.check("#instance-0 input[type=radio][value='2']")
    with page.expect_navigation():
        page.click("#submit")
    assert "Grade every instance" in page.inner_text(".messages")
    assert Judgment.objects.filter(assignment=a).count() == 1
    assert page.get_attribute(".instance.active", "id") == "instance-1"
    # A grade key now grades the second instance, not the first again.
    page.keyboard.press("3")
    assert page.is_checked("#instance-1 input[type=radio][value='3']")
    assert ItemVisit.objects.filter(assignment=a, completed_at__isnull=True).exists()

    # ? opens the grade definitions and brings them into view.
    page.evaluate("window.scrollTo(0, 0)")
    page.keyboard.press("?")
    assert page.evaluate("document.getElementById('definitions').open")
    page.wait_for_function("""() => { const r = document.getElementById('definitions').getBoundingClientRect();
                                      return r.top >= 0 && r.top < window.innerHeight; }""", timeout=5000)
    assert page.evaluate(SMALL_TEXT) == []
