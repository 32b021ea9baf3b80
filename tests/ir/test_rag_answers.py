"""TREC RAG answer runs (ir/formats/rag_answers.py): the 2024 and 2025 shapes, and the files refused whole."""
import io
import json

import pytest

from ir.formats.rag_answers import AnswerSentence, RagAnswer, read_rag_answers, read_rag_answers_file, write_rag_answers
from ir.problems import InputError, Problems

REFERENCES = ["msmarco_v2.1_doc_51_766815931#2_1606878413", "msmarco_v2.1_doc_51_766815931#1_1606876582",
              "msmarco_v2.1_doc_37_463237391#10_984448281"]
LINE_2024 = {"run_id": "my-run", "topic_id": "2027497",
             "topic": "how often should you take your toddler to the potty when potty training",
             "references": REFERENCES, "response_length": 12,
             "answer": [{"text": "It depends on their readiness.", "citations": [0, 1]},
                        {"text": "About three times a day.", "citations": [2]}]}
LINE_2025 = {"metadata": {"team_id": "team", "run_id": "run25", "type": "automatic", "narrative_id": 1,
                          "narrative": "I'm trying to understand how the Industrial Revolution began.",
                          "prompt": "Answer it."},
             "references": REFERENCES,
             "answer": [{"text": "It began in Britain.", "citations": [REFERENCES[2], REFERENCES[0]]}]}


def read(*lines, **options):
    problems = Problems(file="answers.jsonl")
    text = "".join((line if isinstance(line, str) else json.dumps(line)) + "\n" for line in lines)
    return read_rag_answers(io.BytesIO(text.encode()), problems, **options), problems.messages()


def test_a_2024_answer_cites_its_references_by_index():
    (answer,), problems = read(LINE_2024)
    assert problems == []
    assert (answer.run_id, answer.topic_id, answer.response_length) == ("my-run", "2027497", 12)
    assert answer.sentences[0] == AnswerSentence("It depends on their readiness.", tuple(REFERENCES[:2]))
    assert answer.sentences[1].citations == (REFERENCES[2],)
    assert answer.cited == tuple(REFERENCES)
    assert answer.text == "It depends on their readiness. About three times a day."


def test_a_2025_answer_has_its_run_and_topic_in_metadata_and_may_cite_segment_ids():
    (answer, by_index), problems = read(LINE_2025, {**LINE_2025, "metadata": {**LINE_2025["metadata"],
                                                                           "narrative_id": "2"},
                                                    "answer": [{"text": "x", "citations": [1]}]})
    assert problems == []
    assert (by_index.topic_id, by_index.sentences[0].citations) == ("2", (REFERENCES[1],))
    assert (answer.run_id, answer.topic_id, answer.team_id, answer.run_type) == ("run25", "1", "team", "automatic")
    assert answer.sentences[0].citations == (REFERENCES[2], REFERENCES[0])
    assert answer.response_length is None


def test_a_sentence_may_cite_nothing():
    (answer,), _ = read({**LINE_2024, "answer": [{"text": "Uncited.", "citations": []}, {"text": "No key."}]})
    assert [s.citations for s in answer.sentences] == [(), ()]


@pytest.mark.parametrize(("line", "message"), [
    ("{not json", "line 1: invalid JSON"),
    ({k: v for k, v in LINE_2024.items() if k != "run_id"}, "line 1: missing run_id"),
    ({k: v for k, v in LINE_2024.items() if k != "answer"}, "line 1: missing answer"),
    ({**LINE_2024, "answer": []}, "line 1: the answer has no sentences"),
    ({**LINE_2024, "answer": "text"}, "line 1: answer is not a list of sentences"),
    ({**LINE_2024, "answer": [{"text": 3}]}, "line 1: answer[0].text is not a string"),
    ({**LINE_2024, "answer": [{"citations": [0]}]}, "line 1: answer[0] has no text"),
    ({**LINE_2024, "answer": [{"text": "a", "citations": [3]}]},
     "line 1: answer[0] cites index 3, but the references have 3 (indexes 0 to 2)"),
    ({**LINE_2024, "answer": [{"text": "a", "citations": [-1]}]}, "line 1: answer[0] cites index -1"),
    ({**LINE_2024, "answer": [{"text": "a", "citations": [0, "x"]}]},
     "line 1: answer[0].citations must be all indexes into references or all segment ids"),
    ({**LINE_2024, "answer": [{"text": "a", "citations": [True]}]}, "must be all indexes"),
    ({**LINE_2024, "answer": [{"text": "a", "citations": ["elsewhere"]}]},
     "line 1: answer[0] cites segment 'elsewhere', which is not in the answer's references"),
    ({k: v for k, v in LINE_2024.items() if k != "references"}, "cites by index but the answer has no references"),
    ({**LINE_2024, "references": [1, 2]}, "references[0] is not a segment id"),
    ({**LINE_2024, "response_length": "12"}, "response_length \"12\" is not a whole number of words"),
    ({**LINE_2024, "topic_id": 2.5}, "topic_id must be a string or an integer"),
    ({**LINE_2024, "score": 1}, "line 1: unknown field 'score'"),
    ({**LINE_2024, "answer": [{"text": "a", "citations": [], "score": 1}]}, "unknown field 'score' in answer[0]"),
    ({**LINE_2025, "metadata": {**LINE_2025["metadata"], "extra": 1}}, "unknown field 'metadata.extra'"),
    ({**LINE_2025, "metadata": {"run_id": "r"}}, "missing narrative_id"),
    ([LINE_2024], "line 1: not a JSON object"),
])
def test_a_bad_line_is_refused_with_its_line_number(line, message):
    answers, problems = read(line)
    assert answers == []
    assert any(message in p for p in problems), problems


def test_one_bad_line_refuses_the_whole_file():
    answers, problems = read(LINE_2024, "", {**LINE_2024, "topic_id": "2", "answer": []})
    assert answers == []
    assert problems == ["answers.jsonl:line 3: the answer has no sentences (leave a topic without an answer out)"]


def test_a_second_answer_of_a_run_to_a_topic_is_refused():
    _, problems = read(LINE_2024, LINE_2024)
    assert problems == ["answers.jsonl:line 2: a second answer of run 'my-run' to topic '2027497' "
                        "(the first is on line 1)"]


def test_a_topic_the_campaign_lacks_is_refused():
    _, problems = read(LINE_2024, topics={"1"})
    assert problems == ["answers.jsonl:line 1: topic '2027497' is not a topic of this campaign"]


def test_an_empty_file_is_refused():
    assert read("")[1] == ["answers.jsonl: the file has no rows"]


def test_the_file_reader_raises_input_error_naming_the_upload(tmp_path):
    path = tmp_path / "x.jsonl"
    path.write_text(json.dumps({**LINE_2024, "answer": []}) + "\n")
    with pytest.raises(InputError) as caught:
        read_rag_answers_file(path, filename="run.jsonl")
    assert caught.value.messages()[0].startswith("run.jsonl:line 1:")


def test_written_answers_read_back_the_same_and_carry_what_nuggetizer_reads():
    answers, _ = read(LINE_2024, LINE_2025)
    out = io.StringIO()
    write_rag_answers(answers, out)
    lines = [json.loads(line) for line in out.getvalue().splitlines()]
    assert lines[0] == LINE_2024
    assert lines[1]["answer"] == [{"text": "It began in Britain.", "citations": [2, 0]}]
    assert lines[1]["response_length"] == 4  # the answer's words, when the run gives none
    # nuggetizer's assign reads record["topic_id"], record["answer"][i]["text"] and record["response_length"]
    for line in lines:
        assert isinstance(line["topic_id"], str) and isinstance(line["response_length"], int)
        assert all(isinstance(s["text"], str) for s in line["answer"])
    again, problems = read(*out.getvalue().splitlines())
    assert problems == []
    assert [a.sentences for a in again] == [a.sentences for a in answers]


def test_a_cited_segment_missing_from_the_references_is_added_when_written():
    answer = RagAnswer(1, "r", "t", "", (), None, (AnswerSentence("a b", ("s1", "s2")), AnswerSentence("c", ("s1",))))
    out = io.StringIO()
    write_rag_answers([answer], out)
    line = json.loads(out.getvalue())
    assert line["references"] == ["s1", "s2"]
    assert [s["citations"] for s in line["answer"]] == [[0, 1], [0]]
