"""Forms of the judging app: the organizer's (assign topics, create assessor accounts, characterisation questions and
assignments) and what the judging page sends (its grades, `?after=`, `?have=`, the reports of items shown)."""
from typing import TYPE_CHECKING

from django import forms
from django.core.validators import ProhibitNullCharactersValidator

from core.bounds import column_bounds
from core.forms import WholeNumberField, form_values
from ir.problems import InputError
from judging.models import Assignment
from judging.services import GradeInput
from llm.models import LlmGrade
from pooling.models import PoolItem

if TYPE_CHECKING:
    from django.contrib.auth.models import User


class AssessorsTopicsForm(forms.Form):
    """Assessors and topics to choose, as checkboxes (the topic grid)."""
    assessors: "forms.ModelMultipleChoiceField[User]" = forms.ModelMultipleChoiceField(
        queryset=None, widget=forms.CheckboxSelectMultiple)
    topics = forms.MultipleChoiceField(choices=(), widget=forms.CheckboxSelectMultiple)

    def __init__(self, *args, topics, assessors, **kwargs):
        super().__init__(*args, **kwargs)
        assessors_field, topics_field = self.fields["assessors"], self.fields["topics"]
        assert isinstance(assessors_field, forms.ModelMultipleChoiceField)
        assert isinstance(topics_field, forms.MultipleChoiceField)
        assessors_field.queryset = assessors
        topics_field.choices = [(t.topic_id, t.topic_id) for t in topics]


class AssignForm(AssessorsTopicsForm):
    # Characterisation assignments take a sample size: the Characterisation page makes them; check assignments take
    # their items: the disagreement review's LLM section makes them.
    kind = forms.ChoiceField(choices=[c for c in Assignment.Kind.choices if c[0] not in (
        Assignment.Kind.CHARACTERISATION, Assignment.Kind.CHECK)],
                             initial=Assignment.Kind.OFFICIAL)
    round = forms.IntegerField(**column_bounds(Assignment, "round", min_value=1), required=False,
                               help_text="training round (default 1)")
    per_topic = forms.IntegerField(min_value=1, required=False, label="Assessors per topic",
                                   help_text="empty: every chosen assessor gets every chosen topic; N: each topic "
                                             "goes to N of them, least-loaded first (what they hold counts)")


class TopicSearchForm(forms.Form):
    """The topic grid's search box (GET ?q=): the topics whose id, title or holders hold every word."""
    q = forms.CharField(required=False, max_length=200, label="Search topics")

    def words(self) -> list[str]:
        return self.cleaned_data["q"].lower().split() if self.is_valid() else []


class AssessorCreateForm(forms.Form):
    username = forms.CharField(max_length=150, help_text="a new assessor account; its password is shown once")






class GroupKeyForm(forms.Form):
    """`?kind=&round=`: a group of judgments, a training round or the dual assessment (both optional; the services
    say which kinds they measure). A round is a training round's number."""
    kind = forms.CharField(required=False)
    round = forms.IntegerField(**column_bounds(Assignment, "round", min_value=1), required=False, error_messages={
        "invalid": "round '%(value)s' is not a number",
        "min_value": "round '%(value)s' is not a training round's number (they start at %(limit_value)s)",
        "max_value": "round '%(value)s' is not a training round's number"})

    def key(self) -> tuple[str | None, int | None]:
        """The kind and round given (None for either not given); InputError for a round that is no number."""
        values = form_values(self)
        return values["kind"] or None, values["round"]


class _SentText(forms.CharField):
    """Text kept as sent: the services judge it, a NUL character included, in their own words."""
    def __init__(self, **kwargs):
        super().__init__(required=False, strip=False, **kwargs)
        self.validators = [v for v in self.validators if not isinstance(v, ProhibitNullCharactersValidator)]


class GradeForm(forms.Form):
    """A grade as the judging page posts it: an answer's (`grade`, `comment`), or in GradeFormSet one instance's of
    a formula, named by its formula id. The services judge the values (judgments.judgment_submit)."""
    formula_id = _SentText(widget=forms.HiddenInput)
    grade = _SentText()
    comment = _SentText()
    # Suggest mode: the LLM grade that was on screen (its id); the service checks it is one of this item's.
    suggestion = WholeNumberField(
        **column_bounds(LlmGrade, "id", min_value=1), required=False, widget=forms.HiddenInput,
        error_messages=dict.fromkeys(("invalid", "min_value", "max_value"),
                                     "suggestion '%(value)s' is no LLM grade's id"))


# More instances than any campaign judges per formula: a bound on the forms read.
MAX_INSTANCES = 100
GradeFormSet = forms.formset_factory(GradeForm, extra=0, max_num=MAX_INSTANCES, absolute_max=MAX_INSTANCES)
# The formset's prefix on the judging page: its fields are instance-0-grade, instance-0-comment, ...
INSTANCES = "instance"


def grade_formset(*, data=None, formula_ids: list[str] | None = None):
    """The grades of a formula's instances: bound to a POST, or unbound with the page's instances (the names and
    the management form the page shows). No ids: a page holds several items, those fetched ahead."""
    return GradeFormSet(data, prefix=INSTANCES, auto_id="",
                        initial=None if data is not None else [{"formula_id": f} for f in formula_ids or []])


def grades_posted(data) -> list[GradeInput]:
    """The grades a judging page posted: an answer's one, or with GradeFormSet's management form those of a
    formula's instances graded or commented; InputError when the formset's data does not hold together."""
    if f"{INSTANCES}-TOTAL_FORMS" not in data:
        values = form_values(GradeForm(data))
        # A scheme's facets (answers): one group of options per facet, named facet-NAME.
        facets = {name[len("facet-"):]: str(data.get(name))[:64] for name in data if name.startswith("facet-")}
        return [GradeInput(grade=values["grade"], comment=values["comment"], facets=facets,
                           suggestion=values["suggestion"])]
    formset = grade_formset(data=data)
    if not formset.is_valid() and formset.non_form_errors():
        raise InputError([str(e) for e in formset.non_form_errors()])
    grades = []
    for form in formset:
        values = form_values(form)  # {} for a form the page added empty, which grades nothing
        grade, comment = values.get("grade", ""), values.get("comment", "")
        if grade or comment.strip():
            grades.append(GradeInput(grade=grade, comment=comment, formula_id=values["formula_id"],
                                     suggestion=values.get("suggestion")))
    return grades


class SeenForm(forms.Form):
    """`seen_revision`: the item's revision the judging page showed (services.item_revision), sent with its grades;
    empty from clients that do not send it (no check)."""
    seen_revision = WholeNumberField(min_value=0, max_value=2**31 - 1, required=False, error_messages=dict.fromkeys(
        ("invalid", "min_value", "max_value"), "the revision seen '%(value)s' is not a whole number"))


def seen_revision(data) -> int | None:
    """The revision a judging page saw, None when not sent; InputError when it is not a whole number."""
    return form_values(SeenForm(data))["seen_revision"]


class BrowserSubmitForm(forms.Form):
    """The outbox's numbering of a submit (judge-outbox.js): the browser's random id and the submit's number there."""
    browser = forms.RegexField(regex=r"^[0-9a-f]{8,32}$")
    number = WholeNumberField(min_value=1, max_value=2**31 - 1)

    def heard(self) -> tuple[str, int] | None:
        """Both, when the outbox sent them well formed; None otherwise (a plain form, the API, an older page)."""
        return (self.cleaned_data["browser"], self.cleaned_data["number"]) if self.is_valid() else None


class ContinueForm(forms.Form):
    """`?after=`: the position a continue URL goes on from. None when there is none or it is no pool item's position
    (the next item is then the first unjudged one)."""
    after = WholeNumberField(**column_bounds(PoolItem, "position"), required=False)

    def position(self) -> int | None:
        return self.cleaned_data["after"] if self.is_valid() else None


class AheadForm(forms.Form):
    """`?have=`: the pool items the judging page holds already, their ids comma-separated; a part that is no pool
    item's id is left out (that item comes in full)."""
    have = forms.CharField(required=False)

    def pool_items(self) -> set[int]:
        if not self.is_valid():
            return set()
        pool_item = WholeNumberField(**column_bounds(PoolItem, "id"))
        held = set()
        for part in self.cleaned_data["have"].split(","):
            try:
                held.add(pool_item.clean(part))
            except forms.ValidationError:
                continue
        return held


class ShownForm(forms.Form):
    """What the judging page reports with an item it showed, besides its stamp: the milliseconds from asking for the
    item to showing it (at most 12 digits: 31 years, a bound that keeps the seconds a float)."""
    elapsed_ms = WholeNumberField(min_value=0, max_value=10**12 - 1, error_messages=dict.fromkeys(
        ("required", "invalid", "min_value", "max_value"), "elapsed_ms: a whole number of milliseconds"))
