"""Run facts read from ARQMath run names (issue 18 point 2), on names the ARQMath labs published."""
import pytest

from ir.formats.run_names import RunFacts, facts_said, parse_run_name


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


# The run names found in the ARQMath data (tests/data/arqmath/runs, task3/teams_document_id.tsv) and those the
# walkthrough met in ARQMath-1 files: a prim_ prefix, `_` for `-`, a number after the A.
@pytest.mark.parametrize(("name", "team", "primary", "said"), [
    ("prim_MIRMU-task1-Ensemble-auto-both-A", "MIRMU", False, "ends in -A"),
    ("prim_MIRMU-task1-SCM-auto-both", "MIRMU", True, "starts with prim_"),
    ("alt_MIRMU-task1-SCM-auto-both", "MIRMU", False, "starts with alt_"),
    ("DPRL_task1_auto_both_A3", "DPRL", False, "ends in -A3"),
    ("tf.DPRL_task1_auto_both_P.tsv", "DPRL", True, "ends in -P"),
    ("TU_DBS-task3-se3_len_pen_10-auto-both-generate-A", "TU_DBS", False, "ends in -A"),
    ("psu-task1-auto-both-A.tsv", "psu", False, "ends in -A"),
])
def test_arqmath_name_variants_give_the_team_and_kind_and_say_what_told_it(name, team, primary, said):
    facts = parse_run_name(name)
    assert facts is not None and (facts.team, facts.primary, facts.kind_said) == (team, primary, said)


def test_an_underscored_name_gives_every_fact_and_says_them():
    facts = parse_run_name("DPRL_task1_auto_both_A3")
    assert facts == RunFacts("DPRL", 1, "", False, "both", False, "", False)
    assert facts_said(facts) == "team DPRL, task 1, automatic, text and math, alternate"


@pytest.mark.parametrize("name", ["Run_Ensemble_0", "mlt_base", "prim_ensemble-task1", "DPRL_task1_auto_both"])
def test_run_tags_and_names_without_the_scheme_give_no_facts(name):
    assert parse_run_name(name) is None
