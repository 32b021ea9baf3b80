"""Runs read and scored in forked processes, one per core, when there is enough to read to pay for them. Only the
`evaluate` command asks for them (`workers_for_files`, `workers_for`): forking a web or Celery worker is not safe, so
every service reads in its caller's process unless given more workers. Pure Python: no Django."""
from __future__ import annotations

import multiprocessing
import os
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import TypeVar

T = TypeVar("T")
R = TypeVar("R")

# Below this much to read, a process pool costs more than it saves (starting a process, sending results back).
PARALLEL_BYTES = 16 << 20
# The whole-file reader's peak memory, as a multiple of the size of the run it reads (measured: 4.5).
PEAK_PER_BYTE = 5
_worker_fn: Callable | None = None


def in_processes(fn: Callable[[T], R], items: Iterable[T], *, workers: int) -> Iterator[R | None]:
    """fn(item) for each item, in order, each as soon as it is done. With more than one worker, in forked
    processes: `fn` and everything it refers to (the qrels, the evaluators) are inherited, not pickled; only the
    items and the results cross, and items are taken from `items` only as workers get free (at most two a
    worker waiting), so a generator of large items is not held whole. A pool that breaks (a worker killed) gives
    None for what it did not finish. Where no process can be started (fork fails: a process limit, no memory),
    the items are done in this process, as with one worker."""
    if workers <= 1:
        for item in items:
            yield fn(item)
        return
    try:
        pool = ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("fork"),
                                   initializer=_start_worker, initargs=(fn,))
    except OSError:
        yield from in_processes(fn, items, workers=1)
        return
    # Each entry: a future; None where the pool was broken when the item came; (item,) to do here.
    pending: deque = deque()
    source = iter(items)
    broken = in_here = False
    try:
        while True:
            while len(pending) < 2 * workers and (item := next(source, _END)) is not _END:
                if broken or in_here:
                    pending.append(None if broken else (item,))
                    continue
                try:
                    pending.append(pool.submit(_call_in_worker, item))
                except BrokenProcessPool:
                    broken = True
                    pending.append(None)
                except OSError:  # the processes are forked on the first submit
                    in_here = True
                    pending.append((item,))
            if not pending:
                break
            entry = pending.popleft()
            if entry is None or isinstance(entry, tuple):
                yield None if entry is None else fn(entry[0])
                continue
            try:
                yield entry.result()
            except BrokenProcessPool:
                broken = True
                yield None
    finally:
        _shut_down(pool)


def _shut_down(pool: ProcessPoolExecutor) -> None:
    """The pool shut down, and its processes with it: also those forked before a fork failed, which the pool
    never handed to its manager thread (they would wait for work for ever, and this process for them at exit)."""
    started = list((getattr(pool, "_processes", None) or {}).values())
    pool.shutdown(wait=True, cancel_futures=True)
    for process in started:
        if process.is_alive():
            process.terminate()
        process.join()


_END = object()


def workers_for_files(paths: Sequence[str | os.PathLike]) -> int:
    """Processes for run files: one per core for several files with enough to read, where processes can be forked;
    else 1."""
    try:
        sizes = [os.path.getsize(path) for path in paths]
    except OSError:
        return 1  # read_run reports it, in order
    return workers_for(len(paths), sum(sizes), largest=max(sizes, default=0))


def workers_for(count: int, size: int, *, largest: int = 0) -> int:
    """Processes for `count` runs of `size` bytes (or rows x 32) in all, the largest of `largest`: one per core when
    that pays, but no more than the memory available holds, each reading a run as large as the largest."""
    if count < 2 or size < PARALLEL_BYTES or "fork" not in multiprocessing.get_all_start_methods():
        return 1
    workers = min(count, _cores())
    if largest:
        workers = min(workers, max(1, _available_memory() // (PEAK_PER_BYTE * largest)))
    return workers


def _cores() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def _available_memory() -> int:
    """Bytes of memory available to new processes (Linux's MemAvailable; else the free pages; else no limit)."""
    try:
        with open("/proc/meminfo") as meminfo:
            for line in meminfo:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, AttributeError):
        return 2**63


def _start_worker(fn: Callable) -> None:
    global _worker_fn
    _worker_fn = fn


def _call_in_worker(item):
    assert _worker_fn is not None
    return _worker_fn(item)
