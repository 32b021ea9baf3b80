"""Ingestion services and commands: real files in, rejected files change nothing, exit status 2."""

import pytest

from ir.problems import InputError
from pooling import services
from pooling.models import Campaign, Collection, Comment, Formula, Post, Run, RunEntry, Topic
from tests.commands import command_output as run_command
from tests.commands import rejected

pytestmark = pytest.mark.django_db


def counts() -> dict:
    return {m.__name__: m.objects.count() for m in (Collection, Post, Comment, Formula, Campaign, Topic, Run, RunEntry)}


@pytest.fixture
def task1(arqmath_data):
    campaign = services.campaign_create(name="arq1", task="answers", collection_name="mse")
    services.topics_ingest(campaign=campaign, path=arqmath_data / "topics" / "topics.arqmath-2020-task1-origin.xml")
    return campaign


# --- campaigns ---------------------------------------------------------------------------------

def test_campaign_takes_the_arqmath3_defaults_of_its_task():
    answers = services.campaign_create(name="t1", task="answers")
    formulas = services.campaign_create(name="t2", task="formulas")
    assert (answers.primary_depth, answers.alternate_depth) == (45, 20)
    assert (formulas.primary_depth, formulas.alternate_depth, formulas.instances, formulas.selection) == (
        25, 15, 5, "rr-vote")


def test_create_campaign_command_sets_every_option():
    out, _ = run_command("create_campaign", "c", "--task", "formulas", "--primary-depth", "30", "--alternate-depth",
                         "10", "--instances", "3", "--selection", "thread-spread", "--seed", "7", "--collection", "mse")
    campaign = Campaign.objects.get(name="c")
    settings = (campaign.primary_depth, campaign.alternate_depth, campaign.instances, campaign.selection, campaign.seed)
    assert settings == (30, 10, 3, "thread-spread", 7)
    assert campaign.collection.name == "mse"
    assert "created campaign 'c'" in out


def test_duplicate_campaign_name_exits_2():
    run_command("create_campaign", "c", "--task", "answers")
    assert rejected("create_campaign", "c", "--task", "answers") == ["a campaign named 'c' already exists"]


def test_campaign_with_zero_depth_is_refused():
    with pytest.raises(InputError, match="primary depth must be at least 1"):
        services.campaign_create(name="c", task="answers", primary_depth=0)


# --- topics ------------------------------------------------------------------------------------

@pytest.mark.parametrize("name, task, count, first", [
    ("topics.arqmath-2020-task1-origin.xml", "answers", 98, "A.1"),
    ("topics.arqmath-2022-task2-origin.xml", "formulas", 100, "B.301"),
])
def test_real_topic_files_load(arqmath_data, name, task, count, first):
    campaign = services.campaign_create(name="c", task=task)
    result = services.topics_ingest(campaign=campaign, path=arqmath_data / "topics" / name)
    assert result == services.TopicsIngestResult(created=count, updated=0, total=count)
    topic = campaign.topics.first()
    assert topic.topic_id == first
    if task == "formulas":
        assert topic.formula_id == "q_6" and topic.latex.startswith("\\|A\\|_2")


def test_topics_loaded_again_are_updated_not_doubled(task1, arqmath_data):
    path = arqmath_data / "topics" / "topics.arqmath-2020-task1-origin.xml"
    result = services.topics_ingest(campaign=task1, path=path)
    assert result == services.TopicsIngestResult(created=0, updated=0, total=98)
    assert task1.topics.count() == 98


def test_broken_topic_file_writes_nothing(tmp_path):
    campaign = services.campaign_create(name="c", task="answers")
    bad = tmp_path / "topics.xml"
    bad.write_text('<Topics>\n<Topic number="A.1"><Title>t</Title></Topic>\n<Topic><Title>u</Title></Topic>\n</Topics>')
    lines = rejected("ingest_topics", "--campaign", "c", str(bad))
    assert any("line 3" in line for line in lines)
    assert campaign.topics.count() == 0


# --- runs --------------------------------------------------------------------------------------

def test_real_run_is_stored_with_its_rows(task1, arqmath_data):
    out, _ = run_command("ingest_run", "--campaign", "arq1", str(arqmath_data / "runs" / "ensemble-task1.tsv"))
    run = Run.objects.get(campaign=task1)
    assert (run.name, run.format, run.alternate, run.tag) == ("ensemble-task1", "arqmath1", False, "Run_Ensemble_0")
    assert run.row_count == RunEntry.objects.filter(run=run).count() == 5000  # five whole topics of the real run
    first = RunEntry.objects.filter(run=run).order_by("topic__position", "rank").first()
    assert (first.topic.topic_id, first.item_id, first.rank, first.score) == ("A.1", "2414898", 1, 0.4115)
    assert len(run.checksum) == 64
    assert "rows for" in out


def test_alternate_and_name_options(task1, arqmath_data):
    run_command("ingest_run", "--campaign", "arq1", "--alternate", "--name", "psu-alt",
                str(arqmath_data / "runs" / "psu-task1-auto-both-A.tsv"))
    run = Run.objects.get(name="psu-alt")
    assert run.alternate and run.kind == "alternate" and run.format == "trec"


def test_rejected_run_leaves_the_database_as_it_was(task1, tmp_path):
    good = "".join(f"A.1\t{i}\t{i}\t{100 - i}\tr\n" for i in range(1, 60))
    bad = tmp_path / "bad.tsv"
    bad.write_text(good + "A.1\t1\t60\t1\tr\n" + "A.2\t7\tseven\t1\tr\n")
    before = counts()
    lines = rejected("ingest_run", "--campaign", "arq1", str(bad))
    assert lines == ["bad.tsv:line 60: '1' appears twice for topic A.1 (first on line 1)",
                     "bad.tsv:line 61: rank 'seven' is not a whole number >= 1"]
    assert counts() == before


def test_same_run_name_twice_is_refused(task1, tmp_path):
    path = tmp_path / "r.tsv"
    path.write_text("A.1\t5\t1\t1\tr\n")
    services.run_ingest(campaign=task1, path=path)
    with pytest.raises(InputError, match="already has a run named 'r'"):
        services.run_ingest(campaign=task1, path=path)
    assert Run.objects.count() == 1 and RunEntry.objects.count() == 1


def test_run_before_topics_is_refused(tmp_path):
    campaign = services.campaign_create(name="c", task="answers")
    path = tmp_path / "r.tsv"
    path.write_text("A.1\t5\t1\t1\tr\n")
    with pytest.raises(InputError, match="no topics yet"):
        services.run_ingest(campaign=campaign, path=path)


def test_run_warnings_are_kept_with_the_run(task1, tmp_path, arqmath_data):
    services.collection_ingest(collection_name="mse", paths=[arqmath_data / "posts" / "posts_sample.xml"])
    path = tmp_path / "w.tsv"
    path.write_text("A.1\t1\t1\t1\ta\nA.1\t999999\t2\t3\tb\n")
    run = services.run_ingest(campaign=task1, path=path)
    run.refresh_from_db()
    text = "\n".join(run.warnings)
    assert "does not cover 97 of the campaign's 98 topics" in text
    assert "several run tags" in text
    assert "ranks disagree with score order" in text
    assert "1 post ids are not in the collection 'mse' (for example 999999)" in text
    second = tmp_path / "w2.tsv"
    second.write_bytes(path.read_bytes())
    assert "the file is identical to run 'w'" in services.run_ingest(campaign=task1, path=second).warnings


def test_trec_formula_run_takes_post_ids_from_the_formula_index(arqmath_data, tmp_path):
    campaign = services.campaign_create(name="f", task="formulas", collection_name="mse")
    services.topics_ingest(campaign=campaign, path=arqmath_data / "topics" / "topics.arqmath-2022-task2-origin.xml")
    services.collection_ingest(collection_name="mse",
                               paths=[arqmath_data / "formulas" / "formula_index_v2_sample.tsv"])
    path = tmp_path / "f.tsv"
    path.write_text("B.301 Q0 14395887 1 2.0 t\nB.301 Q0 123 2 1.0 t\n")
    run = services.run_ingest(campaign=campaign, path=path)
    posts = dict(RunEntry.objects.filter(run=run).values_list("item_id", "post_id"))
    assert posts == {"14395887": "1597292", "123": ""}
    assert any("1 formula ids are not in the collection" in w for w in run.warnings)


# --- collection --------------------------------------------------------------------------------

def test_collection_files_load_together(arqmath_data, tmp_path):
    comments = tmp_path / "Comments.xml"
    comments.write_text('<?xml version="1.0"?>\n<comments>\n<row Id="9" PostId="1" Score="2" Text="nice" '
                        'UserId="4" CreationDate="2010-07-20T19:09:27.200"/>\n</comments>\n')
    out, _ = run_command("ingest_collection", "--collection", "mse", str(arqmath_data / "posts" / "posts_sample.xml"),
                         str(comments), str(arqmath_data / "formulas" / "formula_index_v2_sample.tsv"))
    assert Post.objects.count() == 7
    assert Comment.objects.get().created_at.year == 2010
    assert Formula.objects.count() == 1000
    question = Post.objects.get(post_id="1")
    assert question.kind == "question" and question.thread_id == "1"
    assert question.tags == "elementary-set-theory intuition infinity faq"
    assert "loaded" in out


def test_collection_with_one_bad_file_writes_none(arqmath_data, tmp_path):
    bad = tmp_path / "formulas.tsv"
    bad.write_text("id\tpost_id\tthread_id\ttype\tvisual_id\tformula\n1\t2\t3\tanswer\t4\tx\n2\t2\t3\tpicture\t5\ty\n")
    before = counts()
    lines = rejected("ingest_collection", "--collection", "mse", str(arqmath_data / "posts" / "posts_sample.xml"),
                     str(bad))
    assert len(lines) == 1 and lines[0].startswith("formulas.tsv:line 3:")
    assert counts() == before  # not even the collection named on the command line


def test_duplicate_post_id_is_reported_with_both_lines(tmp_path):
    posts = tmp_path / "Posts.xml"
    posts.write_text('<?xml version="1.0"?>\n<posts>\n<row Id="1" PostTypeId="1" Title="q" Body="b"/>\n'
                     '<row Id="2" PostTypeId="2" ParentId="1" Body="a"/>\n<row Id="1" PostTypeId="1" Body="c"/>\n'
                     '</posts>\n')
    with pytest.raises(InputError) as info:
        services.collection_ingest(collection_name="mse", paths=[posts])
    assert info.value.messages() == ["Posts.xml:line 5: post id '1' appears twice (first on line 3)"]
    assert Post.objects.count() == 0


def test_posts_already_in_the_collection_are_refused(arqmath_data):
    services.collection_ingest(collection_name="mse", paths=[arqmath_data / "posts" / "posts_sample.xml"])
    with pytest.raises(InputError, match="post id '1' is already in the collection"):
        services.collection_ingest(collection_name="mse", paths=[arqmath_data / "posts" / "posts_sample.xml"])
    assert Post.objects.count() == 7


def test_slt_file_fills_the_formulas_it_names(arqmath_data, tmp_path):
    slt = tmp_path / "slt.tsv"
    slt.write_text("id\tslt\n14395887\tV!x\n42\tV!y\n")
    result = services.collection_ingest(collection_name="mse",
                                        paths=[slt, arqmath_data / "formulas" / "formula_index_v2_sample.tsv"])
    assert Formula.objects.get(formula_id="14395887").slt == "V!x"
    assert any("1 formula ids are not in the collection" in w for w in result.warnings)


def test_unknown_file_kind_is_refused(tmp_path):
    odd = tmp_path / "notes.txt"
    odd.write_text("hello\n")
    lines = rejected("ingest_collection", "--collection", "mse", str(odd))
    assert lines[0].startswith("notes.txt:") and "cannot tell" in lines[0]


def test_every_problem_of_a_posts_file_is_reported_including_repeated_ids(tmp_path):
    posts = tmp_path / "Posts.xml"
    posts.write_text('<posts>\n<row Id="1" PostTypeId="1" Score="many"/>\n<row Id="2" PostTypeId="1"/>\n'
                     '<row Id="2" PostTypeId="1"/>\n</posts>\n')
    with pytest.raises(InputError) as info:
        services.collection_ingest(collection_name="mse", paths=[posts])
    assert [p.line for p in info.value.problems] == [2, 4]
    assert "appears twice (first on line 3)" in info.value.problems[1].message


def test_ids_of_another_collection_are_not_reported_as_repeated(arqmath_data):
    services.collection_ingest(collection_name="a", paths=[arqmath_data / "posts" / "posts_sample.xml"])
    services.collection_ingest(collection_name="b", paths=[arqmath_data / "posts" / "posts_sample.xml"])
    assert Post.objects.filter(collection__name="b").count() == 7
    assert Collection.objects.get(name="b").post_count == 7


@pytest.mark.parametrize("row, fragment", [
    ('<row Id="1" PostTypeId="1" Score="99999999999"/>', "Score 99999999999 is out of range"),
    (f'<row Id="{"9" * 70}" PostTypeId="1"/>', "post id '99999999999999999999...' is longer than 64 characters"),
])
def test_values_the_columns_cannot_hold_are_line_numbered_problems(tmp_path, row, fragment):
    posts = tmp_path / "Posts.xml"
    posts.write_text(f"<posts>\n{row}\n</posts>\n")
    with pytest.raises(InputError) as info:
        services.collection_ingest(collection_name="mse", paths=[posts])
    assert info.value.problems[0].line == 2 and fragment in info.value.problems[0].message
    assert not Collection.objects.exists()


def test_run_with_a_huge_rank_or_long_id_is_rejected_by_line(task1, tmp_path):
    path = tmp_path / "r.tsv"
    path.write_text(f"A.1\t5\t99999999999\t1\tr\nA.1\t{'7' * 65}\t2\t1\tr\nA.1\t8\t1_0\t1\tr\n")
    with pytest.raises(InputError) as info:
        services.run_ingest(campaign=task1, path=path)
    assert [(p.line, p.message[:12]) for p in info.value.problems] == [
        (1, "rank 9999999"), (2, "item id '777"), (3, "rank '1_0' i")]


def test_missing_path_exits_2_with_one_line():
    lines = rejected("ingest_collection", "--collection", "mse", "/no/such/Posts.xml")
    assert lines == ["/no/such/Posts.xml: No such file or directory"]


def test_arqmath_slt_representation_file_fills_the_slt_column(arqmath_data, tmp_path):
    slt = tmp_path / "slt_representation_v2.tsv"
    slt.write_text("id\tpost_id\tthread_id\ttype\tvisual_id\tformula\n14395887\t1597292\t1558734\tanswer\t16029\t"
                   "V!x\n")
    out, _ = run_command("ingest_collection", "--collection", "mse",
                         str(arqmath_data / "formulas" / "formula_index_v2_sample.tsv"), str(slt))
    assert Formula.objects.get(formula_id="14395887").slt == "V!x"
    assert Formula.objects.count() == 1000


def test_deleting_a_run_or_campaign_deletes_its_entries(task1, tmp_path):
    path = tmp_path / "r.tsv"
    path.write_text("A.1\t5\t1\t1\tr\nA.2\t6\t1\t1\tr\n")
    run = services.run_ingest(campaign=task1, path=path)
    assert RunEntry.objects.filter(run=run).count() == 2
    task1.topics.get(topic_id="A.2").delete()
    assert RunEntry.objects.filter(run=run).count() == 1
    task1.delete()
    assert not RunEntry.objects.exists() and not Run.objects.exists()


def test_rank_order_warning_names_the_first_topic(task1, tmp_path):
    path = tmp_path / "r.tsv"
    path.write_text("A.2\t1\t1\t1.0\tr\nA.2\t2\t2\t5.0\tr\nA.1\t3\t1\t2.0\tr\nA.1\t4\t2\t3.0\tr\n")
    run = services.run_ingest(campaign=task1, path=path)
    assert ("r.tsv:line 4: ranks disagree with score order in 2 topics (first: topic A.1, rank 2 scores higher "
            "than the rank before it)") in run.warnings


def test_rank_order_of_topics_out_of_order_in_the_file_is_checked_in_the_database(task1, tmp_path):
    path = tmp_path / "r.tsv"
    path.write_text("A.1\t1\t3\t9.0\tr\nA.1\t2\t1\t1.0\tr\nA.1\t3\t2\t5.0\tr\nA.2\t4\t1\t2.0\tr\n")
    run = services.run_ingest(campaign=task1, path=path)
    assert ("r.tsv: ranks disagree with score order in 1 topics (first: topic A.1, rank 2 scores higher than the "
            "rank before it)") in run.warnings


def test_rank_order_is_checked_in_rank_order_not_file_order(task1, tmp_path):
    path = tmp_path / "r.tsv"
    path.write_text("A.1\t12\t2\t1.0\tr\nA.1\t11\t1\t2.0\tr\n")
    assert not any("disagree" in w for w in services.run_ingest(campaign=task1, path=path).warnings)


def test_an_item_twice_for_a_topic_is_caught_with_its_lines(task1, tmp_path):
    path = tmp_path / "r.tsv"
    path.write_text("A.1\t5\t1\t2\tr\nA.2\t5\t1\t2\tr\nA.1\t5\t2\t1\tr\n")
    with pytest.raises(InputError) as info:
        services.run_ingest(campaign=task1, path=path)
    assert info.value.messages() == ["r.tsv:line 3: '5' appears twice for topic A.1 (first on line 1)"]
    assert not Run.objects.exists()


@pytest.mark.parametrize("order", [
    "A.1\t1\t1\t5.0\tr\nA.1\t2\t1\t1.0\tr\nA.1\t3\t2\t3.0\tr\n",
    "A.1\t2\t1\t1.0\tr\nA.1\t1\t1\t5.0\tr\nA.1\t3\t2\t3.0\tr\n",
    "A.1\t3\t2\t3.0\tr\nA.1\t2\t1\t1.0\tr\nA.1\t1\t1\t5.0\tr\n",  # out of rank order: checked in the database
])
def test_rank_order_with_equal_ranks_does_not_depend_on_file_order(task1, tmp_path, order):
    path = tmp_path / "r.tsv"
    path.write_text(order)
    warnings = services.run_ingest(campaign=task1, path=path).warnings
    assert any("ranks disagree with score order in 1 topics (first: topic A.1, rank 2" in w for w in warnings)


def test_ids_with_control_characters_are_stored_as_they_are(task1, tmp_path):
    path = tmp_path / "r.tsv"
    path.write_bytes(b"A.1\t1\r2\t1\t1\tr\nA.1\ta\\b\t2\t0.5\tr\n")
    run = services.run_ingest(campaign=task1, path=path)
    assert set(RunEntry.objects.filter(run=run).values_list("item_id", flat=True)) == {"1\r2", "a\\b"}


def test_problems_after_a_repeated_id_are_reported_too(tmp_path):
    rows = "".join(f"{i}\t2\t3\tanswer\t4\tx\n" for i in range(1, 12001))
    index = tmp_path / "formulas.tsv"
    index.write_text("id\tpost_id\tthread_id\ttype\tvisual_id\tformula\n" + rows.replace("3\t2\t3", "2\t2\t3", 1)
                     + "12001\t2\t3\tpicture\t4\tx\n")
    with pytest.raises(InputError) as info:
        services.collection_ingest(collection_name="mse", paths=[index])
    assert [p.line for p in info.value.problems] == [4, 12002]


def test_a_run_can_be_given_its_own_pool_depth(task1, tmp_path):
    path = tmp_path / "manual.tsv"
    path.write_text("A.1\t5\t1\t1\tr\n")
    run_command("ingest_run", "--campaign", "arq1", "--depth", "100", str(path))
    assert Run.objects.get(name="manual").depth == 100
    assert rejected("ingest_run", "--campaign", "arq1", "--depth", "0", "--name", "zero", str(path)) == [
        "a run's pool depth must be at least 1, not 0"]
