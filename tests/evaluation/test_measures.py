"""Measures by ir_measures name beside the prime ones, and the relevance level: every measure equals pytrec_eval
called directly on the same de-duplicated run; names, levels and refusals; files, campaigns and the command."""
import pytest
import pytrec_eval
from hypothesis import given, settings
from hypothesis import strategies as st
from rest_framework.test import APIClient

from evaluation import services
from ir.measures import MeasureEvaluator, parse_measure, parse_measures
from ir.prime import MAP, P10, Evaluator, answer_lists, prime_of
from ir.problems import InputError
from pooling.models import Campaign
from tests.commands import command_output, rejected
from tests.evaluation.pytrec_reference import assert_agrees, first_occurrences, qrels_of, qrels_rows, run_rows
from tests.evaluation.test_campaign import judged_answers  # noqa: F401 (fixture)
from tests.pooling.run_files import ingest

# Each measure asked by its ir_measures name, and the pytrec_eval measure and relevance level it must equal (the
# evaluation's level is 2: a binary measure named without one counts grades 2 and 3).
PYTREC = {
    "nDCG@10": ("ndcg_cut_10", 1), "nDCG": ("ndcg", 1), "AP(rel=1)": ("map", 1), "AP": ("map", 2),
    "P@10": ("P_10", 2), "P(rel=1)@5": ("P_5", 1), "Bpref": ("bpref", 2), "bpref": ("bpref", 2),
    "RR": ("recip_rank", 2), "R@100": ("recall_100", 2), "ndcg_cut_5": ("ndcg_cut_5", 1), "infAP": ("infAP", 2),
    "NumRelRet": ("num_rel_ret", 1),  # ir_measures' NumRet(rel=1): a level of its own
    # The papers' names: MAP and MRR are AP and RR at the evaluation's level unless the name gives one.
    "MAP": ("map", 2), "mrr": ("recip_rank", 2), "MRR": ("recip_rank", 2), "MAP(rel=1)": ("map", 1),
    "MAP@5": ("map_cut_5", 2),
}


def names(measures):
    return [named.name for named in measures]


def test_a_binary_measure_named_without_a_level_takes_the_evaluations():
    assert str(parse_measure("P@10", relevance_level=2)) == "P(rel=2)@10"
    assert str(parse_measure("P@10", relevance_level=1)) == "P@10"  # ir_measures' own default is 1
    assert str(parse_measure("AP(rel=1)", relevance_level=2)) == "AP"
    assert str(parse_measure("nDCG@10", relevance_level=2)) == "nDCG@10"  # graded: no level
    assert str(parse_measure("bpref", relevance_level=2)) == "bpref (trec_eval -l2)"  # trec_eval's name, its -l
    assert str(parse_measure("Judged@10", relevance_level=2)) == "Judged@10"
    assert str(parse_measure("MAP", relevance_level=2)) == "AP(rel=2)"
    assert str(parse_measure("MRR", relevance_level=1)) == "RR"
    assert str(parse_measure("mrr(rel=3)", relevance_level=2)) == "RR(rel=3)"


def test_unknown_and_uncomputable_measures_are_refused_all_at_once():
    with pytest.raises(InputError) as info:
        parse_measures(["nDCG@10", "nope", "ERR@20", "P(rel=x@10"], relevance_level=2)
    messages = info.value.messages()
    assert len(messages) == 3
    assert any("'nope' is not a measure ir_measures knows" in m for m in messages)
    assert any("'ERR@20' is not computed here" in m for m in messages)  # gdeval's, a Perl script: not used here
    assert any("'P(rel=x@10' is not a measure" in m for m in messages)


@pytest.mark.parametrize("name", ["P@0", "R@0", "Success@0", "Judged@0", "P@99999999999999999999", "AP(rel=0)",
                                  "nDCG@True"])
def test_values_trec_eval_cannot_take_are_refused_before_it_sees_them(name):
    # P@0 would abort the process inside pytrec_eval; the others raise from it or from ir_measures.
    with pytest.raises(InputError, match="must be a whole number from 1 to 1,000,000"):
        parse_measures([name], relevance_level=2)
    with pytest.raises(InputError, match="gains must map grades to whole numbers"):
        parse_measures(['nDCG(gains={0: "x"})@5'], relevance_level=2)


def test_prime_names_and_repeats_are_taken_once():
    assert names(parse_measures(["ndcg_prime", "P@10", " P@10", "unjudged_10", "RR"], relevance_level=2)) == [
        "P@10", "RR"]


def test_judged_at_k_counts_the_judged_share_of_the_top_k():
    qrels = {"A.1": {"a": 2, "b": 0, "c": 1}, "A.2": {"z": 3}}
    lists = {"A.1": {"a": 9.0, "x": 8.0, "b": 7.0, "y": 6.0}, "A.2": {"q": 1.0}}
    found = MeasureEvaluator(qrels, parse_measures(["Judged@2", "Judged@10"], relevance_level=2)).per_topic(lists)
    # A.1: a judged, x not (top 2: 1/2); four retrieved, two judged (a run shorter than k: over what it has).
    assert found == {"A.1": {"Judged@2": 0.5, "Judged@10": 0.5}, "A.2": {"Judged@2": 0.0, "Judged@10": 0.0}}


@settings(max_examples=120, deadline=None)
@given(qrels_rows=qrels_rows, run_rows=run_rows, all_topics=st.booleans())
def test_every_measure_equals_pytrec_eval_on_the_same_deduplicated_run(qrels_rows, run_rows, all_topics):
    qrels = qrels_of(qrels_rows)
    # The run as trec_eval takes it, written out plainly: first occurrence, qrels topics only, unjudged kept.
    deduplicated = first_occurrences(run_rows, qrels, judged_only=False)
    extra = parse_measures(PYTREC, relevance_level=2)
    evaluator = Evaluator(qrels, extra=MeasureEvaluator(qrels, extra))
    lists = answer_lists(run_rows, qrels)
    assert lists == deduplicated
    result = evaluator.scores("run", prime_of(lists, qrels), all_topics=all_topics, lists=lists)
    counted = list(qrels) if all_topics else list(deduplicated)
    for name, (trec_name, level) in PYTREC.items():
        theirs = pytrec_eval.RelevanceEvaluator(qrels, {trec_name}, relevance_level=level).evaluate(deduplicated)
        assert_agrees(result, name, theirs, trec_name, deduplicated, counted)


@pytest.mark.parametrize("level", [1, 2, 3])
def test_the_relevance_level_binarises_map_and_p10_prime(level):
    qrels = {"A.1": {"a": 1, "b": 2, "c": 3, "d": 0}}
    rows = [("A.1", item, 10.0 - i) for i, item in enumerate("xabcd")]
    lists = answer_lists(rows, qrels)
    prime = prime_of(lists, qrels)
    theirs = pytrec_eval.RelevanceEvaluator(qrels, {"map", "P_10"}, relevance_level=level).evaluate(prime.run)
    result = Evaluator(qrels, relevance_level=level).scores("run", prime)
    assert result.means[MAP] == pytest.approx(theirs["A.1"]["map"])
    assert result.means[P10] == pytest.approx(theirs["A.1"]["P_10"])
    # The prime list is a, b, c, d. Level 1: a, b, c relevant (AP' 1); level 2: b and c, at ranks 2 and 3
    # (AP' (1/2 + 2/3) / 2); level 3: only c, at rank 3 (AP' 1/3).
    assert result.means[MAP] == pytest.approx({1: 1.0, 2: 7 / 12, 3: 1 / 3}[level])


def write(path, lines):
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return str(path)


def test_evaluate_writes_the_asked_measures_after_the_prime_ones(tmp_path, db):
    qrels = write(tmp_path / "q.txt", ["A.1\t0\ta\t1", "A.1\t0\tb\t2", "A.2\t0\tc\t2"])
    # x is unjudged and ranked first: it counts for P@2 and RR, not for the prime measures.
    run = write(tmp_path / "r.tsv", ["A.1\tx\t1\t3\tt", "A.1\ta\t2\t2\tt", "A.1\tb\t3\t1\tt"])
    out, _ = command_output("evaluate", "--qrels", qrels, "--measures", "P@2", "RR", "P(rel=1)@2", "--per-topic",
                            run)
    lines = out.splitlines()
    assert lines[4:7] == ["r.tsv\tP@2\tA.1\t0.0000", "r.tsv\tRR\tA.1\t0.3333", "r.tsv\tP(rel=1)@2\tA.1\t0.5000"]
    assert lines[-3:] == ["r.tsv\tP@2\tall\t0.0000", "r.tsv\tRR\tall\t0.3333", "r.tsv\tP(rel=1)@2\tall\t0.5000"]
    # At level 1, a (grade 1) is relevant: MAP' = mean of P@1, P@2 on the prime list a, b = 1; and P@2 is 1/2.
    every, _ = command_output("evaluate", "--qrels", qrels, "--relevance-level", "1", "--all-topics",
                              "--measures", "P@2", run)
    assert "r.tsv\tmap_prime\tall\t0.5000" in every.splitlines()  # A.2 counts 0
    assert "r.tsv\tP@2\tall\t0.2500" in every.splitlines()
    assert any("is not a measure ir_measures knows" in line
               for line in rejected("evaluate", "--qrels", qrels, "--measures", "nope", run))
    assert "the relevance level must be a whole number from 1 to 1,000,000, not 0" in rejected(
        "evaluate", "--qrels", qrels, "--relevance-level", "0", run)


def test_ar_and_p1_are_asked_for_in_the_one_list_of_measures_at_the_relevance_level(tmp_path, db):
    qrels = write(tmp_path / "q.txt", ["A.1\t0\ta\t1", "A.1\t0\tb\t2", "A.2\t0\tc\t3"])
    # First results: a (grade 1) for A.1, c (grade 3) for A.2.
    run = write(tmp_path / "r.tsv", ["A.1\ta\t1\t3\tt", "A.1\tb\t2\t2\tt", "A.2\tc\t1\t5\tt"])
    asked, _ = command_output("evaluate", "--qrels", qrels, "--measures", "ar", "p1", "RR", run)
    assert asked.splitlines()[4:] == ["r.tsv\tar\tall\t2.0000", "r.tsv\tp1\tall\t0.5000", "r.tsv\tRR\tall\t0.7500"]
    assert command_output("evaluate", "--qrels", qrels, "--ar-p1", "--measures", "RR", run)[0] == asked
    # At level 1, a is relevant: P@1 counts both topics.
    level_one, _ = command_output("evaluate", "--qrels", qrels, "--relevance-level", "1", "--ar-p1", run)
    assert level_one.splitlines()[4:] == ["r.tsv\tar\tall\t2.0000", "r.tsv\tp1\tall\t1.0000"]
    assert rejected("evaluate", "--qrels", qrels, "--answer-ids", qrels, "--measures", "RR") == [
        "Task 3 runs are scored by AR, P@1, LO and CS: --measures, --ar-p1, --relevance-level, --significance, --ci, "
        "--topic-info and --by are for Task 1 and 2 runs"]


def test_the_fast_reader_and_the_row_reader_give_the_same_prime_scores(arqmath_data):
    qrels = arqmath_data / "qrels" / "qrels.arqmath-2020-task1.txt"
    runs = [arqmath_data / "runs" / "ensemble-task1.tsv"]
    plain = services.evaluate_files(qrels_path=qrels, run_paths=runs)
    measured = services.evaluate_files(qrels_path=qrels, run_paths=runs, measures=["nDCG@10", "Judged@10"])
    for ours, theirs in zip(plain.runs, measured.runs, strict=True):
        assert {k: v for k, v in theirs.means.items() if k in ours.means} == ours.means
    assert measured.measures[-2:] == ["nDCG@10", "Judged@10"]


def test_campaign_measures_equal_those_of_its_run_files(judged_answers, tmp_path):  # noqa: F811
    # The runs' unjudged rows below the top 10 count for these measures: the campaign reads whole runs for them.
    ingest(judged_answers, tmp_path, "deep", [("A.1", str(100 + i), str(i + 1), str(50 - i), "deep")
                                              for i in range(15)] + [("A.1", "10", "16", "1", "deep")],
           allow_missing=True)  # posts 100-114 are not in the small collection: unjudged rows, kept explicitly
    qrels = tmp_path / "qrels.txt"
    with open(qrels, "w") as out:
        services.qrels_export(campaign=judged_answers, out=out)
    # With ir_measures names the runs are read whole; with AR and P@1 alone, only their judged rows and first results.
    for level, measures in ((1, ["AP(rel=1)", "RR", "ar", "nDCG", "p1", "Judged@20"]), (2, ["ar", "p1"])):
        judged_answers.relevance_level = level
        judged_answers.save()
        files = services.evaluate_files(qrels_path=qrels, run_paths=sorted(tmp_path.glob("*.tsv")),
                                        measures=measures, relevance_level=level)
        campaign = services.evaluate_campaign(campaign=judged_answers, measures=measures)
        assert [(r.name.removesuffix(".tsv"), r.per_topic, r.means) for r in files.runs] == [
            (r.name, r.per_topic, r.means) for r in campaign.runs]
        assert campaign.relevance_level == level
        assert campaign.measures[4:6] == ["ar", "p1"]
    deep = next(r for r in services.evaluate_campaign(campaign=judged_answers, measures=["RR"]).runs
                if r.name == "deep")
    assert deep.per_topic["A.1"]["RR"] == pytest.approx(1 / 16)


def test_edit_campaign_sets_the_relevance_level_within_the_grades(judged_answers):  # noqa: F811
    out, _ = command_output("edit_campaign", judged_answers.name, "--relevance-level", "1")
    assert "relevance level 1" in out
    judged_answers.refresh_from_db()
    assert judged_answers.relevance_level == 1
    assert any("at most 3" in line for line in rejected("edit_campaign", judged_answers.name,
                                                         "--relevance-level", "4"))


def test_a_campaign_is_created_with_a_relevance_level(organizer, db):
    out, _ = command_output("create_campaign", "binary", "--task", "answers", "--relevance-level", "1")
    assert "relevance level 1" in out
    api = APIClient()
    api.force_authenticate(organizer)
    created = api.post("/api/campaigns/", {"name": "strict", "task": "answers", "relevance_level": 3}, format="json")
    assert created.status_code == 201 and created.json()["relevance_level"] == 3
    refused = api.post("/api/campaigns/", {"name": "x", "task": "answers", "relevance_level": 4}, format="json")
    assert refused.status_code == 400 and "relevance_level" in refused.json()
    assert dict(Campaign.objects.values_list("name", "relevance_level")) == {"binary": 1, "strict": 3}


def test_the_settings_page_sets_the_relevance_level(judged_answers, client, organizer):  # noqa: F811
    client.force_login(organizer)
    url = f"/campaigns/{judged_answers.pk}/settings/"
    form = {"name": judged_answers.name, "primary_depth": "3", "alternate_depth": "3", "seed": "0",
            "max_depth": "1000", "collection": judged_answers.collection.name}
    assert client.post(url, {**form, "relevance_level": "1"}).status_code == 302
    judged_answers.refresh_from_db()
    assert judged_answers.relevance_level == 1
    refused = client.post(url, {**form, "relevance_level": "4"})
    assert refused.status_code == 200 and "less than or equal to 3" in refused.content.decode()
    assert client.post(url, form).status_code == 302  # left empty: kept
    judged_answers.refresh_from_db()
    assert judged_answers.relevance_level == 1
