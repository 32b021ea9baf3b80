"""Writes of the pooling app: campaigns, collection, topic and run ingestion.

Every ingest validates the whole file and writes in the same pass, inside one transaction: a file with
any problem raises InputError after the pass, which rolls back everything it wrote.
"""
from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path

from django.contrib.auth.models import AbstractBaseUser
from django.db import IntegrityError, connection, transaction
from django.db.models import F, OuterRef, Subquery, Value
from django.db.models.functions import Coalesce

from .bulk import NULL, bulk_insert, copy_text, copy_value, insert_rows
from .errors import MAX_KEPT, InputError, Problem, Problems
from .formats import detect, formula_tsv, jsonl, se_xml, topics_xml
from .formats.runs import RunSummary, read_run
from .formats.textio import ID_MAX, file_size, open_binary
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
    elif len(name) > Campaign._meta.get_field("name").max_length:
        problems.append("a campaign name has at most 100 characters")
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
_KIND_ORDER = {"posts": 0, "jsonl": 0, "comments": 1, "formulas": 2, "formula_extra": 3, "slt_index": 3,
               "opt_index": 3}
_INT_RANGE = (-(2**31), 2**31 - 1)


@transaction.atomic
def collection_ingest(
    *, collection_name: str, paths: list[str | os.PathLike], names: list[str] | None = None,
    progress: Progress = None,
) -> dict:
    """Loads collection files (Posts.xml, Comments.xml, formula index TSVs, JSONL) all or nothing.

    The collection is created if needed, inside the same transaction: a rejected first load leaves no
    empty collection behind. Returns the collection's id, counts per kind and the warnings.
    """
    collection = collection_get_or_create(name=collection_name)
    names = names or [Path(p).name for p in paths]
    files = _collection_files(paths, names)
    sizes = [file_size(path) for _, path, _ in files]
    total_bytes = sum(sizes) or 1
    counts: dict[str, int] = {}
    warnings: list[str] = []
    problems_all: list[Problem] = []
    problem_total = 0
    for i, (kind, path, name) in enumerate(files):
        problems, file_warnings = Problems(file=name), Problems(file=name)
        # After a problem in an earlier file, later files are still read for their problems, not written.
        write = problem_total == 0
        loaded = _ingest_collection_file(
            collection, kind, path, problems, file_warnings, write=write,
            progress=_part_of(progress, start=sum(sizes[:i]), size=sizes[i], total=total_bytes))
        counts[kind] = counts.get(kind, 0) + loaded
        problems_all.extend(problems.in_line_order())
        problem_total += problems.count
        warnings.extend(file_warnings.messages())
    if problem_total:
        raise InputError(problems_all, total=problem_total)
    Collection.objects.filter(pk=collection.pk).update(
        post_count=F("post_count") + counts.get("posts", 0) + counts.get("jsonl", 0),
        comment_count=F("comment_count") + counts.get("comments", 0),
        formula_count=F("formula_count") + counts.get("formulas", 0))
    _analyze([Post, Comment, Formula])
    return {"collection": collection.pk, "counts": counts, "warnings": warnings}


def _analyze(models) -> None:
    """Fresh planner statistics after a bulk load: without them PostgreSQL takes a table of a million rows
    for an empty one, and the id lookups of run_collection_check went from 30 ms to 4 s."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            for model in models:
                cursor.execute(f"ANALYZE {connection.ops.quote_name(model._meta.db_table)}")


def _collection_files(paths, names) -> list[tuple[str, str, str]]:
    """(kind, path, name) of every file in loading order, or InputError for files of no known kind."""
    files, errors = [], []
    for path, name in zip(paths, names, strict=True):
        try:
            kind = detect.collection_file_kind(path)
        except InputError as exc:
            errors.extend(Problem(p.line, p.message, name) for p in exc.problems)
            continue
        if kind == "formulas":
            kind = _representation(name) or kind
        files.append((kind, path, name))
    if errors:
        raise InputError(errors)
    return sorted(files, key=lambda f: _KIND_ORDER[f[0]])


def _representation(name: str) -> str | None:
    """ARQMath ships SLT and OPT strings as files shaped like the index (slt_representation_v3/...):
    a formula-index file whose name says slt or opt fills that column of formulas already loaded."""
    words = set(re.split(r"[^a-z]+", name.lower()))
    if "slt" in words:
        return "slt_index"
    if "opt" in words:
        return "opt_index"
    return None


def _part_of(progress: Progress, *, start: int, size: int, total: int) -> Progress:
    """Progress of one file reported as progress of the whole upload."""
    if progress is None:
        return None
    return lambda fraction: progress((start + fraction * size) / total)


def _ingest_collection_file(collection, kind, path, problems, warnings, *, write, progress) -> int:
    with open_binary(path) as stream:
        if kind in ("posts", "jsonl"):
            def read(s, p, w=None):
                return se_xml.read_posts(s, p, w or Problems()) if kind == "posts" else jsonl.read_jsonl(s, p)

            rows = _post_rows(collection, read(stream, problems, warnings), problems)
            target = _Target(Post, _POST_COLUMNS, "post", lambda s, p: ((r.line, r.post_id) for r in read(s, p)),
                             copy_line=_post_line)
        elif kind == "comments":
            rows = _comment_rows(collection, se_xml.read_comments(stream, problems), problems)
            target = _Target(Comment, _COMMENT_COLUMNS, "comment",
                             lambda s, p: ((r.line, r.comment_id) for r in se_xml.read_comments(s, p)))
        elif kind == "formulas":
            rows = _formula_rows(collection, formula_tsv.read_formula_index(stream, problems), problems)
            target = _Target(Formula, _FORMULA_COLUMNS, "formula",
                             lambda s, p: ((r.line, r.formula_id) for r in formula_tsv.read_formula_index(s, p)))
        else:
            if kind == "formula_extra":
                records = ((r.formula_id, r.column, r.value) for r in formula_tsv.read_formula_extra(stream, problems))
            else:
                column = kind.removesuffix("_index")
                records = ((r.formula_id, column, r.latex)
                           for r in formula_tsv.read_formula_index(stream, problems))
            return _formula_extra(collection, records, problems, warnings, write=write)
        return _write_unique(collection, target, rows, problems, stream, write=write, progress=progress)


class _Rejected(Exception):
    pass


class _Target:
    """Where a collection file goes: the model, its columns, what its ids are called, how to re-read ids."""

    def __init__(self, model, columns, noun, reread, copy_line=None) -> None:
        self.model, self.columns, self.noun, self.reread = model, columns, noun, reread
        self.copy_line = copy_line
        self.id_column = model._meta.get_field(columns[1]).column


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


def _fits(line: int, problems: Problems, score: int | None, *ids: tuple[str, str]) -> bool:
    """Values the readers accept but the columns cannot hold: reported with their line, not a crash."""
    ok = True
    for label, value in ids:
        if len(value) > ID_MAX:
            problems.add(line, f"{label} '{value[:20]}...' is longer than {ID_MAX} characters")
            ok = False
    if score is not None and not _INT_RANGE[0] <= score <= _INT_RANGE[1]:
        problems.add(line, f"Score {score} is out of range")
        ok = False
    return ok


def _post_rows(collection, records, problems) -> Iterator[tuple]:
    cid = collection.pk
    for r in records:
        if _fits(r.line, problems, r.score, ("post id", r.post_id), ("thread id", r.thread_id),
                 ("OwnerUserId", r.owner_user_id), ("AcceptedAnswerId", r.accepted_answer_id)):
            yield (cid, r.post_id, r.kind, r.thread_id, r.title, r.body, r.tags, r.score,
                   _parse_datetime(r.created_at, r.line, problems), r.owner_user_id, r.accepted_answer_id)


def _post_line(row: tuple) -> str:
    """A post as COPY text, without the generic per-value dispatch (a Posts.xml has millions of rows)."""
    cid, post_id, kind, thread_id, title, body, tags, score, created, owner, accepted = row
    return (f"{cid}\t{copy_text(post_id)}\t{kind}\t{copy_text(thread_id)}\t{copy_text(title)}\t{copy_text(body)}\t"
            f"{copy_text(tags)}\t{NULL if score is None else score}\t"
            f"{NULL if created is None else created.isoformat()}\t{copy_text(owner)}\t{copy_text(accepted)}\n")


def _comment_rows(collection, records, problems) -> Iterator[tuple]:
    cid = collection.pk
    for r in records:
        if _fits(r.line, problems, r.score, ("comment id", r.comment_id), ("post id", r.post_id),
                 ("UserId", r.user_id)):
            yield (cid, r.comment_id, r.post_id, r.score, r.text, r.user_id,
                   _parse_datetime(r.created_at, r.line, problems))


def _formula_rows(collection, records, problems) -> Iterator[tuple]:
    cid = collection.pk
    for r in records:
        if _fits(r.line, problems, None, ("formula id", r.formula_id), ("post id", r.post_id),
                 ("thread id", r.thread_id), ("comment id", r.comment_id), ("visual id", r.visual_id),
                 ("old visual id", r.old_visual_id)):
            yield (cid, r.formula_id, r.post_id, r.thread_id, r.type, r.comment_id, r.visual_id,
                   r.old_visual_id, r.issue, r.latex, "", "")


def _write_unique(collection, target: _Target, rows, problems: Problems, stream, *, write, progress) -> int:
    """Streams rows into the table; repeated ids are found by the unique constraint while writing.

    Once a problem has been seen nothing more is written (the transaction will be rolled back), but the
    file is read to the end so that every problem is reported; the ids are then checked once more.
    """
    size = os.fstat(stream.fileno()).st_size or 1

    def writable() -> Iterator[tuple]:
        for n, row in enumerate(rows, 1):
            if progress and n % PROGRESS_EVERY == 0:
                progress(stream.tell() / size)
            if write and not problems.count:
                yield row

    count, rejected = 0, not write
    try:
        with transaction.atomic():
            count = bulk_insert(target.model, target.columns, writable(), copy_line=target.copy_line)
            if problems.count:
                raise _Rejected  # undo the rows written before the first problem, then look for more
    except (IntegrityError, _Rejected):
        rejected = True
    if rejected:
        _report_repeated_ids(collection, target, stream, problems)
        return 0
    if progress:
        progress(1.0)
    return count


def _report_repeated_ids(collection, target: _Target, stream, problems: Problems) -> None:
    """Ids repeated in the file or already in the collection, each with its line.

    Only when a file is rejected anyway: its ids go into a temporary table and the database finds
    them, so the check streams like the load itself.
    """
    stream.seek(0)
    ids = ((line, item_id) for line, item_id in target.reread(stream, Problems()) if len(item_id) <= ID_MAX)
    table = connection.ops.quote_name(target.model._meta.db_table)
    column = connection.ops.quote_name(target.id_column)
    noun = target.noun
    with connection.cursor() as cursor:
        cursor.execute("DROP TABLE IF EXISTS ingest_ids")
        cursor.execute("CREATE TEMPORARY TABLE ingest_ids (line integer, item_id varchar(64))")
        insert_rows("ingest_ids", ["line", "item_id"], ids)
        cursor.execute("CREATE INDEX ingest_ids_item ON ingest_ids (item_id)")
        repeated = ("FROM ingest_ids d JOIN (SELECT item_id, MIN(line) AS first FROM ingest_ids GROUP BY item_id "
                    "HAVING COUNT(*) > 1) f ON f.item_id = d.item_id WHERE d.line > f.first")
        _add_found(cursor, problems, f"SELECT d.line, d.item_id, f.first {repeated} ORDER BY d.line",
                   f"SELECT COUNT(*) {repeated}", [],
                   lambda item_id, first: f"{noun} id '{item_id}' appears twice (first on line {first})")
        existing = f"FROM ingest_ids d JOIN {table} t ON t.collection_id = %s AND t.{column} = d.item_id"
        _add_found(cursor, problems, f"SELECT d.line, d.item_id, 0 {existing} ORDER BY d.line",
                   f"SELECT COUNT(*) {existing}", [collection.pk],
                   lambda item_id, _: f"{noun} id '{item_id}' is already in the collection")
        cursor.execute("DROP TABLE ingest_ids")


def _add_found(cursor, problems: Problems, select: str, count: str, params: list, message) -> None:
    cursor.execute(f"{select} LIMIT {MAX_KEPT}", params)
    rows = cursor.fetchall()
    for line, item_id, other in rows:
        problems.add(line, message(item_id, other))
    if len(rows) == MAX_KEPT:
        cursor.execute(count, params)
        problems.add_uncounted(cursor.fetchone()[0] - MAX_KEPT)


_EXTRA_COLUMNS = ("slt", "opt")


def _formula_extra(collection, records, problems: Problems, warnings: Problems, *, write: bool) -> int:
    """Sets the SLT or OPT strings of formulas already loaded, through a temporary table and one UPDATE per
    column; ids not in the collection's index are a warning."""
    rows = ((fid, column, value) for fid, column, value in records if len(fid) <= ID_MAX)
    with connection.cursor() as cursor:
        cursor.execute("DROP TABLE IF EXISTS ingest_extra")
        cursor.execute("CREATE TEMPORARY TABLE ingest_extra (formula_id varchar(64), kind varchar(3), value text)")
        insert_rows("ingest_extra", ["formula_id", "kind", "value"], rows)
        updated = 0
        if write and not problems.count:
            cursor.execute("CREATE INDEX ingest_extra_id ON ingest_extra (formula_id)")
            for column in _EXTRA_COLUMNS:
                cursor.execute(
                    f"UPDATE pooling_formula SET {column} = e.value FROM ingest_extra e "
                    "WHERE e.kind = %s AND pooling_formula.collection_id = %s "
                    "AND pooling_formula.formula_id = e.formula_id", [column, collection.pk])
                updated += max(cursor.rowcount, 0)
            cursor.execute("SELECT COUNT(*) FROM ingest_extra e WHERE NOT EXISTS (SELECT 1 FROM pooling_formula f "
                           "WHERE f.collection_id = %s AND f.formula_id = e.formula_id)", [collection.pk])
            missing = cursor.fetchone()[0]
            if missing:
                warnings.add(None, f"{missing} formula ids are not in the collection's formula index")
        cursor.execute("DROP TABLE ingest_extra")
    return updated


# --- topics ------------------------------------------------------------------------------------

@transaction.atomic
def topics_ingest(*, campaign: Campaign, path: str | os.PathLike, filename: str | None = None) -> dict:
    """Adds the topics of an ARQMath topic file to a campaign; topics already there are updated."""
    problems = Problems(file=filename or Path(path).name)
    with open_binary(path) as stream:
        records = topics_xml.read_topics(stream, problems, task=campaign.task)
    for r in records:
        _fits(r.line, problems, None, ("topic number", r.topic_id), ("Formula_Id", r.formula_id))
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
    if len(name) > Run._meta.get_field("name").max_length:
        raise InputError(f"the run name '{name[:40]}...' is longer than 200 characters")
    checksum = file_checksum(path)
    try:
        with transaction.atomic():
            run = Run.objects.create(campaign=campaign, name=name, alternate=alternate, manual=manual,
                                     baseline=baseline, checksum=checksum, uploaded_by=user)
    except IntegrityError:  # the same name uploaded twice at the same moment
        raise InputError(f"the campaign already has a run named '{name}'") from None
    problems, warnings = Problems(file=filename), Problems(file=filename)
    summary = RunSummary()
    size = file_size(path) or 1
    try:
        with transaction.atomic(), open_binary(path) as stream:
            # The database's key finds an item twice for a topic, so the reader need not remember items.
            rows = read_run(stream, problems, warnings, topics=topics, task=campaign.task,
                            max_depth=campaign.max_depth, summary=summary, find_duplicates=False)
            bulk_insert(RunEntry, ["run", "topic", "item_id", "post_id", "rank", "score"],
                        _entry_rows(run.pk, topics, rows, problems, stream, size, progress), copy_line=_entry_line)
            if problems.count:
                raise _Rejected
    except (IntegrityError, _Rejected):
        raise InputError(*_run_problems(campaign, path, filename, topics)) from None
    if summary.format == "trec" and campaign.task == Campaign.Task.FORMULAS and campaign.collection_id:
        _fill_post_ids(run, campaign.collection_id)
    run.format = summary.format
    run.tag = ", ".join(sorted(summary.tags))[:200]
    run.row_count = summary.rows
    run.topic_count = len(summary.topic_rows)
    _rank_order_warning(run, summary, topics, warnings)
    run.warnings = warnings.messages() + _same_file_warning(run)
    run.save(update_fields=["format", "tag", "row_count", "topic_count", "warnings"])
    return run


def _run_problems(campaign, path, filename, topics) -> tuple[list[Problem], int]:
    """A rejected run file read once more with every check, repeated items included: all its problems."""
    problems = Problems(file=filename)
    with open_binary(path) as stream:
        for _ in read_run(stream, problems, Problems(), topics=topics, task=campaign.task,
                          max_depth=campaign.max_depth):
            pass
    if not problems.count:  # cannot happen unless the reader and the key disagree; say so rather than nothing
        problems.add(None, "an item appears twice for a topic")
    return problems.in_line_order(), problems.count


def _rank_order_warning(run: Run, summary: RunSummary, topics: dict[str, int], warnings: Problems) -> None:
    """Topics where a rank scores higher than the rank before it. The reader checked the topics whose rows
    came in rank order as they streamed by; the others are checked here in the stored rows, in SQL."""
    found = {t: found for t, found in summary.disorder.items() if t not in summary.unsorted_topics}
    if summary.unsorted_topics:
        found.update(_rank_disorder_in_database(run, [topics[t] for t in summary.unsorted_topics]))
    if not found:
        return
    order = {topic_id: i for i, topic_id in enumerate(topics)}  # the campaign's topic order
    first = min(found, key=order.__getitem__)
    line, rank = found[first]
    warnings.add(line, f"ranks disagree with score order in {len(found)} topics "
                       f"(first: topic {first}, rank {rank} scores higher than the rank before it)")


def _rank_disorder_in_database(run: Run, topic_pks: list[int]) -> dict[str, tuple[None, int]]:
    entries = connection.ops.quote_name(RunEntry._meta.db_table)
    topics = connection.ops.quote_name(Topic._meta.db_table)
    marks = ", ".join(["%s"] * len(topic_pks))
    sql = (f"SELECT t.topic_id, MIN(x.rank) FROM (SELECT topic_id, rank, score, "
           f"LAG(score) OVER w AS prev_score, LAG(rank) OVER w AS prev_rank FROM {entries} "
           f"WHERE run_id = %s AND topic_id IN ({marks}) WINDOW w AS (PARTITION BY topic_id ORDER BY rank)) x "
           f"JOIN {topics} t ON t.id = x.topic_id WHERE x.score > x.prev_score AND x.rank > x.prev_rank "
           f"GROUP BY t.topic_id")
    with connection.cursor() as cursor:
        cursor.execute(sql, [run.pk, *topic_pks])
        return {topic_id: (None, rank) for topic_id, rank in cursor.fetchall()}


def run_collection_check(*, run: Run) -> list[str]:
    """Adds a warning for the run's ids that are not in the campaign's collection; returns the new warnings.

    Runs after the ingest has committed (the run is usable meanwhile): it looks up every entry in the
    collection, the slowest part of taking a run.
    """
    found = _collection_warnings(run, run.campaign)
    if found:
        Run.objects.filter(pk=run.pk).update(warnings=run.warnings + found)
        run.warnings = run.warnings + found
    return found


def _entry_rows(run_id, topics, rows, problems: Problems, stream, size, progress) -> Iterator[tuple]:
    for row in rows:
        if problems.count:
            continue  # keep reading to report every problem; nothing more is written
        if progress and row.line % PROGRESS_EVERY == 0:
            progress(stream.tell() / size)
        yield run_id, topics[row.topic_id], row.item_id, row.post_id, row.rank, row.score


def _entry_line(row: tuple) -> str:
    """A run entry as COPY text. Ids come from fields split on tabs or white space, so only a backslash
    needs escaping; ints and floats need none."""
    run_id, topic_pk, item_id, post_id, rank, score = row
    if "\\" in item_id or "\\" in post_id:
        item_id, post_id = copy_value(item_id), copy_value(post_id)
    return f"{run_id}\t{topic_pk}\t{item_id}\t{post_id}\t{rank}\t{score!r}\n"


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
    model, noun = (Post, "post") if campaign.task == Campaign.Task.ANSWERS else (Formula, "formula")
    table, column = model._meta.db_table, f"{noun}_id"
    # One pass gives the count (a window over the whole result) and five examples. With the collection's
    # statistics fresh (collection_ingest analyzes it), PostgreSQL looks each entry up in the unique index.
    sql = (f"SELECT e.item_id, COUNT(*) OVER () FROM {RunEntry._meta.db_table} e WHERE e.run_id = %s "
           f"AND NOT EXISTS (SELECT 1 FROM {table} k WHERE k.collection_id = %s AND k.{column} = e.item_id) "
           "ORDER BY e.topic_id, e.rank LIMIT 5")
    with connection.cursor() as cursor:
        cursor.execute(sql, [run.pk, collection.pk])
        found = cursor.fetchall()
    if not found:
        return []
    sample = ", ".join(item_id for item_id, _ in found)
    return [f"{found[0][1]} {noun} ids are not in the collection '{collection}' (for example {sample})"]


def _same_file_warning(run: Run) -> list[str]:
    twin = Run.objects.filter(campaign=run.campaign, checksum=run.checksum).exclude(pk=run.pk).first()
    return [f"the file is identical to run '{twin.name}'"] if twin else []
