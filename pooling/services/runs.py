"""Run ingest: a run file validated and streamed into the database, then checked against the collection."""
from __future__ import annotations

import hashlib
import os
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any, TypedDict, Unpack, cast

from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.db import IntegrityError, connection, transaction
from django.db.models import Count, Exists, OuterRef, Subquery, Value, Window
from django.db.models.functions import Coalesce
from django.forms.models import model_to_dict

from core.bounds import max_chars
from ir.formats.run_names import facts_said, parse_run_name
from ir.formats.runs import ARQMATH_TASK3, TREC_RAG, RunSummary, file_format, read_run, run_name
from ir.formats.textio import file_size, open_binary
from ir.problems import InputError, Problem, Problems
from pooling.bulk import Row, bulk_insert, copy_text
from pooling.models import Campaign, Formula, Post, Run, RunEntry, Topic
from pooling.services.answers import answer_run_store
from pooling.services.common import PROGRESS_EVERY, Progress, Rejected, given_keys
from pooling.services.rag_runs import rag_citation_warnings, rag_run_store

# How a run's kind (primary or alternate) is chosen: what its ARQMath-style name says, or said outright.
RUN_KINDS = {"name": "from the name (-P primary, -A alternate; primary when the name says neither)",
             "primary": "primary", "alternate": "alternate"}
# More than this share of a run's rows naming ids the collection lacks: the run is refused unless `allow_missing`
# (a run for another collection, or a collection not loaded whole); fewer is a warning (docs/formats.md).
MOSTLY_MISSING = 0.5


class RunIngestOptions(TypedDict, total=False):
    """What an organizer says about a run besides its file, whichever way it comes in: the upload page, the API,
    ingest_run, a job; a replaced run keeps them. A key not given: the run is named after its file, pooled to the
    campaign's depth for its kind, its kind is what its name says (`kind` "name"), and its other facts (`Run.FACTS`:
    team, manual, baseline, data used, answer type) are what an ARQMath-style name says (`name_facts`), else
    automatic, not a baseline, none known; `llm_model` is the LLM the run reranks or generates with, as its team
    declares it (docs/evaluation.md: a run declaring the judge's model is flagged). `alternate` is the older way
    of saying kind "alternate" (ingest_run's --alternate, the API's field). `allow_missing` keeps a run most of whose
    ids are not in the collection."""

    name: str | None
    kind: str
    alternate: bool
    manual: bool
    baseline: bool
    depth: int | None
    team: str
    data_used: str
    answer_type: str
    llm_model: str
    allow_missing: bool
    # A fused run (evaluation/fusion.py: fuse_runs --ingest, "Add a fused baseline"): its method and sources.
    fused: bool
    fused_from: dict


def run_options(values: Mapping[str, Any] | Run) -> RunIngestOptions:
    """The options among other values (a form's cleaned data, a serializer's validated data, a command's options,
    a job's parameters), or a run's own."""
    return cast(RunIngestOptions, given_keys(RunIngestOptions, model_to_dict(values) if isinstance(values, Run)
                                             else values))


def run_kind(*, name: str, filename: str = "", kind: str | None = None, alternate: bool = False) -> tuple[bool, str]:
    """(alternate, why) for a run: the kind chosen (`kind` primary or alternate, or the older `alternate` mark), else
    what its ARQMath-style name (or file name) ends in, else primary. InputError for an unknown or contradictory
    choice."""
    if kind and kind not in RUN_KINDS:
        raise InputError(f"kind '{kind}' is not a run kind: use {', '.join(RUN_KINDS)}")
    if alternate and kind in ("primary", "name"):
        raise InputError(f"the run is given kind '{kind}' and marked alternate: choose one")
    if alternate or kind == "primary" or kind == "alternate":
        return alternate or kind == "alternate", "chosen on upload"
    for said in (name, Path(filename).name):
        facts = parse_run_name(said)
        if facts is not None:
            return not facts.primary, f"the name {said} {facts.kind_said}"
    return False, "the name says neither -P nor -A"


def _check_depth(depth: int | None) -> None:
    if depth is not None and depth < 1:
        raise InputError(f"a run's pool depth must be at least 1, not {depth}")


def name_facts_said(*names: str) -> str:
    """What the first ARQMath-style name among `names` says of the run, for the job page and ingest_run ("" when none
    parses): the facts are editable on the run's Facts page."""
    for name in names:
        facts = parse_run_name(name)
        if facts is not None:
            return f"read from the name {name}: {facts_said(facts)}"
    return ""


def name_facts(*names: str) -> dict[str, Any]:
    """The run facts (`Run.FACTS`) the first ARQMath-style name among `names` gives
    (`<team>-task<N>-<name>-<auto|manual>-<both|math|text>[-<extract|generate>]-<P|A>` and its variants,
    ir/formats/run_names.py); {} when none parses."""
    for name in names:
        facts = parse_run_name(name)
        if facts is not None:
            return {"team": facts.team[: max_chars(Run, "team")], "alternate": not facts.primary,
                    "manual": facts.manual, "baseline": facts.baseline, "data_used": facts.data,
                    "answer_type": facts.kind}
    return {}


def run_facts_set(*, run: Run, **facts: Any) -> Run:
    """Changes a run's facts (`Run.FACTS`: team, primary/alternate, manual, baseline, data used, extracted or
    generated); the model's rules refuse a bad value with the field's name, and nothing changes. A run made
    alternate or primary is pooled so at the next build of the pools."""
    unknown = sorted(set(facts) - set(Run.FACTS))
    if unknown:
        raise InputError(f"not a run fact: {', '.join(unknown)} (facts: {', '.join(Run.FACTS)})")
    changed = [field for field, value in facts.items() if getattr(run, field) != value]
    for field in changed:
        setattr(run, field, facts[field])
    try:
        run.clean_fields(exclude=[f.name for f in Run._meta.fields if f.name not in changed])
    except ValidationError as exc:
        run.refresh_from_db()
        raise InputError([f"{field}: {' '.join(errors)}" for field, errors in exc.message_dict.items()]) from None
    if changed:
        run.save(update_fields=changed)
    return run


def run_matches_confirm(*, run: Run, confirmed: bool = True) -> Run:
    """Says that the ids a mostly missing run shares with the collection are its posts (pooled at the next build), or
    takes that back (`confirmed` False: left out again); docs/pooling.md, "Suspect matches"."""
    if confirmed and not run.mostly_missing:
        raise InputError(f"run '{run.name}' has no suspect ids: most of its ids are in the collection")
    run.matches_confirmed = confirmed
    run.save(update_fields=["matches_confirmed"])
    return run


def run_depth_set(*, run: Run, depth: int | None) -> Run:
    """Gives a run a pool depth of its own (None: the campaign's depth for its kind again). A TREC RAG answer run is
    pooled whole, every id it cites: it takes none."""
    _check_depth(depth)
    if depth is not None and run.format == Run.Format.TREC_RAG:
        raise InputError(f"run '{run.name}' is a TREC RAG answer run, pooled whole (every id its answers cite): it "
                         "takes no pool depth")
    run.depth = depth
    run.save(update_fields=["depth"])
    return run


def file_checksum(path: str | os.PathLike) -> str:
    with open(path, "rb") as stream:
        return hashlib.file_digest(stream, "sha256").hexdigest()


@transaction.atomic
def run_ingest(
    *,
    campaign: Campaign,
    path: str | os.PathLike,
    filename: str | None = None,
    user: User | None = None,
    progress: Progress = None,
    **options: Unpack[RunIngestOptions],
) -> Run:
    """Validates a run file and stores its rows; the run is named after the file unless `name` is given. Its kind is
    `run_kind`'s, decided here once: the run returned says why in `kind_why` (for ingest_run and the job page). The
    other facts the options leave unsaid (not given, a mark not ticked, an empty value) are what an ARQMath-style name
    (or file name) says (`name_facts`): a mark asked for stands whatever the name says. Its ids are looked up in the
    collection: a warning for those it lacks, the run refused when they are most of its rows (MOSTLY_MISSING) unless
    `allow_missing`."""
    filename = filename or Path(path).name
    name = (options.get("name") or run_name(filename)).strip()
    alternate, kind_why = run_kind(name=name, filename=filename, kind=options.get("kind"),
                                   alternate=bool(options.get("alternate")))
    said = name_facts(name, Path(filename).name)
    facts = {key: value for key, value in options.items() if key not in ("kind", "allow_missing")}
    values = {**facts, **{fact: value for fact, value in said.items() if not options.get(fact)}, "name": name,
              "alternate": alternate}
    if Run.objects.filter(campaign=campaign, name=name).exists():
        raise InputError(f"the campaign already has a run named '{name}': replace that run to give it a new file "
                         "(Replace on the campaign page, replace_run, or PUT on the run in the API)")
    topics = dict(campaign.topics.values_list("topic_id", "pk"))
    if not topics:
        raise InputError("the campaign has no topics yet: ingest its topics before its runs")
    _check_depth(options.get("depth"))
    if len(name) > max_chars(Run, "name"):
        raise InputError(f"the run name '{name[:40]}...' is longer than 200 characters")
    if len(options.get("llm_model") or "") > max_chars(Run, "llm_model"):
        raise InputError(f"the LLM model name is longer than {max_chars(Run, 'llm_model')} characters")
    checksum = file_checksum(path)
    try:
        with transaction.atomic():
            run = Run.objects.create(campaign=campaign, checksum=checksum, uploaded_by=user, **values)
    except IntegrityError:  # the same name uploaded twice at the same moment
        raise InputError(f"the campaign already has a run named '{name}'") from None
    fmt = _file_format(path)
    if fmt == TREC_RAG and campaign.task != Campaign.Task.ANSWERS:
        raise InputError(Problem(1, f"the file is in TREC RAG answer format; a campaign of task '{campaign.task}' "
                                    "takes ARQMath Task 2 (6-column) or TREC (Q0) runs", filename))
    if campaign.task == Campaign.Task.ANSWERS and fmt == ARQMATH_TASK3:
        answer_run_store(run=run, path=path, filename=filename, topics=topics)  # ARQMath-3 Task 3: one answer a topic
    elif fmt == TREC_RAG:
        if run.depth is not None:
            raise InputError("a TREC RAG answer run is pooled whole (every id it cites): it takes no pool depth")
        rag_run_store(run=run, path=path, filename=filename, topics=topics)  # sentences citing ids
    else:
        _entries_store(run, path, filename, topics, progress)
    run.warnings += _same_file_warning(run)
    run.warnings += _collection_warnings(run, campaign, allow_missing=bool(options.get("allow_missing")))
    run.save(update_fields=["format", "tag", "row_count", "topic_count", "ranks_are_positions", "warnings",
                            "mostly_missing", "team", "manual"])
    run.kind_why = kind_why
    return run


def _entries_store(run: Run, path: str | os.PathLike, filename: str, topics: dict[str, int],
                   progress: Progress) -> None:
    """Streams a Task 1, Task 2 or TREC run file into `run`'s entries; fills in the run's format, counts and
    warnings (the caller saves them). A file with any problem raises InputError with every problem and its line."""
    campaign = run.campaign
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
                raise Rejected
    except (IntegrityError, Rejected):
        raise _run_problems(campaign, path, filename, topics) from None
    if summary.format == "trec" and campaign.task == Campaign.Task.FORMULAS and campaign.collection_id:
        _fill_post_ids(run, campaign.collection_id)
    run.format = summary.format
    run.tag = ", ".join(sorted(summary.tags))[:200]
    run.row_count = summary.rows
    run.topic_count = len(summary.topic_rows)
    run.ranks_are_positions = summary.rows > 0 and not summary.irregular_topics
    _rank_order_warning(run, summary, topics, warnings)
    run.warnings = warnings.messages()


def _file_format(path: str | os.PathLike) -> str | None:
    with open_binary(path) as stream:
        return file_format(stream)


def _run_problems(campaign, path, filename, topics) -> InputError:
    """A rejected run file read once more with every check, repeated items included: all its problems."""
    problems = Problems(file=filename)
    with open_binary(path) as stream:
        for _ in read_run(stream, problems, Problems(), topics=topics, task=campaign.task,
                          max_depth=campaign.max_depth):
            pass
    if not problems.count:  # cannot happen unless the reader and the key disagree; say so rather than nothing
        problems.add(None, "an item appears twice for a topic")
    return InputError.of(problems)


def _rank_order_warning(run: Run, summary: RunSummary, topics: dict[str, int], warnings: Problems) -> None:
    """Topics where a rank scores higher than the rank before it. The reader checked the topics whose rows
    came in rank order as they streamed by; the others are checked here in the stored rows, in SQL."""
    # topic -> (the line, None when found in the stored rows; the rank)
    found: dict[str, tuple[int | None, int]] = {t: found for t, found in summary.disorder.items()
                                                if t not in summary.unsorted_topics}
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
           f"WHERE run_id = %s AND topic_id IN ({marks}) "
           f"WINDOW w AS (PARTITION BY topic_id ORDER BY rank, score DESC)) x "
           f"JOIN {topics} t ON t.id = x.topic_id WHERE x.score > x.prev_score AND x.rank > x.prev_rank "
           f"GROUP BY t.topic_id")
    with connection.cursor() as cursor:
        cursor.execute(sql, [run.pk, *topic_pks])
        return {topic_id: (None, rank) for topic_id, rank in cursor.fetchall()}


def run_collection_check(*, run: Run) -> list[str]:
    """Checks a stored run against its campaign's collection again (run_ingest checked it as it stored it: the
    collection may have grown since); adds and returns the warnings for the run's ids that are not in it."""
    found = _collection_warnings(run, run.campaign, allow_missing=True)
    if found:
        run.warnings = run.warnings + found
    Run.objects.filter(pk=run.pk).update(warnings=run.warnings, mostly_missing=run.mostly_missing)
    return found


def _entry_rows(run_id, topics, rows, problems: Problems, stream, size, progress) -> Iterator[tuple]:
    for row in rows:
        if problems.count:
            continue  # keep reading to report every problem; nothing more is written
        if progress and row.line % PROGRESS_EVERY == 0:
            progress(stream.tell() / size)
        yield run_id, topics[row.topic_id], row.item_id, row.post_id, row.rank, row.score


def _entry_line(row: Row) -> str:
    """A run entry as COPY text, without the generic per-value dispatch: ints and floats need no escaping."""
    run_id, topic_pk, item_id, post_id, rank, score = row
    return f"{run_id}\t{topic_pk}\t{copy_text(item_id)}\t{copy_text(post_id)}\t{rank}\t{score!r}\n"


def _fill_post_ids(run: Run, collection_id: int) -> None:
    """A TREC-format formula run names formula ids only: take their posts from the formula index."""
    post = Formula.objects.filter(collection_id=collection_id, formula_id=OuterRef("item_id")).values("post_id")[:1]
    RunEntry.objects.filter(run=run).update(post_id=Coalesce(Subquery(post), Value("")))


def _collection_warnings(run: Run, campaign: Campaign, *, allow_missing: bool) -> list[str]:
    """A warning for the run's ids that are not in the campaign's collection; InputError when they are more than
    MOSTLY_MISSING of its rows, unless `allow_missing`: then the run is `mostly_missing`, and the ids the collection
    has are suspect (a number another collection's post shares), left out of the pools until confirmed."""
    run.mostly_missing = False
    collection = campaign.collection
    if collection is None or run.format == Run.Format.ARQMATH_TASK3:  # answers of a Task 3 run are no posts
        return []
    if run.format == Run.Format.TREC_RAG:  # its citations counted, never refused (docs/pooling.md)
        return rag_citation_warnings(run=run, campaign=campaign)
    if collection.corpus_path:  # it stores only pooled documents: those the corpus lacks are told at the pool build
        return []
    ids = collection.posts if campaign.task == Campaign.Task.ANSWERS else collection.formulas
    if not ids.exists():
        return [f"the collection '{collection}' has no {'posts' if campaign.task == 'answers' else 'formulas'} "
                "yet: the run's ids were not checked against it"]
    model, noun = (Post, "post") if campaign.task == Campaign.Task.ANSWERS else (Formula, "formula")
    # One pass gives the count (a window over the whole result) and five examples. With the collection's
    # statistics fresh (collection_ingest analyzes it), PostgreSQL looks each entry up in the unique index.
    known = model.objects.filter(collection=collection, **{f"{noun}_id": OuterRef("item_id")})
    found = list(RunEntry.objects.filter(run=run).filter(~Exists(known))
                 .annotate(missing=Window(Count("pk"))).order_by("topic_id", "rank")
                 .values_list("item_id", "missing")[:5])
    if not found:
        return []
    missing, sample = found[0][1], ", ".join(item_id for item_id, _ in found)
    rows = run.row_count or RunEntry.objects.filter(run=run).count()
    if missing > MOSTLY_MISSING * rows and not allow_missing:
        raise InputError(f"{missing:,} of the run's {rows:,} {noun} ids are not in the collection '{collection}' "
                         f"(for example {sample}): is it the run of another collection? To keep it anyway, tick "
                         "“Keep it even if most of its ids are not in the collection” (API allow_missing, "
                         "ingest_run --allow-missing)")
    warning = f"{missing} {noun} ids are not in the collection '{collection}' (for example {sample})"
    if missing > MOSTLY_MISSING * rows:
        run.mostly_missing = True
        matching = rows - missing
        said = "1 row" if matching == 1 else f"{matching:,} rows"
        warning += (f": {said} whose {noun} id the collection has {'is' if matching == 1 else 'are'} suspect (most "
                    f"likely another {noun} that shares the number) and kept out of the pools unless you confirm "
                    "them. Load the posts the run names (the real Posts.xml) or use a pool-only corpus collection")
    return [warning]


def _same_file_warning(run: Run) -> list[str]:
    twin = Run.objects.filter(campaign=run.campaign, checksum=run.checksum).exclude(pk=run.pk).first()
    return [f"the file is identical to run '{twin.name}'"] if twin else []
