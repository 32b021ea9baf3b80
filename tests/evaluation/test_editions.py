"""Results across editions (issue 28): `evaluate --qrels Q1 --qrels Q2 [--label ...] RUN...` equal to separate evaluate
calls, significance per edition, the report's Table 2 shape (LaTeX checked by its structure: no TeX engine is
needed), and evaluate --parents (issue 25)."""
import re

import pytest

from tests.commands import command_output, rejected
from tests.evaluation.test_campaign import judged_answers  # noqa: F401
from tests.evaluation.test_micro_topics import micro  # noqa: F401

PSU, ENSEMBLE = "psu-task1-auto-both-A.tsv", "ensemble-task1.tsv"


@pytest.fixture
def runs(arqmath_data):
    return [str(arqmath_data / "runs" / PSU), str(arqmath_data / "runs" / ENSEMBLE)]


@pytest.fixture
def editions(arqmath_data, tmp_path):
    """The ARQMath-1 qrels, and an "edition" of two of its topics with other grades (every grade 3 becomes 1), so
    that the two editions score the runs differently."""
    full = arqmath_data / "qrels" / "qrels.arqmath-2020-task1.txt"
    lines = full.read_text(encoding="utf-8").splitlines(keepends=True)
    other = tmp_path / "other-qrels.txt"
    other.write_text("".join(re.sub(r"\t3(\r?\n)$", r"\t1\1", line) for line in lines
                             if line.split()[0] in ("A.1", "A.3")), encoding="utf-8")
    return [str(full), str(other)]


def output(*args):
    out, _err = command_output(*args)
    return out.splitlines()


def labelled(lines, label):
    return [line.replace("\t", f"\t{label}\t", 1) for line in lines]


@pytest.mark.parametrize("per_topic", [[], ["--per-topic"]])
def test_each_editions_rows_are_those_of_a_separate_evaluate(runs, editions, per_topic):
    together = output("evaluate", "--qrels", editions[0], "--qrels", editions[1], "--label", "2020", "--label",
                      "other", *per_topic, *runs)
    first = output("evaluate", "--qrels", editions[0], *per_topic, *runs)
    second = output("evaluate", "--qrels", editions[1], *per_topic, *runs)
    assert together == labelled(first, "2020") + labelled(second, "other")
    assert first != second  # the editions do differ


def test_an_edition_is_labelled_by_its_file_name_by_default(runs, editions):
    lines = output("evaluate", "--qrels", editions[0], "--qrels", editions[1], *runs)
    assert {line.split("\t")[1] for line in lines} == {"qrels.arqmath-2020-task1.txt", "other-qrels.txt"}


@pytest.mark.parametrize("labels, message", [
    (["--label", "2020"], "1 labels for 2 qrels files"),
    (["--label", "x", "--label", "x"], "given to two editions"),
])
def test_labels_must_name_each_edition_once(runs, editions, labels, message):
    lines = rejected("evaluate", "--qrels", editions[0], "--qrels", editions[1], *labels, *runs)
    assert any(message in line for line in lines)


def test_significance_is_tested_within_each_edition(runs, editions, tmp_path):
    together, alone = tmp_path / "together.tsv", tmp_path / "alone.tsv"
    command_output("evaluate", "--qrels", editions[0], "--qrels", editions[1], "--label", "2020", "--label", "other",
                   "--significance", str(together), "--permutations", "2000", *runs)
    command_output("evaluate", "--qrels", editions[1], "--significance", str(alone), "--permutations", "2000", *runs)
    rows = together.read_text().splitlines()
    mine = alone.read_text().splitlines()
    assert rows[0] == "label\t" + mine[0] and "p_wilcoxon" in rows[0]
    assert [row for row in rows if row.startswith("other\t")] == ["other\t" + row for row in mine[1:]]
    assert len([row for row in rows if row.startswith("2020\t")]) == 3  # one pair of runs, three measures


def test_the_latex_table_has_a_column_group_per_edition(runs, editions):
    text = "\n".join(output("report", "--format", "latex", "--qrels", editions[0], "--qrels", editions[1],
                            "--label", "2020", "--label", "other_edition", *runs))
    assert text.count(r"\begin{table}") == text.count(r"\end{table}") == 1
    assert text.count(r"\begin{tabular}{lcccccc}") == 1 and text.count(r"\end{tabular}") == 1
    assert r"\multicolumn{3}{c}{2020} & \multicolumn{3}{c}{other\_edition} \\" in text
    assert r"\cmidrule(lr){2-4} \cmidrule(lr){5-7}" in text
    body = text.split(r"\midrule")[1].split(r"\bottomrule")[0].strip().splitlines()
    assert [row.split(" & ")[0] for row in body] == [r"psu-task1-auto-both-A.tsv", r"ensemble-task1.tsv"]
    for row in body:
        assert row.endswith(r" \\") and row.count(" & ") == 6  # the run and 2 x 3 measures
    # Each column's best value is bold: the ensemble has the better nDCG' on ARQMath-1.
    scores = {line.split("\t")[0]: line.split("\t")[3] for line in output("evaluate", "--qrels", editions[0], *runs)
              if "\tndcg_prime\t" in line}
    assert body[1].split(" & ")[1] == rf"\textbf{{{scores[ENSEMBLE]}}}"
    assert body[0].split(" & ")[1] == scores[PSU]
    assert text.count("{") == text.count("}")


def test_the_csv_table_names_each_column_by_edition_and_measure(runs, editions):
    lines = output("report", "--format", "csv", "--qrels", editions[0], "--qrels", editions[1], "--label", "2020",
                   "--label", "other", *runs)
    assert lines[0] == ("run,2020 ndcg_prime,2020 map_prime,2020 p10_prime,other ndcg_prime,other map_prime,"
                        "other p10_prime")
    separate = {line.split("\t")[0]: line.split("\t")[3]
                for line in output("evaluate", "--qrels", editions[1], *runs) if "\tmap_prime\t" in line}
    assert lines[1].split(",")[5] == separate[PSU]


def test_evaluate_parents_gives_each_runs_mean_over_parent_topics(micro):  # noqa: F811
    lines = output("evaluate", "--campaign", "micro", "--parents")
    assert "r1\tndcg_prime\tparents\t0.7500" in lines  # 301: (1 + 0) / 2, 302: 1
    assert "r1\tndcg_prime\tall\t0.6667" in lines


def test_parents_needs_a_campaign(runs, editions):
    lines = rejected("evaluate", "--qrels", editions[0], "--parents", *runs)
    assert any("--parents goes with --campaign" in line for line in lines)


def test_the_assessment_table_counts_the_grades_of_the_campaigns_scheme(answers, ada):
    from ir import grades
    from judging.services import judgments_import

    answers.scheme = grades.preset("trec-3").to_json()
    answers.save(update_fields=["scheme"])
    judgments_import(campaign=answers, lines=["ada\tA.1\t10\t2\t", "ada\tA.1\t12\t0\t", "ada\tA.1\t11\t0\t",
                                              "ada\tA.2\t20\t1\t"])
    lines = output("report", "--campaign", "answers", "--format", "csv", "--table", "assessment")
    assert lines[0] == "topic,assessor,pool,Highly relevant,Relevant,Not relevant,seconds_per_judgment"
    assert [line.split(",")[:6] for line in lines[1:]] == [["A.1", "ada", "3", "1", "0", "2"],
                                                          ["A.2", "ada", "2", "0", "1", "0"],
                                                          ["Total", "1", "5", "1", "1", "2"]]
    text = "\n".join(output("report", "--campaign", "answers", "--format", "latex", "--table", "assessment"))
    assert r"\begin{tabular}{llrrrrr}" in text
    assert r"Topic & Assessor & Pool & Highly relevant & Relevant & Not relevant & s/judgment \\" in text


EDITION = b"A.1\t0\t10\t1\nA.1\t0\t12\t3\nA.2\t0\t20\t0\nA.2\t0\t99\t2\n"


def test_an_earlier_edition_is_added_on_its_page_and_reported(judged_answers, tmp_path, client, organizer):  # noqa: F811
    judged = judged_answers
    from django.core.files.uploadedfile import SimpleUploadedFile

    from evaluation.models import EditionQrels

    client.force_login(organizer)
    url = f"/campaigns/{judged.pk}/editions/"
    assert "No earlier edition yet" in client.get(url).content.decode()
    response = client.post(url, {"label": "2021", "file": SimpleUploadedFile("qrels-2021.txt", EDITION)})
    assert response.status_code == 302
    edition = EditionQrels.objects.get(campaign=judged)
    assert (edition.label, edition.filename, edition.topics, edition.judgments) == ("2021", "qrels-2021.txt", 2, 4)
    assert "qrels-2021.txt" in client.get(url).content.decode()
    lines = output("report", "--campaign", "answers", "--format", "csv", "--table", "results")
    table = lines[lines.index("") + 1:]
    assert table[0] == ("run,answers ndcg_prime,answers map_prime,answers p10_prime,2021 ndcg_prime,2021 map_prime,"
                        "2021 p10_prime")
    # The stored run scored against the edition as evaluate scores its file against the edition's file.
    (tmp_path / "edition.txt").write_bytes(EDITION)
    separate = {line.split("\t")[1]: line.split("\t")[3] for line in output(
        "evaluate", "--qrels", str(tmp_path / "edition.txt"), str(tmp_path / "r1.tsv"))}
    own = {line.split("\t")[1]: line.split("\t")[3] for line in output("evaluate", "--campaign", "answers")
           if line.startswith("r1\t")}
    assert table[1].split(",") == ["r1", own["ndcg_prime"], own["map_prime"], own["p10_prime"],
                                   separate["ndcg_prime"], separate["map_prime"], separate["p10_prime"]]
    client.post(url, {"remove": edition.pk})
    assert not EditionQrels.objects.filter(campaign=judged).exists()


def test_a_bad_edition_file_is_refused_with_its_line(judged_answers, client, organizer):  # noqa: F811
    judged = judged_answers
    from django.core.files.uploadedfile import SimpleUploadedFile

    client.force_login(organizer)
    response = client.post(f"/campaigns/{judged.pk}/editions/",
                           {"label": "2021", "file": SimpleUploadedFile("bad.txt", b"A.1\t0\t10\t1\nA.1 0 12\n")})
    assert response.status_code == 400
    page = response.content.decode()
    assert "nothing was added" in page and "bad.txt:line 2: expected 4 columns" in page


def test_the_leaderboard_csv_ends_with_the_parent_means(micro, client, organizer):  # noqa: F811
    client.force_login(organizer)
    lines = client.get(f"/campaigns/{micro.pk}/leaderboard.csv").content.decode().splitlines()
    start = lines.index("parents_run,ndcg_prime,map_prime,p10_prime")
    assert lines[start + 1].split(",")[:2] == ["r1", "0.7500"]
