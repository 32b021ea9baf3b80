"""TeX can typeset, never style the page (issue 14.1): MathJax's \\unicode font, \\mmlToken's attributes, \\style,
\\class, \\cssId, \\href and \\bbox's style reach no element's style, on every page that typesets; and an assessor's
comment is never typeset at all."""
import pytest

from assessor import services
from pooling import services as pooling_services
from pooling.models import Campaign, Collection, Post
from tests.assessor.fixtures import assign
from tests.browser.test_organizer_pages import log_in
from tests.factories import CampaignFactory, TopicFactory
from tests.pooling.run_files import ingest, task1_lines

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

COVER = "position:fixed;top:0;left:0;width:100vw;height:100vh;background:#c00;z-index:99999"
PAYLOADS = [
    f"$\\unicode[Arial;{COVER}]{{x41}}$",
    f"$\\unicode[Arial;{COVER}]{{x41}}$".replace("$", "$$"),
    f'$\\mmlToken{{mi}}[fontfamily="Arial;{COVER}"]{{x}}$',
    f'$\\mmlToken{{mi}}[fontfamily="Arial" fontweight="bold;{COVER}"]{{x}}$',
    f'$\\mmlToken{{mi}}[style="{COVER}"]{{x}}$',
    f"$\\style{{{COVER}}}{{y}}$",
    "$\\class{topbar}{y}$ $\\cssId{definitions}{y}$ $\\href{javascript:alert(1)}{z}$",
    f"$\\bbox[{COVER}]{{b}}$",
    f"$\\require{{html}}\\style{{{COVER}}}{{r}}$",
]
# Ordinary TeX, including packages MathJax loads on first use (autoload still works without \\require).
NORMAL = "<p>Normal math: $\\frac{1}{3}$, $\\boldsymbol{x} + \\cancel{y} + \\color{blue}{z}$.</p>"
BODY = NORMAL + "<p>" + " ".join(PAYLOADS) + "</p>"

# Any element fixed on the screen, or painted with a background by TeX (MathJax paints only its own yellow box of
# a TeX error, and its hidden MathML copy for screen readers is clipped away); and how many formulas were typeset.
PROBE = """() => {
  const fixed = [], painted = [];
  for (const e of document.querySelectorAll('*')) {
    const s = getComputedStyle(e);
    if (s.position === 'fixed') fixed.push(e.tagName + '.' + e.className);
    const fromTex = e.closest('mjx-container') && !e.closest('mjx-merror, mjx-assistive-mml');
    if (fromTex && (s.backgroundColor !== 'rgba(0, 0, 0, 0)' || s.backgroundImage !== 'none')) painted.push(e.tagName);
  }
  const red = Array.from(document.querySelectorAll('*')).filter(
    e => getComputedStyle(e).backgroundColor === 'rgb(204, 0, 0)').length;
  return {fixed, painted, red, typeset: document.querySelectorAll('mjx-container').length};
}"""


def typeset_done(page) -> None:
    """Waits until MathJax has loaded and finished its first typesetting pass."""
    page.wait_for_function("window.MathJax && MathJax.startup && MathJax.startup.promise", timeout=20000)
    page.evaluate("() => MathJax.startup.promise")


def assert_safe(page, *, at_least: int) -> None:
    typeset_done(page)
    found = page.evaluate(PROBE)
    assert found["fixed"] == [], found
    assert found["painted"] == [], found
    assert found["red"] == 0, found
    assert found["typeset"] >= at_least, found      # normal math still typesets
    assert page.locator("a[href^='javascript']").count() == 0
    assert page.locator("mjx-container .topbar, mjx-container #definitions").count() == 0
    normal = page.locator("p", has_text="Normal math").first
    assert normal.locator("mjx-container").count() == 2 and normal.locator("mjx-merror").count() == 0


@pytest.fixture
def planted(db, tmp_path):
    collection = Collection.objects.create(name="planted")
    Post.objects.create(collection=collection, post_id="1", kind="question", thread_id="1",
                        title="Why $\\unicode[Arial;" + COVER + "]{x41}$?", body=BODY, tags="algebra")
    Post.objects.create(collection=collection, post_id="10", kind="answer", thread_id="1", body=BODY, score=1)
    Post.objects.create(collection=collection, post_id="11", kind="answer", thread_id="1", body=BODY, score=1)
    campaign = CampaignFactory(name="planted", task=Campaign.Task.ANSWERS, collection=collection, primary_depth=3,
                               alternate_depth=3)
    TopicFactory(campaign=campaign, topic_id="A.1", position=0, title="Title " + PAYLOADS[0] + " and $x^2$",
                 question=BODY, tags="calculus")
    ingest(campaign, tmp_path, "r1", task1_lines("A.1", ["10", "11"], "r1"))
    pooling_services.pool_build(campaign=campaign, judged_items={})
    return campaign


def test_tex_in_posts_and_topics_styles_nothing_on_the_judging_thread_and_topic_pages(page, live_server, planted,
                                                                                      ada):
    a = assign(planted, ada, "A.1")
    log_in(page, live_server, "ada", "assessor-pass-1")
    page.goto(f"{live_server.url}/assess/assignments/{a.pk}/items/0/")
    assert_safe(page, at_least=3)   # the topic's title, the question's and the answer's fractions
    page.goto(f"{live_server.url}/assess/assignments/{a.pk}/topic/")
    assert_safe(page, at_least=2)
    page.goto(f"{live_server.url}/assess/collections/{planted.collection_id}/posts/10/")
    assert_safe(page, at_least=3)


def test_tex_in_an_assessors_comment_is_text_on_the_disagreement_review(page, live_server, organizer, planted):
    comment = PAYLOADS[0] + " " + PAYLOADS[5]
    lines = ["\t".join([name, "A.1", "10", grade, comment, "training", "1"]) for name, grade in (("ada", "3"),
                                                                                                ("bob", "0"))]
    services.judgments_import(campaign=planted, lines=lines)
    log_in(page, live_server, "olga", "organizer-pass-1")
    page.goto(f"{live_server.url}/campaigns/{planted.pk}/disagreements/?kind=training&round=1")
    assert page.locator("article.disagreement").count() == 1
    assert_safe(page, at_least=2)
    # The comment is shown as the assessor wrote it, not typeset.
    cells = page.locator(".grades-side td", has_text="\\unicode")
    assert cells.count() == 2
    assert cells.first.locator("mjx-container").count() == 0
