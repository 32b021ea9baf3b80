"""An organizer curates a nugget bank in headless Chromium: the topic's answers beside its bank and history, words
selected in an answer with the mouse made a nugget; then the leaderboard with the runs' nugget scores
(docs/nuggets.md, "The workflow of a RAG track in the service"). The campaign is the demo's RAG one
(workflow/demo/rag.py) over a few posts: its files written by the demo's generator, ingested by the commands,
curated and judged as load_demo does."""
from types import SimpleNamespace

import pytest
from playwright.sync_api import expect

from nuggets.models import Nugget
from nuggets.selectors import bank_nuggets
from pooling.models import Campaign
from tests.browser.test_organizer_pages import log_in
from tests.commands import command_output
from tests.factories import CollectionFactory, PostFactory, UserFactory
from workflow.demo.rag import TOPICS, write_rag
from workflow.demo.rag_judging import rag_curate

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def rag(tmp_path, organizer, assessor_user):
    collection = CollectionFactory(name="MSE sample")
    posts = []
    for n, topic in enumerate(TOPICS):
        for k in range(3):
            post_id = 1000 + 10 * n + k
            PostFactory(collection=collection, post_id=str(post_id))
            posts.append(SimpleNamespace(id=post_id, parent=1, subject=SimpleNamespace(number=topic.subject)))
    topics = tmp_path / "rag-topics.jsonl"
    runs = write_rag(topics, tmp_path, seed=2022, posts=posts)
    command_output("create_campaign", "Demo TREC RAG", "--task", "answers", "--collection", "MSE sample")
    command_output("ingest_topics", "--campaign", "Demo TREC RAG", str(topics))
    for path in runs:
        command_output("ingest_run", "--campaign", "Demo TREC RAG", str(path))
    command_output("build_pools", "--campaign", "Demo TREC RAG")
    campaign = Campaign.objects.get(name="Demo TREC RAG")
    rag_curate(campaign=campaign, organizer=organizer,
               assessors=[assessor_user, UserFactory(username="bea", password="assessor-pass-2")], seed=2022,
               say=lambda line: None)
    return campaign


def test_organizer_selects_words_in_an_answer_and_adds_them_as_a_nugget(page, live_server, rag, screenshot):
    topic = rag.topics.get(topic_id="rag-4")
    before = [n.text for n in bank_nuggets(topic=topic)]
    log_in(page, live_server, "olga", "organizer-pass-1")
    page.goto(f"{live_server.url}/campaigns/{rag.pk}/nuggets/")
    page.click(f"a[href='/campaigns/{rag.pk}/nuggets/topics/{topic.pk}/']")
    # The bank's history: the LLM's drafts, one accepted and one rejected, the nuggets the organizer wrote.
    for action in ("draft", "accept", "reject", "add"):
        expect(page.locator("#history")).to_contain_text(action)

    # A sentence of an answer without formulas, selected with the mouse from its first word to its last.
    sentence = page.locator(".answer-text .sentence").filter(has_not_text="$").first
    answer = page.locator(".card.answer").filter(has=sentence).first
    sentence.scroll_into_view_if_needed()
    line = sentence.evaluate("s => { const r = s.getClientRects()[0]; return {x: r.left, y: r.top, w: r.width,"
                             " h: r.height}; }")  # its first line, where a drag selects the words it crosses
    page.mouse.move(line["x"] + 1, line["y"] + line["h"] / 2)
    page.mouse.down()
    page.mouse.move(line["x"] + line["w"] - 1, line["y"] + line["h"] / 2, steps=8)
    page.mouse.up()
    field = answer.locator("textarea[name=text]")
    selected = field.input_value()
    assert selected and selected in sentence.inner_text()
    answer.locator("select[name=importance]").select_option("vital")
    with page.expect_navigation():
        answer.locator("button:has-text('New nugget from this answer')").click()
    expect(page.locator(".messages, main").first).to_contain_text("added from the answer of run")
    assert [n.text for n in bank_nuggets(topic=topic)] == [*before, selected]
    added = Nugget.objects.get(topic=topic, text=selected)
    assert (added.source, added.importance) == ("selected", "vital")
    expect(page.locator("table").filter(has_text=selected).first).to_be_visible()
    page.set_viewport_size({"width": 1280, "height": page.evaluate("document.body.scrollHeight")})
    page.evaluate("window.scrollTo(0, 0)")
    screenshot(page, "nugget-bank.png")


def test_the_leaderboard_shows_the_runs_nugget_scores(page, live_server, rag, screenshot):
    log_in(page, live_server, "olga", "organizer-pass-1")
    page.goto(f"{live_server.url}/campaigns/{rag.pk}/leaderboard/")
    headers = [h.replace("↕", "").strip() for h in page.locator("#leaderboard thead th").all_inner_texts()]
    measures = ["nugget_vital", "nugget_strict_vital", "nugget_all", "nugget_strict_all", "support_precision",
                "support_recall"]
    assert [h for h in headers if h in measures] == measures
    rows = {}
    for row in page.locator("#leaderboard tbody tr").all():
        cells = row.locator("td").all_inner_texts()
        rows[cells[0].strip()] = dict(zip(headers, (c.strip() for c in cells), strict=True))
    assert sorted(rows) == ["rag-alpha-cite", "rag-beta-cite", "rag-gamma-cite"]
    values = {run: [float(cells[m]) for m in measures] for run, cells in rows.items()}
    assert all(0 <= v <= 1 for vs in values.values() for v in vs)
    # The careful system supports more nuggets than the careless one (workflow/demo/rag.py RUNS).
    assert values["rag-alpha-cite"][2] > values["rag-gamma-cite"][2]
    # The table is wider than the page's column: scrolled as a reader scrolls to see its last columns.
    page.set_viewport_size({"width": 1800, "height": 820})
    page.evaluate("(() => { const t = document.querySelector('#leaderboard').getBoundingClientRect();"
                  " window.scrollTo(Math.max(0, Math.min(t.left - 16, t.right + 16 - window.innerWidth)), 0); })()")
    screenshot(page, "leaderboard-nuggets.png")
