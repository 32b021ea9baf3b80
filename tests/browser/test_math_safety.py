"""TeX can typeset, never style the page (issue 14.1): MathJax's \\unicode font, \\mmlToken's attributes, \\style,
\\class, \\cssId, \\href and \\bbox's style reach no element's style, on every page that typesets; and an assessor's
comment is never typeset at all."""
import pytest

from judging import services
from pooling import services as pooling_services
from pooling.models import Campaign, Collection, PoolItem, Post
from tests.browser.test_organizer_pages import log_in
from tests.factories import CampaignFactory, TopicFactory
from tests.judging.fixtures import assign, ingest_task3
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


# Issue 22.16: TeX that places its content far outside the formula (a kern, a raise, a rule, a lap), alone and as
# the Task 3 answer's fake notice (a black 900 x 300 px box with a grading prompt in it).
NOTICE = "\\rlap{\\rule{900px}{300px}}\\llap{\\color{white}{\\text{Already graded: High (3). Press 3 to confirm}}}"
ATTACKS = {
    "kern": "\\kern-3000px \\text{kerned}",
    "raise": "\\raise{3000px}{\\text{raised}}",
    "lower": "\\lower{3000px}{\\text{lowered}}",
    "rule": "\\rule{3000px}{3000px}",
    "llap": "\\llap{\\text{" + "lapped " * 25 + "}}",
    "many kerns": "\\kern-30em" * 40 + "\\text{far}",
    "mkern": "\\mkern-54000mu \\text{mu}",
    "notice": NOTICE,
}
MATH = "".join(f"<p>{name}: ${tex}$</p>" for name, tex in ATTACKS.items())
ANSWER = "Task 3 says: " + " ".join(f"${tex}$" for tex in ATTACKS.values())

# For every typeset formula on screen: what of each of its parts is visible (its box, cut by every box that clips it
# on the way up to the formula) must lie within the formula's box (mjx-math, with 0.25em for glyphs' overhang), and
# that box must stay a formula's size.
OUTSIDE = """() => {
  const out = [];
  let checked = 0;
  for (const math of document.querySelectorAll('mjx-container > mjx-math')) {
    const box = math.getBoundingClientRect();
    if (box.width === 0 && box.height === 0) continue;   // not shown (a closed <details>, a parked item)
    checked++;
    const slack = 0.25 * parseFloat(getComputedStyle(math).fontSize) + 1;
    const where = math.closest('p, td, div, span, h1, h2, li').textContent.slice(0, 40);
    if (box.width > 800 || box.height > 200) out.push({where, formula: [box.width, box.height]});
    for (const part of math.querySelectorAll('*')) {
      let r = part.getBoundingClientRect();
      if (r.width === 0 || r.height === 0) continue;
      let [left, top, right, bottom] = [r.left, r.top, r.right, r.bottom];
      for (let up = part.parentElement; up && up !== math.parentElement; up = up.parentElement) {
        const s = getComputedStyle(up);
        if (s.overflowX === 'visible' && s.overflowY === 'visible') continue;
        const c = up.getBoundingClientRect(), m = parseFloat(s.overflowClipMargin) || 0;
        left = Math.max(left, c.left - m); top = Math.max(top, c.top - m);
        right = Math.min(right, c.right + m); bottom = Math.min(bottom, c.bottom + m);
      }
      if (right <= left || bottom <= top) continue;     // clipped away entirely
      if (left < box.left - slack || right > box.right + slack || top < box.top - slack || bottom > box.bottom + slack)
        out.push({where, part: part.tagName, visible: [left, top, right, bottom].map(Math.round),
                  formula: [box.left, box.top, box.right, box.bottom].map(Math.round)});
    }
  }
  return {checked, out: out.slice(0, 5), count: out.length};
}"""


def assert_in_their_boxes(page, *, at_least: int) -> None:
    typeset_done(page)
    page.evaluate("() => document.querySelectorAll('details').forEach(d => { d.open = true; })")
    found = page.evaluate(OUTSIDE)
    assert found["count"] == 0, found
    assert found["checked"] >= at_least, found


@pytest.fixture
def boxed(db, tmp_path):
    """Posts, a topic and a Task 3 answer carrying every attack; A.1 pools posts 10 and 11 and the answer."""
    collection = Collection.objects.create(name="boxed")
    Post.objects.create(collection=collection, post_id="1", kind="question", thread_id="1",
                        title=f"Why ${ATTACKS['kern']}$ and ${NOTICE}$?", body=MATH, tags="algebra")
    for post_id in ("10", "11"):
        Post.objects.create(collection=collection, post_id=post_id, kind="answer", thread_id="1", body=MATH, score=1)
    campaign = CampaignFactory(name="boxed", task=Campaign.Task.ANSWERS, collection=collection, primary_depth=3,
                               alternate_depth=3)
    TopicFactory(campaign=campaign, topic_id="A.1", position=0, title=f"Title ${ATTACKS['raise']}$ ${NOTICE}$",
                 question=MATH, tags="calculus")
    ingest(campaign, tmp_path, "r1", task1_lines("A.1", ["10", "11"], "r1"))
    ingest_task3(campaign, tmp_path, "team-task3-boxed", {"A.1": ANSWER})
    pooling_services.pool_build(campaign=campaign, judged_items={})
    return campaign


def test_tex_draws_nothing_outside_its_box_on_the_judging_pages(page, live_server, boxed, ada, screenshot):
    a = assign(boxed, ada, "A.1")
    order = list(PoolItem.objects.filter(topic=a.topic).order_by("position").values_list("item_id", flat=True))
    answer = next(item for item in order if item not in ("10", "11"))
    log_in(page, live_server, "ada", "assessor-pass-1")
    page.goto(f"{live_server.url}/assess/assignments/{a.pk}/items/{order.index('10')}/")
    assert_in_their_boxes(page, at_least=len(ATTACKS) * 2)    # the topic's question and the post's body
    page.goto(f"{live_server.url}/assess/assignments/{a.pk}/items/{order.index(answer)}/")
    assert_in_their_boxes(page, at_least=len(ATTACKS))        # the Task 3 answer
    screenshot(page, "math-in-its-box.png")
    page.goto(f"{live_server.url}/assess/assignments/{a.pk}/topic/")
    assert_in_their_boxes(page, at_least=len(ATTACKS))
    page.goto(f"{live_server.url}/assess/collections/{boxed.collection_id}/posts/10/")
    assert_in_their_boxes(page, at_least=len(ATTACKS) * 3)    # the question and both answers


def test_tex_draws_nothing_outside_its_box_on_the_organizer_pages(page, live_server, boxed, organizer):
    log_in(page, live_server, "olga", "organizer-pass-1")
    page.goto(f"{live_server.url}/campaigns/{boxed.pk}/")
    assert_in_their_boxes(page, at_least=1)                   # the topic's title (cut to 120 characters)
    page.goto(f"{live_server.url}/campaigns/{boxed.pk}/pools/")
    assert_in_their_boxes(page, at_least=1)
    page.goto(f"{live_server.url}/campaigns/{boxed.pk}/pools/topics/{boxed.topics.get().pk}/")
    assert_in_their_boxes(page, at_least=1 + len(ATTACKS))    # the title, and the Task 3 answer opened
