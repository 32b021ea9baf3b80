"""What the property tests against pytrec_eval share: random qrels and runs, the run written out plainly as
trec_eval takes it, and the comparison of a result with pytrec_eval's per topic and mean."""
import pytest
from hypothesis import strategies as st

_ids = st.sampled_from([f"d{i}" for i in range(14)])
_topics = st.sampled_from(["A.1", "A.2", "A.10"])
qrels_rows = st.lists(st.tuples(_topics, _ids, st.integers(0, 3)), min_size=1, max_size=30)
run_rows = st.lists(st.tuples(_topics, _ids, st.sampled_from([0.5, 1.0, 1.5, 2.0, 3.25])), max_size=40)


def qrels_of(rows):
    qrels: dict[str, dict[str, int]] = {}
    for topic, doc, grade in rows:
        qrels.setdefault(topic, {})[doc] = grade
    return qrels


def first_occurrences(rows, qrels, *, judged_only):
    """The run written out plainly: the first occurrence of each item, qrels topics only, and with `judged_only`
    the judged items only (the prime filter)."""
    run: dict[str, dict[str, float]] = {}
    for topic, doc, score in rows:
        if topic in qrels and (not judged_only or doc in qrels[topic]):
            run.setdefault(topic, {}).setdefault(doc, score)
    return run


def assert_agrees(result, name, theirs, trec_name, run, counted):
    """`result`'s measure `name` equals pytrec_eval's `trec_name` on each topic of `run`, and its mean is theirs
    over the `counted` topics (0 where a topic has nothing)."""
    for topic in run:
        assert result.per_topic[topic][name] == pytest.approx(theirs[topic][trec_name]), (name, topic)
    if counted:
        expected = [theirs[t][trec_name] if t in theirs else 0.0 for t in counted]
        assert result.means[name] == pytest.approx(sum(expected) / len(expected)), name
