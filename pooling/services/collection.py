"""Collection ingest: Posts.xml, Comments.xml, formula index TSVs and JSONL, all or nothing.

The file is validated and written in the same pass inside one transaction; a file with any problem is
read to its end for every problem, then everything it wrote is rolled back.
"""
from __future__ import annotations

import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from django.db import IntegrityError, transaction
from django.db.models import Exists, F, OuterRef

from ir.formats import detect, formula_tsv, jsonl, se_xml
from ir.formats.textio import ID_MAX, file_size, open_binary
from ir.pools.ids import id_order_key
from ir.problems import MAX_KEPT, InputError, Problem, Problems
from pooling.bulk import NULL, Found, Row, analyze, bulk_insert, columns_update, copy_text, keys_repeated
from pooling.models import Campaign, Collection, Comment, Formula, Post, Run
from pooling.services.campaigns import collection_get_or_create
from pooling.services.common import PROGRESS_EVERY, Progress, Rejected, fits

# Posts before comments and formulas, the formula index before the extra SLT/OPT columns.
_KIND_ORDER = {"posts": 0, "jsonl": 0, "comments": 1, "formulas": 2, "formula_extra": 3, "slt_index": 3,
               "opt_index": 3}


@dataclass(frozen=True)
class CollectionIngestResult:
    collection: int  # the collection's pk: it may have been created by the ingest
    counts: dict[str, int]  # rows loaded per kind of file ("posts", "comments", "formulas", ...)
    warnings: list[str]


def _runs_refusal(collection: Collection, doing: str) -> None:
    """A collection whose campaigns have runs keeps its documents: the runs were checked against them, and pools and
    judgments name them (docs/formats.md, "Replacing or deleting a collection")."""
    with_runs = sorted(set(Run.objects.filter(campaign__collection=collection)
                           .values_list("campaign__name", flat=True)))
    if with_runs:
        raise InputError(f"collection '{collection}' cannot be {doing}: campaign{'s' if len(with_runs) > 1 else ''} "
                         f"{', '.join(with_runs)} of it {'have' if len(with_runs) > 1 else 'has'} runs (delete "
                         "the runs first, or load the files into a new collection)")


def _collection_clear(collection: Collection) -> None:
    for model in (Post, Comment, Formula):
        model.objects.filter(collection=collection)._raw_delete(using="default")
    Collection.objects.filter(pk=collection.pk).update(post_count=0, comment_count=0, formula_count=0, warnings=[])


@transaction.atomic
def collection_delete(*, collection: Collection) -> list[str]:
    """Deletes a collection none of whose campaigns has runs, with its documents; campaigns of it (topics only) are
    left without a collection. Returns their names."""
    Collection.objects.select_for_update().filter(pk=collection.pk).first()
    _runs_refusal(collection, "deleted")
    campaigns = sorted(Campaign.objects.filter(collection=collection).values_list("name", flat=True))
    Campaign.objects.filter(collection=collection).update(collection=None)
    _collection_clear(collection)
    collection.delete()
    return campaigns


@transaction.atomic
def collection_ingest(
    *, collection_name: str, paths: list[str | os.PathLike], names: list[str] | None = None,
    progress: Progress = None, replace: bool = False,
) -> CollectionIngestResult:
    """Loads collection files (Posts.xml, Comments.xml, formula index TSVs, JSONL) all or nothing.

    The collection is created if needed, inside the same transaction: a rejected first load leaves no
    empty collection behind. `replace`: the collection's documents are deleted first, in the same transaction (a
    rejected file leaves them as they were), refused when a campaign of it has runs. Returns the collection's id,
    counts per kind and the warnings.
    """
    collection = collection_get_or_create(name=collection_name)
    if replace:
        Collection.objects.select_for_update().filter(pk=collection.pk).first()
        _runs_refusal(collection, "replaced")
        _collection_clear(collection)
    names = names or [Path(p).name for p in paths]
    files = _collection_files(paths, names)
    sizes = [file_size(path) for _, path, _ in files]
    total_bytes = sum(sizes) or 1
    counts: dict[str, int] = {}
    warnings: list[str] = []
    collectors: list[Problems] = []
    problem_total = 0
    for i, (kind, path, name) in enumerate(files):
        problems, file_warnings = Problems(file=name), Problems(file=name)
        # After a problem in an earlier file, later files are still read for their problems, not written.
        write = problem_total == 0
        loaded = _ingest_collection_file(
            collection, kind, path, problems, file_warnings, write=write,
            progress=_part_of(progress, start=sum(sizes[:i]), size=sizes[i], total=total_bytes))
        counts[kind] = counts.get(kind, 0) + loaded
        collectors.append(problems)
        problem_total += problems.count
        warnings.extend(file_warnings.messages())
    if problem_total:
        raise InputError.of(*collectors)
    Collection.objects.filter(pk=collection.pk).update(
        post_count=F("post_count") + counts.get("posts", 0) + counts.get("jsonl", 0),
        comment_count=F("comment_count") + counts.get("comments", 0),
        formula_count=F("formula_count") + counts.get("formulas", 0))
    # Fresh statistics: without them the id lookups of run_collection_check went from 30 ms to 4 s.
    analyze([Post, Comment, Formula])
    if {kind for kind, _path, _name in files} & {"posts", "jsonl", "formulas"}:
        kept = _formula_post_warnings(collection)
        Collection.objects.filter(pk=collection.pk).update(warnings=kept)
        warnings.extend(kept)
    return CollectionIngestResult(collection=collection.pk, counts=counts, warnings=warnings)


def _formula_post_warnings(collection: Collection, examples: int = 5) -> list[str]:
    """The collection's lasting warnings: formulas whose post the collection lacks (their assessors would see them
    without the post around them). Recomputed by each ingest of posts or formulas, so loading the posts clears it."""
    missing = (Formula.objects.filter(collection=collection)
               .filter(~Exists(Post.objects.filter(collection=collection, post_id=OuterRef("post_id"))))
               .order_by().values_list("post_id", flat=True).distinct())
    count = missing.count()
    if not count:
        return []
    shown = ", ".join(sorted(missing[:examples], key=id_order_key))
    more = f" and {count - examples:,} more" if count > examples else ""
    return [f"the formula index names {count:,} post{'s' if count != 1 else ''} that the collection lacks ({shown}"
            f"{more}): their formulas have no post to be shown in; load the posts (Posts.xml) that hold them"]


def _collection_files(paths, names) -> list[tuple[str, str, str]]:
    """(kind, path, name) of every file in loading order, or InputError for files of no known kind."""
    files: list[tuple[str, str, str]] = []
    errors: list[Problem] = []
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
                return se_xml.read_posts(s, p, w or Problems()) if kind == "posts" else jsonl.read_jsonl(s, p, w)

            rows = _post_rows(collection, read(stream, problems, warnings), problems)
            target = _Target(Post, POST_COLUMNS, "post", lambda s, p: ((r.line, r.post_id) for r in read(s, p)),
                             copy_line=post_copy_line)
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


class _Target:
    """Where a collection file goes: the model, its columns, what its ids are called, how to re-read ids."""

    def __init__(self, model, columns, noun, reread, copy_line=None) -> None:
        self.model, self.columns, self.noun, self.reread = model, columns, noun, reread
        self.copy_line = copy_line


POST_COLUMNS = ["collection", "post_id", "kind", "thread_id", "title", "body", "tags", "score", "created_at",
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
        if fits(r.line, problems, r.score, ("post id", r.post_id), ("thread id", r.thread_id),
                 ("OwnerUserId", r.owner_user_id), ("AcceptedAnswerId", r.accepted_answer_id)):
            yield (cid, r.post_id, r.kind, r.thread_id, r.title, r.body, r.tags, r.score,
                   _parse_datetime(r.created_at, r.line, problems), r.owner_user_id, r.accepted_answer_id)


def post_copy_line(row: Row) -> str:
    """A post as COPY text, without the generic per-value dispatch (a Posts.xml has millions of rows)."""
    cid, post_id, kind, thread_id, title, body, tags, score, created, owner, accepted = row
    return (f"{cid}\t{copy_text(post_id)}\t{kind}\t{copy_text(thread_id)}\t{copy_text(title)}\t{copy_text(body)}\t"
            f"{copy_text(tags)}\t{NULL if score is None else score}\t"
            f"{NULL if created is None else created.isoformat()}\t{copy_text(owner)}\t{copy_text(accepted)}\n")


def _comment_rows(collection, records, problems) -> Iterator[tuple]:
    cid = collection.pk
    for r in records:
        if fits(r.line, problems, r.score, ("comment id", r.comment_id), ("post id", r.post_id),
                 ("UserId", r.user_id)):
            yield (cid, r.comment_id, r.post_id, r.score, r.text, r.user_id,
                   _parse_datetime(r.created_at, r.line, problems))


def _formula_rows(collection, records, problems) -> Iterator[tuple]:
    cid = collection.pk
    for r in records:
        if fits(r.line, problems, None, ("formula id", r.formula_id), ("post id", r.post_id),
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
                raise Rejected  # undo the rows written before the first problem, then look for more
    except (IntegrityError, Rejected):
        rejected = True
        for _ in rows:  # batched inserts stop at the failing batch: read the rest of the file for its problems
            pass
    if rejected:
        _report_repeated_ids(collection, target, stream, problems)
        return 0
    if progress:
        progress(1.0)
    return count


def _report_repeated_ids(collection, target: _Target, stream, problems: Problems) -> None:
    """Ids repeated in the file or already in the collection, each with its line.

    Only when a file is rejected anyway: the database finds them (pooling.bulk.keys_repeated), so the check
    streams like the load itself.
    """
    stream.seek(0)
    ids = ((line, item_id) for line, item_id in target.reread(stream, Problems()) if len(item_id) <= ID_MAX)
    noun = target.noun
    twice, there = keys_repeated(ids, model=target.model, key=target.columns[1], scope="collection",
                                 scope_value=collection.pk, limit=MAX_KEPT)
    _add_found(problems, twice, lambda item_id, first: f"{noun} id '{item_id}' appears twice (first on line {first})")
    _add_found(problems, there, lambda item_id, _: f"{noun} id '{item_id}' is already in the collection")


def _add_found(problems: Problems, found: Found, message) -> None:
    for line, item_id, other in found.rows:
        problems.add(line, message(item_id, other))
    if found.total > len(found.rows):
        problems.add_uncounted(found.total - len(found.rows))


_EXTRA_COLUMNS = ("slt", "opt")


def _formula_extra(collection, records, problems: Problems, warnings: Problems, *, write: bool) -> int:
    """Sets the SLT or OPT strings of formulas already loaded, through a temporary table and one UPDATE per
    column; ids not in the collection's index are a warning."""
    rows = ((fid, column, value) for fid, column, value in records if len(fid) <= ID_MAX)
    updated, missing = columns_update(rows, model=Formula, key="formula_id", scope="collection",
                                      scope_value=collection.pk, columns=_EXTRA_COLUMNS,
                                      write=lambda: write and not problems.count)
    if missing:
        warnings.add(None, f"{missing} formula ids are not in the collection's formula index")
    return updated
