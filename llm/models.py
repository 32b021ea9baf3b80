"""The LLM co-assessor (docs/llm.md): a campaign's endpoint, the prompts, and every grade a model gave.

LLM grades are a source of their own: never an assessor account, never a Judgment, never in the official qrels.
A grade names its item by the pool's string ids, as judgments do, so that a pool rebuild never takes one with it.
"""
from __future__ import annotations

from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models

from ir.llm_replies import FILE, LOGPROBS, SAMPLES, SINGLE
from pooling.models import Campaign, Topic


class Mode(models.TextChoices):
    BLIND = "blind", "blind: people never see LLM grades"
    SUGGEST = "suggest", "suggest: the judging page shows the LLM's grade"
    FILTER = "filter", "filter: items the LLM graded 0 go to the end of each queue"


class Endpoint(models.Model):
    """A campaign's OpenAI-compatible chat-completions endpoint. The key is never stored: only the name of the
    environment variable that holds it."""

    campaign = models.OneToOneField(Campaign, on_delete=models.CASCADE, related_name="llm_endpoint")
    base_url = models.URLField(max_length=500, help_text="e.g. http://localhost:11434/v1 (Ollama)")
    model = models.CharField(max_length=200)
    api_key_env = models.CharField(max_length=100, blank=True,
                                   help_text="the name of the environment variable that holds the key (never the key)")
    temperature = models.FloatField(default=0.0, validators=[MinValueValidator(0.0), MaxValueValidator(2.0)])
    concurrency = models.PositiveSmallIntegerField(default=8, validators=[MinValueValidator(1),
                                                                           MaxValueValidator(256)])
    timeout = models.FloatField(default=60.0, validators=[MinValueValidator(0.1), MaxValueValidator(3600.0)],
                                help_text="seconds per request")
    retries = models.PositiveSmallIntegerField(default=3, validators=[MaxValueValidator(20)])
    samples = models.PositiveSmallIntegerField(default=1, validators=[MinValueValidator(1), MaxValueValidator(20)],
                                               help_text="replies per item; the grade is their majority, a tie "
                                                         "going to the lower grade")
    prompt = models.ForeignKey("Prompt", on_delete=models.SET_NULL, null=True, blank=True, related_name="+",
                               help_text="empty: the task's default prompt")
    mode = models.CharField(max_length=10, choices=Mode.choices, default=Mode.BLIND)

    def __str__(self) -> str:
        return f"{self.model} at {self.base_url}"


class Prompt(models.Model):
    """One version of a prompt template. An edit makes a new version; grades name the version they were made with."""

    class Task(models.TextChoices):
        ANSWERS = "answers", "Task 1 answers"
        FORMULAS = "formulas", "Task 2 formulas"
        TASK3 = "task3", "Task 3 answers"
        # Not a template: the row that grades imported from a file name, its text saying which file (docs/llm.md).
        IMPORTED = "imported", "grades imported from a file"

    name = models.CharField(max_length=100)
    version = models.PositiveIntegerField(default=1)
    task = models.CharField(max_length=10, choices=Task.choices)
    text = models.TextField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name", "-version"]
        constraints = [models.UniqueConstraint(fields=["name", "version"], name="llm_prompt_unique_version")]

    def __str__(self) -> str:
        return f"{self.name} v{self.version}"


class Canary(models.Model):
    """An item the organizer never pools (`llm_judge --canaries N`): a non-relevant pool item's text with the topic's
    own words stuffed in, or with a planted instruction. Its LLM grade against its source's measures the flip rate."""

    class Kind(models.TextChoices):
        STUFFED = "stuffed", "keywords stuffed"
        INSTRUCTION = "instruction", "planted instruction"

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="llm_canaries")
    topic = models.ForeignKey(Topic, on_delete=models.CASCADE, related_name="+")
    source_item_id = models.CharField(max_length=64, help_text="the pool item it copies")
    kind = models.CharField(max_length=12, choices=Kind.choices)
    text = models.TextField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["topic", "source_item_id", "kind"], name="llm_canary_unique")]

    def __str__(self) -> str:
        return f"{self.kind} canary of {self.source_item_id}"


class ProbabilitySource(models.TextChoices):
    """Where a grade's probabilities came from (docs/llm.md, "Grade probabilities")."""

    LOGPROBS = LOGPROBS, "the grade token's log probabilities"
    SAMPLES = SAMPLES, "the samples' grades"
    SINGLE = SINGLE, "one grade, probability 1"
    FILE = FILE, "the imported file"


class LlmGrade(models.Model):
    """What one model, with one prompt version, said of one item (Task 2: one formula instance) or one canary: the
    grade, or a failure with the raw reply. A failure is tried again by the next run; a grade is not."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="llm_grades")
    topic = models.ForeignKey(Topic, on_delete=models.CASCADE, related_name="+")
    item_id = models.CharField(max_length=64, help_text="post id (answers) or visual id (formulas)")
    formula_id = models.CharField(max_length=64, blank=True, help_text="formulas: the judged instance")
    canary = models.ForeignKey(Canary, on_delete=models.CASCADE, null=True, blank=True, related_name="grades")
    model = models.CharField(max_length=200)
    prompt = models.ForeignKey(Prompt, on_delete=models.PROTECT, related_name="grades")
    grade = models.PositiveSmallIntegerField(null=True, blank=True, help_text="empty: a failure")
    failure = models.CharField(max_length=500, blank=True, help_text="why no grade: unparseable reply, timeout, ...")
    replies = models.JSONField(default=list, blank=True, help_text="the raw reply of each sample")
    sample_grades = models.JSONField(default=list, blank=True, help_text="each sample's parsed grade (null: none)")
    probabilities = models.JSONField(default=dict, blank=True,
                                     help_text="each grade of the scheme (as text) -> its probability; empty: none "
                                               "(a failure, or a grade stored before they were kept)")
    probability_source = models.CharField(max_length=10, blank=True, choices=ProbabilitySource.choices,
                                          help_text="where the probabilities came from")
    tokens_in = models.PositiveIntegerField(default=0)
    tokens_out = models.PositiveIntegerField(default=0)
    latency = models.FloatField(default=0.0, help_text="seconds, summed over the samples")
    created_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["topic", "item_id", "formula_id"]
        constraints = [
            models.UniqueConstraint(fields=["topic", "item_id", "formula_id", "model", "prompt"],
                                    condition=models.Q(canary__isnull=True), name="llm_grade_unique"),
            models.UniqueConstraint(fields=["canary", "model", "prompt"], condition=models.Q(canary__isnull=False),
                                    name="llm_grade_canary_unique"),
        ]
        indexes = [models.Index(fields=["campaign", "model"], name="llm_grade_campaign_model")]

    def __str__(self) -> str:
        return f"{self.model}: {self.item_id} -> {self.grade if self.grade is not None else self.failure}"


class Calibration(models.Model):
    """A model's grade probabilities calibrated on the campaign's official judgments (docs/llm_calibration.md, "In
    the product"), refitted by a job when the judgments or the model's grades change (agreement/tasks.py): the rule
    used, the reliability of the model's probabilities and of the calibrated ones on the judged items (ECE and the
    diagram's bins), and every pooled item's calibrated probabilities, which the `uncertain` judging order and the
    hybrid qrels read."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="llm_calibrations")
    model = models.CharField(max_length=200)
    version = models.PositiveIntegerField(default=1, help_text="1 for the first fit, one more for each refit")
    fitted_at = models.DateTimeField()
    stamp = models.CharField(max_length=200, help_text="the official judgments' and the model's grades' state fitted")
    rule = models.CharField(max_length=20, help_text="bias-aware (ir/hybrid.py) or lara (ir/calibration.py)")
    humans = models.PositiveIntegerField(help_text="the judged items it was fitted on")
    ece_before = models.FloatField(null=True, blank=True, help_text="the model's own probabilities, judged items")
    ece_after = models.FloatField(null=True, blank=True, help_text="the calibrated probabilities, judged items")
    bins = models.JSONField(default=dict, blank=True,
                            help_text='{"before": [...], "after": [...]}: the reliability bins (low, high, count, '
                                      'confidence, accuracy)')
    probabilities = models.JSONField(default=dict, blank=True,
                                     help_text="topic id -> item id -> calibrated probability of grade 0, 1, ...")

    class Meta:
        constraints = [models.UniqueConstraint(fields=["campaign", "model"], name="llm_calibration_unique")]

    def __str__(self) -> str:
        return f"{self.model} calibrated v{self.version}"
