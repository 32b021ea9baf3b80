"""Small judging campaigns made by hand: a collection with real-looking posts, topics, runs and built pools.

A pytest plugin (tests/conftest.py loads it) so that the browser tests share the fixtures."""
import pytest
from rest_framework.authtoken.models import Token

from ir import grades
from judging import services
from judging.models import Assignment
from pooling import services as pooling_services
from pooling.models import Campaign, Collection, Comment
from tests.factories import CampaignFactory, CollectionFactory, FormulaFactory, PostFactory, TopicFactory, UserFactory
from tests.pooling.run_files import ingest, task1_lines, task3_file

# Planted in a post: none of it may run in the assessor's browser, including what TeX could do through MathJax.
XSS = ('<img src=x onerror="window.__pwned = 1"><script>window.__pwned = 2</script>'
       '<a href="javascript:window.__pwned=3">click</a>'
       '<p>$\\href{javascript:window.__pwned=7}{x}$ '
       '$\\style{position:fixed;top:0;left:0;width:100vw;height:100vh}{y}$</p>')


def _posts(collection: Collection) -> None:
    def post(post_id, kind, thread, body, title="", score=0, accepted=""):
        PostFactory(collection=collection, post_id=post_id, kind=kind, thread_id=thread, title=title, body=body,
                    tags="algebra calculus" if kind == "question" else "", score=score, accepted_answer_id=accepted)

    post("1", "question", "1", "<p>What is $\\int_0^1 x^2\\,dx$?</p>", title="An integral", accepted="11")
    post("10", "answer", "1", "<p>It is $\\frac{1}{3}$ by the power rule.</p>", score=5)
    post("11", "answer", "1", '<p>See <a href="https://math.stackexchange.com/questions/2/other">this question</a>'
         ' and <a href="https://en.wikipedia.org/wiki/Integral">Wikipedia</a>.</p>' + XSS, score=7)
    post("12", "answer", "1", "<p>Use Riemann sums: $\\sum_{k=1}^n k^2/n^3$.</p>", score=1)
    post("2", "question", "2", "<p>Another question, about $e^{i\\pi}$.</p>", title="Euler", score=3)
    post("20", "answer", "2", '<p>Euler: <span class="math-container" id="1">$e^{i\\pi}+1=0$</span></p>')
    post("30", "answer", "2", '<p>Also <span class="math-container" id="2">$e^{i\\pi}+1=0$</span> and '
         '<span class="math-container" id="3">$x$</span></p>')
    post("40", "answer", "2", '<p>Finally <span class="math-container" id="4">$e^{i\\pi} = -1$</span></p>')
    Comment.objects.create(collection=collection, comment_id="c1", post_id="10", text="Nice, thanks!", score=2)


@pytest.fixture
def collection(db):
    collection = CollectionFactory(name="judging")
    _posts(collection)
    for formula_id, post_id, visual in (("1", "20", "100"), ("2", "30", "100"), ("3", "30", "300"),
                                        ("4", "40", "400")):
        FormulaFactory(collection=collection, formula_id=formula_id, post_id=post_id, thread_id="2",
                       visual_id=visual)
    return collection


@pytest.fixture
def answers(collection, tmp_path):
    """A.1 pools answers 10, 11, 12; A.2 pools 20 and 99 (99 is not in the collection)."""
    campaign = CampaignFactory(name="answers", task=Campaign.Task.ANSWERS, collection=collection, primary_depth=3,
                               alternate_depth=3)
    TopicFactory(campaign=campaign, topic_id="A.1", position=0, title="How do I integrate $x^2$?",
                 question="<p>I need $\\int x^2$ explained.</p>", tags="calculus integration")
    TopicFactory(campaign=campaign, topic_id="A.2", position=1, title="Euler", question="<p>Why?</p>")
    ingest(campaign, tmp_path, "r1", task1_lines("A.1", ["10", "11", "12"], "r1")
           + task1_lines("A.2", ["20", "99"], "r1"))
    pooling_services.pool_build(campaign=campaign, judged_items={})
    return campaign


# ARQMath-3 Task 3 answers are plain text: whatever they hold is shown as text, never run or rendered as HTML.
GENERATED = "By the power rule,\n$$\\int_0^1 x^2\\,dx = \\frac{1}{3}.$$\nSo the answer is $\\frac13$."
PLANTED = "<script>window.__pwned = 4</script><b>not bold</b> & $x<y$"


@pytest.fixture
def task3(answers, tmp_path):
    """The answers campaign with two ARQMath-3 Task 3 runs, pooled with its posts: A.1 gets d_1 (a generated answer,
    TeX over several lines) and d_3 (an extracted one holding planted HTML), A.2 d_2 (both runs' text but for white
    space)."""
    ingest_task3(answers, tmp_path, "team-task3-gpt-auto-both-generate-P",
                 {"A.1": GENERATED, "A.2": "Because $e^{i\\pi}=-1$."})
    ingest_task3(answers, tmp_path, "other-task3-se-auto-both-extract-A",
                 {"A.1": PLANTED, "A.2": "Because  $e^{i\\pi}=-1$. "})
    pooling_services.pool_build(campaign=answers, judged_items={})
    return answers


def ingest_task3(campaign, tmp_path, name, answers):
    return pooling_services.run_ingest(campaign=campaign, path=task3_file(tmp_path, name, answers))


@pytest.fixture
def formulas(collection, tmp_path):
    """B.1 pools visual ids 100 (instances 1 and 2), 300 (3) and 400 (4); the query formula is q_1."""
    campaign = CampaignFactory(name="formulas", task=Campaign.Task.FORMULAS, collection=collection,
                               primary_depth=3, alternate_depth=3, instances=2)
    TopicFactory(campaign=campaign, topic_id="B.1", position=0, title="Euler's identity",
                 question='<p>Find <span class="math-container" id="q_1">$e^{i\\pi}+1=0$</span> elsewhere.</p>',
                 formula_id="q_1")
    ingest(campaign, tmp_path, "f1", [("B.1", formula, post, str(rank), str(10 - rank), "f1") for rank, (formula, post)
                                      in enumerate([("1", "20"), ("2", "30"), ("3", "30"), ("4", "40")], 1)])
    pooling_services.pool_build(campaign=campaign, judged_items={})
    return campaign


@pytest.fixture
def formulas_missing(formulas, collection, tmp_path):
    """B.1 of the formulas campaign with one more run naming formula 9 in post 90, which the collection lacks (the
    index knows the formula), and formula 8 in post 80, which neither has."""
    FormulaFactory(collection=collection, formula_id="9", post_id="90", thread_id="2", visual_id="900",
                   latex="x^{9}")
    ingest(formulas, tmp_path, "f2", [("B.1", "9", "90", "1", "9", "f2"), ("B.1", "8", "80", "2", "8", "f2")])
    pooling_services.pool_build(campaign=formulas, judged_items={})
    return formulas


@pytest.fixture
def ada(db):
    return UserFactory(username="ada", password="assessor-pass-1")


@pytest.fixture
def ada_client(client, ada):
    client.force_login(ada)
    return client


@pytest.fixture
def ada_api(client, ada):
    """The test client speaking to the API with a token of ada's."""
    client.defaults["HTTP_AUTHORIZATION"] = f"Token {Token.objects.create(user=ada).key}"
    return client


@pytest.fixture
def bob(db):
    return UserFactory(username="bob", password="assessor-pass-2")


def assign(campaign, user, *topics, kind="official", round=None):
    return services.assignments_create(campaign=campaign, assessors=[user], topic_ids=list(topics), kind=kind,
                                       round=round).created[0]


def facets_judged_twice(campaign, ada, bob):
    """The campaign judged with the mo-facets scheme on A.1's items 10, 11, 12 by ada (official) and bob (dual):
    totality agrees on all three, directness on one (facet kappas 1 and -0.5; grades 3 2 0 against 2 2 0)."""
    campaign.scheme = grades.preset("mo-facets").to_json()
    campaign.save()
    official, dual = assign(campaign, ada, "A.1"), assign(campaign, bob, "A.1", kind=Assignment.Kind.DUAL)
    given = {ada: [("total", "direct"), ("partial", "direct"), ("none", "indirect")],
             bob: [("total", "indirect"), ("partial", "direct"), ("none", "direct")]}
    for user, a in ((ada, official), (bob, dual)):
        for item, (totality, directness) in zip(("10", "11", "12"), given[user], strict=True):
            services.judgment_submit(assignment_pk=a.pk, item_id=item, user=user, grades=[services.GradeInput(
                grade="", facets={"totality": totality, "directness": directness})])
