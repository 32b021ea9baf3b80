"""ARQMath-3 Task 3 LO (lexical overlap) on a hand-made case, leave-team-out, the tokenizers, CS through an injected
scorer, the optional packages' absence, and the correlations between measures."""
import math
import sys
from pathlib import Path

import numpy as np
import pytest

from evaluation.answer_files import evaluate_answer_files
from ir import task3_measures as answers
from ir.problems import InputError
from ir.task3_measures import Reference, latex_tokens, lexical_overlap, math_tagged, token_f1
from tests.commands import command_output

A, B, C = "alpha-task3-a-auto-both-generate-A", "alpha-task3-b-auto-both-extract-A", "beta-task3-c-auto-both-generate-P"
ANSWERS = {  # run -> topic -> (answer id, grade, text)
    A: {"A.1": ("d_1", 3, "The answer is $x^2$"), "A.2": ("d_4", 2, "Use \\frac{1}{2}")},
    B: {"A.1": ("d_2", 0, "x squared"), "A.2": ("d_4", 2, "Use  \\frac{1}{2}\n")},  # d_4: the same answer
    C: {"A.1": ("d_3", 2, "The answer is $x^2 + 1$"), "A.2": ("d_5", 1, "No idea")},
}


def files(tmp_path: Path, answers_of=ANSWERS) -> tuple[Path, Path, list[Path]]:
    qrels, ids, runs = tmp_path / "qrels.txt", tmp_path / "map.tsv", []
    qrels.write_text("".join(sorted({f"{t}\t0\t{d}\t{g}\n" for per in answers_of.values()
                                     for t, (d, g, _text) in per.items()})))
    ids.write_text("".join(f"{run}\t{t}\t{d}\n" for run, per in answers_of.items() for t, (d, _g, _x) in per.items()))
    for run, per in answers_of.items():
        runs.append(tmp_path / f"{run}.tsv")
        runs[-1].write_text("".join(f"{t}\t1\t1.0\t{run}\tsrc\t\"{text}\"\n" for t, (_d, _g, text) in per.items()))
    return qrels, ids, runs


def test_lo_by_hand_with_leave_team_out(tmp_path):
    qrels, ids, runs = files(tmp_path)
    out, _err = command_output("evaluate", "--per-topic", "--qrels", str(qrels), "--answer-ids", str(ids),
                               *map(str, runs))
    lines = out.splitlines()
    # A.1: A's answer has 7 tokens (The answer is [MATH] x ^ 2), C's relevant one 9 (... + 1), all 7 shared:
    # P 1, R 7/9, F1 14/16. A's own answer is its team's: left out. A.2's only reference is team alpha's: no LO.
    assert f"{A}\tlo\tA.1\t0.8750" in lines and f"{A}\tlo\tall\t0.8750" in lines
    assert not any(line.startswith(f"{A}\tlo\tA.2") for line in lines)
    # B ("x squared"): 1 token of 2 shared with C's 9: F1 = 2 (1/2)(1/9) / (1/2 + 1/9) = 2/11.
    assert f"{B}\tlo\tall\t{2 / 11:.4f}" in lines
    # C: against A's answer on A.1 (14/16) and A and B's one answer on A.2 ("No idea": 0).
    assert f"{C}\tlo\tA.1\t0.8750" in lines and f"{C}\tlo\tA.2\t0.0000" in lines
    assert f"{C}\tlo\tall\t0.4375" in lines
    assert f"{C}\tar\tall\t1.5000" in lines and f"{C}\tp1\tall\t0.5000" in lines
    assert any(line.startswith("# correlation ar lo: pearson_r=") for line in lines)


def test_a_team_map_puts_a_run_in_another_team(tmp_path):
    qrels, ids, runs = files(tmp_path)
    teams = tmp_path / "teams.tsv"
    teams.write_text(f"{B}\tgamma\n")
    [a, _b, _c] = evaluate_answer_files(qrels_path=qrels, answer_ids_path=ids, run_paths=runs, team_map_path=teams).runs
    # A.2's answer was given by A (alpha) and B (now gamma): for A it is another team's reference too, the same text.
    assert a.per_topic["A.2"]["lo"] == 1.0
    assert a.means["lo"] == pytest.approx((0.875 + 1.0) / 2)
    (tmp_path / "bad.tsv").write_text(f"{B}\tgamma\n{B}\tdelta\nlonely\n")
    with pytest.raises(InputError) as info:
        evaluate_answer_files(qrels_path=qrels, answer_ids_path=ids, run_paths=runs, team_map_path=tmp_path / "bad.tsv")
    assert info.value.messages() == [f"bad.tsv:line 2: run '{B}' given twice (the first on line 1)",
                                     "bad.tsv:line 3: expected a run and its team, tab-separated; found 1 field(s)"]


def test_all_topics_counts_a_topic_with_references_the_run_did_not_answer_as_zero(tmp_path):
    partial = {**ANSWERS, B: {"A.1": ANSWERS[B]["A.1"]}}
    qrels, ids, runs = files(tmp_path, partial)
    default = evaluate_answer_files(qrels_path=qrels, answer_ids_path=ids, run_paths=runs).runs
    every = evaluate_answer_files(qrels_path=qrels, answer_ids_path=ids, run_paths=runs, all_topics=True).runs
    # C's A.2 has A's answer as reference; B did not answer A.2, whose only reference is its own team's: not counted.
    assert default[1].means["lo"] == every[1].means["lo"] == pytest.approx(2 / 11)
    assert every[1].means["ar"] == 0.0 and default[1].topics == 1 and every[1].topics == 2


def test_math_is_tagged_as_the_organizers_did_and_latex_commands_stay_whole():
    assert math_tagged("Let $x$ be $\\$5$ and\n\n $y$.") == \
        "Let [MATH] x [/MATH] be [MATH] \\$5 [/MATH] and [MATH] y [/MATH] ."
    assert math_tagged("$a$ $b$") == " [MATH] a b"  # two formulas joined, the last marker dropped
    assert math_tagged("a$x$b") == "a [MATH] x [/MATH] b"  # the character before a $ stays
    assert latex_tokens(r"\frac{a}{b} + \alpha\beta \{ é2") == \
        ["\\frac", "{", "a", "}", "{", "b", "}", "+", "\\alpha", "\\beta", "\\{", "é2"]
    assert token_f1({"a", "b"}, {"b", "c", "d"}) == pytest.approx(2 * 0.5 * (1 / 3) / (0.5 + 1 / 3))
    assert token_f1({"a"}, {"b"}) == 0.0


def test_lo_takes_any_tokenizer_and_passes_over_references_with_no_tokens():
    refs = {"A.1": [Reference("", frozenset({"x"})), Reference("b c", frozenset({"x"})),
                    Reference("a b", frozenset({"x"}))]}
    words = str.split
    assert lexical_overlap({"A.1": "a b"}, refs, "me", words) == {"A.1": 1.0}
    assert lexical_overlap({"A.1": "a b"}, {"A.1": [Reference("", frozenset({"x"}))]}, "me", words) == {}
    assert lexical_overlap({"A.1": "a b"}, refs, "x", words) == {}  # every reference is the run's team's


def test_cs_goes_through_the_injected_scorer_with_other_teams_references(tmp_path):
    qrels, ids, runs = files(tmp_path)
    calls = []

    def scorer(candidates, references):
        calls.append((list(candidates), [list(r) for r in references]))
        return [len(c) / 100 for c in candidates]

    result = evaluate_answer_files(qrels_path=qrels, answer_ids_path=ids, run_paths=runs, scorer=scorer)
    by_name = {run.name: run for run in result.runs}
    # A: one topic (A.1) against C's answer, prepared as for LO; C: both topics.
    assert calls[0] == (["The answer is [MATH] x^2"], [["The answer is [MATH] x^2 + 1"]])
    assert calls[2] == (["The answer is [MATH] x^2 + 1", "No idea"],
                        [["The answer is [MATH] x^2"], ["Use \\frac{1}{2}"]])
    assert by_name[C].per_topic["A.2"]["cs"] == 0.07
    assert by_name[C].means["cs"] == pytest.approx((len("The answer is [MATH] x^2 + 1") + 7) / 200)
    assert {(c.first, c.second) for c in result.correlations} >= {("ar", "cs"), ("lo", "cs")}
    with pytest.raises(ValueError, match="the scorer gave 0 values for 1 answers"):
        evaluate_answer_files(qrels_path=qrels, answer_ids_path=ids, run_paths=runs, scorer=lambda c, r: [])


def test_the_optional_packages_missing_give_a_clear_error(tmp_path, monkeypatch):
    qrels, ids, runs = files(tmp_path)
    monkeypatch.setitem(sys.modules, "bert_score", None)  # import fails, as without the package
    monkeypatch.setitem(sys.modules, "tokenizers", None)
    with pytest.raises(InputError, match=r"--bertscore-model needs the optional package bert-score"):
        evaluate_answer_files(qrels_path=qrels, answer_ids_path=ids, run_paths=runs, bertscore_model=tmp_path)
    with pytest.raises(InputError, match=r"--tokenizer needs the optional package tokenizers"):
        evaluate_answer_files(qrels_path=qrels, answer_ids_path=ids, run_paths=runs, tokenizer_path=qrels)


def test_a_hugging_face_tokenizer_json_is_used_when_given(tmp_path):
    tokenizers = pytest.importorskip("tokenizers")  # an addition to the tests above, which need no package
    model = tokenizers.models.WordLevel({"[UNK]": 0, "answer": 1, "x": 2, "is": 3}, unk_token="[UNK]")
    built = tokenizers.Tokenizer(model)
    built.pre_tokenizer = tokenizers.pre_tokenizers.Whitespace()
    built.save(str(tmp_path / "tokenizer.json"))
    tokenize = answers.hf_tokenizer(tmp_path / "tokenizer.json")
    assert tokenize("The answer is x") == ["[UNK]", "answer", "is", "x"]
    with pytest.raises(InputError, match="qrels.txt: not a Hugging Face tokenizer.json"):
        answers.hf_tokenizer(files(tmp_path)[0])


def test_correlations_by_hand():
    runs = [answers.RunScores(name, {}, {"ar": ar, "p1": p1}, 1)
            for name, ar, p1 in (("r1", 1.0, 0.1), ("r2", 2.0, 0.3), ("r3", 3.0, 0.2))]
    [row] = answers.correlations(runs, ("ar", "p1", "lo"))
    assert (row.first, row.second, row.runs) == ("ar", "p1", 3)
    assert row.pearson == pytest.approx(np.corrcoef([1, 2, 3], [0.1, 0.3, 0.2])[0, 1])
    assert row.kendall == pytest.approx(1 / 3)  # 2 concordant pairs, 1 discordant
    constant = [answers.RunScores(r.name, {}, {"ar": 1.0, "p1": r.means["p1"]}, 1) for r in runs]
    assert math.isnan(answers.correlations(constant, ("ar", "p1"))[0].pearson)
    assert list(answers.correlation_lines([row])) == [
        f"# correlation ar p1: pearson_r={row.pearson:.4f} kendall_tau=0.3333 runs=3\n"]


def test_an_empty_team_map_is_refused(tmp_path):
    qrels, ids, runs = files(tmp_path)
    empty = tmp_path / "empty.tsv"
    empty.write_bytes(b"")
    with pytest.raises(InputError) as info:
        evaluate_answer_files(qrels_path=qrels, answer_ids_path=ids, run_paths=runs, team_map_path=empty)
    assert info.value.messages() == ["empty.tsv: the team map has no lines"]
