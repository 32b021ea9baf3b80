"""Writes of the pooling app: campaigns, collection, topic and run ingestion.

Every ingest validates the whole file and writes in the same pass, inside one transaction: a file with
any problem raises InputError after the pass, which rolls back everything it wrote.
"""
from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path

from django.contrib.auth.models import AbstractBaseUser
from django.db import IntegrityError, transaction
from django.db.models import Exists, OuterRef, Subquery, Value
from django.db.models.functions import Coalesce

from .bulk import bulk_insert
from .errors import InputError, Problem, Problems
from .formats import detect, formula_tsv, jsonl, se_xml, topics_xml
from .formats.runs import RunSummary, read_run
from .formats.textio import file_size, open_binary
from .models import Campaign, Collection, Comment, Formula, Post, Run, RunEntry, Topic

Progress = Callable[[float], None] | None
PROGRESS_EVERY = 20000


# --- campaigns ---------------------------------------------------------------------------------

def collection_get_or_create(*, name: str) -> Collection:
    name = name.strip()
    if not name:
        raise InputError("a collection needs a name")
    collection, _ = Collection.objects.get_or_create(name=name)
    return collection


@transaction.atomic
def campaign_create(
    *,
    name: str,
    task: str,
    collection_name: str | None = None,
    primary_depth: int | None = None,
    alternate_depth: int | None = None,
    instances: int | None = None,
    selection: str | None = None,
    seed: int | None = None,
    max_depth: int | None = None,
    user: AbstractBaseUser | None = None,
) -> Campaign:
    """Creates a campaign with the ARQMath-3 defaults of its task for every setting not given."""
    problems = []
    name = (name or "").strip()
    if not name:
        problems.append("a campaign needs a name")
    elif Campaign.objects.filter(name=name).exists():
        problems.append(f"a campaign named '{name}' already exists")
    if task not in Campaign.Task.values:
        problems.append(f"task must be one of {', '.join(Campaign.Task.values)}, not '{task}'")
    if selection is not None and selection not in Campaign.Selection.values:
        problems.append(f"selection must be one of {', '.join(Campaign.Selection.values)}, not '{selection}'")
    for label, value in (("primary depth", primary_depth), ("alternate depth", alternate_depth),
                         ("instances", instances), ("maximum depth", max_depth)):
        if value is not None and value < 1:
            problems.append(f"{label} must be at least 1, not {value}")
    if problems:
        raise InputError([Problem(None, p) for p in problems])
    default_primary, default_alternate = Campaign.DEFAULT_DEPTHS[task]
    return Campaign.objects.create(
        name=name,
        task=task,
        collection=collection_get_or_create(name=collection_name) if collection_name else None,
        primary_depth=primary_depth or default_primary,
        alternate_depth=alternate_depth or default_alternate,
        instances=instances or 5,
        selection=selection or Campaign.Selection.RR_VOTE,
        seed=seed if seed is not None else 0,
        max_depth=max_depth or 1000,
        created_by=user,
    )


# --- collection --------------------------------------------------------------------------------

# Posts before comments and formulas, the formula index before the extra SLT/OPT columns.
_KIND_ORDER = {"posts": 0, "jsonl": 0, "comments": 1, "formulas": 2, "formula_extra": 3}


@transaction.atomic
def collection_ingest(
    *, collection: Collection, paths: list[str | os.PathLike], names: list[str] | None = None,
    progress: Progress = None,
) -> dict:
    """Loads collection files (Posts.xml, Comments.xml, formula index TSVs, JSONL) all or nothing.

    Returns counts per kind and the warnings. `names` are the files' names to show in messages.
    """
    names = names or [Path(p).name for p in paths]
    kinds = []
    errors: list[Problem] = []
    for path, name in zip(paths, names, strict=True):
        try:
            kind = detect.collection_file_kind(path)
            kinds.append((_KIND_ORDER[kind], kind, path, name))
        except InputError as exc:
            errors.extend(Problem(p.line, p.message, name) for p in exc.problems)
    if errors:
        raise InputError(errors)
    kinds.sort(key=lambda k: k[0])
    sizes = [file_size(path) for _, _, path, _ in kinds]
    total_bytes = sum(sizes) or 1
    counts: dict[str, int] = {}
    warnings: list[str] = []
    problems_all: list[Problem] = []
    problem_total = 0
    for i, (_, kind, path, name) in enumerate(kinds):
        problems, file_warnings = Problems(file=name), Problems(file=name)
        file_progress = _part_of(progress, start=sum(sizes[:i]), size=sizes[i], total=total_bytes)
        # After a problem in an earlier file, later files are still read for their problems, not written.
        write = problem_total == 0
        counts[kind] = counts.get(kind, 0) + _ingest_collection_file(
            collection, kind, path, problems, file_warnings, write=write, progress=file_progress)
        problems_all.extend(problems.items)
        problem_total += problems.count
        warnings.extend(file_warnings.messages())
    if problem_total:
        raise InputError(problems_all, total=problem_total)
    return {"counts": counts, "warnings": warnings}


def _part_of(progress: Progress, *, start: int, size: int, total: int) -> Progress:
    """Progress of one file reported as progress of the whole upload."""
    if progress is None:
        return None
    return lambda fraction: progress((start + fraction * size) / total)


def _ingest_collection_file(collection, kind, path, problems, warnings, *, write, progress) -> int:
    with open_binary(path) as stream:
        if kind == "posts":
            rows = _post_rows(collection, se_xml.read_posts(stream, problems, warnings), problems)
            return _write_unique(Post, _POST_COLUMNS, rows, problems, write, stream, progress, "post")
        if kind == "jsonl":
            rows = _post_rows(collection, jsonl.read_jsonl(stream, problems), problems)
            return _write_unique(Post, _POST_COLUMNS, rows, problems, write, stream, progress, "post")
        if kind == "comments":
            rows = _comment_rows(collection, se_xml.read_comments(stream, problems), problems)
            return _write_unique(Comment, _COMMENT_COLUMNS, rows, problems, write, stream, progress, "comment")
        if kind == "formulas":
            rows = _formula_rows(collection, formula_tsv.read_formula_index(stream, problems))
            return _write_unique(Formula, _FORMULA_COLUMNS, rows, problems, write, stream, progress, "formula")
        return _formula_extra(collection, formula_tsv.read_formula_extra(stream, problems), problems, warnings,
                              write=write)


_POST_COLUMNS = ["collection", "post_id", "kind", "thread_id", "title", "body", "tags", "score", "created_at",
                 "owner_user_id", "accepted_answer_id"]
_COMMENT_COLUMNS = ["collection", "comment_id", "post_id", "score", "text", "user_id", "created_at"]
_FORMULA_COLUMNS = ["collection", "formula_id", "post_id", "thread_id", "type", "comment_id", "visual_id",
                    "old_visual_id", "issue", "latex", "slt", "opt"]


def _parse_datetime(value: str, line: int, problems: Problems) -> datetime | None:
    if not value:
        return None
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError:
        problems.add(line, f"CreationDate '{value}' is not an ISO date and time")
        return None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


def _post_rows(collection, records, problems) -> Iterator[tuple]:
    cid = collection.pk
    for r in records:
        yield r.line, (cid, r.post_id, r.kind, r.thread_id, r.title, r.body, r.tags, r.score,
                       _parse_datetime(r.created_at, r.line, problems), r.owner_user_id, r.accepted_answer_id)


def _comment_rows(collection, records, problems) -> Iterator[tuple]:
    cid = collection.pk
    for r in records:
        yield r.line, (cid, r.comment_id, r.post_id, r.score, r.text, r.user_id,
                       _parse_datetime(r.created_at, r.line, problems))


def _formula_rows(collection, records) -> Iterator[tuple]:
    cid = collection.pk
    for r in records:
        yield r.line, (cid, r.formula_id, r.post_id, r.thread_id, r.type, r.comment_id, r.visual_id,
                       r.old_visual_id, r.issue, r.latex, "", "")


def _write_unique(model, columns, numbered_rows, problems: Problems, write: bool, stream, progress, noun) -> int:
    """Streams (line, row) pairs into the table; a duplicate id becomes a line-numbered problem.

    Once a problem has been seen nothing more is written (the transaction will be rolled back), but the
    file is read to the end so that every problem is reported.
    """
    size = os.fstat(stream.fileno()).st_size or 1

    def rows() -> Iterator[tuple]:
        for n, (_line, row) in enumerate(numbered_rows, 1):
            if n % PROGRESS_EVERY == 0 and progress:
                progress(stream.tell() / size)
            if write and not problems:
                yield row

    if not write:
        return sum(1 for _ in rows())
    try:
        with transaction.atomic():
            count = bulk_insert(model, columns, rows())
    except IntegrityError:
        # The id column is the second one; look for the repeated ids again, now that we know there are some.
        _report_duplicates(model, columns[1], stream, problems, noun)
        return 0
    if progress:
        progress(1.0)
    return count


def _report_duplicates(model, id_column: str, stream, problems: Problems, noun: str) -> None:
    """Second pass, only after a unique-constraint failure: which ids repeat, and on which lines."""
    stream.seek(0)
    reader = {"post": _reread_posts, "comment": _reread_comments, "formula": _reread_formulas}[noun]
    first_line: dict[str, int] = {}
    scratch = Problems()
    for line, item_id in reader(stream, scratch):
        if item_id in first_line:
            problems.add(line, f"{noun} id '{item_id}' appears twice (first on line {first_line[item_id]})")
        else:
            first_line[item_id] = line
    if not problems:
        # Not repeated in the file: the ids are already in the collection.
        existing = set(model.objects.filter(**{f"{id_column}__in": list(first_line)[:100000]})
                       .values_list(id_column, flat=True))
        for item_id, line in first_line.items():
            if item_id in existing:
                problems.add(line, f"{noun} id '{item_id}' is already in the collection")
    if not problems:
        problems.add(None, f"a {noun} id is repeated")


def _reread_posts(stream, scratch):
    first = stream.read(4096).lstrip(b"\xef\xbb\xbf \t\r\n")[:1]
    stream.seek(0)
    records = jsonl.read_jsonl(stream, scratch) if first == b"{" else se_xml.read_posts(stream, scratch, Problems())
    return ((r.line, r.post_id) for r in records)


def _reread_comments(stream, scratch):
    return ((r.line, r.comment_id) for r in se_xml.read_comments(stream, scratch))


def _reread_formulas(stream, scratch):
    return ((r.line, r.formula_id) for r in formula_tsv.read_formula_index(stream, scratch))


def _formula_extra(collection, records, problems: Problems, warnings: Problems, *, write: bool) -> int:
    """Sets the SLT or OPT string of formulas already loaded; ids not in the index are a warning."""
    updated = missing = 0
    by_column: dict[str, list[tuple[str, str]]] = {}
    for r in records:
        by_column.setdefault(r.column, []).append((r.formula_id, r.value))
        if sum(len(v) for v in by_column.values()) >= 5000:
            u, m = _apply_formula_extra(collection, by_column, write and not problems)
            updated, missing, by_column = updated + u, missing + m, {}
    u, m = _apply_formula_extra(collection, by_column, write and not problems)
    updated, missing = updated + u, missing + m
    if missing:
        warnings.add(None, f"{missing} formula ids are not in the collection's formula index")
    return updated


def _apply_formula_extra(collection, by_column, write: bool) -> tuple[int, int]:
    updated = missing = 0
    for column, pairs in by_column.items():
        formulas = {f.formula_id: f for f in Formula.objects.filter(
            collection=collection, formula_id__in=[fid for fid, _ in pairs]).only("pk", "formula_id")}
        changed = []
        for fid, value in pairs:
            formula = formulas.get(fid)
            if formula is None:
                missing += 1
                continue
            setattr(formula, column, value)
            changed.append(formula)
        if write:
            Formula.objects.bulk_update(changed, [column], batch_size=1000)
        updated += len(changed)
    return updated, missing


# --- topics ------------------------------------------------------------------------------------

@transaction.atomic
def topics_ingest(*, campaign: Campaign, path: str | os.PathLike, filename: str | None = None) -> dict:
    """Adds the topics of an ARQMath topic file to a campaign; topics already there are updated."""
    problems = Problems(file=filename or Path(path).name)
    with open_binary(path) as stream:
        records = topics_xml.read_topics(stream, problems, task=campaign.task)
    problems.raise_if_any()
    existing = {t.topic_id: t for t in campaign.topics.all()}
    created, updated = [], []
    for position, r in enumerate(records):
        values = {"position": position, "title": r.title, "question": r.question, "tags": r.tags,
                  "formula_id": r.formula_id, "latex": r.latex}
        topic = existing.get(r.topic_id)
        if topic is None:
            created.append(Topic(campaign=campaign, topic_id=r.topic_id, **values))
        elif any(getattr(topic, k) != v for k, v in values.items()):
            for k, v in values.items():
                setattr(topic, k, v)
            updated.append(topic)
    Topic.objects.bulk_create(created, batch_size=1000)
    Topic.objects.bulk_update(updated, ["position", "title", "question", "tags", "formula_id", "latex"],
                              batch_size=1000)
    return {"created": len(created), "updated": len(updated), "total": len(records)}


# --- runs --------------------------------------------------------------------------------------

def file_checksum(path: str | os.PathLike) -> str:
    with open(path, "rb") as stream:
        return hashlib.file_digest(stream, "sha256").hexdigest()


@transaction.atomic
def run_ingest(
    *,
    campaign: Campaign,
    path: str | os.PathLike,
    name: str | None = None,
    filename: str | None = None,
    alternate: bool = False,
    manual: bool = False,
    baseline: bool = False,
    user: AbstractBaseUser | None = None,
    progress: Progress = None,
) -> Run:
    """Validates a run file and stores its rows; the run is named after the file unless `name` is given."""
    filename = filename or Path(path).name
    name = (name or Path(filename).stem).strip()
    if Run.objects.filter(campaign=campaign, name=name).exists():
        raise InputError(f"the campaign already has a run named '{name}'")
    topics = dict(campaign.topics.values_list("topic_id", "pk"))
    if not topics:
        raise InputError("the campaign has no topics yet: ingest its topics before its runs")
    checksum = file_checksum(path)
    run = Run.objects.create(campaign=campaign, name=name, alternate=alternate, manual=manual, baseline=baseline,
                             checksum=checksum, uploaded_by=user)
    problems, warnings = Problems(file=filename), Problems(file=filename)
    summary = RunSummary()
    size = file_size(path) or 1
    with open_binary(path) as stream:
        rows = read_run(stream, problems, warnings, topics=topics, task=campaign.task,
                        max_depth=campaign.max_depth, summary=summary)
        bulk_insert(RunEntry, ["run", "topic", "item_id", "post_id", "rank", "score"],
                    _entry_rows(run.pk, topics, rows, problems, stream, size, progress))
    problems.raise_if_any()
    if summary.format == "trec" and campaign.task == Campaign.Task.FORMULAS and campaign.collection_id:
        _fill_post_ids(run, campaign.collection_id)
    run.format = summary.format
    run.tag = ", ".join(sorted(summary.tags))[:200]
    run.row_count = summary.rows
    run.topic_count = len(summary.topic_rows)
    run.warnings = warnings.messages() + _collection_warnings(run, campaign) + _same_file_warning(run)
    run.save(update_fields=["format", "tag", "row_count", "topic_count", "warnings"])
    return run


def _entry_rows(run_id, topics, rows, problems: Problems, stream, size, progress) -> Iterator[tuple]:
    for row in rows:
        if problems.count:
            continue  # keep reading to report every problem; nothing more is written
        if progress and row.line % PROGRESS_EVERY == 0:
            progress(stream.tell() / size)
        yield run_id, topics[row.topic_id], row.item_id, row.post_id, row.rank, row.score


def _fill_post_ids(run: Run, collection_id: int) -> None:
    """A TREC-format formula run names formula ids only: take their posts from the formula index."""
    post = Formula.objects.filter(collection_id=collection_id, formula_id=OuterRef("item_id")).values("post_id")[:1]
    RunEntry.objects.filter(run=run).update(post_id=Coalesce(Subquery(post), Value("")))


def _collection_warnings(run: Run, campaign: Campaign) -> list[str]:
    if not campaign.collection_id:
        return []
    collection = campaign.collection
    table = collection.posts if campaign.task == Campaign.Task.ANSWERS else collection.formulas
    if not table.exists():
        return [f"the collection '{collection}' has no {'posts' if campaign.task == 'answers' else 'formulas'} "
                "yet: the run's ids were not checked against it"]
    if campaign.task == Campaign.Task.ANSWERS:
        known = Post.objects.filter(collection_id=campaign.collection_id, post_id=OuterRef("item_id"))
        noun = "post"
    else:
        known = Formula.objects.filter(collection_id=campaign.collection_id, formula_id=OuterRef("item_id"))
        noun = "formula"
    unknown = RunEntry.objects.filter(run=run).exclude(Exists(known))
    count = unknown.count()
    if not count:
        return []
    sample = ", ".join(unknown.order_by("topic_id", "rank").values_list("item_id", flat=True)[:5])
    return [f"{count} {noun} ids are not in the collection '{campaign.collection}' (for example {sample})"]


def _same_file_warning(run: Run) -> list[str]:
    twin = Run.objects.filter(campaign=run.campaign, checksum=run.checksum).exclude(pk=run.pk).first()
    return [f"the file is identical to run '{twin.name}'"] if twin else []
