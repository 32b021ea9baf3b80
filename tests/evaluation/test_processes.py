"""The reader processes of evaluation: what happens when they cannot be started, break, or are not wanted."""
import errno
import multiprocessing
import os

import pytest

from evaluation import processes, reading, selectors, services
from evaluation.prime import score_lines
from tests.commands import command_output
from tests.evaluation.test_campaign import judged_answers  # noqa: F401 (fixture)
from tests.evaluation.test_reading import QRELS_LINES, outcome
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
    monkeypatch.setattr(processes, "PARALLEL_BYTES", 0)  # processes for these small files too
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
    assert list(processes.in_processes(lambda item: item * 10, range(5), workers=3)) == [0, 10, 20, 30, 40]
    assert forks == [1]
    assert multiprocessing.active_children() == []


def test_a_campaign_without_copy_is_scored_without_processes(judged_answers, tmp_path, monkeypatch):  # noqa: F811
    # A database without COPY (SQLite, the demo's), here or as PostgreSQL told so: nothing to read whole.
    monkeypatch.setattr(selectors, "run_text_available", lambda: False)
    ingest(judged_answers, tmp_path, "r2", [("A.1", "12", "1", "2", "t"), ("A.1", "10", "2", "1", "t")])
    one = services.evaluate_campaign(campaign=judged_answers, workers=1)
    monkeypatch.setattr(processes, "PARALLEL_BYTES", 0)
    assert services.campaign_workers(campaign=judged_answers) == 1

    def no_pool(*args, **kwargs):
        raise AssertionError("reader processes forked for runs that cannot be read whole")

    monkeypatch.setattr(processes, "ProcessPoolExecutor", no_pool)
    assert services.evaluate_campaign(campaign=judged_answers, workers=2).runs == one.runs


def test_a_killed_worker_still_gives_every_runs_scores(tmp_path, monkeypatch):
    qrels, runs = write_runs(tmp_path, count=4)
    one = outcome(qrels, runs, workers=1)
    real = reading.read_prime_answers

    def dies_on_run2(path, judged):
        if str(path).endswith("run2.tsv"):
            os._exit(9)  # as the OOM killer would
        return real(path, judged)

    monkeypatch.setattr(reading, "read_prime_answers", dies_on_run2)
    assert outcome(qrels, runs, workers=2) == one


def test_a_broken_pool_gives_none_for_what_it_did_not_finish():
    def fn(item):
        if item == 2:
            os._exit(9)
        return item * 10

    results = list(processes.in_processes(fn, range(6), workers=2))
    assert len(results) == 6 and results[2] is None
    assert all(result in (None, i * 10) for i, result in enumerate(results))


def test_an_error_in_a_worker_is_raised_as_in_one_process(tmp_path, monkeypatch):
    qrels, runs = write_runs(tmp_path, count=4)

    def bug(path, judged):
        raise ValueError("bug in the reader")

    monkeypatch.setattr(reading, "read_prime_answers", bug)
    for workers in (1, 2):
        with pytest.raises(ValueError, match="bug in the reader"):
            outcome(qrels, runs, workers=workers)


class CountedPool(processes.ProcessPoolExecutor):
    made = 0

    def __init__(self, *args, **kwargs):
        CountedPool.made += 1
        super().__init__(*args, **kwargs)


def test_the_service_forks_only_when_asked_and_the_command_asks(tmp_path, monkeypatch, db):
    # Large enough to pay for processes, on a machine of four cores: the service (what a web request or a task
    # would call) still reads in its own process; the command passes the number of processes.
    qrels, runs = write_runs(tmp_path)
    monkeypatch.setattr(processes, "PARALLEL_BYTES", 0)
    monkeypatch.setattr(processes, "_cores", lambda: 4)
    monkeypatch.setattr(processes, "ProcessPoolExecutor", CountedPool)
    CountedPool.made = 0
    one = services.evaluate_files(qrels_path=qrels, run_paths=runs)
    assert CountedPool.made == 0
    assert services.files_workers(run_paths=runs) == 3
    out, _ = command_output("evaluate", "--qrels", qrels, *runs)
    assert CountedPool.made == 1
    assert out == "".join(score_lines(one.runs))


def test_fewer_processes_where_memory_holds_fewer_readers(tmp_path, monkeypatch):
    _qrels, runs = write_runs(tmp_path, count=4)
    largest = max(os.path.getsize(run) for run in runs)
    monkeypatch.setattr(processes, "PARALLEL_BYTES", 0)
    monkeypatch.setattr(processes, "_cores", lambda: 4)
    monkeypatch.setattr(processes, "_available_memory", lambda: 1000 * largest)
    assert services.files_workers(run_paths=runs) == 4
    monkeypatch.setattr(processes, "_available_memory", lambda: 2 * processes.PEAK_PER_BYTE * largest)
    assert services.files_workers(run_paths=runs) == 2
    monkeypatch.setattr(processes, "_available_memory", lambda: 0)
    assert services.files_workers(run_paths=runs) == 1
