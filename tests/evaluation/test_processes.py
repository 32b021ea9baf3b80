"""The reader processes of evaluation: what happens when they cannot be started, break, or are not wanted."""
import errno
import multiprocessing
import os

import pytest
from django.db import connection

from evaluation import reading, services
from tests.commands import command_output
from tests.evaluation.test_campaign import judged_answers  # noqa: F401 (fixture)
from tests.evaluation.test_reading import QRELS_LINES
from tests.pooling.run_files import ingest


def write_runs(folder, count=3):
    qrels = folder / "qrels.txt"
    qrels.write_text(QRELS_LINES)
    runs = []
    for i in range(count):
        runs.append(folder / f"run{i}.tsv")
        runs[-1].write_text(f"A.1\t1\t1\t{i + 1}\trun\nA.1\t2\t2\t0.5\trun\nA.1\t3\t3\t0.25\trun\n")
    return str(qrels), [str(run) for run in runs]


def no_fork():
    raise BlockingIOError(errno.EAGAIN, "Resource temporarily unavailable")


def test_evaluate_scores_in_its_own_process_when_no_process_can_be_forked(tmp_path, monkeypatch, db):
    qrels, runs = write_runs(tmp_path)
    expected, _ = command_output("evaluate", "--qrels", qrels, *runs)
    monkeypatch.setattr(reading, "PARALLEL_BYTES", 0)  # processes for these small files too
    monkeypatch.setattr(os, "fork", no_fork)
    out, _ = command_output("evaluate", "--qrels", qrels, *runs)
    assert out == expected


def test_a_fork_failing_after_the_first_process_leaves_no_process_behind(monkeypatch):
    real_fork, forks = os.fork, []

    def fork_once():
        if forks:
            no_fork()
        forks.append(1)
        return real_fork()

    monkeypatch.setattr(os, "fork", fork_once)
    assert list(reading.in_processes(lambda item: item * 10, range(5), workers=3)) == [0, 10, 20, 30, 40]
    assert forks == [1]
    assert multiprocessing.active_children() == []


def test_a_campaign_on_sqlite_is_scored_without_processes(judged_answers, tmp_path, monkeypatch):  # noqa: F811
    if connection.vendor == "postgresql":
        pytest.skip("on SQLite only (no COPY: nothing to read whole)")
    ingest(judged_answers, tmp_path, "r2", [("A.1", "12", "1", "2", "t"), ("A.1", "10", "2", "1", "t")])
    one = services.evaluate_campaign(campaign=judged_answers, workers=1)
    monkeypatch.setattr(reading, "PARALLEL_BYTES", 0)
    assert services.campaign_workers(campaign=judged_answers) == 1

    def no_pool(*args, **kwargs):
        raise AssertionError("reader processes forked for runs that cannot be read whole")

    monkeypatch.setattr(reading, "ProcessPoolExecutor", no_pool)
    assert services.evaluate_campaign(campaign=judged_answers, workers=2).runs == one.runs
