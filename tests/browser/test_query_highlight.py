"""Task 2's query formula is highlighted in the topic pane whatever its delimiter (issue 22 point 1): every topic of
every real Task 2 topic file in tests/data, as the judging page renders it, typeset by the page's MathJax and styled by
its CSS; and the two delimiters the real files do not use (\\( \\) and \\[ \\])."""
import base64

import pytest

from ir.formats.topics_xml import TopicRecord, read_topics
from ir.problems import Problems
from judging.rendering import judging_safe_fragments
from judging.selectors import ItemShown, judging_fragments
from pooling.models import Topic
from tests.browser.test_judging import item_url, typeset
from tests.browser.test_organizer_pages import log_in
from tests.judging.fixtures import assign

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

TASK2_FILES = ["topics.arqmath-2020-task2-origin.xml", "topics.arqmath-2022-task2-origin.xml"]

# The page shows a topic's title and question as the server rendered them, typeset; the query formula's highlights,
# each scrolled into view, are then looked at as pixels.
SHOW = """async (t) => {
  const title = document.querySelector(".topic-pane .topic-title");
  const question = document.querySelector(".topic-pane .topic-question");
  MathJax.typesetClear([title, question]);
  title.innerHTML = t.title;
  question.innerHTML = t.question;
  await MathJax.typesetPromise([title, question]);
  return document.querySelectorAll(".topic-pane .math-container.hl").length;
}"""
# Where the formula is: its typeset box, or the mark itself when its TeX cannot be typeset (shown as text).
PLACE = """(n) => {
  const mark = document.querySelectorAll(".topic-pane .math-container.hl")[n];
  const math = mark.querySelector("mjx-container") || mark;
  math.scrollIntoView({block: "center"});
  const r = math === mark ? mark.getClientRects()[0] : math.getBoundingClientRect();   // text: its first line
  // A formula of the question is seen below the topic's title, which stays at the top of the pane.
  const bar = document.querySelector(".topic-pane .topic-title");
  const title = mark.closest(".topic-title") ? 0 : bar.getBoundingClientRect().bottom;
  const top = Math.max(r.top, title);
  return {x: r.left, y: top, width: r.width, height: r.bottom - top, typeset: math !== mark};
}"""
# The share of a picture's pixels in the highlight's yellow (#fff3a0, judge.css).
YELLOW = """async (png) => {
  const img = new Image();
  img.src = "data:image/png;base64," + png;
  await img.decode();
  const canvas = document.createElement("canvas");
  canvas.width = img.width;
  canvas.height = img.height;
  const context = canvas.getContext("2d");
  context.drawImage(img, 0, 0);
  const data = context.getImageData(0, 0, img.width, img.height).data;
  let yellow = 0;
  for (let i = 0; i < data.length; i += 4) {
    if (data[i] > 245 && Math.abs(data[i + 1] - 243) < 10 && Math.abs(data[i + 2] - 160) < 16) yellow++;
  }
  return yellow / (data.length / 4);
}"""


def highlighted(page, topic: dict) -> list[str]:
    """What is wrong with the query formula's highlight of a topic as the page shows it; nothing when every highlight
    is painted behind its formula (an inline span around display math paints only slivers beside it)."""
    marks = page.evaluate(SHOW, topic)
    if not marks:
        return [f"{topic['id']}: no highlight"]
    wrong = []
    for n in range(marks):
        place = page.evaluate(PLACE, n)
        clip = {key: place[key] for key in ("x", "y", "width", "height")}
        share = page.evaluate(YELLOW, base64.b64encode(page.screenshot(clip=clip)).decode())
        if share < 0.2:
            wrong.append(f"{topic['id']}: {share:.0%} of the formula's box is highlighted")
        if not place["typeset"] and topic["id"] not in UNTYPESET:
            wrong.append(f"{topic['id']}: the query formula is not typeset")
    return wrong


# B.394's query formula is cut short in the real file itself (`$$\forall \epsilon > 0, \exists \delta > 0, |x-a|`:
# the rest was lost to a `<` when ARQMath made the topic), so its TeX shows as text; highlighted all the same.
UNTYPESET = {"B.394"}


def rendered(record: TopicRecord, collection_pk: int) -> dict:
    """The topic's title and question as the judging page shows them (sanitized, the query formula marked)."""
    topic = Topic(topic_id=record.topic_id, title=record.title, question=record.question, formula_id=record.formula_id)
    safe = judging_safe_fragments(judging_fragments(topic=topic, shown=ItemShown()), collection_pk=collection_pk)
    return {"id": record.topic_id, "title": safe["topic_title"], "question": safe["topic_question"]}


def real_topics(arqmath_data) -> list[TopicRecord]:
    topics = []
    for name in TASK2_FILES:
        problems = Problems(name)
        with open(arqmath_data / "topics" / name, "rb") as stream:
            topics += read_topics(stream, problems, task="formulas")
        assert not problems
    return topics


def test_query_formula_is_highlighted_in_every_real_task2_topic_whatever_its_delimiter(
        page, live_server, formulas, ada, arqmath_data, screenshot):
    topics = real_topics(arqmath_data)
    assert len(topics) == 185
    display = [t for t in topics if f'id="{t.formula_id}">$$' in t.title + t.question]
    assert len(display) == 27 + 29   # the count: display math in 27 ARQMath-1 and 29 ARQMath-3 topics
    b302 = next(t for t in topics if t.topic_id == "B.302")
    latex = "$$z=\\sqrt[n]{s}e^{\\frac{i\\varphi}{n}}$$"
    assert latex in b302.question
    # The delimiters ARQMath topics may also use, on the same topic.
    topics += [b302._replace(topic_id="B.302 \\[", question=b302.question.replace(latex, f"\\[{latex[2:-2]}\\]")),
               b302._replace(topic_id="B.302 \\(", question=b302.question.replace(latex, f"\\({latex[2:-2]}\\)"))]

    a = assign(formulas, ada, "B.1")
    # The page itself shows the demo's display-math topic, B.302 (the screenshot).
    Topic.objects.filter(pk=a.topic_id).update(title=b302.title, question=b302.question, formula_id=b302.formula_id)
    log_in(page, live_server, "ada", "assessor-pass-1")
    page.goto(item_url(live_server, a, "100"))
    typeset(page)
    page.wait_for_selector("#judge-form .instance mjx-container")
    screenshot(page, "judge-formulas-display-math.png")

    wrong = [problem for t in topics for problem in highlighted(page, rendered(t, formulas.collection_id))]
    assert wrong == []
