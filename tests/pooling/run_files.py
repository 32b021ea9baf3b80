"""Small hand-made run files for pool tests: lines written to a file and ingested through the service."""
from pooling import services
from pooling.models import Run


def ingest(campaign, tmp_path, name, lines, *, alternate=False, depth=None) -> Run:
    path = tmp_path / f"{name}.tsv"
    path.write_text("".join("\t".join(line) + "\n" for line in lines))
    run = services.run_ingest(campaign=campaign, path=path, alternate=alternate)
    if depth is not None:
        services.run_depth_set(run=run, depth=depth)
    return run


def task1_lines(topic, posts, tag):
    return [(topic, post, str(rank), str(10.0 - rank), tag) for rank, post in enumerate(posts, start=1)]


def task2_lines(topic, formulas, tag):
    # formula n lives in post n*10 in the tests' hand-made formula indexes; the run says the same
    return [(topic, f, str(int(f) * 10), str(rank), str(10.0 - rank), tag) for rank, f in enumerate(formulas, 1)]
