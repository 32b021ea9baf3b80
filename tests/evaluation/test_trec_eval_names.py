"""A measure named by its trec_eval name gives trec_eval's value, per topic and in `all`, at any relevance level
(trec_eval's -l) and with --all-topics (its -c): `evaluate` against pytrec_eval run with those options on trec_eval's
own test files (tests/data/trec_eval, cut), binary and graded."""
import math
from pathlib import Path

import pytest
import pytrec_eval

from ir.measures import parse_measures
from ir.problems import InputError
from tests.commands import command_output, rejected

DATA = Path(__file__).parent.parent / "data" / "trec_eval"
RUN = DATA / "results.test"
# Every trec_eval measure pytrec_eval computes, by name: those with cutoffs or fractions at trec_eval's default
# parameters and at others (trec_eval's own test of measure parameters uses P_7, iprec_at_recall_0.25, ...).
DEFAULTS = {"P": "5 10 15 20 30 100 200 500 1000", "recall": "5 10 15 20 30 100 200 500 1000",
            "ndcg_cut": "5 10 15 20 30 100 200 500 1000", "map_cut": "5 10 15 20 30 100 200 500 1000",
            "relative_P": "5 10 15 20 30 100 200 500 1000", "success": "1 5 10",
            "iprec_at_recall": "0.00 0.10 0.20 0.30 0.40 0.50 0.60 0.70 0.80 0.90 1.00",
            "Rprec_mult": "0.20 0.40 0.60 0.80 1.00 1.20 1.40 1.60 1.80 2.00"}
OTHERS = ["P_7", "P_3", "recall_2000", "ndcg_cut_23", "map_cut_7", "relative_P_3", "success_2", "success_20",
          "iprec_at_recall_0.25", "iprec_at_recall_0.75", "Rprec_mult_0.35", "Rprec_mult_5.00"]
PLAIN = ["num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref", "recip_rank", "infAP",
         "gm_bpref", "utility", "11pt_avg", "binG", "G", "ndcg", "ndcg_rel", "Rndcg", "set_P", "set_relative_P",
         "set_recall", "set_map", "set_F", "num_nonrel_judged_ret"]
NAMES = PLAIN + [f"{base}_{value}" for base, values in DEFAULTS.items() for value in values.split()] + OTHERS


def test_the_names_tested_are_every_measure_pytrec_eval_computes():
    tested = set(PLAIN) | set(DEFAULTS)
    assert tested == set(pytrec_eval.supported_measures) - {"runid", "relstring"}  # strings, not values
    assert len(parse_measures(NAMES, relevance_level=2)) == len(NAMES)


def trec_eval(qrels_path, run_path, level, complete):
    """What `trec_eval -q -l LEVEL [-c] -m NAME...` gives through pytrec_eval: per topic, and `all` by trec_eval's
    rule (sums for counts, geometric means for gm_)."""
    with open(qrels_path) as qrels_file, open(run_path) as run_file:
        qrels, run = pytrec_eval.parse_qrel(qrels_file), pytrec_eval.parse_run(run_file)
    if complete:  # -c: a qrels topic the run lacks is evaluated as an empty ranking
        run = {topic: run.get(topic, {}) for topic in qrels}
    per_topic = pytrec_eval.RelevanceEvaluator(qrels, set(NAMES), relevance_level=level).evaluate(run)
    means = {name: pytrec_eval.compute_aggregated_measure(name, [values[name] for values in per_topic.values()])
             for name in NAMES}
    return per_topic, means


def shown(value):
    return "n/a" if math.isnan(value) else f"{value:.4f}"


@pytest.mark.parametrize("qrels", ["qrels.test", "qrels.rel_level"])
@pytest.mark.parametrize("level", [1, 2])
@pytest.mark.parametrize("complete", [False, True])
def test_every_trec_eval_name_gives_trec_evals_value_per_topic_and_in_all(qrels, level, complete, tmp_path, db):
    run = RUN
    if complete:  # without topic 303, which -c evaluates as an empty ranking and the default leaves out
        run = tmp_path / "results.test"
        run.write_text("".join(line for line in RUN.read_text().splitlines(True) if not line.startswith("303")))
    options = ["--all-topics"] if complete else []
    out, _ = command_output("evaluate", "--qrels", str(DATA / qrels), "--relevance-level", str(level), *options,
                            "--per-topic", "--measures", *NAMES, str(run))
    found = {(measure, topic): value for _run, measure, topic, value in (line.split("\t") for line in
                                                                          out.splitlines())}
    per_topic, means = trec_eval(DATA / qrels, run, level, complete)
    assert sorted(per_topic) == ["301", "302", "303"]
    expected = {(name, topic): shown(values[name]) for topic, values in per_topic.items() for name in NAMES}
    expected.update({(name, "all"): shown(means[name]) for name in NAMES})
    assert {key: found.get(key) for key in expected} == expected
    # trec_eval prints the counts' sums in `all`: every line of the run is retrieved.
    assert found["num_ret", "all"] == f"{len(run.read_text().splitlines()):.4f}"
    assert found["num_q", "all"] == f"{len(per_topic):.4f}"


@pytest.mark.parametrize("level", [1, 2])
def test_num_ret_counts_every_retrieved_item_and_num_rel_the_relevant_at_the_level(level, db):
    grades = [line.split() for line in (DATA / "qrels.rel_level").read_text().splitlines()]
    retrieved = {line.split()[2] for line in RUN.read_text().splitlines() if line.startswith("301")}
    relevant = {doc for topic, _, doc, grade in grades if topic == "301" and int(grade) >= level}
    out, _ = command_output("evaluate", "--qrels", str(DATA / "qrels.rel_level"), "--relevance-level", str(level),
                            "--per-topic", "--measures", "num_ret", "num_rel", "num_rel_ret", str(RUN))
    rows = {tuple(line.split("\t")[1:3]): line.split("\t")[3] for line in out.splitlines()}
    assert (rows["num_ret", "301"], rows["num_rel", "301"], rows["num_rel_ret", "301"]) == (
        f"{len(retrieved)}.0000", f"{len(relevant)}.0000", f"{len(relevant & retrieved)}.0000")
    assert len(retrieved) == 99 and len(relevant & retrieved) < len(retrieved)


@pytest.mark.parametrize("name, message", [
    ("P", "'P' gives P_10, P_100"), ("P_0", "P's cutoff must be a whole number from 1 to 1,000,000"),
    ("ndcg_cut_0", "cutoff must be"), ("iprec_at_recall_0.1", "takes a number with two decimals"),
    ("runid", "trec_eval's text, not a value"), ("utility_1", "utility is taken here without parameters"),
    ("P_5.5", "cutoff must be")])
def test_trec_eval_names_that_give_no_single_value_are_refused(name, message):
    with pytest.raises(InputError, match=message):
        parse_measures([name], relevance_level=2)


def test_evaluate_refuses_a_trec_eval_name_of_several_values_and_writes_nothing(db):
    assert rejected("evaluate", "--qrels", str(DATA / "qrels.test"), "--measures", "P", "map", "P_0", str(RUN)) == [
        "'P' gives P_10, P_100, P_1000, P_15, P_20, P_200, P_30, P_5, P_500 in trec_eval: name one of its values",
        "'P_0': P's cutoff must be a whole number from 1 to 1,000,000"]
