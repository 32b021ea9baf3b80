"""Collection readers (SE XML, formula TSV, JSONL) and file-kind detection, on real ARQMath files."""
from __future__ import annotations

import io
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ir.formats.detect import collection_file_kind
from ir.formats.formula_tsv import read_formula_extra, read_formula_index, tsv_header
from ir.formats.jsonl import read_jsonl
from ir.formats.se_xml import read_comments, read_posts, xml_root_name
from ir.problems import InputError, Problems

ROOT = Path(__file__).resolve().parents[2]
ARQMATH = ROOT / "tests" / "data" / "arqmath"
POSTS = ARQMATH / "posts" / "posts_sample.xml"
FORMULAS_V2 = ARQMATH / "formulas" / "formula_index_v2_sample.tsv"
SLT = ARQMATH / "topics" / "task1_formulas_2022_formulas_slt.tsv"
LATEX_TOPIC_FORMULAS = ARQMATH / "topics" / "task1_formulas_2022_formulas_latex.tsv"
FORMULAS_V3 = Path(__file__).resolve().parents[1] / "data" / "formats" / "formula_index_v3.tsv"

V2_HEADER = b"id\tpost_id\tthread_id\ttype\tvisual_id\tformula\n"
V3_HEADER = b"id\tpost_id\tthread_id\ttype\tcomment_id\told_visual_id\tvisual_id\tissue\tformula\n"
BOMB = b"""<?xml version="1.0"?>
<!DOCTYPE posts [
 <!ENTITY lol "lol">
 <!ENTITY lol1 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
 <!ENTITY lol2 "&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;">
 <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
 <!ENTITY lol4 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">
 <!ENTITY lol5 "&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;">
 <!ENTITY lol6 "&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;">
 <!ENTITY lol7 "&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;">
 <!ENTITY lol8 "&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;">
 <!ENTITY lol9 "&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;">
]>
<posts><row Id="1" PostTypeId="1" Title="&lol9;" Body="&lol9;"/></posts>
"""
XXE = b"""<?xml version="1.0"?>
<!DOCTYPE posts [
  <!ENTITY xxe SYSTEM "file:///etc/passwd">
]>
<posts><row Id="1" PostTypeId="1" Body="&xxe;"/></posts>
"""


def posts(data: bytes) -> tuple[list, Problems, Problems]:
    problems, warnings = Problems(), Problems()
    return list(read_posts(io.BytesIO(data), problems, warnings)), problems, warnings


def read(reader, data: bytes) -> tuple[list, Problems]:
    problems = Problems()
    if reader is read_posts:
        return list(reader(io.BytesIO(data), problems, Problems())), problems
    return list(reader(io.BytesIO(data), problems)), problems


def crlf_with_bom(data: bytes) -> bytes:
    return b"\xef\xbb\xbf" + data.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n")


# --- Stack Exchange XML ---------------------------------------------------------------------


def test_posts_sample_gives_questions_and_answers_in_their_threads():
    with POSTS.open("rb") as stream:
        problems, warnings = Problems(), Problems()
        records = list(read_posts(stream, problems, warnings))

    assert not problems and not warnings
    assert [(r.post_id, r.kind, r.thread_id) for r in records] == [
        ("1", "question", "1"), ("3", "question", "3"), ("4", "answer", "3"), ("5", "question", "5"),
        ("6", "question", "6"), ("7", "answer", "5"), ("8", "question", "8"),
    ]
    first = records[0]
    assert first.line == 3
    assert first.title == "What Does it Really Mean to Have Different Kinds of Infinities?"
    assert first.tags == "elementary-set-theory intuition infinity faq"
    assert (first.score, first.created_at) == (155, "2010-07-20T19:09:27.200")
    assert (first.owner_user_id, first.accepted_answer_id) == ("10", "9")
    assert '<span class="math-container" id="39">\\sqrt{2}</span>' in records[3].body
    assert records[2].title == "" and records[2].accepted_answer_id == ""


def test_posts_with_crlf_and_bom_read_the_same(tmp_path):
    variant = tmp_path / "Posts.xml"
    variant.write_bytes(crlf_with_bom(POSTS.read_bytes()))

    with POSTS.open("rb") as plain, variant.open("rb") as other:
        expected = list(read_posts(plain, Problems(), Problems()))
        problems = Problems()
        assert list(read_posts(other, problems, Problems())) == expected
    assert not problems


def test_posts_of_other_types_are_skipped_with_one_warning():
    data = b"""<posts>
  <row Id="1" PostTypeId="1" Tags="|algebra|group-theory|"/>
  <row Id="2" PostTypeId="4" Body="tag wiki"/>
  <row Id="3" PostTypeId="5"/>
  <row Id="4" PostTypeId="2" ParentId="1"/>
</posts>"""
    records, problems, warnings = posts(data)

    assert [r.post_id for r in records] == ["1", "4"]
    assert records[0].tags == "algebra group-theory"
    assert not problems
    assert [(w.line, w.message) for w in warnings.items] == [(None, "skipped 2 rows of other post types")]


def test_posts_are_yielded_before_the_whole_file_is_read():
    row = b'<row Id="%d" PostTypeId="1" Title="t" Body="' + b"x" * 500 + b'"/>\n'
    data = b"<posts>\n" + b"".join(row.replace(b"%d", str(i).encode()) for i in range(20000)) + b"</posts>\n"
    stream = io.BytesIO(data)

    first = next(read_posts(stream, Problems(), Problems()))

    assert first.post_id == "0"
    assert stream.tell() < len(data) // 4


def test_comments_are_read_with_their_post():
    data = crlf_with_bom(b"""<?xml version="1.0" encoding="utf-8"?>
<comments>
  <row Id="10" PostId="3" Score="2" Text="See &lt;b&gt;it&lt;/b&gt;" CreationDate="2010-07-20T19:30:00.000" UserId="7"/>
  <row Id="11" PostId="4" Text="no score, no user"/>
</comments>
""")
    records, problems = read(read_comments, data)

    assert not problems
    assert [tuple(r) for r in records] == [
        (3, "10", "3", 2, "See <b>it</b>", "7", "2010-07-20T19:30:00.000"),
        (4, "11", "4", None, "no score, no user", "", ""),
    ]


def test_xml_root_name_reads_only_the_start(tmp_path):
    assert xml_root_name(POSTS) == "posts"
    stream = io.BytesIO(b"<?xml version='1.0'?>\n<comments>\n<row Id='1'")
    assert xml_root_name(stream) == "comments"
    assert stream.tell() == 0
    assert xml_root_name(io.BytesIO(b"id\tpost_id\n")) is None
    assert xml_root_name(io.BytesIO(BOMB)) is None


def test_billion_laughs_is_refused_without_expanding():
    started = time.perf_counter()
    records, problems, _ = posts(BOMB)

    assert records == []
    assert [(p.line, p.message) for p in problems.items] == [(3, "entity declarations are not allowed")]
    assert time.perf_counter() - started < 5


def test_external_entity_is_refused_without_reading_the_file():
    records, problems, _ = posts(XXE)

    assert records == []
    assert [(p.line, p.message) for p in problems.items] == [(3, "entity declarations are not allowed")]


# --- formula index TSV ----------------------------------------------------------------------


def test_formula_index_v2_sample_has_1000_formulas():
    with FORMULAS_V2.open("rb") as stream:
        problems = Problems()
        records = list(read_formula_index(stream, problems))

    assert not problems
    assert len(records) == 1000
    assert tuple(records[0]) == (2, "14395887", "1597292", "1558734", "answer", "", "16029", "", "", "(\\mathbb{R},+)")
    assert records[-1].line == 1001
    quoted = next(r for r in records if r.formula_id == "14396298")
    assert quoted.latex == 'P_n="\\det(M_{2n+1}(a,b))=0".'
    assert {r.type for r in records} == {"question", "answer", "comment", "title"}


def test_formula_index_with_crlf_and_bom_reads_the_same(tmp_path):
    variant = tmp_path / "formulas.tsv"
    variant.write_bytes(crlf_with_bom(FORMULAS_V2.read_bytes()))

    with FORMULAS_V2.open("rb") as plain, variant.open("rb") as other:
        expected = list(read_formula_index(plain, Problems()))
        problems = Problems()
        assert list(read_formula_index(other, problems)) == expected
    assert not problems


def test_formula_index_v3_keeps_comment_ids_visual_ids_and_issues():
    with FORMULAS_V3.open("rb") as stream:
        problems = Problems()
        records = list(read_formula_index(stream, problems))

    assert not problems
    assert [(r.line, r.formula_id, r.type, r.comment_id, r.old_visual_id, r.visual_id, r.issue) for r in records] == [
        (2, "1", "question", "", "501", "501", ""),
        (3, "2", "answer", "", "502", "602", "v"),
        (4, "3", "comment", "77", "503", "503", ""),
        (5, "4", "answer", "", "504", "504", "d"),
        (7, "5", "answer", "", "505", "505", "dv"),
    ]
    assert records[2].latex == 'P="a"'
    assert records[3].latex == "\\begin{align}a&=b\\\\\nc&=d\\end{align}"
    assert records[4].latex == "a\tb"


def test_formula_extra_reads_the_real_slt_strings_with_doubled_quotes(tmp_path):
    header, rest = SLT.read_bytes().split(b"\r\n", 1)
    extra = tmp_path / "slt.tsv"
    extra.write_bytes(header.replace(b"formula", b"slt") + b"\r\n" + rest)

    with extra.open("rb") as stream:
        problems = Problems()
        records = list(read_formula_extra(stream, problems))

    assert not problems
    # 1050 formulas, of which q_250 and q_905 have no SLT (an empty field).
    assert len(records) == 1048
    assert {"q_250", "q_905"}.isdisjoint(r.formula_id for r in records)
    assert (records[0].line, records[0].formula_id, records[0].column) == (2, "q_1", "slt")
    assert records[0].value.startswith('<math xmlns="http://www.w3.org/1998/Math/MathML" alttext="\\infty"')


def test_formula_extra_skips_empty_values_and_reads_opt():
    data = b"id\topt\tslt\n1\tO1\tS1\n2\t\tS2\n"
    records, problems = read(read_formula_extra, data)

    assert not problems
    assert [tuple(r) for r in records] == [(2, "1", "opt", "O1"), (2, "1", "slt", "S1"), (3, "2", "slt", "S2")]


def test_tsv_header_is_lower_cased_and_bom_free(tmp_path):
    path = tmp_path / "x.tsv"
    path.write_bytes(b"\xef\xbb\xbfID\tSLT\r\n1\tx\r\n")
    assert tsv_header(path) == ["id", "slt"]
    assert tsv_header(FORMULAS_V2) == ["id", "post_id", "thread_id", "type", "visual_id", "formula"]


# --- JSONL ----------------------------------------------------------------------------------


def test_jsonl_posts_get_string_ids_and_threads():
    data = crlf_with_bom(b"""{"id": 1, "kind": "question", "title": "T", "body": "<p/>", "tags": ["a", "b"], "score": 3}

{"id": "2", "kind": "answer", "thread_id": 1, "body": "x"}
{"id": "doc-9", "kind": "document", "title": "D", "body": "", "tags": "<x><y>"}
""")
    records, problems = read(read_jsonl, data)

    assert not problems
    assert [(r.line, r.post_id, r.kind, r.thread_id, r.tags, r.score) for r in records] == [
        (1, "1", "question", "1", "a b", 3),
        (3, "2", "answer", "1", "", None),
        (4, "doc-9", "document", "doc-9", "x y", None),
    ]


# --- malformed input: the message and line a user sees --------------------------------------

MALFORMED = [
    (read_posts, BOMB, 3, "entity declarations are not allowed"),
    (read_posts, XXE, 3, "entity declarations are not allowed"),
    (read_posts, b'<!DOCTYPE posts SYSTEM "http://example.invalid/x.dtd">\n<posts/>', 1,
     "external entities are not allowed"),
    (read_posts, b'<posts>\n<row Id="1" PostTypeId="1"/>\n<row Id="2"\n', 3, "malformed XML: unclosed token"),
    (read_posts, b'<posts>\n<row Id="1" PostTypeId="1"/>\n<row Id="2" Title="caf\xe9"/>\n</posts>', 3,
     "malformed XML"),
    (read_posts, b"", 1, "empty file"),
    (read_posts, b'<comments>\n<row Id="1"/>\n</comments>', 1, "root element is <comments>, expected <posts>"),
    (read_posts, b'<posts>\n\n<row PostTypeId="1"/>\n</posts>', 3, "missing attribute Id"),
    (read_posts, b'<posts>\n<row Id="1"/>\n</posts>', 2, "missing attribute PostTypeId"),
    (read_posts, b'<posts>\n<row Id="1" PostTypeId="x"/>\n</posts>', 2, "PostTypeId 'x' is not a number"),
    (read_posts, b'<posts>\n<row Id="1" PostTypeId="1"/>\n<row Id="2" PostTypeId="2"/>\n</posts>', 3,
     "answer without ParentId"),
    (read_posts, b'<posts>\n<row Id="1" PostTypeId="1" Score="1.5"/>\n</posts>', 2, "Score '1.5' is not an integer"),
    (read_comments, b'<comments>\n<row Id="1" Text="x"/>\n</comments>', 2, "missing attribute PostId"),
    (read_comments, b'<comments>\n<row PostId="1"/>\n</comments>', 2, "missing attribute Id"),
    (read_comments, b'<comments>\n<row Id="1" PostId="1" Score="high"/>\n</comments>', 2,
     "Score 'high' is not an integer"),
    (read_comments, b"<posts/>", 1, "root element is <posts>, expected <comments>"),
    (read_formula_index, b"id\tpost\tformula\n1\t2\tx\n", 1,
     "unknown header 'id post formula'; expected 'id post_id thread_id type visual_id formula' (v2)"),
    (read_formula_index, b"", 1, "empty file, expected a header line"),
    (read_formula_index, b"\n\nid\tpost\n", 3, "unknown header 'id post'"),
    (read_formula_index, V2_HEADER + b"1\t2\t3\tanswer\n", 2,
     "expected 6 columns (id post_id thread_id type visual_id formula), found 4"),
    (read_formula_index, V2_HEADER + b"1\t2\t3\tanswer\t5\tx\n\t2\t3\tanswer\t5\tx\n", 3, "empty id"),
    (read_formula_index, V2_HEADER + b"1\t2\t3\tpost\t5\tx\n", 2, "type 'post' is not one of question, answer"),
    (read_formula_index, V3_HEADER + b"1\t2\t3\tcomment\t9\t4\t5\tx\ta\n", 2, "issue 'x' is not one of"),
    (read_formula_index, V2_HEADER + b"1\t2\t3\tanswer\t5\t\xe9t\xe9\n", 2, "not UTF-8 (byte 16 of the line)"),
    (read_formula_index, V2_HEADER + b'1\t2\t3\tanswer\t5\t"x\n2\t2\t3\tanswer\t5\ty\n', 2,
     "a quoted field is not closed before the end of the file"),
    (read_formula_index, V2_HEADER + b'1\t2\t3\tanswer\t5\t"a"b\n', 2, "a closing quote must be followed by a tab"),
    (read_formula_extra, b"id\tlatex\n1\tx\n", 1, "expected an id column and an slt or opt column"),
    (read_jsonl, b'{"id": "1", "kind": "question"}\n{"id": "2", "kind": \n', 2, "invalid JSON"),
    (read_jsonl, b'\n[1, 2]\n', 2, "not a JSON object"),
    (read_jsonl, b'{"kind": "question"}\n', 1, "missing id"),
    (read_jsonl, b'{"id": " ", "kind": "question"}\n', 1, "empty id"),
    (read_jsonl, b'{"id": "1", "kind": "post"}\n', 1, 'kind "post" is not question, answer or document'),
    (read_jsonl, b'{"id": "1", "kind": "answer"}\n', 1, "answer without thread_id"),
    (read_jsonl, b'{"id": "1", "kind": "question"}\n{"id": "2", "kind": "question", "title": "\xff"}\n', 2,
     "not UTF-8"),
]


@pytest.mark.parametrize(("reader", "data", "line", "message"), MALFORMED)
def test_malformed_collection_file_reports_line_and_message(reader, data, line, message):
    _records, problems = read(reader, data)

    assert any(p.line == line and message in p.message for p in problems.items), problems.messages()


def test_readers_work_without_django():
    code = (
        "import sys\n"
        "import ir.formats.detect, ir.formats.jsonl, ir.formats.qrels, ir.formats.topics_xml\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'django'))"
    )
    env = {k: v for k, v in os.environ.items() if k != "DJANGO_SETTINGS_MODULE"}
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


# --- detection ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("content", "kind"),
    [
        (b'\xef\xbb\xbf<?xml version="1.0"?>\r\n<posts>\r\n</posts>', "posts"),
        (b"<!-- dump -->\n<comments/>", "comments"),
        (V3_HEADER, "formulas"),
        (b"id\tpost_id\tslt\n", "formula_extra"),
        (b'\n  {"id": "1", "kind": "document"}\n', "jsonl"),
    ],
)
def test_collection_file_kind_by_content(tmp_path, content, kind):
    path = tmp_path / "upload.bin"
    path.write_bytes(content)
    assert collection_file_kind(path) == kind


def test_collection_file_kind_of_the_real_samples():
    assert collection_file_kind(POSTS) == "posts"
    assert collection_file_kind(FORMULAS_V2) == "formulas"


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        (b"", "the file is empty"),
        (b"<Topics><Topic/></Topics>", "XML with root element <Topics>"),
        (b"<posts", "XML that is not well-formed"),
        (b"A.1\t0\t123\t2\n", "expected Stack Exchange XML"),
    ],
)
def test_collection_file_kind_refuses_other_files(tmp_path, content, reason):
    path = tmp_path / "upload.bin"
    path.write_bytes(content)

    with pytest.raises(InputError) as caught:
        collection_file_kind(path)

    assert caught.value.messages()[0].startswith(f"upload.bin: cannot tell what kind of file this is: {reason}")


def test_topic_formula_tsv_is_not_a_collection_file():
    with pytest.raises(InputError, match="cannot tell what kind of file this is"):
        collection_file_kind(LATEX_TOPIC_FORMULAS)
