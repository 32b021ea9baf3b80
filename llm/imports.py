"""Grades an LLM gave elsewhere (docs/llm.md, "Grades from elsewhere"): a TREC qrels file, its lines optionally
followed by each grade's probability, stored as one model's LlmGrade rows under a prompt row that names the file, so
that every LLM view (agreement, the LLM board, export_qrels --source llm:MODEL) reads them as it reads llm_judge's.
All or nothing: every line is checked before anything is written, and a file with any problem changes nothing."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import BinaryIO

from django.db import transaction
from django.template.defaultfilters import pluralize

from ir.formats.qrels import read_qrels_probabilities
from ir.llm_replies import FILE, SINGLE
from ir.problems import InputError, Problems
from llm.models import LlmGrade, Prompt
from pooling.models import Campaign, PoolItem

# The name of the prompt rows imported grades name: one version per import, its text saying which file.
IMPORTED_PROMPT = "imported"
# How many of the lines naming items outside the pools a warning names.
OUTSIDE_SHOWN = 5
# Rows inserted per statement.
BATCH = 2000
MODEL_MAX = LlmGrade._meta.get_field("model").max_length or 200
FILENAME_SHOWN = 200


@dataclass
class LlmImportResult:
    """What an import stored: `imported` grades of `model` under `prompt` ("imported vN"), `replaced` the model's
    grades of an earlier import that were removed, and the lines of items outside the pools (counted, not stored)."""

    model: str
    prompt: str
    imported: int
    with_probabilities: bool
    replaced: int = 0
    outside_pool: int = 0
    outside_examples: list[str] = field(default_factory=list)

    def summary(self) -> str:
        probabilities = "with" if self.with_probabilities else "without"
        replaced = (f", replacing the {self.replaced:,} grade{pluralize(self.replaced)} of its earlier import"
                    if self.replaced else "")
        return (f"Imported {self.imported:,} grade{pluralize(self.imported)} of model {self.model} "
                f"({probabilities} probabilities) as {self.prompt}{replaced}.")

    def warnings(self) -> list[str]:
        if not self.outside_pool:
            return []
        more = ", ..." if self.outside_pool > len(self.outside_examples) else ""
        n = self.outside_pool
        return [f"{n:,} line{pluralize(n)} name{pluralize(n, 's,')} items outside the pools, not stored: "
                f"{', '.join(self.outside_examples)}{more}"]


def _model_checked(model: str) -> str:
    model = (model or "").strip()
    if not model:
        raise InputError("name the model whose grades these are")
    if len(model) > MODEL_MAX:
        raise InputError(f"the model's name has {len(model):,} characters, more than {MODEL_MAX}")
    return model


@transaction.atomic
def llm_grades_import(*, campaign: Campaign, model: str, stream: BinaryIO, filename: str = "") -> LlmImportResult:
    """Stores the grades of a qrels file (`topic 0 item grade`, optionally followed by one probability per grade of
    the campaign's scheme, lowest grade first) as `model`'s, replacing that model's grades of an earlier import (its
    grades from llm_judge stay). Refused with every problem and its line: a malformed line, a grade the scheme does
    not have, probabilities that are not numbers from 0 to 1 summing to 1, a topic not of the campaign. Lines of
    items outside the pools are counted and named in a warning, not stored; a file with none in the pools is
    refused."""
    model = _model_checked(model)
    filename = filename[:FILENAME_SHOWN]
    scheme = campaign.judging_scheme
    grades = sorted(g.value for g in scheme.grades)
    problems = Problems(file=filename)
    topics = dict(campaign.topics.values_list("topic_id", "pk"))
    pooled = set(PoolItem.objects.filter(campaign=campaign).values_list("topic_id", "item_id"))
    rows: list[tuple[int, str, int, dict[int, float] | None]] = []
    outside = 0
    examples: list[str] = []
    for record, probabilities in read_qrels_probabilities(stream, problems, grades=grades):
        if record.grade not in grades:
            problems.add(record.line, f"grade {record.grade} is not a grade of the campaign's scheme "
                                      f"({scheme.scale})")
            continue
        topic_pk = topics.get(record.topic_id)
        if topic_pk is None:
            problems.add(record.line, f"topic '{record.topic_id}' is not a topic of campaign '{campaign.name}'")
            continue
        if (topic_pk, record.item_id) not in pooled:
            outside += 1
            if len(examples) < OUTSIDE_SHOWN:
                examples.append(f"{record.topic_id} {record.item_id} (line {record.line})")
            continue
        rows.append((topic_pk, record.item_id, record.grade, probabilities))
    problems.raise_if_any()
    if not rows:
        where = f"{filename}: " if filename else ""
        raise InputError(f"{where}no grade of a pool item to import" +
                         (f" ({outside:,} line{pluralize(outside)} name{pluralize(outside, 's,')} items outside the "
                          "pools)" if outside else ""))

    with_probabilities = rows[0][3] is not None
    latest = Prompt.objects.select_for_update().filter(name=IMPORTED_PROMPT).order_by("-version").first()
    prompt = Prompt.objects.create(
        name=IMPORTED_PROMPT, version=latest.version + 1 if latest else 1, task=Prompt.Task.IMPORTED,
        text=f"Grades of model {model} imported from {filename or 'a file'} into campaign '{campaign.name}': "
             f"{len(rows):,} grades, {'with' if with_probabilities else 'without'} probabilities.")
    _total, deleted = LlmGrade.objects.filter(campaign=campaign, model=model,
                                              prompt__task=Prompt.Task.IMPORTED).delete()
    LlmGrade.objects.bulk_create(
        (LlmGrade(campaign=campaign, topic_id=topic_pk, item_id=item_id, model=model, prompt=prompt, grade=grade,
                  probabilities={str(g): (probabilities[g] if probabilities else float(g == grade)) for g in grades},
                  probability_source=FILE if probabilities else SINGLE)
         for topic_pk, item_id, grade, probabilities in rows), batch_size=BATCH)
    return LlmImportResult(model=model, prompt=str(prompt), imported=len(rows), with_probabilities=with_probabilities,
                           replaced=deleted.get(LlmGrade._meta.label, 0), outside_pool=outside,
                           outside_examples=examples)
