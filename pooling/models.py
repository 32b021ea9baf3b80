"""Collections, campaigns, topics, runs and pools.

Ids that come from outside (post ids, formula ids, visual ids, topic ids) are strings. Collection rows
refer to each other by those ids within one collection (a post's thread, a formula's post), which keeps
bulk loading a plain COPY without lookups.
"""
from __future__ import annotations

from functools import cached_property
from typing import TYPE_CHECKING

from django.conf import settings
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models

from ir.grades import HIGH, LOW, RELEVANCE_LEVEL, Scheme, scheme_of
from ir.pools.adaptive import WARM_UP

if TYPE_CHECKING:
    from pooling.words import CampaignWords

# The columns' ranges (PostgreSQL integer and bigint), so that a form, the API and a command all refuse what the
# database could not store, with the field's name, instead of failing on the INSERT.
INT_MAX = 2**31 - 1
BIGINT_RANGE = (-(2**63), 2**63 - 1)
COUNT_VALIDATORS = [MinValueValidator(1), MaxValueValidator(INT_MAX)]


class Collection(models.Model):
    name = models.CharField(max_length=100, unique=True)
    description = models.TextField(blank=True)
    # Kept up to date by the ingest, so that pages need not count millions of rows.
    post_count = models.PositiveBigIntegerField(default=0)
    comment_count = models.PositiveBigIntegerField(default=0)
    formula_count = models.PositiveBigIntegerField(default=0)
    # What is wrong with the data without stopping its use (formulas of posts the collection lacks), found by the
    # ingest and shown on the collections page until a later ingest puts it right.
    warnings = models.JSONField(default=list, blank=True)
    # A pool-only collection (docs/pooling.md): its documents are read from this corpus file or folder, as the web
    # server and the workers see it, and only the pooled ones are stored, after each pool build.
    corpus_path = models.CharField(max_length=1000, blank=True,
                                   help_text="a corpus file or folder on the server (JSONL or TREC, plain or gzip); "
                                             "only the documents the pools hold are stored")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


# Collection rows have no database foreign key to their collection: the ingest, their only writer, takes the
# collection in its own transaction, and PostgreSQL's deferred foreign-key checks cost 7.7 of 86.6 s at the
# commit of 1M posts (bench/ingest.py before the change). Deleting a collection still deletes its rows (Django).


class Post(models.Model):
    class Kind(models.TextChoices):
        QUESTION = "question"
        ANSWER = "answer"
        DOCUMENT = "document"

    collection = models.ForeignKey(Collection, on_delete=models.CASCADE, related_name="posts", db_index=False,
                                   db_constraint=False)
    post_id = models.CharField(max_length=64)
    kind = models.CharField(max_length=10, choices=Kind.choices)
    thread_id = models.CharField(max_length=64)
    title = models.TextField(blank=True)
    # Raw HTML as it came from the collection; sanitized when it is rendered.
    body = models.TextField(blank=True)
    tags = models.TextField(blank=True, help_text="space-separated tag names")
    score = models.IntegerField(null=True, blank=True)
    created_at = models.DateTimeField(null=True, blank=True)
    owner_user_id = models.CharField(max_length=64, blank=True)
    accepted_answer_id = models.CharField(max_length=64, blank=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["collection", "post_id"], name="post_unique_id")]
        indexes = [models.Index(fields=["collection", "thread_id"], name="post_thread")]

    def __str__(self) -> str:
        return f"{self.kind} {self.post_id}"


class Comment(models.Model):
    collection = models.ForeignKey(Collection, on_delete=models.CASCADE, related_name="comments", db_index=False,
                                   db_constraint=False)
    comment_id = models.CharField(max_length=64)
    post_id = models.CharField(max_length=64)
    score = models.IntegerField(null=True, blank=True)
    text = models.TextField(blank=True)
    user_id = models.CharField(max_length=64, blank=True)
    created_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["collection", "comment_id"], name="comment_unique_id")]
        indexes = [models.Index(fields=["collection", "post_id"], name="comment_post")]

    def __str__(self) -> str:
        return f"comment {self.comment_id}"


class Formula(models.Model):
    class Type(models.TextChoices):
        QUESTION = "question"
        ANSWER = "answer"
        COMMENT = "comment"
        TITLE = "title"  # in the real ARQMath index: a formula in a question's title

    collection = models.ForeignKey(Collection, on_delete=models.CASCADE, related_name="formulas", db_index=False,
                                   db_constraint=False)
    formula_id = models.CharField(max_length=64)
    post_id = models.CharField(max_length=64)
    thread_id = models.CharField(max_length=64, blank=True)
    type = models.CharField(max_length=10, choices=Type.choices)
    comment_id = models.CharField(max_length=64, blank=True)
    visual_id = models.CharField(max_length=64, blank=True)
    old_visual_id = models.CharField(max_length=64, blank=True)
    issue = models.CharField(max_length=4, blank=True)
    latex = models.TextField(blank=True)
    slt = models.TextField(blank=True)
    opt = models.TextField(blank=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["collection", "formula_id"], name="formula_unique_id")]
        indexes = [
            models.Index(fields=["collection", "post_id"], name="formula_post"),
            models.Index(fields=["collection", "visual_id"], name="formula_visual"),
        ]

    def __str__(self) -> str:
        return f"formula {self.formula_id}"


class JudgingOrder(models.TextChoices):
    RANDOM = "random", "random (ARQMath's)"
    MOVE_TO_FRONT = "move-to-front", "move-to-front (Cormack et al. 1998)"
    BANDIT = "bandit", "bandit (Losada et al.'s MM-NS)"
    UNCERTAIN = "uncertain", "uncertain (the calibrated LLM's least sure items; random until one is calibrated)"


class BudgetSpread(models.TextChoices):
    EVEN = "even", "evenly over the topics"
    FOUND = "found", "in proportion to the relevant items found (Losada et al.)"


class Campaign(models.Model):
    JudgingOrder = JudgingOrder
    BudgetSpread = BudgetSpread

    class Task(models.TextChoices):
        ANSWERS = "answers", "Answer retrieval (Task 1)"
        FORMULAS = "formulas", "Formula retrieval (Task 2)"

    class Selection(models.TextChoices):
        RR_VOTE = "rr-vote", "reciprocal-rank vote (ARQMath-2/3)"
        THREAD_SPREAD = "thread-spread", "thread spread (ARQMath-1)"

    # ARQMath-3 defaults (docs/pooling.md).
    DEFAULT_DEPTHS: dict[str, tuple[int, int]] = {Task.ANSWERS: (45, 20), Task.FORMULAS: (25, 15)}

    name = models.CharField(max_length=100, unique=True)
    task = models.CharField(max_length=10, choices=Task.choices)
    collection = models.ForeignKey(Collection, on_delete=models.PROTECT, null=True, blank=True,
                                   related_name="campaigns")
    primary_depth = models.PositiveIntegerField(validators=COUNT_VALIDATORS)
    alternate_depth = models.PositiveIntegerField(validators=COUNT_VALIDATORS)
    instances = models.PositiveIntegerField(default=5, validators=COUNT_VALIDATORS,
                                            help_text="instances judged per visually distinct formula")
    selection = models.CharField(max_length=16, choices=Selection.choices, default=Selection.RR_VOTE)
    seed = models.BigIntegerField(default=0, validators=[MinValueValidator(BIGINT_RANGE[0]),
                                                         MaxValueValidator(BIGINT_RANGE[1])])
    max_depth = models.PositiveIntegerField(default=1000, validators=COUNT_VALIDATORS,
                                            help_text="most rows a run may have for one topic")
    relevance_level = models.PositiveSmallIntegerField(
        default=RELEVANCE_LEVEL, validators=[MinValueValidator(LOW), MaxValueValidator(HIGH)],
        help_text="evaluation: the lowest grade counted relevant by MAP', P'@10 and binary measures (2: high and "
                  "medium, as ARQMath; 1: low too)")
    candidate_notes = models.BooleanField(
        default=False, help_text="judging: show a candidate's note (the asker's comments on the answer that cited it) "
                                 "beside it; its source is never shown")
    # The judging scheme (ir.grades.Scheme.to_json); empty: ARQMath's, for the campaign's task.
    scheme = models.JSONField(default=dict, blank=True, help_text="the grades, marks and facets assessors judge with")
    created_at = models.DateTimeField(auto_now_add=True)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True)
    # Set by the first step of a delete, in the request; a job then deletes the rows in batches (docs/pooling.md).
    deleting = models.BooleanField(default=False, help_text="being deleted by a job: nothing new starts on it")
    # The planner at its default depths, computed by each pool build (services.pools.pool_plan_store): reading the top
    # of every run and topic again on each view of the pools page took seconds at ARQMath scale.
    pool_plan = models.JSONField(default=dict, blank=True,
                                 help_text="the planner's rows as the last pool build computed them, with what they "
                                           "were computed from")
    # Each run's items in the built pools and those no other run pooled, counted by each pool build
    # (services.pools.pool_contributions_store) beside the pool rows they were counted from: counting them over the
    # provenance on each view of the pools page took a tenth of a second at ARQMath scale.
    pool_contributions = models.JSONField(default=dict, blank=True,
                                          help_text="per run, the items it pooled and those only it pooled, as the "
                                                    "last pool build counted them, with the pool rows counted")
    # The order each assessor's next item is chosen in (docs/pooling.md, "Judging order"), and its guards.
    judging_order = models.CharField(max_length=16, choices=JudgingOrder.choices, default=JudgingOrder.RANDOM,
                                     help_text="the order of each assessor's items: random (ARQMath's), "
                                               "move-to-front, bandit or uncertain (the items the calibrated "
                                               "LLM is least sure of; random until a calibration exists)")
    warm_up = models.PositiveSmallIntegerField(default=WARM_UP, validators=[MaxValueValidator(1000)],
                                               help_text="the first items of each assignment come in random order, "
                                                         "so the assessor learns the topic")
    min_depth = models.PositiveIntegerField(default=0, validators=[MaxValueValidator(INT_MAX)],
                                            help_text="every run's top items to this rank are always judged "
                                                      "(0: no minimum)")
    topic_budget = models.PositiveIntegerField(null=True, blank=True, validators=COUNT_VALIDATORS,
                                               help_text="the most items judged per topic and assignment (empty: "
                                                         "the whole pool)")
    # A budget for the whole campaign (docs/pooling.md, "Live order and budgets"): assessor hours, turned
    # into items through the planner's seconds per judgment and spread over the topics.
    hours_budget = models.FloatField(null=True, blank=True, validators=[MinValueValidator(0.01),
                                                                         MaxValueValidator(1_000_000)],
                                     help_text="assessor hours for the campaign's judging, spread over its topics "
                                               "(empty: no campaign budget)")
    budget_spread = models.CharField(max_length=8, choices=BudgetSpread.choices, default=BudgetSpread.EVEN,
                                     help_text="how the hours are spread over the topics: evenly, or in proportion "
                                               "to each topic's relevant items found so far")

    class Meta:
        ordering = ["-created_at", "name"]

    def __str__(self) -> str:
        return self.name

    @property
    def judging_scheme(self) -> Scheme:
        return scheme_of(self.scheme, self.task)

    @cached_property
    def words(self) -> CampaignWords:
        """What its pages call its task, items, marks and relevant grades (pooling/words.py)."""
        from pooling.words import campaign_words  # the words read the models
        return campaign_words(self)


class Topic(models.Model):
    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="topics", db_index=False)
    topic_id = models.CharField(max_length=64)
    position = models.PositiveIntegerField(default=0, help_text="order in the topic file")
    title = models.TextField(blank=True)
    question = models.TextField(blank=True)
    tags = models.TextField(blank=True, help_text="space-separated tag names")
    formula_id = models.CharField(max_length=64, blank=True, help_text="Task 2: the query formula's span id")
    latex = models.TextField(blank=True, help_text="Task 2: the query formula")
    description = models.TextField(blank=True, help_text="plain text: what the topic asks (TREC <desc>)")
    narrative = models.TextField(blank=True, help_text="plain text: what a relevant item holds (TREC <narr>)")
    # A micro-topic is a topic of its own (pooled, judged, scored) that shares its parent's prelude.
    prelude = models.TextField(blank=True, help_text="a micro-topic's context, shared with its sibling micro-topics")
    parent = models.CharField(max_length=64, blank=True, help_text="a micro-topic's parent topic id")
    parent_title = models.TextField(blank=True, help_text="a micro-topic's parent topic title")

    class Meta:
        ordering = ["campaign", "position"]
        constraints = [models.UniqueConstraint(fields=["campaign", "topic_id"], name="topic_unique_id")]

    def __str__(self) -> str:
        return self.topic_id


class Run(models.Model):
    class Format(models.TextChoices):
        ARQMATH_TASK1 = "arqmath1", "ARQMath Task 1 (5 columns)"
        ARQMATH_TASK2 = "arqmath2", "ARQMath Task 2 (6 columns)"
        TREC = "trec", "TREC (6 columns, Q0)"
        ARQMATH_TASK3 = "arqmath3", "ARQMath-3 Task 3 (one answer per topic)"
        TREC_RAG = "trec_rag", "TREC RAG answers (sentences citing ids)"

    class Data(models.TextChoices):
        BOTH = "both", "text and math"
        MATH = "math", "math only"
        TEXT = "text", "text only"

    class AnswerType(models.TextChoices):
        EXTRACT = "extract", "extracted"
        GENERATE = "generate", "generated"

    # What the overview paper says of a run (docs/analysis.md): read from an ARQMath-style name at ingest, editable.
    FACTS = ("team", "alternate", "manual", "baseline", "data_used", "answer_type", "fused", "llm_model")

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="runs")
    name = models.CharField(max_length=200)
    tag = models.CharField(max_length=200, blank=True, help_text="run tag(s) found in the file")
    alternate = models.BooleanField(default=False, help_text="alternate run (primary when unset)")
    manual = models.BooleanField(default=False, help_text="manual run (automatic when unset)")
    baseline = models.BooleanField(default=False)
    team = models.CharField(max_length=100, blank=True, help_text="the team that submitted the run")
    data_used = models.CharField(max_length=4, choices=Data.choices, blank=True,
                                 help_text="what of the posts the run used; empty when not known")
    answer_type = models.CharField(max_length=8, choices=AnswerType.choices, blank=True,
                                   help_text="Task 3: answers extracted from the collection or generated")
    format = models.CharField(max_length=10, choices=Format.choices)
    fused = models.BooleanField(default=False, help_text="made by fusing other runs (fuse_runs)")
    fused_from = models.JSONField(default=dict, blank=True,
                                  help_text="the fused run's method and sources: {method, k, norm, runs: [...]}")
    llm_model = models.CharField(max_length=200, blank=True,
                                 help_text="the LLM the run reranks or generates with, as its team declared it "
                                           "(empty: none)")
    depth = models.PositiveIntegerField(
        null=True, blank=True,
        help_text="pool this run to this depth instead of the campaign's primary/alternate depth")
    checksum = models.CharField(max_length=64, help_text="SHA-256 of the uploaded file")
    row_count = models.PositiveIntegerField(default=0)
    topic_count = models.PositiveIntegerField(default=0)
    ranks_are_positions = models.BooleanField(
        default=False,
        help_text="every topic's ranks are 1, 2, 3, ... (no gap, tie or disorder): a topic's first k rows are "
                  "its rows of rank <= k, which pooling reads without numbering the rows")
    warnings = models.JSONField(default=list, blank=True)
    # Most of the run's ids are not in the collection: those that are are numbers it shares with another collection's
    # posts (suspect), left out of the pools until the organizer confirms them (docs/pooling.md, "Suspect matches").
    mostly_missing = models.BooleanField(
        default=False, help_text="most of the run's ids are not in the collection: the ids found in it are suspect")
    matches_confirmed = models.BooleanField(
        default=False, help_text="the organizer confirmed that the run's ids found in the collection are its posts")
    uploaded_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    # Not a column: why services.run_ingest took the run as primary or alternate, on the run it returns.
    kind_why = ""

    class Meta:
        ordering = ["campaign", "name"]
        constraints = [models.UniqueConstraint(fields=["campaign", "name"], name="run_unique_name")]

    def __str__(self) -> str:
        return self.name

    @property
    def kind(self) -> str:
        return "alternate" if self.alternate else "primary"

    @property
    def suspect(self) -> bool:
        """The ids of the run that the collection has are left out of the pools (docs/pooling.md)."""
        return self.mostly_missing and not self.matches_confirmed


class RunEntry(models.Model):
    """One row of a run file. Task 1: item_id is the post id. Task 2: item_id is the formula id.

    The primary key (run, topic, item) is the rule that an item appears once per topic in a run, kept by the
    database, and the index pooling reads a run's list for a topic through: one index where a serial id and a
    lookup index made two (loading costs about the same; docs/benchmarks.md).
    """

    pk = models.CompositePrimaryKey("run", "topic", "item_id")

    # No database foreign keys: Django's are DEFERRABLE INITIALLY DEFERRED on PostgreSQL, so every COPY'd row
    # queued a check run at commit (30 of 68 s for 4M rows, bench/ingest.py before the change). run_ingest is
    # the only writer and takes the run it created and the campaign's topics in the same transaction; deletes
    # still cascade (in Django).
    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="entries", db_index=False,
                            db_constraint=False)
    topic = models.ForeignKey(Topic, on_delete=models.CASCADE, related_name="+", db_index=False,
                              db_constraint=False)
    item_id = models.CharField(max_length=64)
    post_id = models.CharField(max_length=64, blank=True)
    rank = models.PositiveIntegerField()
    score = models.FloatField()

    def __str__(self) -> str:
        return f"{self.item_id} at rank {self.rank}"


class AnswerText(models.Model):
    """A distinct ARQMath-3 Task 3 answer to a topic of a campaign, under its stable answer id (`d_N`, as the
    organizers named them): the answers of the campaign's Task 3 runs that are the same text once white space is
    normalised are one answer, one pool item, judged once. Ids are given at ingest in order (N = 1, 2, ...) and never
    change or go: a pool rebuild does not touch them, and an answer whose runs were all deleted keeps its id (its text
    comes back under it)."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="answer_texts")
    topic = models.ForeignKey(Topic, on_delete=models.CASCADE, related_name="answer_texts")
    number = models.PositiveIntegerField(help_text="N of the answer id d_N, in the order answers were first ingested")
    answer_id = models.CharField(max_length=64, help_text="the pool item id, d_N")
    # SHA-256 of the text with its white space normalised: a unique key where the text (1,200 characters, up to 4,800
    # bytes) would be over PostgreSQL's limit for an index entry.
    digest = models.CharField(max_length=64)
    text = models.TextField(help_text="the answer as the first run that gave it wrote it (assessors see this)")

    class Meta:
        ordering = ["campaign", "number"]
        constraints = [
            models.UniqueConstraint(fields=["campaign", "number"], name="answer_text_unique_number"),
            models.UniqueConstraint(fields=["campaign", "answer_id"], name="answer_text_unique_id"),
            models.UniqueConstraint(fields=["topic", "digest"], name="answer_text_unique_digest"),
        ]

    def __str__(self) -> str:
        return f"answer {self.answer_id}"


class RunAnswer(models.Model):
    """A Task 3 or TREC RAG run's answer to a topic, as its file gave it. Pooling reads the run's entries (a Task 3
    run's entry for a topic is its answer's id, at rank 1; a RAG run's, the ids its answer cites); this keeps the rest
    of the line (a RAG answer's sentences: AnswerSentence)."""

    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="answers")
    topic = models.ForeignKey(Topic, on_delete=models.CASCADE, related_name="+")
    answer = models.ForeignKey(AnswerText, on_delete=models.CASCADE, related_name="run_answers")
    line = models.PositiveIntegerField(help_text="the line of the file the answer starts on")
    rank = models.PositiveIntegerField(help_text="the rank the file gave (1 expected)")
    score = models.FloatField()
    run_tag = models.CharField(max_length=200, help_text="the file's run_id column")
    sources = models.TextField(blank=True)
    text = models.TextField(help_text="the answer as this run wrote it")

    class Meta:
        ordering = ["run", "topic__position"]
        constraints = [models.UniqueConstraint(fields=["run", "topic"], name="run_answer_one_per_topic")]

    def __str__(self) -> str:
        return f"{self.run} answer to {self.topic_id}"


class AnswerSentence(models.Model):
    """One sentence of a generated answer (the TREC RAG answer format: a list of sentences, each citing ids of the
    collection) with its citations in the order the answer gave them (docs/nuggets.md)."""

    answer = models.ForeignKey(RunAnswer, on_delete=models.CASCADE, related_name="sentences")
    position = models.PositiveIntegerField(help_text="the sentence's place in the answer, from 0")
    text = models.TextField()
    citations = models.JSONField(default=list, blank=True, help_text="the ids it cites, as the run gave them")

    class Meta:
        ordering = ["answer", "position"]
        constraints = [models.UniqueConstraint(fields=["answer", "position"], name="answer_sentence_position")]

    def __str__(self) -> str:
        return f"{self.answer} sentence {self.position}"


class PoolItem(models.Model):
    """One item of a topic's pool: a post id (answers) or a visual id (formulas), as assessors will see it."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="pool_items")
    topic = models.ForeignKey(Topic, on_delete=models.CASCADE, related_name="pool_items")
    item_id = models.CharField(max_length=64, help_text="post id (answers) or visual id (formulas)")
    position = models.PositiveIntegerField(help_text="display order within the topic, from 0")
    provenance = models.JSONField(default=list, help_text="[[run name, rank], ...] of the runs that pooled it")

    class Meta:
        ordering = ["topic", "position"]
        constraints = [models.UniqueConstraint(fields=["topic", "item_id"], name="pool_item_unique_id")]
        indexes = [models.Index(fields=["topic", "position"], name="pool_item_position")]

    def __str__(self) -> str:
        return f"{self.item_id} in topic {self.topic_id}"


class Candidate(models.Model):
    """An item a campaign pools beside its runs, from a candidates file (docs/pooling.md: the posts an accepted answer
    cites). Its source is pooled as provenance, for organizers; assessors see neither the source nor, unless the
    campaign shows notes, the note."""

    # No reverse names: `candidates` is already what the pools page counts per topic (a formula's instances).
    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="+")
    topic = models.ForeignKey(Topic, on_delete=models.CASCADE, related_name="+")
    item_id = models.CharField(max_length=64)
    source = models.CharField(max_length=100, help_text="where the candidate comes from: cited-in-accepted-answer")
    note = models.TextField(blank=True, help_text="evidence beside it, such as the asker's comments on the answer")
    position = models.PositiveIntegerField(help_text="its order among the topic's candidates in the file, from 1")

    class Meta:
        ordering = ["topic", "position"]
        constraints = [models.UniqueConstraint(fields=["topic", "item_id", "source"], name="candidate_unique")]

    def __str__(self) -> str:
        return f"{self.item_id} ({self.source}) in topic {self.topic_id}"


class PoolInstance(models.Model):
    """A candidate formula instance of a pooled visual id (formulas only); the selected ones are judged."""

    item = models.ForeignKey(PoolItem, on_delete=models.CASCADE, related_name="instances")
    formula_id = models.CharField(max_length=64)
    post_id = models.CharField(max_length=64, blank=True)
    vote = models.FloatField(help_text="reciprocal-rank vote: the sum of 1/rank over the runs that pooled it")
    selected = models.BooleanField(default=False)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["item", "formula_id"], name="pool_instance_unique_id")]

    def __str__(self) -> str:
        return f"formula {self.formula_id}"
