"""The campaign path on PostgreSQL (a run's rows COPied out as run-file text for the whole-file reader): ids COPY
escapes or the reader declines, ranks out of order and ties, the connection after forked readers, a failing COPY."""
import pytest
from django.db import connection
from django.db.utils import ProgrammingError

from evaluation import selectors, services
from pooling.models import Run, RunEntry
from tests.evaluation.test_campaign import judged_answers  # noqa: F401 (fixture)
from tests.pooling.run_files import ingest

pytestmark = pytest.mark.postgresql


def scores(result):
    return [(s.name, s.per_topic, s.means, s.topics) for s in result.runs]


def test_odd_ids_and_ranks_out_of_order_score_as_row_by_row(judged_answers, tmp_path, monkeypatch):  # noqa: F811
    ingest(judged_answers, tmp_path, "vt", [("A.1", "a\x0bb", "1", "9", "t"), ("A.1", "10", "2", "8", "t")])
    ingest(judged_answers, tmp_path, "uni", [("A.1", "é", "1", "9", "t"), ("A.1", "12", "2", "8", "t")])
    # Ranks out of order, ties at the 10th place, the judged posts last.
    rows = [("A.1", str(100 + i), str(20 - i), "1.0" if i < 15 else "2.0", "t") for i in range(20)]
    rows += [("A.1", "10", "21", "1.0", "t"), ("A.1", "12", "22", "3.0", "t"), ("A.2", "20", "1", "-0", "t")]
    ingest(judged_answers, tmp_path, "disorder", rows)
    whole = services.evaluate_campaign(campaign=judged_answers, workers=1)
    assert scores(services.evaluate_campaign(campaign=judged_answers, workers=3)) == scores(whole)
    with monkeypatch.context() as patch:
        patch.setattr(selectors, "run_text", lambda run: None)
        by_rows = services.evaluate_campaign(campaign=judged_answers, workers=1)
    assert scores(whole) == scores(by_rows)


def test_the_connection_and_its_settings_survive_forked_readers(judged_answers, tmp_path):  # noqa: F811
    ingest(judged_answers, tmp_path, "extra", [("A.1", "10", "1", "1", "t")])
    before = Run.objects.count()
    for _ in range(3):
        services.evaluate_campaign(campaign=judged_answers, workers=4)
    assert connection.is_usable()
    assert Run.objects.count() == before
    with connection.cursor() as cursor:
        cursor.execute("SHOW extra_float_digits")
        assert cursor.fetchone()[0] == "1"


def test_a_failing_copy_raises_its_own_error(judged_answers, monkeypatch):  # noqa: F811
    # Inside a transaction (as here, or any caller in atomic()), nothing may run after the failed COPY and hide it.
    monkeypatch.setattr(RunEntry._meta, "db_table", "no_such_table")
    with pytest.raises(ProgrammingError, match="no_such_table"):
        selectors.run_text(run=judged_answers.runs.first())
    monkeypatch.undo()
    assert Run.objects.filter(campaign=judged_answers).exists()  # the transaction goes on
