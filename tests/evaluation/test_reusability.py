"""`reusability` over run files and a campaign, and its page: the hand-made pool of test_analysis_reusability as
files, teams from run tags or a team map, the full-qrels scores equal to `evaluate --all-topics`, refusals."""
import pytest
from django.urls import reverse

from evaluation import reusability, scoring, services
from ir.statistics import REUSABILITY_HEADER
from judging.services import judgments_import
from pooling import services as pooling_services
from tests.commands import command_output, rejected
from tests.evaluation.test_analysis_reusability import QRELS, RUNS, TEAMS
from tests.evaluation.test_campaign import judged_answers  # noqa: F401 (fixture)
from tests.factories import TopicFactory
from tests.pooling.run_files import ingest

MEASURES = ("ndcg_prime", "map_prime", "p10_prime")


@pytest.fixture
def files(tmp_path):
    (tmp_path / "qrels.txt").write_text("".join(f"{topic}\t0\t{item}\t{grade}\n"
                                                for topic, items in QRELS.items() for item, grade in items.items()))
    for run, per_topic in RUNS.items():
        (tmp_path / f"{run}.tsv").write_text("".join(
            f"{topic}\tQ0\t{item}\t{rank}\t{10 - rank}\t{TEAMS[run]}\n"
            for topic, ranked in per_topic.items() for rank, item in enumerate(ranked, 1)))
    return tmp_path


def run_paths(files):
    return [str(files / f"{run}.tsv") for run in RUNS]


def table(out):
    lines = out.splitlines(keepends=True)
    assert lines[0] == REUSABILITY_HEADER
    rows = [line.rstrip("\n").split("\t") for line in lines[1:] if not line.startswith("# ")]
    return {(r[0], r[2]): r for r in rows}, [line for line in lines if line.startswith("# ")]


def test_each_run_against_the_full_and_the_team_out_qrels(files, db):
    out, _ = command_output("reusability", "--qrels", str(files / "qrels.txt"), "--depth", "2", *run_paths(files))
    rows, summary = table(out)
    assert len(rows) == len(RUNS) * len(MEASURES)
    # Teams are the run tags; t1 alone found e and z (both relevant), t2 only c (grade 0), t3 only d (grade 1).
    assert {(run, rows[(run, "ndcg_prime")][1], rows[(run, "ndcg_prime")][5]) for run in
            ("t1-r1.tsv", "t1-r2.tsv", "t2-r1.tsv", "t3-r1.tsv")} == {
        ("t1-r1.tsv", "t1", "2"), ("t1-r2.tsv", "t1", "2"), ("t2-r1.tsv", "t2", "0"), ("t3-r1.tsv", "t3", "0")}
    # The full-qrels scores are evaluate's over every qrels topic.
    scores, _ = command_output("evaluate", "--all-topics", "--qrels", str(files / "qrels.txt"), *run_paths(files))
    for line in scores.splitlines():
        run, measure, _topic, value = line.split("\t")
        if measure in MEASURES:
            assert rows[(run, measure)][3] == value
    # t1-r2 ranked e and z first: without them it keeps only a (A.1) and nothing in A.2.
    assert float(rows[("t1-r2.tsv", "map_prime")][4]) < float(rows[("t1-r2.tsv", "map_prime")][3])
    assert [line.split(":")[0] for line in summary] == [f"# {m}" for m in MEASURES]
    assert all("kendall_tau=" in line and "tau_ap=" in line and "largest_rank_change=" in line for line in summary)


def test_a_team_map_and_the_relevance_level_change_what_is_unique(files, db):
    (files / "teams.tsv").write_text("t3-r1.tsv\tt2\n")  # t3's d is then t2's too; t2's run has d at rank 3 only
    out, _ = command_output("reusability", "--qrels", str(files / "qrels.txt"), "--depth", "2", "--relevance-level",
                            "1", "--team-map", str(files / "teams.tsv"), *run_paths(files))
    rows, _ = table(out)
    # At level 1, d (grade 1) is relevant, and only team t2 (t2-r1 and t3-r1 now) put c or d in a top 2.
    assert (rows[("t3-r1.tsv", "p10_prime")][1], rows[("t3-r1.tsv", "p10_prime")][5]) == ("t2", "1")
    assert rows[("t1-r1.tsv", "p10_prime")][5] == "2"


@pytest.mark.parametrize("args, message", [
    (["--qrels", "{qrels}", "{run}"], "--qrels needs --depth K"),
    (["--qrels", "{qrels}", "--depth", "0", "{run}"], "the depth must be at least 1, not 0"),
    (["--qrels", "{qrels}", "--depth", "2", "--relevance-level", "0", "{run}"], "the relevance level must be a whole"),
    (["--qrels", "{qrels}", "--depth", "2", "--team-map", "{bad_map}", "{run}"],
     "teams.tsv:line 2: expected a run and its team, tab-separated; found 1 field(s)"),
    (["--qrels", "{qrels}", "--depth", "2", "--team-map", "{bad_map}", "{run}"],
     "teams.tsv:line 4: run 'a' given twice (the first on line 1)"),
    (["--qrels", "{qrels}", "--depth", "2", "--team-map", "{empty_map}", "{run}"],
     "empty.tsv: the team map has no lines"),
    (["--campaign", "nope"], "no campaign named 'nope'"),
    (["--campaign", "x", "--team-map", "{bad_map}"], "--campaign takes the campaign's runs"),
    ([], "give either --qrels FILE --depth K"),
])
def test_wrong_arguments_are_refused(files, db, args, message):
    (files / "teams.tsv").write_text("a\tt1\nb\n\na\tt2\n")
    (files / "empty.tsv").write_text("\n")
    paths = {"qrels": str(files / "qrels.txt"), "run": run_paths(files)[0], "bad_map": str(files / "teams.tsv"),
             "empty_map": str(files / "empty.tsv")}
    lines = rejected("reusability", *[a.format(**paths) for a in args])
    assert any(message in line for line in lines), lines


def test_a_campaign_and_its_page(judged_answers, tmp_path, client, organizer):  # noqa: F811
    run = judged_answers.runs.get(name="r1")
    pooling_services.run_facts_set(run=run, team="team one")
    out, _ = command_output("reusability", "--campaign", judged_answers.name)
    rows, summary = table(out)
    runs = sorted(judged_answers.runs.values_list("name", flat=True))
    assert sorted({key[0] for key in rows}) == runs and rows[("r1", "map_prime")][1] == "team one"
    assert len(summary) == 3
    client.force_login(organizer)
    url = reverse("evaluation:reusability", args=[judged_answers.pk])
    page = client.get(url)
    assert page.status_code == 200 and 'id="rank-agreement"' in page.content.decode()
    assert "team one" in page.content.decode()
    download = client.get(url, {"format": "tsv", "depth": str(judged_answers.primary_depth)})
    assert download.content.decode() == out
    bad = client.get(url, {"depth": "deep"})
    assert bad.status_code == 400 and "the depth is a whole number, not &#x27;deep&#x27;" in bad.content.decode()


def test_the_pages_tsv_download_neutralises_formulas_in_run_and_team_names(judged_answers, client,  # noqa: F811
                                                                            organizer):
    run = judged_answers.runs.get()
    judged_answers.runs.filter(pk=run.pk).update(name='=HYPERLINK("http://evil.example","x")')
    run.refresh_from_db()
    pooling_services.run_facts_set(run=run, team="@SUM(1;2)")
    client.force_login(organizer)
    download = client.get(reverse("evaluation:reusability", args=[judged_answers.pk]), {"format": "tsv"})

    rows, _summary = table(download.content.decode())
    assert {tuple(row[:2]) for row in rows.values()} == {("'=HYPERLINK(\"http://evil.example\",\"x\")", "'@SUM(1;2)")}


# Several teams over three topics, judged_answers' qrels and more: ties broken by the greater id as Python compares
# strings ("9" before "100", "15" before "13", "a5" before "B5"), ranks against the scores, unjudged posts in the top
# K, SF and DK posts, a run that finds nothing judged in a topic, and A.3, whose only judged post gamma alone finds
# (left empty without gamma).
TEAM_RUNS = {
    "a1": ("alpha", [("A.1", "15", "1", "5"), ("A.1", "13", "2", "5"), ("A.1", "9", "3", "4"), ("A.1", "10", "4", "3"),
                     ("A.1", "500", "5", "2"), ("A.2", "21", "1", "9"), ("A.2", "20", "2", "8")]),
    "a2": ("alpha", [("A.1", "600", "1", "10"), ("A.1", "14", "2", "9"), ("A.1", "15", "3", "1"),
                     ("A.2", "700", "1", "5"), ("A.2", "20", "2", "4"), ("A.2", "22", "3", "10"),
                     ("A.2", "B5", "4", "10"), ("A.2", "a5", "5", "10")]),
    "b1": ("beta", [("A.1", "10", "1", "1.0"), ("A.1", "12", "2", "2.0"), ("A.1", "100", "3", "0.5"),
                    ("A.1", "13", "4", "0.1"), ("A.2", "20", "1", "3"), ("A.2", "99", "2", "2"),
                    ("A.2", "21", "3", "1"), ("A.3", "31", "1", "1")]),
    "g1": ("", [("A.1", "9", "1", "7"), ("A.1", "100", "2", "7"), ("A.1", "11", "3", "6"), ("A.2", "800", "1", "1"),
                ("A.2", "20", "2", "0.5"), ("A.3", "800", "1", "3"), ("A.3", "30", "2", "2")]),
}
MORE_GRADES = [("ada", "A.1", "13", "2"), ("ada", "A.1", "14", "1"), ("ada", "A.1", "15", "3"),
               ("ada", "A.1", "9", "2"), ("ada", "A.1", "100", "0"), ("bob", "A.2", "21", "3"),
               ("bob", "A.2", "22", "1"), ("bob", "A.2", "a5", "3"), ("ada", "A.3", "30", "2")]


def plain_reusability(qrels_path, run_paths, teams, depth, tmp_path):
    """The definition, computed plainly: per team, the pool of every other team's runs to `depth` (each run's rows in
    trec_eval's order: score descending, then the greater id), the team's judged posts outside it dropped from the
    qrels, its runs scored against what is left; means over every topic of the full qrels. -> (run, measure) ->
    (team, full, leave_team_out, unique_relevant)."""
    qrels = {}
    for line in qrels_path.read_text().splitlines():
        topic, _, item, grade = line.split("\t")
        qrels.setdefault(topic, {})[item] = int(grade)
    tops = {}
    for path in run_paths:
        by_topic = {}
        for topic, _q0, item, _rank, score, _tag in (line.split("\t") for line in path.read_text().splitlines()):
            by_topic.setdefault(topic, []).append((float(score), item))
        tops[path.name] = {(topic, item) for topic, rows in by_topic.items()
                           for _score, item in sorted(rows, reverse=True)[:depth]}
    full = {(row.run, row.measure): row.value
            for row in scoring.score(scoring.RunFiles(run_paths), scoring.QrelsFile(qrels_path), all_topics=True).rows
            if row.topic is None}
    found = {}
    for team in set(teams.values()):
        members = [path for path in run_paths if teams[path.name] == team]
        others = set().union(*(tops[path.name] for path in run_paths if teams[path.name] != team))
        unique = {(topic, item) for path in members for topic, item in tops[path.name]
                  if item in qrels.get(topic, {}) and (topic, item) not in others}
        kept = tmp_path / f"kept-{team}.txt"
        kept.write_text("".join(f"{topic}\t0\t{item}\t{grade}\n" for topic, items in qrels.items()
                                for item, grade in items.items() if (topic, item) not in unique))
        sums = {}
        for row in scoring.score(scoring.RunFiles(members), scoring.QrelsFile(kept), all_topics=True).rows:
            if row.topic is not None:
                sums[row.run, row.measure] = sums.get((row.run, row.measure), 0.0) + row.value
        relevant = sum(1 for topic, item in unique if qrels[topic][item] >= 2)
        for path in members:
            for measure in MEASURES:
                found[path.name, measure] = (team, full[path.name, measure],
                                             sums.get((path.name, measure), 0.0) / len(qrels), relevant)
    return found


@pytest.mark.parametrize("depth", [1, 2, 3, 5])
def test_a_campaigns_leave_team_out_is_the_plain_definitions(judged_answers, tmp_path, depth):  # noqa: F811
    TopicFactory(campaign=judged_answers, topic_id="A.3", position=2)
    teams = {"r1": "r1"}  # judged_answers' own run, its team its tag
    for name, (team, rows) in TEAM_RUNS.items():
        run = ingest(judged_answers, tmp_path, name, [(*row, name) for row in rows], allow_missing=True)
        if team:
            pooling_services.run_facts_set(run=run, team=team)
        teams[name] = team or name
    judgments_import(campaign=judged_answers, lines=["\t".join([*line, ""]) for line in MORE_GRADES], outside="add")
    qrels = tmp_path / "qrels.txt"
    with open(qrels, "w") as out:
        services.qrels_export(campaign=judged_answers, out=out)
    files = tmp_path / "files"
    files.mkdir()
    for run in judged_answers.runs.all():
        (files / run.name).write_text("".join(
            f"{topic}\tQ0\t{item}\t{rank}\t{score!r}\t{run.name}\n" for topic, item, rank, score in
            run.entries.order_by("topic__position", "rank").values_list("topic__topic_id", "item_id", "rank", "score")))
    expected = plain_reusability(qrels, sorted(files.iterdir()), teams, depth, tmp_path)

    result = reusability.reusability_campaign(campaign=judged_answers, depth=depth)
    found = {(row.run, row.measure): (row.team, row.full, row.leave_team_out, row.unique_relevant)
             for row in result.rows}
    assert found.keys() == expected.keys()
    for key, (team, full, lto, relevant) in expected.items():
        assert found[key] == (team, pytest.approx(full, abs=1e-12), pytest.approx(lto, abs=1e-12), relevant), key
    # Something is left out at every depth; at depth 2 gamma alone found 9 (A.1) and 30, A.3's only judged post: A.3
    # stays in its mean, empty.
    assert any(row.leave_team_out != row.full for row in result.rows)
    if depth == 2:
        assert found[("g1", "ndcg_prime")][3] == 2 and found[("g1", "ndcg_prime")][2] > 0
