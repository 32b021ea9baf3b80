"""Results across editions (docs/evaluation.md "Results across editions"): the same run files scored against
several editions' qrels (ARQMath 2020, 2021, 2022), each under its label, with significance per edition, and the
MIRMU paper's Table 2 (one row per run, a column group per edition) in LaTeX or CSV."""
from __future__ import annotations

import csv
import io
import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from core.downloads import spreadsheet_safe
from evaluation import analysis_services, scoring, services
from evaluation.models import EditionQrels
from ir import statistics as analysis
from ir.formats.qrels import qrels_by_topic
from ir.grades import RELEVANCE_LEVEL
from ir.latex import HEADINGS, latex_escape
from ir.prime import MEASURES, Qrels, finite, format_value
from ir.problems import InputError, Problems
from pooling.models import Campaign


@dataclass
class Edition:
    label: str
    evaluation: services.Evaluation


def edition_labels(qrels_paths: Sequence[str | os.PathLike], labels: Sequence[str]) -> list[str]:
    """Each qrels file's label: the one given (in order), else the file's name."""
    if labels and len(labels) != len(qrels_paths):
        raise InputError(f"{len(labels)} labels for {len(qrels_paths)} qrels files: give one --label per --qrels, in "
                         "order, or none (each edition is then named after its qrels file)")
    found = list(labels) or [Path(path).name for path in qrels_paths]
    problems = [f"the label '{label}' is given to two editions" for label in sorted(set(found))
                if found.count(label) > 1]
    problems += ["a label must not be empty or hold a tab or a line break" for label in found
                 if not label.strip() or any(c in label for c in "\t\r\n")][:1]
    if problems:
        raise InputError(problems)
    return found


def evaluate_editions(*, qrels_paths: Sequence[str | os.PathLike], labels: Sequence[str] = (),
                      run_paths: Sequence[str | os.PathLike], task: str | None = None,
                      formula_index_paths: Sequence[str | os.PathLike] = (), all_topics: bool = False,
                      measures: Sequence[str] = (), relevance_level: int = RELEVANCE_LEVEL) -> list[Edition]:
    """The runs scored against each qrels file as `evaluate --qrels FILE RUN...` scores them (`services.evaluate_files`:
    each file's own topics; a run's topics that a qrels lacks are left out of that edition)."""
    names = edition_labels(qrels_paths, labels)
    return [Edition(label, services.evaluate_files(
        qrels_path=path, run_paths=run_paths, task=task, formula_index_paths=formula_index_paths,
        all_topics=all_topics, measures=measures, relevance_level=relevance_level))
        for label, path in zip(names, qrels_paths, strict=True)]


def edition_lines(editions: Sequence[Edition], *, per_topic: bool = False, labelled: bool = True) -> Iterator[str]:
    """`evaluate`'s table of each edition in turn (`Evaluation.lines`): run<TAB>measure<TAB>topic<TAB>value, with
    `labelled` (several qrels, or one named by --label) the edition's label after the run."""
    for edition in editions:
        yield from edition.evaluation.lines(per_topic=per_topic, label=edition.label if labelled else None)


def edition_significance_lines(editions: Sequence[Edition], *, labelled: bool = True, baseline: str | None = None,
                               permutations: int = analysis.PERMUTATIONS, seed: int = analysis.SEED
                               ) -> Iterator[str]:
    """The significance table of each edition (the t-test, the randomization test and Wilcoxon's signed-rank test,
    with Holm's correction within the edition), with `labelled` a label column first."""
    yield ("label\t" if labelled else "") + analysis.SIGNIFICANCE_HEADER
    for edition in editions:
        rows = analysis_services.significance_table(edition.evaluation, baseline=baseline, seed=seed,
                                                    permutations=permutations)
        for row in rows:
            yield (f"{edition.label}\t" if labelled else "") + analysis.comparison_line(row)


# The MIRMU paper's Table 2: a row per run, a column group per edition --------------------------------------------


def _table(editions: Sequence[Edition]) -> tuple[list[str], dict[tuple[str, str, str], float | None]]:
    runs: list[str] = []
    values: dict[tuple[str, str, str], float | None] = {}
    for edition in editions:
        for scores in edition.evaluation.runs:
            if scores.name not in runs:
                runs.append(scores.name)
            for measure in MEASURES:
                values[scores.name, edition.label, measure] = finite(scores.means.get(measure, float("nan")))
    return runs, values


def editions_rows(editions: Sequence[Edition], *, order: Sequence[str] = ()) -> list[tuple[str, list[float | None]]]:
    """The same table for a page: each run (those in `order` first, in that order) with its value of every edition
    and measure (None: no topic of that edition), the columns of `edition_columns`."""
    runs, values = _table(editions)
    ranked = [run for run in order if run in runs] + [run for run in runs if run not in order]
    return [(run, [values.get((run, label, measure)) for label, measure in edition_columns(editions)])
            for run in ranked]


def edition_columns(editions: Sequence[Edition]) -> list[tuple[str, str]]:
    """(label, measure) of each column of the editions table: a group of the prime measures per edition."""
    return [(edition.label, measure) for edition in editions for measure in MEASURES]


def editions_latex(editions: Sequence[Edition], *, caption: str = "Results across editions") -> str:
    """A LaTeX table (booktabs): a Run column, then per edition a group of nDCG', MAP' and P'@10 under the edition's
    label; the best value of each column in bold."""
    runs, values = _table(editions)
    columns = [(edition.label, measure) for edition in editions for measure in MEASURES]
    best = {column: max((v for run in runs if (v := values.get((run, *column))) is not None), default=None)
            for column in columns}
    groups = " & ".join(rf"\multicolumn{{{len(MEASURES)}}}{{c}}{{{latex_escape(edition.label)}}}"
                        for edition in editions)
    rules = " ".join(rf"\cmidrule(lr){{{2 + i * len(MEASURES)}-{1 + (i + 1) * len(MEASURES)}}}"
                     for i in range(len(editions)))
    lines = [r"\begin{table}", r"\centering", rf"\caption{{{latex_escape(caption)}}}",
             rf"\begin{{tabular}}{{l{'c' * len(columns)}}}", r"\toprule", rf" & {groups} \\", rules,
             "Run & " + " & ".join(HEADINGS[measure] for _label, measure in columns) + r" \\", r"\midrule"]
    for run in runs:
        cells = [latex_escape(run)]
        for column in columns:
            value = values.get((run, *column))
            text = format_value(value) if value is not None else "--"
            cells.append(rf"\textbf{{{text}}}" if value is not None and value == best[column] else text)
        lines.append(" & ".join(cells) + r" \\")
    lines += [r"\bottomrule", r"\end{tabular}", r"\end{table}", ""]
    return "\n".join(lines)


def editions_csv(editions: Sequence[Edition]) -> str:
    """The same table in CSV: run, then a column per edition and measure, named `LABEL MEASURE`."""
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerows(editions_csv_rows(editions))
    return out.getvalue()


def editions_csv_rows(editions: Sequence[Edition], *, first: str = "run") -> Iterator[list[str]]:
    """editions_csv's rows, for a writer of another CSV (the leaderboard's, which ends with this table, its first
    column named `first`)."""
    columns = edition_columns(editions)
    yield [first, *(spreadsheet_safe(f"{label} {measure}") for label, measure in columns)]
    for run, cells in editions_rows(editions):
        yield [spreadsheet_safe(run), *(format_value(v) if v is not None else "" for v in cells)]


# A campaign's earlier editions: their qrels files, and its runs scored against them ------------------------------


def edition_add(*, campaign: Campaign, label: str, data: bytes, filename: str = "", user=None) -> EditionQrels:
    """Adds an earlier edition's qrels file to the campaign under `label`: the file is read whole and rejected with
    every problem and its line (nothing stored) when it has any."""
    label = label.strip()
    edition_labels(["qrels"], [label])  # the label's own rules
    if len(label) > 100:
        raise InputError(f"the label '{label[:40]}...' is longer than 100 characters")
    if label == campaign.name or EditionQrels.objects.filter(campaign=campaign, label=label).exists():
        raise InputError(f"the campaign already has an edition labelled '{label}'")
    problems = Problems(file=filename or "qrels")
    qrels = qrels_by_topic(io.BytesIO(data), problems)
    if problems:
        raise InputError.of(problems)
    if not qrels:
        raise InputError(f"{filename or 'the file'}: the qrels file has no judgments")
    return EditionQrels.objects.create(
        campaign=campaign, label=label, filename=filename[:255], qrels=data.decode("utf-8-sig"),
        judgments=sum(len(items) for items in qrels.values()), topics=len(qrels),
        uploaded_by=user if getattr(user, "is_authenticated", False) else None)


def campaign_editions(*, campaign: Campaign) -> list[tuple[str, Qrels]]:
    """The campaign's earlier editions, in the order they were added: (label, qrels)."""
    found: list[tuple[str, Qrels]] = []
    for edition in EditionQrels.objects.filter(campaign=campaign):
        found.append((edition.label, qrels_by_topic(io.BytesIO(edition.qrels.encode("utf-8")), Problems())))
    return found


def evaluate_campaign_edition(*, campaign: Campaign, qrels: Qrels, all_topics: bool = False) -> services.Evaluation:
    """The campaign's runs (but its Task 3 runs) scored against another edition's qrels, from their stored rows, as
    `evaluate --qrels FILE` scores their files (`scoring.score`): the prime measures over the topics of that qrels, at
    the campaign's relevance level. A formula campaign's runs are scored by the visual ids the campaign pools by."""
    scores = scoring.score(scoring.StoredRuns(campaign), scoring.Judgments(qrels), all_topics=all_topics)
    return services.Evaluation(runs=scores.runs, qrels_topics=len(scores.topics), all_topics=all_topics,
                               measures=scores.measures, topics=scores.topics, relevance_level=scores.relevance_level)


def campaign_edition_scores(*, campaign: Campaign, all_topics: bool = False) -> list[Edition]:
    """The campaign's runs scored against each earlier edition, in the order added: what the leaderboard's snapshot
    stores (snapshots.py) and the report command computes, one computation for both."""
    return [Edition(label, evaluate_campaign_edition(campaign=campaign, qrels=qrels, all_topics=all_topics))
            for label, qrels in campaign_editions(campaign=campaign)]


def editions_stamp(*, campaign: Campaign) -> str:
    """What the editions' scores depend on besides the runs and the campaign's judgments: the editions themselves."""
    return "|".join(f"{pk}:{label}" for pk, label in
                    EditionQrels.objects.filter(campaign=campaign).order_by("pk").values_list("pk", "label"))


def campaign_edition_results(*, campaign: Campaign, own: services.Evaluation, all_topics: bool = False,
                             earlier: Sequence[Edition] | None = None) -> list[Edition]:
    """The campaign's own scores (labelled with its name) and those against each earlier edition (`earlier`, as
    campaign_edition_scores gives them; computed now when None): the column groups of the report's editions table.
    Empty when the campaign has no earlier edition."""
    found = campaign_edition_scores(campaign=campaign, all_topics=all_topics) if earlier is None else list(earlier)
    if not found:
        return []
    return [Edition(campaign.name, own), *found]
