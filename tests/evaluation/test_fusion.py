"""ir/fusion.py: every method on hand-worked cases (ties as docs/evaluation.md says), and RRF, CombSUM and CombMNZ with
min-max normalization equal to ranx's `fuse` on runs without ties (ranx: a test-only requirement)."""
import random

import pytest

from ir import fusion
from ir.problems import InputError

# Two runs of one topic. A ranks x, y, z; B ranks w, x.
A = {"t": {"x": 10.0, "y": 5.0, "z": 0.0}}
B = {"t": {"x": 2.0, "w": 4.0}}
C = {"t": {"z": 9.0, "y": 8.0}}


def fused(runs, method, **options):
    how = fusion.settings(method=method, runs=[f"r{i}" for i in range(len(runs))], **options)
    return fusion.fuse(runs, how)["t"]


def order(pairs):
    return [doc for doc, _score in pairs]


def test_rrf_sums_reciprocal_ranks_and_breaks_a_tie_to_the_greater_id():
    # A: x 1, y 2, z 3; B2: y 1, x 2, w 3. x and y both get 1/61 + 1/62, z and w 1/63.
    b2 = {"t": {"y": 3.0, "x": 2.0, "w": 1.0}}
    result = fused([A, b2], "rrf")
    assert order(result) == ["y", "x", "z", "w"]
    assert result[0][1] == pytest.approx(1 / 61 + 1 / 62)
    assert result[2][1] == pytest.approx(1 / 63)


def test_rrf_ranks_a_runs_tied_scores_in_trec_eval_order_whatever_the_file_order():
    # a and b tie in the first run: trec_eval ranks b (the greater id) first, so b gets 1/61, a 1/62; c gets 1/61.
    first = fused([{"t": {"a": 1.0, "b": 1.0}}, {"t": {"c": 1.0}}], "rrf")
    again = fused([{"t": {"b": 1.0, "a": 1.0}}, {"t": {"c": 1.0}}], "rrf")
    assert first == again
    assert order(first) == ["c", "b", "a"]
    assert [score for _doc, score in first] == pytest.approx([1 / 61, 1 / 61, 1 / 62])


def test_rrf_takes_k_and_weights():
    result = fused([A, B], "rrf", k=0, weights=[1, 3])
    # x: 1/1 + 3/2; w: 3/1; y: 1/2; z: 1/3
    assert dict(result) == pytest.approx({"w": 3.0, "x": 2.5, "y": 0.5, "z": 1 / 3})
    assert order(result) == ["w", "x", "y", "z"]


def test_comb_methods_on_min_max_scores():
    # min-max: A x 1, y .5, z 0; B w 1, x 0.
    assert dict(fused([A, B], "combsum")) == pytest.approx({"x": 1.0, "w": 1.0, "y": 0.5, "z": 0.0})
    assert order(fused([A, B], "combsum")) == ["x", "w", "y", "z"]  # x and w tie: the greater id first
    assert dict(fused([A, B], "combmnz")) == pytest.approx({"x": 2.0, "w": 1.0, "y": 0.5, "z": 0.0})
    assert dict(fused([A, B], "combmax")) == pytest.approx({"x": 1.0, "w": 1.0, "y": 0.5, "z": 0.0})
    # Without normalization the raw scores add up.
    assert dict(fused([A, B], "combsum", norm="none")) == pytest.approx({"x": 12.0, "w": 4.0, "y": 5.0, "z": 0.0})


@pytest.mark.parametrize("norm, expected", [
    ("zmuv", [1.224744871391589, 0.0, -1.224744871391589]),  # mean 5, population deviation sqrt(50/3)
    ("sum", [10 / 15, 5 / 15, 0.0]),
    ("rank", [1.0, 2 / 3, 1 / 3]),
])
def test_normalizations_follow_ranx(norm, expected):
    pairs = fusion.normalized(fusion.ranked(A["t"]), norm)
    assert [score for score, _doc in pairs] == pytest.approx(expected)


def test_borda_gives_unranked_candidates_the_mean_of_the_points_left():
    # 4 candidates. A: x 4, y 3, z 2, w (4 - 3 + 1) / 2 = 1. B: w 4, x 3, y and z (4 - 2 + 1) / 2 = 1.5.
    result = fused([A, B], "borda")
    assert dict(result) == pytest.approx({"x": 7.0, "w": 5.0, "y": 4.5, "z": 3.5})
    assert order(result) == ["x", "w", "y", "z"]


def test_ibc_scores_the_median_rank_with_a_missing_run_at_the_longest_lists_length():
    # N = 3. Ranks from 0, a run without the document N. x [0, 1] -> 0.5; w [3, 0] -> 1.5; y [1, 3] -> 2;
    # z [2, 3] -> 2.5; score (N - median) / N.
    assert dict(fused([A, B], "ibc")) == pytest.approx({"x": 2.5 / 3, "w": 1.5 / 3, "y": 1 / 3, "z": 0.5 / 3})
    # Three runs: x [0, 1, 3] -> 1, y [1, 3, 1] -> 1, z [2, 3, 0] -> 2, w [3, 0, 3] -> 3; x and y tie: y first.
    result = fused([A, B, C], "ibc")
    assert dict(result) == pytest.approx({"y": 2 / 3, "x": 2 / 3, "z": 1 / 3, "w": 0.0})
    assert order(result) == ["y", "x", "z", "w"]


def test_wibc_takes_the_weighted_median():
    # Weights A 1, B 1, C 2 (total 4, half 2). x: (0,1) (1,1) (3,2): the cumulative weight reaches half exactly at 1,
    # so the median is (1 + 3) / 2 = 2. y: (1,1) (1,2) (3,1) -> 1. z: (0,2) (2,1) (3,1): half exactly at 0 -> 1.
    # w: (0,1) (3,3) -> 3.
    result = fused([A, B, C], "wibc", weights=[1, 1, 2])
    assert dict(result) == pytest.approx({"z": 2 / 3, "y": 2 / 3, "x": 1 / 3, "w": 0.0})
    assert order(result) == ["z", "y", "x", "w"]


def test_wibc_with_equal_weights_is_ibc():
    runs = _random_runs(5, topics=3, rows=30, pool=60, seed=4)
    names = [f"r{i}" for i in range(5)]
    assert (fusion.fuse(runs, fusion.settings(method="wibc", runs=names, weights=[0.5] * 5))
            == fusion.fuse(runs, fusion.settings(method="ibc", runs=names)))


def test_depth_keeps_each_topics_best_documents():
    assert order(fused([A, B], "rrf", depth=2)) == ["x", "w"]


def test_a_run_without_a_topic_adds_nothing_to_it():
    result = fusion.fuse([A, {"u": {"q": 1.0}}], fusion.settings(method="rrf", runs=["a", "b"]))
    assert order(result["t"]) == ["x", "y", "z"] and order(result["u"]) == ["q"]


def test_trec_lines_keep_the_scores_exact():
    result = fusion.fuse([A, B], fusion.settings(method="rrf", runs=["a", "b"]))
    lines = list(fusion.trec_lines(result, name="fused"))
    assert lines[0] == f"t\tQ0\tx\t1\t{1 / 61 + 1 / 62!r}\tfused\n"
    assert [float(line.split("\t")[4]) for line in lines] == [score for _doc, score in result["t"]]


@pytest.mark.parametrize("options, message", [
    (dict(method="rrf", runs=["a"]), "at least two runs"),
    (dict(method="rrf", runs=["a", "a"]), "given twice"),
    (dict(method="rrf", runs=["a", "b"], norm="min-max"), "reads ranks only"),
    (dict(method="combsum", runs=["a", "b"], k=10), "k is RRF's"),
    (dict(method="combsum", runs=["a", "b"], weights=[1]), "1 weights for 2 runs"),
    (dict(method="wibc", runs=["a", "b"]), "give --weights"),
    (dict(method="rrf", runs=["a", "b"], depth=0), "depth must be 1 or more"),
    (dict(method="rrf", runs=["a", "b"], k=-1), "0 or more"),
])
def test_bad_options_are_refused(options, message):
    with pytest.raises(InputError) as info:
        fusion.settings(**options)
    assert message in str(info.value)


# --- ranx, on runs without ties ------------------------------------------------------------------------------------


def _random_runs(count, *, topics, rows, pool, seed):
    rng = random.Random(seed)
    return [{f"q{t}": {f"d{doc}": rng.random() * 10 for doc in rng.sample(range(pool), rows)}
             for t in range(topics)} for _ in range(count)]


def _tie_free(scores: dict) -> bool:
    values = sorted(scores.values())
    return all(b - a > 1e-9 for a, b in zip(values, values[1:], strict=False))


@pytest.mark.parametrize("method, ranx_method, norm", [
    ("rrf", "rrf", None), ("combsum", "sum", "min-max"), ("combmnz", "mnz", "min-max"),
    ("combsum", "sum", "zmuv"),
])  # CombMAX of min-max scores ties every run's first document at 1: the hand-worked case above covers it
def test_fusion_equals_ranx_on_runs_without_ties(method, ranx_method, norm):
    ranx = pytest.importorskip("ranx")
    names = [f"r{i}" for i in range(3)]
    # Runs whose fused scores have no ties, so that one order is right: the first seed that gives such runs (each
    # run ranks 15 of the same 20 documents, so that few documents share their ranks).
    for seed in range(200):
        runs = _random_runs(3, topics=3, rows=15, pool=20, seed=seed)
        expected = ranx.fuse([ranx.Run(run, name=name) for run, name in zip(runs, names, strict=True)],
                             norm=norm, method=ranx_method).to_dict()
        if all(_tie_free(scores) for scores in expected.values()):
            break
    else:
        pytest.fail("no run set without ties")
    ours = fusion.fuse(runs, fusion.settings(method=method, runs=names,
                                             norm=norm if method in fusion.SCORE_METHODS else None))
    assert sorted(ours) == sorted(expected)
    for topic, scores in expected.items():
        want = sorted(scores.items(), key=lambda pair: pair[1], reverse=True)
        assert order(ours[topic]) == [doc for doc, _score in want]
        assert [score for _doc, score in ours[topic]] == pytest.approx([score for _doc, score in want], abs=1e-12)


def test_borda_scores_equal_ranx_and_ties_go_to_the_greater_id():
    ranx = pytest.importorskip("ranx")
    runs = _random_runs(3, topics=3, rows=15, pool=20, seed=1)
    names = ["r0", "r1", "r2"]
    expected = ranx.fuse([ranx.Run(run, name=name) for run, name in zip(runs, names, strict=True)],
                         norm=None, method="bordafuse").to_dict()
    ours = fusion.fuse(runs, fusion.settings(method="borda", runs=names))
    for topic, scores in expected.items():
        assert dict(ours[topic]) == pytest.approx(scores)  # Borda points tie often: the same documents, same points
        assert ours[topic] == sorted(ours[topic], key=lambda pair: (pair[1], pair[0]), reverse=True)
