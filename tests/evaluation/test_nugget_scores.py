"""Nugget and support scores of generated answers (docs/evaluation.md, "Nugget and support scores"): from the official
support labels, as nuggetizer computes them (tests/ir/nuggetizer_reference.py, its own code), through `evaluate
--campaign`, the leaderboard and its CSV."""
import csv
import io
from fractions import Fraction

import pytest
from django.urls import reverse
from django.utils import timezone

from evaluation import services
from ir.prime import format_value
from nuggets.models import BankVersion, CitationJudgment, Nugget, SupportAssignment, SupportJudgment
from nuggets.scores import NUGGET_MEASURES
from pooling.models import AnswerSentence, AnswerText, RunAnswer
from tests.commands import command_output, rejected
from tests.factories import CampaignFactory, JudgmentFactory, RunEntryFactory, RunFactory, TopicFactory, UserFactory
from tests.ir.nuggetizer_reference import calculate_global_metrics, calculate_nugget_scores

NUGGETS, CITATIONS = SupportAssignment.Task.NUGGETS, SupportAssignment.Task.CITATIONS
OFFICIAL, DUAL = SupportAssignment.Kind.OFFICIAL, SupportAssignment.Kind.DUAL
# Each topic's frozen bank, in bank order.
BANKS = {"A.1": [("n1", "vital"), ("n2", "vital"), ("n3", "okay"), ("n4", "okay")],
         "A.2": [("m1", "vital"), ("m2", "okay"), ("m3", "okay")]}
# The official labels: r1's n4 has none (not_support), r2's answer to A.2 none at all (left out of r2's means).
OFFICIAL_LABELS = {("r1", "A.1"): {"n1": "support", "n2": "partial_support", "n3": "not_support"},
                   ("r1", "A.2"): {"m1": "partial_support", "m2": "support", "m3": "support"},
                   ("r2", "A.1"): {"n1": "not_support", "n2": "support", "n3": "partial_support", "n4": "support"}}
# Each answer's sentences with their citations, and the official citations labels: r2's c3 in A.1 has none; r2's
# answer to A.2 no label at all.
SENTENCES = {("r1", "A.1"): [["c1", "c2"], ["c3"], []], ("r1", "A.2"): [["d1"]],
             ("r2", "A.1"): [["c1"], ["c2", "c3"]], ("r2", "A.2"): [["d2"]]}
CITATION_LABELS = {("r1", "A.1"): {(0, "c1"): "full", (0, "c2"): "none", (1, "c3"): "partial"},
                   ("r1", "A.2"): {(0, "d1"): "full"},
                   ("r2", "A.1"): {(0, "c1"): "partial", (1, "c2"): "full"}}


def now():
    return timezone.now()


class Rag:
    """The campaign, its topics, runs, answers (run, topic) -> RunAnswer, sentences and nuggets by name."""

    def __init__(self):
        self.campaign = CampaignFactory()
        self.topics = {topic: TopicFactory(campaign=self.campaign, topic_id=topic, position=n)
                       for n, topic in enumerate(BANKS)}
        # What makes a run's answers scored by nuggets is their sentences (the TREC RAG format's), not its format.
        self.runs = {name: RunFactory(campaign=self.campaign, name=name, format="trec") for name in ("r1", "r2")}
        self.answers, self.sentences = {}, {}
        for n, ((run, topic), sentences) in enumerate(SENTENCES.items()):
            text = AnswerText.objects.create(campaign=self.campaign, topic=self.topics[topic], number=n + 1,
                                             answer_id=f"d_{n + 1}", digest=f"{n:064x}", text=f"answer {n}")
            answer = RunAnswer.objects.create(run=self.runs[run], topic=self.topics[topic], answer=text, line=n + 1,
                                              rank=1, score=1.0, run_tag=run, text=text.text)
            self.answers[run, topic] = answer
            for position, citations in enumerate(sentences):
                self.sentences[run, topic, position] = AnswerSentence.objects.create(
                    answer=answer, position=position, text=f"sentence {position}.", citations=citations)
        self.nuggets, self.banks = {}, {}
        for topic, bank in BANKS.items():
            for position, (name, importance) in enumerate(bank):
                self.nuggets[name] = Nugget.objects.create(campaign=self.campaign, topic=self.topics[topic],
                                                           text=f"nugget {name}", importance=importance,
                                                           position=position)
            self.banks[topic] = BankVersion.objects.create(
                campaign=self.campaign, topic=self.topics[topic], number=1, frozen_at=now(),
                nuggets=[{"id": self.nuggets[name].pk, "text": f"nugget {name}", "importance": importance}
                         for name, importance in bank])
        self.ada, self.bob = UserFactory(), UserFactory()

    def assignment(self, topic, task, kind=OFFICIAL, assessor=None, **kw):
        return SupportAssignment.objects.create(
            campaign=self.campaign, topic=self.topics[topic], assessor=assessor or self.ada, task=task, kind=kind,
            bank=self.banks[topic] if task == NUGGETS else None, **kw)

    def label(self, assignment, run, topic, labels):
        for name, label in labels.items():
            SupportJudgment.objects.create(assignment=assignment, answer=self.answers[run, topic],
                                           nugget=self.nuggets[name], label=label, submitted_at=now(),
                                           updated_at=now())

    def cite(self, assignment, run, topic, labels):
        for (position, citation), label in labels.items():
            CitationJudgment.objects.create(assignment=assignment, sentence=self.sentences[run, topic, position],
                                            citation=citation, label=label, submitted_at=now(), updated_at=now())


@pytest.fixture
def rag(db):
    """Official labels as above; a dual assessment and a withdrawn official assignment whose labels (every nugget
    supported, every citation full) must not count."""
    rag = Rag()
    nuggets = {topic: rag.assignment(topic, NUGGETS) for topic in BANKS}
    citations = {topic: rag.assignment(topic, CITATIONS) for topic in BANKS}
    for (run, topic), labels in OFFICIAL_LABELS.items():
        rag.label(nuggets[topic], run, topic, labels)
    for (run, topic), labels in CITATION_LABELS.items():
        rag.cite(citations[topic], run, topic, labels)
    for kind, extra in ((DUAL, {}), (OFFICIAL, {"withdrawn_at": now()})):
        for topic, bank in BANKS.items():
            other = rag.assignment(topic, NUGGETS, kind=kind, assessor=rag.bob, **extra)
            cited = rag.assignment(topic, CITATIONS, kind=kind, assessor=rag.bob, **extra)
            for run in rag.runs:
                rag.label(other, run, topic, {name: "support" for name, _importance in bank})
                rag.cite(cited, run, topic, {(position, citation): "full" for position, citations
                                             in enumerate(SENTENCES[run, topic]) for citation in citations})
    return rag


def reference_rows() -> dict[tuple[str, str, str], float]:
    """(run, measure, topic) -> value, every nugget score by nuggetizer's own code on the official labels (an
    unlabelled nugget of the bank as not_support), the support scores by their definition (docs/nuggets.md) in
    exact fractions."""
    names = {"vital_score": "nugget_vital", "strict_vital_score": "nugget_strict_vital", "all_score": "nugget_all",
             "strict_all_score": "nugget_strict_all"}
    rows: dict[tuple[str, str, str], float] = {}
    for run in ("r1", "r2"):
        records = [{"qid": topic, "nuggets": [{"importance": importance, "assignment": labels.get(name, "not_support")}
                                              for name, importance in BANKS[topic]]}
                   for (of, topic), labels in OFFICIAL_LABELS.items() if of == run]
        for record in records:
            scores = calculate_nugget_scores(record["qid"], record["nuggets"])
            rows.update({(run, name, record["qid"]): getattr(scores, field) for field, name in names.items()})
        rows.update({(run, name, "all"): calculate_global_metrics(records)[field] for field, name in names.items()})
        weight = {"full": Fraction(1), "partial": Fraction(1, 2), "none": Fraction(0)}
        precisions, recalls = [], []
        for (of, topic), labels in CITATION_LABELS.items():
            if of != run:
                continue
            sentences = [[weight[labels.get((position, citation), "none")] for citation in citations]
                         for position, citations in enumerate(SENTENCES[run, topic])]
            cited = [w for sentence in sentences for w in sentence]
            precisions.append(sum(cited) / len(cited))
            recalls.append(sum(max(sentence, default=Fraction(0)) for sentence in sentences) / len(sentences))
            rows[run, "support_precision", topic], rows[run, "support_recall", topic] = precisions[-1], recalls[-1]
        rows[run, "support_precision", "all"] = sum(precisions) / len(precisions)
        rows[run, "support_recall", "all"] = sum(recalls) / len(recalls)
    return rows


def printed(out: str) -> dict[tuple[str, str, str], str]:
    return {(run, measure, topic): value for run, measure, topic, value in (line.split("\t") for line in
                                                                             out.splitlines())}


def test_the_reference_is_what_the_labels_say():
    rows = reference_rows()
    # r1, A.1: n1 support, n2 partial (vital); n3 not, n4 unlabelled (okay). r2 has no labels of A.2.
    assert rows["r1", "nugget_vital", "A.1"] == 0.75 and rows["r1", "nugget_strict_all", "A.1"] == 0.25
    assert ("r2", "nugget_vital", "A.2") not in rows and rows["r2", "nugget_all", "all"] == 0.625
    assert rows["r1", "support_precision", "A.1"] == Fraction(1, 2) and rows["r2", "support_recall", "all"] == 0.75


def test_evaluate_prints_nuggetizers_scores_of_the_official_labels(rag):
    out, _err = command_output("evaluate", "--campaign", rag.campaign.name, "--per-topic")
    expected = {key: format_value(float(value)) for key, value in reference_rows().items()}
    assert printed(out) == expected  # the dual and the withdrawn assignments' labels count nowhere
    # per run: its topics' rows, then its means, in the measures' order
    assert [line.split("\t")[1] for line in out.splitlines() if line.startswith("r2\t")] == [
        *NUGGET_MEASURES, *NUGGET_MEASURES]
    means, _err = command_output("evaluate", "--campaign", rag.campaign.name)
    assert printed(means) == {key: value for key, value in expected.items() if key[2] == "all"}


def test_a_nugget_measure_is_chosen_by_name(rag):
    out, _err = command_output("evaluate", "--campaign", rag.campaign.name, "--measures", "nugget_vital",
                               "support_recall")
    assert printed(out)["r1", "nugget_vital", "all"] == format_value(reference_rows()["r1", "nugget_vital", "all"])
    other = CampaignFactory()
    RunEntryFactory(run=RunFactory(campaign=other))
    assert any("no such run" in line for line in rejected("evaluate", "--campaign", other.name, "--measures",
                                                          "nugget_vital"))


def test_the_dual_labels_change_nothing(rag):
    before = services.evaluate_campaign(campaign=rag.campaign)
    SupportJudgment.objects.filter(assignment__kind=DUAL).update(label="not_support")
    CitationJudgment.objects.filter(assignment__kind=DUAL).update(label="none")
    after = services.evaluate_campaign(campaign=rag.campaign)
    assert [(r.name, r.per_topic, r.means) for r in after.runs] == [(r.name, r.per_topic, r.means)
                                                                    for r in before.runs]
    assert after.measures == list(NUGGET_MEASURES) and after.topics == ["A.1", "A.2"]


def test_judged_posts_and_nugget_labels_score_together(rag):
    """A campaign with relevance judgments too: a run's prime measures and its nugget scores are rows of the same
    run, and the analyses pair runs over both kinds of topics."""
    entry = RunEntryFactory(run=rag.runs["r1"], topic=rag.topics["A.1"], item_id="10", rank=1)
    JudgmentFactory(assignment__topic=rag.topics["A.1"], item_id=entry.item_id, grade="3")
    found = services.evaluate_campaign(campaign=rag.campaign)
    r1 = next(run for run in found.runs if run.name == "r1")
    assert found.measures[:4] == ["ndcg_prime", "map_prime", "p10_prime", "unjudged_10"]
    assert found.measures[4:] == list(NUGGET_MEASURES)
    assert r1.means["ndcg_prime"] == 1.0 and r1.topics == 1
    assert r1.means["nugget_vital"] == reference_rows()["r1", "nugget_vital", "all"]
    assert r1.per_topic["A.2"] == {m: pytest.approx(float(reference_rows()["r1", m, "A.2"])) for m in NUGGET_MEASURES}


def test_the_api_gives_the_nugget_means_of_the_runs_in_sentences_only(rag, client):
    plain = RunEntryFactory(run=RunFactory(campaign=rag.campaign, name="plain"), topic=rag.topics["A.1"],
                            item_id="10", rank=1)
    JudgmentFactory(assignment__topic=rag.topics["A.1"], item_id=plain.item_id, grade="3")
    client.force_login(UserFactory(organizer=True))
    response = client.get(f"/api/campaigns/{rag.campaign.pk}/evaluation/")
    assert response.status_code == 200
    runs = {run["run"]: run for run in response.json()["runs"]}
    assert runs["plain"]["ndcg_prime"] == 1.0 and runs["plain"]["measures"] == dict.fromkeys(NUGGET_MEASURES)
    expected = reference_rows()
    assert runs["r2"]["measures"] == {m: pytest.approx(float(expected["r2", m, "all"])) for m in NUGGET_MEASURES}


def leaderboard_cells(page: str, run: str) -> list[str]:
    row = page[page.index(f'<tr data-run="{run}">'):]
    row = row[:row.index("</tr>")]
    return [cell.split(">", 1)[1].split("<", 1)[0] for cell in row.split('<td class="num"')[1:]]


def test_the_leaderboard_and_its_csv_show_the_nugget_columns(rag, client, django_user_model):
    organizer = UserFactory(organizer=True)
    client.force_login(organizer)
    expected = reference_rows()
    page = client.get(reverse("evaluation:leaderboard", args=[rag.campaign.pk])).content.decode()
    for measure in NUGGET_MEASURES:
        assert f">{measure}</th>" in page
    for run in ("r1", "r2"):
        # the prime columns (n/a: no judged post), the topics, then the nugget and support columns
        assert leaderboard_cells(page, run)[5:] == [format_value(float(expected[run, m, "all"]))
                                                    for m in NUGGET_MEASURES]
    text = client.get(reverse("evaluation:leaderboard_csv", args=[rag.campaign.pk])).content.decode()
    table = list(csv.DictReader(io.StringIO(text)))
    assert [row["run"] for row in table] == ["r1", "r2"]
    for row in table:
        assert {m: row[m] for m in NUGGET_MEASURES} == {m: format_value(float(expected[row["run"], m, "all"]))
                                                        for m in NUGGET_MEASURES}
    # the analysis of a nugget measure, chosen by name: its intervals over the topics scored
    chosen = client.get(reverse("evaluation:leaderboard", args=[rag.campaign.pk]), {"measure": "nugget_vital"})
    assert chosen.status_code == 200


def test_a_new_official_label_rescores_the_leaderboard(rag, client):
    client.force_login(UserFactory(organizer=True))
    url = reverse("evaluation:leaderboard_csv", args=[rag.campaign.pk])
    client.get(url)
    official = SupportAssignment.objects.get(topic=rag.topics["A.2"], task=NUGGETS, kind=OFFICIAL,
                                             withdrawn_at__isnull=True)
    rag.label(official, "r2", "A.2", {"m1": "support"})  # r2's answer to A.2 is scored now: 1 vital of 1
    table = {row["run"]: row for row in csv.DictReader(io.StringIO(client.get(url).content.decode()))}
    records = [{"qid": topic, "nuggets": [{"importance": importance, "assignment": labels.get(name, "not_support")}
                                          for name, importance in BANKS[topic]]}
               for topic, labels in (("A.1", OFFICIAL_LABELS["r2", "A.1"]), ("A.2", {"m1": "support"}))]
    assert table["r2"]["nugget_vital"] == format_value(calculate_global_metrics(records)["vital_score"])
