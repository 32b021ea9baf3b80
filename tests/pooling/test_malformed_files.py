"""Malformed files (issue 14, point 5): each is refused with its line (exit status 2) and writes nothing."""
import io
import tracemalloc

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import DatabaseError, transaction

from ir.formats.qrels import read_qrels
from ir.formats.textio import FIELD_MAX
from ir.problems import Problems
from judging.models import Assignment, Judgment
from pooling.bulk import bulk_insert
from pooling.models import Collection, Comment, Formula, Post, Run, RunEntry, Topic
from tests.commands import command_output, rejected

pytestmark = pytest.mark.django_db

V2_HEADER = "id\tpost_id\tthread_id\ttype\tvisual_id\tformula\n"
QUESTION = '{"id": "1", "kind": "question", "title": "fine"}\n'
HUGE = "1" * 5000


def nothing_written() -> bool:
    return not (Collection.objects.exists() or Post.objects.exists() or Comment.objects.exists()
                or Formula.objects.exists())


def refused_collection(tmp_path, name: str, data: bytes) -> list[str]:
    path = tmp_path / name
    path.write_bytes(data)
    lines = rejected("ingest_collection", "--collection", "c", str(path))
    assert nothing_written()
    return lines


# --- JSON: nesting, integers, surrogates, NUL ----------------------------------------------------------------------

def test_a_deeply_nested_jsonl_value_is_refused_with_its_line(tmp_path):
    nested = '{"id": "2", "kind": "question", "title": ' + "[" * 100_000 + "]" * 100_000 + "}\n"
    assert refused_collection(tmp_path, "posts.jsonl", (QUESTION + nested).encode()) == [
        "posts.jsonl:line 2: invalid JSON: nested too deeply"]


@pytest.mark.parametrize("post", [
    f'{{"id": "2", "kind": "question", "score": {HUGE}}}',
    f'{{"id": {HUGE}, "kind": "question"}}',
    f'{{"id": "2", "kind": "question", "tags": [{HUGE}]}}',
])
def test_a_5000_digit_integer_in_jsonl_is_refused_with_its_line(tmp_path, post):
    lines = refused_collection(tmp_path, "posts.jsonl", (QUESTION + post + "\n").encode())
    assert lines == ["posts.jsonl:line 2: invalid JSON: an integer of 5,000 digits (at most 64)"]


@pytest.mark.parametrize("name, data, line", [
    ("Posts.xml", f'<posts>\n<row Id="1" PostTypeId="1"/>\n<row Id="2" PostTypeId="1" Score="{HUGE}"/>\n</posts>\n',
     "Posts.xml:line 3: Score '1111111111111111111111111111111111111111...' is out of range"),
    ("Comments.xml", f'<comments>\n<row Id="1" PostId="1" Score="-{HUGE}"/>\n</comments>\n',
     "Comments.xml:line 2: Score '-111111111111111111111111111111111111111...' is out of range"),
    ("Posts.xml", f'<posts>\n<row Id="1" PostTypeId="1"/>\n<row Id="2" PostTypeId="{HUGE}"/>\n</posts>\n',
     "Posts.xml:line 3: PostTypeId '1111111111111111111111111111111111111111...' is out of range"),
    ("posts.jsonl", f'{QUESTION}{{"id": "2", "kind": "question", "score": "{HUGE}"}}\n',
     'posts.jsonl:line 2: score "1111111111111111111111111111111111111111..." is out of range'),
])
def test_a_5000_digit_integer_in_a_collection_file_is_out_of_range(tmp_path, name, data, line):
    assert refused_collection(tmp_path, name, data.encode()) == [line]


def test_a_5000_digit_grade_in_qrels_is_out_of_range():
    problems = Problems()
    records = list(read_qrels(io.BytesIO(f"A.1\t0\t1\t1\nA.1\t0\t2\t{HUGE}\n".encode()), problems))
    assert [r.item_id for r in records] == ["1"]
    assert problems.messages() == ["line 2: grade '1111111111111111111111111111111111111111...' is out of range"]


def test_a_5000_digit_round_in_a_judgments_file_is_refused(answers, tmp_path):
    path = tmp_path / "j.tsv"
    path.write_text(f"ada\tA.1\t10\t3\t\ttraining\t{HUGE}\nada\tA.1\t11\t3\t\ttraining\t2147483648\n")
    assert rejected("import_judgments", "--campaign", "answers", str(path)) == [
        "j.tsv:line 1: round '1111111111111111111111111111111111111111...' is not a number",
        "j.tsv:line 2: a training round is a number from 1 to 2147483647"]
    assert not Judgment.objects.exists()


def test_a_lone_surrogate_in_jsonl_is_refused_at_the_reader(tmp_path):
    post = '{"id": "2", "kind": "question", "title": "half \\ud800 a pair"}\n'
    assert refused_collection(tmp_path, "posts.jsonl", (QUESTION + post).encode()) == [
        "posts.jsonl:line 2: title holds a lone surrogate (\\ud800), which is not a character"]


@pytest.mark.parametrize("post, problem", [
    ('{"id": "2", "kind": "question", "title": "2\\u0000x"}', "title holds a NUL character"),
    ('{"id": "2\\u0000x", "kind": "question"}', "id holds a NUL character"),
    ('{"id": "2", "kind": "question", "tags": ["a\\u0000"]}', "tags holds a NUL character"),
])
def test_a_nul_in_a_jsonl_string_is_refused(tmp_path, post, problem):
    assert refused_collection(tmp_path, "posts.jsonl", (QUESTION + post + "\n").encode()) == [
        f"posts.jsonl:line 2: {problem}"]


# --- NUL in text files ----------------------------------------------------------------------------------------------

def test_a_nul_in_a_formula_is_refused_with_its_line(tmp_path):
    data = (V2_HEADER + "1\t2\t2\tanswer\t5\tx^2\n2\t2\t2\tanswer\t6\t2\x00x\n").encode()
    assert refused_collection(tmp_path, "formulas.tsv", data) == [
        "formulas.tsv:line 3: a NUL character (byte 17 of the line)"]


@pytest.mark.parametrize("header, line", [
    (V2_HEADER.replace("formula", "form\x00ula").encode(),
     "formulas.tsv:line 1: a formula index header that cannot be read: a NUL character (byte 41 of the line)"),
    (V2_HEADER.replace("formula", "f\xf3rmula").encode("latin-1"),
     "formulas.tsv:line 1: the first line cannot be read: not UTF-8 (byte 38 of the line)"),
    ("id\tpost_id\tthread_id\ttype\tvisual_id\tformula\xa0\n".encode("latin-1"),
     "formulas.tsv:line 1: a formula index header that cannot be read: not UTF-8 (byte 44 of the line)"),
])
def test_a_formula_index_header_with_a_nul_or_latin1_bytes_names_line_1(tmp_path, header, line):
    data = header + b"1\t2\t2\tanswer\t5\tx^2\n"
    assert refused_collection(tmp_path, "formulas.tsv", data) == [line]


def test_a_nul_in_a_run_id_is_refused_not_dropped(answers, tmp_path):
    path = tmp_path / "nul.tsv"
    path.write_bytes(b"A.1\t10\t1\t2\tr\nA.1\t2\x00x\t2\t1\tr\n")
    assert rejected("ingest_run", "--campaign", "answers", str(path)) == [
        "nul.tsv:line 2: a NUL character (byte 6 of the line)"]
    assert not Run.objects.filter(name="nul").exists()
    assert not RunEntry.objects.filter(item_id="2x").exists()


def test_a_nul_in_a_judgments_file_is_refused(answers, tmp_path):
    path = tmp_path / "j.tsv"
    path.write_bytes(b"ada\tA.1\t10\t3\t\nada\tA.1\t11\t3\tgood\x00\n")
    assert rejected("import_judgments", "--campaign", "answers", str(path)) == [
        "j.tsv:line 2: a NUL character (byte 18 of the line)"]
    assert not Judgment.objects.exists()


def test_the_bulk_writer_never_drops_a_nul(collection):
    """Readers refuse NULs with their line; a NUL that reaches the writer anyway is an error, never a quiet '2x'."""
    with pytest.raises((ValueError, DatabaseError), match="NUL"), transaction.atomic():
        bulk_insert(Post, ["collection", "post_id", "kind", "thread_id"], [(collection.pk, "2\x00x", "question", "2")])
    assert not Post.objects.filter(post_id="2x").exists()


# --- files without rows ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("name, data", [
    ("Posts.xml", b'<?xml version="1.0" encoding="utf-8"?>\n<posts>\n</posts>\n'),
    ("Posts.xml", b"<posts/>"),
    ("Comments.xml", b"<comments>\n</comments>\n"),
    ("formulas.tsv", V2_HEADER.encode()),
    ("formulas.tsv", V2_HEADER.encode() + b"\n\n"),
    ("slt.tsv", b"id\tslt\n"),
])
def test_a_collection_file_without_rows_is_refused(tmp_path, name, data):
    assert refused_collection(tmp_path, name, data) == [f"{name}: the file has no rows"]


def test_a_posts_xml_of_other_post_types_only_is_refused(tmp_path):
    data = b'<posts>\n<row Id="1" PostTypeId="5"/>\n<row Id="2" PostTypeId="4"/>\n</posts>\n'
    assert refused_collection(tmp_path, "Posts.xml", data) == [
        "Posts.xml: the file has no questions or answers (2 rows of other post types)"]


def test_an_empty_judgments_file_is_refused(answers, tmp_path):
    for text in ("", "\n\n", "assessor\ttopic\titem_id\tgrade\tcomment\n"):
        path = tmp_path / "j.tsv"
        path.write_text(text)
        assert rejected("import_judgments", "--campaign", "answers", str(path)) == ["j.tsv: the file has no rows"]
    assert not Assignment.objects.exists()


def test_a_topic_file_without_topics_is_refused(answers, tmp_path):
    path = tmp_path / "topics.xml"
    path.write_text("<Topics>\n</Topics>\n")
    assert rejected("ingest_topics", "--campaign", "answers", str(path)) == ["topics.xml: the file has no topics"]


# --- field bounds ---------------------------------------------------------------------------------------------------

def test_a_posts_xml_field_over_the_bound_is_refused_and_one_at_the_bound_is_taken(tmp_path):
    at_bound = "é" * (FIELD_MAX // 2)  # 2 bytes a character: exactly FIELD_MAX bytes
    over = "x" * (FIELD_MAX + 1)
    path = tmp_path / "Posts.xml"
    path.write_text(f'<posts>\n<row Id="1" PostTypeId="1" Body="{at_bound}"/>\n'
                    f'<row Id="2" PostTypeId="1" Title="t" Body="{over}"/>\n</posts>\n')
    assert rejected("ingest_collection", "--collection", "c", str(path)) == [
        "Posts.xml:line 3: Body is longer than 1,048,576 bytes"]
    assert nothing_written()
    path.write_text(f'<posts>\n<row Id="1" PostTypeId="1" Body="{at_bound}"/>\n</posts>\n')
    command_output("ingest_collection", "--collection", "c", str(path))
    assert Post.objects.get(post_id="1").body == at_bound


def test_a_jsonl_field_over_the_bound_is_refused(tmp_path):
    post = '{"id": "2", "kind": "question", "body": "' + "x" * (FIELD_MAX + 1) + '"}\n'
    assert refused_collection(tmp_path, "posts.jsonl", (QUESTION + post).encode()) == [
        "posts.jsonl:line 2: body is longer than 1,048,576 bytes"]


def test_a_topic_field_over_the_bound_is_refused(answers, tmp_path):
    path = tmp_path / "topics.xml"
    path.write_text('<Topics>\n<Topic number="A.7">\n<Title>t</Title>\n<Question>'
                    + "x" * (FIELD_MAX + 1) + "</Question>\n</Topic>\n</Topics>\n")
    assert rejected("ingest_topics", "--campaign", "answers", str(path)) == [
        "topics.xml:line 4: Question is longer than 1,048,576 bytes"]
    assert not Topic.objects.filter(topic_id="A.7").exists()


# --- a run cut short ------------------------------------------------------------------------------------------------

def test_a_run_truncated_inside_its_last_field_is_refused(answers, tmp_path):
    path = tmp_path / "cut.tsv"
    path.write_bytes(b"A.1\t10\t1\t3\tmyrun\nA.1\t11\t2\t2\tmyrun\nA.1\t12\t3\t1\tmyr")
    assert rejected("ingest_run", "--campaign", "answers", str(path)) == [
        "cut.tsv:line 3: the file ends inside this line: its run tag 'myr' is the start of the tag 'myrun' of the "
        "line before (the file looks truncated)"]
    assert not Run.objects.filter(name="cut").exists()


def test_evaluate_refuses_a_truncated_run_as_the_ingest_does(tmp_path, db):
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("A.1 0 10 1\nA.1 0 11 0\n")
    whole = b"A.1\t10\t1\t3\tmyrun\nA.1\t11\t2\t2\tmyrun"
    path = tmp_path / "cut.tsv"
    path.write_bytes(whole)
    out, _err = command_output("evaluate", "--qrels", str(qrels), str(path))
    assert "cut.tsv\tndcg_prime\tall\t1.0000\n" in out
    path.write_bytes(whole[:-2])
    assert rejected("evaluate", "--qrels", str(qrels), str(path)) == [
        "cut.tsv:line 2: the file ends inside this line: its run tag 'myr' is the start of the tag 'myrun' of the "
        "line before (the file looks truncated)"]


@pytest.mark.parametrize("data", [
    b"A.1\t10\t1\t3\tmyrun\nA.1\t11\t2\t2\tmyrun",  # no line end at the end, but the tag is whole
    b"A.1\t10\t1\t3\tmyrun\nA.1\t11\t2\t2\tmyr\n",  # a line end: the file is whole, with two tags
])
def test_a_run_ending_without_a_line_end_or_with_two_tags_is_taken(answers, tmp_path, data):
    path = tmp_path / "whole.tsv"
    path.write_bytes(data)
    command_output("ingest_run", "--campaign", "answers", str(path))
    assert Run.objects.get(name="whole").row_count == 2


# --- XML that is not well-formed ------------------------------------------------------------------------------------

@pytest.mark.parametrize("data, line", [
    (b'<?xml version="1.0"?>\n\n<posts x="1" x="2">\n</posts>\n',
     "Posts.xml: cannot tell what kind of file this is: XML that is not well-formed at line 3 (duplicate attribute); "
     "expected <posts> or <comments>"),
    (b"\n<posts>\n<row Id=1/>\n</posts>\n", "Posts.xml:line 3: malformed XML: not well-formed (invalid token)"),
    (b"<posts>\n<row Id=\"1\" PostTypeId=\"1\"/>\n<row\n", "Posts.xml:line 3: malformed XML: unclosed token"),
])
def test_xml_that_is_not_well_formed_is_refused_with_its_line(tmp_path, data, line):
    assert refused_collection(tmp_path, "Posts.xml", data) == [line]


def test_a_topic_file_that_is_not_well_formed_names_its_line(answers, tmp_path):
    path = tmp_path / "topics.xml"
    path.write_text('<Topics>\n<Topic number="A.7">\n<Title>t</Title>\n</Topics>\n')
    assert rejected("ingest_topics", "--campaign", "answers", str(path)) == [
        "topics.xml:line 4: malformed XML: mismatched tag"]


# --- judgments read line by line, with a bound ----------------------------------------------------------------------

def test_a_judgments_line_over_the_bound_is_refused_with_its_line(answers, tmp_path):
    path = tmp_path / "j.tsv"
    path.write_bytes(b"ada\tA.1\t10\t3\t\n" + b"ada\tA.1\t11\t3\t" + b"x" * FIELD_MAX + b"\nada\tA.1\t12\t3\t\n")
    assert rejected("import_judgments", "--campaign", "answers", str(path)) == [
        "j.tsv:line 2: the line is longer than 1,048,576 bytes"]
    assert not Judgment.objects.exists()


def test_a_long_judgments_line_is_read_in_bounded_memory(answers, tmp_path):
    from ir.problems import InputError
    from judging.services import judgments_import

    path = tmp_path / "j.tsv"
    path.write_bytes(b"ada\tA.1\t10\t3\t" + b"x" * (16 * FIELD_MAX) + b"\n")
    tracemalloc.start()
    try:
        with path.open("rb") as stream, pytest.raises(InputError) as info:
            judgments_import(campaign=answers, lines=stream, filename="j.tsv")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert info.value.messages() == ["j.tsv:line 1: the line is longer than 1,048,576 bytes"]
    assert peak < 6 * FIELD_MAX  # a 16 MiB line never held whole


# --- the same refusals on the pages ---------------------------------------------------------------------------------

def test_the_collections_page_shows_a_lone_surrogate_with_its_line(client, organizer, jobs_run_on_commit):
    client.force_login(organizer)
    post = '{"id": "2", "kind": "question", "title": "half \\ud800 a pair"}\n'
    upload = SimpleUploadedFile("posts.jsonl", (QUESTION + post).encode())
    response = client.post("/collections/", {"collection": "new", "files": [upload]}, follow=True)
    assert "posts.jsonl: line 2: title holds a lone surrogate" in response.content.decode()
    assert nothing_written()
