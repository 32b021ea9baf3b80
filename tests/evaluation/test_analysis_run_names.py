"""Run facts read from ARQMath run names (issue 18 point 2), on names the ARQMath labs published."""
import pytest

from ir.formats.run_names import RunFacts, parse_run_name


@pytest.mark.parametrize(("name", "facts"), [
    # ARQMath-3 Task 3 runs (the organizers' teams_document_id.tsv).
    ("DPRL-Task3-AMRBERT-auto-both-extract-A", RunFacts("DPRL", 3, "AMRBERT", False, "both", False, "extract", False)),
    ("DPRL-Task3-SVMBERT-auto-both-extract-P", RunFacts("DPRL", 3, "SVMBERT", False, "both", True, "extract", False)),
    ("TU_DBS-task3-amps3_se1_len_pen_20_sample_hint-auto-both-generate-A",
     RunFacts("TU_DBS", 3, "amps3_se1_len_pen_20_sample_hint", False, "both", False, "generate", False)),
    ("approach0-task3-run5-manual-both-extract-P",
     RunFacts("approach0", 3, "run5", True, "both", True, "extract", False)),
    ("Baseline2022-task3-GPT3-auto-both-generate-P",
     RunFacts("Baseline2022", 3, "GPT3", False, "both", True, "generate", True)),
    # An ARQMath-1 Task 1 run file, named without a run name of its own.
    ("psu-task1-auto-both-A.tsv", RunFacts("psu", 1, "", False, "both", False, "", False)),
    ("psu-task1-auto-both-A", RunFacts("psu", 1, "", False, "both", False, "", False)),
    # A run name may hold hyphens itself.
    ("MathDowsers-task2-Tangent-S-auto-math-P",
     RunFacts("MathDowsers", 2, "Tangent-S", False, "math", True, "", False)),
    ("team-task1-bm25-manual-text-A", RunFacts("team", 1, "bm25", True, "text", False, "", False)),
])
def test_arqmath_run_names_give_their_facts(name, facts):
    assert parse_run_name(name) == facts


@pytest.mark.parametrize("name", [
    "ensemble-task1.tsv",  # MIR-MU's ARQMath-1 ensemble runs: not in the lab's naming scheme
    "ensemble-task2",
    "team-task4-x-auto-both-P",  # no such task
    "team-task1-x-automatic-both-P",
    "team-task1-x-auto-all-P",
    "team-task1-x-auto-both-Q",
    "task1-auto-both-P",  # no team
    "",
])
def test_other_names_give_no_facts(name):
    assert parse_run_name(name) is None
