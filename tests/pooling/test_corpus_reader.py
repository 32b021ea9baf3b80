"""Corpus files read for wanted ids only (ir/formats/corpus.py): JSONL and TREC, plain or gzip, a folder in name
order, problems with their file and line."""
import gzip

import pytest

from ir.formats.corpus import corpus_check, read_corpus
from ir.problems import InputError

JSONL = (
    '{"docid": "msmarco_v2.1_doc_00_0#0", "url": "u", "title": "A title", "headings": "h", "segment": "one"}\n'
    '{"_id": "beir-1", "title": "", "text": "two"}\n'
    '{"id": "pyserini-1", "contents": "three"}\n'
    '{"title": "id not first", "id": "late", "text": "four"}\n'
    '{"id": 42, "text": "an integer id"}\n'
)
TREC = (
    "<DOC>\n<DOCNO> FT911-1 </DOCNO>\n<TITLE>First</TITLE>\n<TEXT>\nSome <b>text</b>.\n</TEXT>\n</DOC>\n"
    "<DOC><DOCNO>FT911-2</DOCNO><TEXT>On one line</TEXT></DOC>\n"
)


def read(path, wanted):
    problems = []
    docs = list(read_corpus(path, wanted, problems))
    return {d.doc_id: (d.title, d.text) for d in docs}, [m for p in problems for m in p.messages()]


def test_jsonl_ids_and_texts_under_each_known_key(tmp_path):
    path = tmp_path / "corpus.jsonl"
    path.write_text(JSONL)
    docs, problems = read(path, {"msmarco_v2.1_doc_00_0#0", "beir-1", "pyserini-1", "late", "42"})
    assert docs == {"msmarco_v2.1_doc_00_0#0": ("A title", "one"), "beir-1": ("", "two"),
                    "pyserini-1": ("", "three"), "late": ("id not first", "four"), "42": ("", "an integer id")}
    assert problems == []


def test_only_wanted_documents_are_returned_and_an_absent_one_is_simply_not_there(tmp_path):
    path = tmp_path / "corpus.jsonl"
    path.write_text(JSONL)
    docs, problems = read(path, {"beir-1", "not-in-corpus"})
    assert docs == {"beir-1": ("", "two")} and problems == []


def test_trec_documents_with_title_and_tags_removed(tmp_path):
    path = tmp_path / "ft.trec"
    path.write_text(TREC)
    docs, problems = read(path, {"FT911-1", "FT911-2"})
    assert docs == {"FT911-1": ("First", "Some text."), "FT911-2": ("", "On one line")} and problems == []


def test_gzip_is_told_by_content_and_a_folder_is_read_in_name_order(tmp_path):
    folder = tmp_path / "corpus"
    folder.mkdir()
    with gzip.open(folder / "b-part", "wt") as f:  # no .gz suffix: told by its first bytes
        f.write('{"id": "x", "text": "from b"}\n')
    (folder / "a-part.jsonl").write_text('{"id": "x", "text": "from a"}\n{"id": "y", "text": "only a"}\n')
    with gzip.open(folder / "c.trec.gz", "wt") as f:
        f.write("<DOC>\n<DOCNO>z</DOCNO>\nfrom c\n</DOC>\n")
    docs, problems = read(folder, {"x", "y", "z"})
    assert docs == {"x": ("", "from a"), "y": ("", "only a"), "z": ("", "from c")} and problems == []


def test_bad_lines_that_must_be_read_are_reported_with_file_and_line(tmp_path):
    path = tmp_path / "bad.jsonl"
    path.write_text('{"id": "ok", "text": "fine"}\nnot json\n{"id": "no-text"}\n[1, 2]\n'
                    '{"text": "no id"}\n{"id": "nul", "text": "a\\u0000b"}\n')
    trec = tmp_path / "bad.trec"
    trec.write_text("<DOC>\n<TEXT>no docno</TEXT>\n</DOC>\nstray text\n<DOC>\n<DOCNO>open</DOCNO>\n")
    _, problems = read(path, {"ok", "no-text", "nul"})
    assert problems == [
        "bad.jsonl:line 2: invalid JSON: Expecting value (column 1)",
        "bad.jsonl:line 3: no text (a string under body, text, contents or segment)",
        "bad.jsonl:line 4: not a JSON object",
        "bad.jsonl:line 5: no document id (a string under id, docid or _id)",
        "bad.jsonl:line 6: text holds a NUL character",
    ]
    _, problems = read(trec, {"open"})
    assert problems == ["bad.trec:line 1: a <DOC> without <DOCNO>...</DOCNO>",
                        "bad.trec:line 4: text outside <DOC> ... </DOC>",
                        "bad.trec:line 5: a <DOC> without its </DOC>"]


def test_a_corpus_that_is_no_corpus_is_refused_when_declared(tmp_path):
    (tmp_path / "runs.tsv").write_text("A.1\t10\t1\t9.0\trun\n")
    with pytest.raises(InputError) as refused:
        corpus_check(tmp_path / "runs.tsv")
    assert refused.value.messages() == ["runs.tsv: not a corpus file: expected JSONL (one JSON object a line) or "
                                        "TREC <DOC> documents"]
    with pytest.raises(InputError, match="neither a file nor a folder"):
        corpus_check(tmp_path / "absent")
    (tmp_path / "empty").mkdir()
    with pytest.raises(InputError, match="holds no file"):
        corpus_check(tmp_path / "empty")
