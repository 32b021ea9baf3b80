"""Small hand-made run files for pool tests: lines written to a file and ingested through the service."""
from pooling import services
from pooling.models import Campaign, Run
from tests.factories import CampaignFactory, TopicFactory


def ingest(campaign, tmp_path, name, lines, *, alternate=False, depth=None, allow_missing=False) -> Run:
    path = tmp_path / f"{name}.tsv"
    path.write_text("".join("\t".join(line) + "\n" for line in lines))
    run = services.run_ingest(campaign=campaign, path=path, alternate=alternate, allow_missing=allow_missing)
    if depth is not None:
        services.run_depth_set(run=run, depth=depth)
    return run


def task3_file(tmp_path, name, answers: dict[str, str], *, run_id=None, rank="1", score="1.5"):
    """An ARQMath-3 Task 3 run file, one answer per topic, written as the organizers' csv.writer writes one (an answer
    with a tab, a line break or a quote is quoted, a quote doubled)."""
    def quoted(text):
        return '"' + text.replace('"', '""') + '"' if any(c in text for c in '\n\t"') else text
    path = tmp_path / f"{name}.tsv"
    path.write_text("".join(f"{topic}\t{rank}\t{score}\t{run_id or name}\tsources\t{quoted(text)}\n"
                            for topic, text in answers.items()), encoding="utf-8")
    return path


def task1_lines(topic, posts, tag):
    return [(topic, post, str(rank), str(10.0 - rank), tag) for rank, post in enumerate(posts, start=1)]


def task2_lines(topic, formulas, tag):
    # formula n lives in post n*10 in the tests' hand-made formula indexes; the run says the same
    return [(topic, f, str(int(f) * 10), str(rank), str(10.0 - rank), tag) for rank, f in enumerate(formulas, 1)]


def answers_campaign(tmp_path) -> Campaign:
    """Primary depth 3, alternate depth 2; run r3 is primary but pooled to depth 1 only.

    A.1 pool: 10 11 12 (r1), 12 14 (r2), 15 (r3) -> 5 items. A.2 pool: 20 21 22 (r1), 24 20 (r2), 20 (r3) -> 4.
    """
    campaign = CampaignFactory(name="answers", task=Campaign.Task.ANSWERS, primary_depth=3, alternate_depth=2)
    TopicFactory(campaign=campaign, topic_id="A.1", position=0)
    TopicFactory(campaign=campaign, topic_id="A.2", position=1)
    ingest(campaign, tmp_path, "r1", task1_lines("A.1", ["10", "11", "12", "13"], "r1")
           + task1_lines("A.2", ["20", "21", "22", "23"], "r1"))
    ingest(campaign, tmp_path, "r2", task1_lines("A.1", ["12", "14", "10"], "r2")
           + task1_lines("A.2", ["24", "20", "25"], "r2"), alternate=True)
    ingest(campaign, tmp_path, "r3", task1_lines("A.1", ["15", "10"], "r3")
           + task1_lines("A.2", ["20", "26"], "r3"), depth=1)
    return campaign
