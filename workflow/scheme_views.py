"""The organizer's scheme editor (docs/judging.md, "Editing a scheme"): a campaign's custom judging scheme
made on a page, its grades (value, label, key, definition), marks, relevance level, facets with their options, and
the table from the facets' answers to a grade. The page only turns its fields into a scheme file's object; the rules
are ir.grades.scheme_from_json's (as for the API and create_campaign's scheme file), and the refusal once judging has
started is the campaign update's (pooling.services.undo)."""
from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_http_methods

from core.permissions import organizer_required
from ir.grades import PRESETS, preset, scheme_from_json
from ir.problems import InputError
from judging import services as assessor_services
from judging.selectors import judged_items_count
from pooling.models import Campaign
from workflow.forms import FacetRows, GradeRows, SchemeForm

# A grade's value as the page's fields read a whole number (ASCII digits of a few places: "²" and "1e3" are not).
_WHOLE = forms.IntegerField(max_value=10**9, min_value=-10**9)


def _number(text: str) -> int | str:
    """A whole number as an int; other text as it is, for the scheme's rule (ir.grades.scheme_from_json) to name."""
    try:
        return _WHOLE.clean(text.strip())
    except forms.ValidationError:
        return text.strip()[:20]


def scheme_posted(form: SchemeForm, grades: Any, facets: Any) -> dict[str, Any]:
    """The scheme file's object the page's fields make (rows left empty are no rows); InputError with the line of a
    table line that is no combination (the rest is scheme_from_json's to judge)."""
    data = form.cleaned_data
    scheme: dict[str, Any] = {
        "name": data["name"].strip() or "custom", "marks": list(data["marks"]),
        "grades": [{"value": _number(g["value"]), "label": g["label"], "key": g["key"], "definition": g["definition"]}
                   for g in (row.cleaned_data for row in grades) if any(str(v).strip() for v in g.values())],
    }
    if data["relevance_level"].strip():
        scheme["relevance_level"] = _number(data["relevance_level"])
    problems = []
    rows = []
    for row in (row.cleaned_data for row in facets):
        if not any(str(v).strip() for v in row.values()):
            continue
        options = []
        for n, line in enumerate(row["options"].splitlines(), 1):
            parts = line.split(None, 2)
            if not parts:
                continue
            if len(parts) < 2:
                problems.append(f"facet {row['name'] or '?'}, option line {n}: give value, key and label")
                continue
            options.append({"value": parts[0], "key": parts[1], "label": parts[2] if len(parts) > 2 else parts[0]})
        rows.append({"name": row["name"].strip(), "question": row["question"].strip() or row["name"].strip(),
                     "options": options})
    if rows:
        scheme["facets"] = rows
    table = []
    for n, line in enumerate(data["table"].splitlines(), 1):
        parts = line.split()
        if not parts:
            continue
        if len(parts) != len(rows) + 1:
            problems.append(f"facets to grade, line {n}: {len(rows)} option{'s' if len(rows) != 1 else ''} (one per "
                            f"facet) and a grade, not {len(parts)} words")
            continue
        table.append({"answers": parts[:-1], "grade": _number(parts[-1])})
    if table:
        scheme["table"] = table
    if problems:
        raise InputError(problems)
    return scheme


def _initial(scheme: dict[str, Any]) -> tuple[dict, list[dict], list[dict]]:
    grades = [{k: str(g[k]) for k in ("value", "label", "key", "definition")} for g in scheme["grades"]]
    facets = [{"name": f["name"], "question": f["question"],
               "options": "\n".join(f"{o['value']} {o['key']} {o['label']}" for o in f["options"])}
              for f in scheme["facets"]]
    table = "\n".join(" ".join([*row["answers"], str(row["grade"])]) for row in scheme["table"])
    return ({"name": scheme["name"], "marks": scheme["marks"], "relevance_level": str(scheme["relevance_level"]),
             "table": table}, grades, facets)


def _field_problems(form: SchemeForm, grades: Any, facets: Any) -> list[str]:
    """Each refused field named where it is (its message is also shown beside it)."""
    def named(owner: forms.Form, name: str) -> str:
        return str(owner[name].label) if name in owner.fields else "the form"  # NON_FIELD_ERRORS has no field

    problems = [f"{named(form, name)}: {e}" for name, errors in form.errors.items() for e in errors]
    for kind, rows in (("grade", grades), ("facet", facets)):
        problems += [f"{kind} {n}, {named(row, name).lower()}: {e}" for n, row in enumerate(rows, 1)
                     for name, errors in row.errors.items() for e in errors]
        problems += list(rows.non_form_errors())
    return problems or ["a field is too long or missing: see the marked fields"]


@organizer_required
@require_http_methods(["GET", "POST"])
def scheme_edit(request: HttpRequest, pk: int) -> HttpResponse:
    """GET: the campaign's scheme in the editor's fields (or a preset's, ?from=NAME, to start from); POST: saved as
    the campaign's custom scheme, unless judging has started or the scheme breaks a rule (every problem shown)."""
    campaign = get_object_or_404(Campaign.objects.select_related("collection"), pk=pk)
    judged = judged_items_count(campaign)
    start = request.GET.get("from", "")
    base = (preset(start, campaign.task) if start in PRESETS else campaign.judging_scheme).to_json()
    initial, grade_rows, facet_rows = _initial(base)
    if request.method == "POST":
        form = SchemeForm(request.POST)
        grades, facets = GradeRows(request.POST, prefix="grade"), FacetRows(request.POST, prefix="facet")
    else:
        form = SchemeForm(initial=initial)
        grades = GradeRows(prefix="grade", initial=grade_rows)
        facets = FacetRows(prefix="facet", initial=facet_rows)
    problems: list[str] = []
    if request.method == "POST":
        if not (form.is_valid() and grades.is_valid() and facets.is_valid()):
            problems = _field_problems(form, grades, facets)
        else:
            try:
                scheme = scheme_from_json(scheme_posted(form, grades, facets))
                assessor_services.campaign_update(campaign=campaign, scheme=scheme,
                                                  relevance_level=scheme.relevance_level)
            except InputError as exc:
                problems = exc.messages()
            else:
                messages.success(request, f"The judging scheme of {campaign.name} is now {scheme.name}.")
                return redirect("workflow:campaign_settings", pk=pk)
    return render(request, "workflow/scheme_edit.html", {
        "campaign": campaign, "form": form, "grades": grades, "facets": facets, "problems": problems,
        "judged": judged, "presets": PRESETS, "formulas": campaign.task == Campaign.Task.FORMULAS,
    }, status=400 if problems else 200)
