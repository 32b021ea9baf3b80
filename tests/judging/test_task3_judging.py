"""ARQMath-3 Task 3 answers judged blind among the posts (issue 17 point 3): shown as escaped text with its line breaks
and TeX, without a thread, a run or a kind; the same grades, SF/DK comments, revisions, agreement and disagreement
review as posts. (tests/browser/test_task3_judging.py sees the page in a browser.)"""
import pytest
from sklearn.metrics import cohen_kappa_score

from judging.models import Judgment
from judging.services import judgments_import
from pooling.models import PoolItem
from tests.commands import command_output
from tests.judging.fixtures import GENERATED, assign

pytestmark = pytest.mark.django_db


def position(campaign, topic, item_id):
    return PoolItem.objects.get(campaign=campaign, topic__topic_id=topic, item_id=item_id).position


def test_a_task3_answer_is_pooled_and_shown_like_a_post_but_blind(client, task3, ada):
    a = assign(task3, ada, "A.1")
    assert set(PoolItem.objects.filter(topic=a.topic).values_list("item_id", flat=True)) == {
        "10", "11", "12", "d_1", "d_3"}
    client.force_login(ada)
    page = client.get(f"/assess/assignments/{a.pk}/items/{position(task3, 'A.1', 'd_1')}/").content.decode()
    assert "0 of 5 judged" in page
    # The text escaped as it is (its line breaks kept by the page's CSS), in a block MathJax typesets.
    assert '<div class="post-body answer-body answer-text tex2jax_process">By the power rule,\n$$\\int_0^1' in page
    assert "So the answer is $\\frac13$.</div>" in page
    # Nothing tells which run, team or kind gave it, nor its sources: no thread link, no score, no answer id shown.
    candidate = page[page.index('aria-label="Candidate"'):]
    for tell in ("generate", "extract", "team-task3", "other-task3", "sources", "Thread</a>", "score ", "d_3"):
        assert tell not in page if tell != "Thread</a>" else tell not in candidate, tell
    # Only in what the form sends back and what the page's script keys its outbox by, never in the text shown.
    assert page.count("d_1") == 2 and 'name="item_id" value="d_1"' in page and 'data-item-id="d_1"' in page
    planted = client.get(f"/assess/assignments/{a.pk}/items/{position(task3, 'A.1', 'd_3')}/").content.decode()
    assert "&lt;script&gt;window.__pwned = 4&lt;/script&gt;&lt;b&gt;not bold&lt;/b&gt; &amp; $x&lt;y$" in planted
    assert "<script>window.__pwned" not in planted and "<b>not bold" not in planted


def test_a_task3_answer_takes_the_same_grades_comments_and_revisions(client, task3, ada):
    a = assign(task3, ada, "A.1")
    client.force_login(ada)
    url = f"/assess/assignments/{a.pk}/items/{position(task3, 'A.1', 'd_1')}/"
    refused = client.post(url, {"item_id": "d_1", "grade": "SF", "comment": ""})
    assert refused.status_code == 400 and "a comment is required with System failure" in refused.content.decode()
    assert client.post(url, {"item_id": "d_1", "grade": "SF", "comment": "cut off"}).status_code == 302
    assert client.post(url, {"item_id": "d_1", "grade": "2"}).status_code == 302
    judgment = Judgment.objects.get(item_id="d_1")
    assert (judgment.grade, judgment.revision) == ("2", 2)
    assert [(r.old_grade, r.grade) for r in judgment.revisions.order_by("number")] == [("", "SF"), ("SF", "2")]
    assert "1 of 5 judged" in client.get(url).content.decode()


def test_task3_answers_count_in_agreement_and_show_in_the_disagreement_review(client, organizer, task3, ada, bob):
    assign(task3, ada, "A.1")
    assign(task3, bob, "A.1", kind="dual")
    grades = {"ada": {"10": "3", "d_1": "3", "d_3": "0"}, "bob": {"10": "3", "d_1": "1", "d_3": "0"}}
    judgments_import(campaign=task3, lines=[
        "\t".join((name, "A.1", item, grade, "", "official" if name == "ada" else "dual", ""))
        for name, items in grades.items() for item, grade in items.items()])
    out, _ = command_output("agreement", "--campaign", "answers", "--kind", "dual")
    rows = [line.split("\t") for line in out.splitlines()[1:]]
    assert ["dual", "-", "ada", "bob", "graded", f"{cohen_kappa_score([3, 3, 0], [3, 1, 0]):.4f}", "3"] in rows
    client.force_login(organizer)
    page = client.get(f"/campaigns/{task3.pk}/disagreements/?kind=dual").content.decode()
    assert "1 item" in page and "answer d_1" in page  # the organizer may see the id
    assert '<div class="answer-text">By the power rule,\n$$\\int_0^1' in page
    assert GENERATED.splitlines()[-1] in page


def test_the_pool_page_shows_an_answer_as_text_with_its_runs_and_no_thread(client, organizer, task3):
    client.force_login(organizer)
    topic = task3.topics.get(topic_id="A.2")
    page = client.get(f"/campaigns/{task3.pk}/pools/topics/{topic.pk}/").content.decode()
    row = page[page.index("answer d_2"):]
    row = row[:row.index("</tr>")]
    assert "Because $e^{i\\pi}=-1$." in row  # the first run's text, escaped
    assert "other-task3-se-auto-both-extract-A: 1, team-task3-gpt-auto-both-generate-P: 1" in row  # by run name
    assert "/posts/d_2/" not in page  # no link to a thread the answer does not have
    assert f"/assess/collections/{task3.collection_id}/posts/20/" in page  # the posts keep theirs
