"""The judging page's content, shared by the page itself (views.judge) and the items fetched ahead of it
(ahead_views.ahead): the assessor's own assignment, and the template context of one item with its grade buttons."""
from __future__ import annotations

from django.http import Http404, HttpRequest
from django.template.loader import render_to_string
from django.utils.safestring import mark_safe

from ir.grades import MARK_DEFINITIONS, MARK_KEYS, MARK_LABELS, Scheme
from judging import budgets, rules, selectors, services, suggestions
from judging.forms import grade_formset
from judging.models import GRADES_NEEDING_COMMENT, Assignment, JudgmentRevision
from judging.rendering import judging_safe_fragments, thread_url
from judging.stamps import item_stamp
from pooling import selectors as pooling_selectors
from pooling.models import Campaign


def _grades(scheme: Scheme, missing: bool = False) -> list[dict]:
    """The grade buttons of the campaign's scheme, highest first, then its marks; an item the collection lacks offers
    only the marks the rules give it (all its grades when the scheme has no marks)."""
    grades = [{"value": str(g.value), "label": g.label, "meaning": g.definition, "key": g.key, "needs_comment": False}
              for g in scheme.grades if not (missing and scheme.marks) and not scheme.facets]
    return grades + [{"value": mark, "label": MARK_LABELS[mark], "meaning": MARK_DEFINITIONS[mark],
                      "key": MARK_KEYS[mark], "needs_comment": mark in GRADES_NEEDING_COMMENT}
                     for mark in scheme.marks if not missing or mark in rules.GRADES_OF_MISSING]


def comment_hint(scheme: Scheme) -> str:
    """What the comment box says of itself: required for the scheme's marks that need one, else optional."""
    needing = [MARK_LABELS[mark] for mark in scheme.marks if mark in GRADES_NEEDING_COMMENT]
    return f"required for {' and '.join(needing)}" if needing else "optional"


def missing_hint(scheme: Scheme) -> str:
    """What an assessor gives an item the collection lacks, in the scheme's words (rules.GRADES_OF_MISSING: the marks
    it offers; a scheme without them takes any grade)."""
    marks = [mark for mark in scheme.marks if mark in rules.GRADES_OF_MISSING]
    if not marks:
        return ("This scheme has no System failure or Do not know: give the grade that fits an item you cannot see "
                "and say in the comment that it is missing")
    named = " or ".join(MARK_LABELS[mark] + (" (say so in the comment)" if n == 0 else "")
                        for n, mark in enumerate(marks))
    return f"Grade it {named}; the other grades are not offered"


def _render(template: str, scheme: Scheme, **context) -> str:
    # The output of an autoescaped template.
    return mark_safe(render_to_string(template, {**context, "grades": _grades(scheme, context.get("missing", False))}))


def _grade_buttons(scheme: Scheme, *, unit, legend: str, grade_name: str, current, read_only: bool,
                   missing: bool = False) -> str:
    shown = current.get("grade", "") if isinstance(current, dict) else getattr(current, "grade", "")
    facets = (current.get("facets", {}) if isinstance(current, dict) else getattr(current, "facets", None)) or {}
    asked = [{"name": f.name, "question": f.question, "chosen": facets.get(f.name, ""), "options": f.options}
             for f in scheme.facets] if unit == "" and not missing else []
    return _render("judging/_grade_buttons.html", scheme, unit=unit, legend="Or" if asked else legend,
                   grade_name=grade_name, checked=shown if shown in scheme.values else "", read_only=read_only,
                   missing=missing, facets=asked, missing_hint=missing_hint(scheme) if missing else "",
                   missing_only=" or ".join(MARK_LABELS[m] for m in scheme.marks if m in rules.GRADES_OF_MISSING))


def own_assignment(request: HttpRequest, pk: int) -> Assignment:
    """The signed-in user's own assignment, else 404: nobody reaches another assessor's work."""
    assert request.user.is_authenticated  # its callers are login_required views
    try:
        return (Assignment.objects.select_related("campaign__collection", "campaign__llm_endpoint", "topic")
                .get(pk=pk, assessor=request.user))
    except Assignment.DoesNotExist:
        raise Http404("No such assignment") from None


def _shown(posted, grade_name: str, comment_name: str, saved):
    """The values the grade inputs show: what was just submitted when it was refused, else the saved judgment."""
    if posted is None:
        return saved
    return {"grade": posted.get(grade_name, ""), "comment": posted.get(comment_name, ""),
            "facets": {name[len("facet-"):]: posted.get(name) for name in posted if name.startswith("facet-")}}


def judge_context(page: selectors.JudgingPage, errors: list[str], posted=None, *,
                   rendered_at: float | None = None) -> dict:
    assignment = page.assignment
    campaign = assignment.campaign
    collection_pk = campaign.collection_id
    topic = assignment.topic
    post = page.shown.post
    # Every fragment of collection HTML on the page, sanitized together (one cache round trip); sanitized ahead
    # when the topic was assigned (services.judging_cache_warm), a miss is sanitized here. Empty ones stay empty.
    safe = judging_safe_fragments(page.fragments, collection_pk=collection_pk)
    # A post is shown only from the campaign's collection: without one there is no post to link.
    post_url = thread_url(collection_pk) if collection_pk is not None else None
    task, read_only, scheme = campaign.task, assignment.read_only, campaign.judging_scheme
    # An item without its post is missing when the collection has posts (rules.GRADES_OF_MISSING; the same test as
    # selectors.units_not_in_collection); asked only when a post is lacking.
    lacking = post is None and not page.shown.answer if task == Campaign.Task.ANSWERS else any(
        i.post is None for i in page.shown.instances)
    has_posts = (collection_pk is not None and lacking
                 and pooling_selectors.collection_has_posts(collection_id=collection_pk))
    # Suggest mode: the LLM's grade of the item (of each instance), sent back with the grades; blind: none at all.
    shown = suggestions.suggestions_shown(campaign=campaign, topic=topic, item_ids=[page.item.item_id],
                                          kind=assignment.kind)

    def suggestion(formula_id: str) -> dict | None:
        grade = shown.get((page.item.item_id, formula_id))
        return None if grade is None else {"pk": grade.pk, "grade": grade.grade,
                                           "label": scheme.label(str(grade.grade))}

    instances = []
    # A formula's instances are graded in one formset: the names of its fields and its management form.
    grade_forms = grade_formset(formula_ids=[i.formula_id for i in page.shown.instances])
    for n, (instance, form) in enumerate(zip(page.shown.instances, grade_forms, strict=True)):
        grade_name, comment_name = form["grade"].html_name, form["comment"].html_name
        current = _shown(posted, grade_name, comment_name, instance.judgment)
        missing = has_posts and instance.post is None
        instances.append({
            "n": n, "form": form, "grade_name": grade_name, "comment_name": comment_name,
            "formula_id": instance.formula_id, "post": instance.post, "judgment": instance.judgment,
            "current": current, "missing": missing,
            "saved_label": scheme.label(instance.judgment.grade) if instance.judgment else "",
            "post_id": instance.post_id, "formula": instance.formula,
            "suggestion": suggestion(instance.formula_id), "suggestion_name": form["suggestion"].html_name,
            "buttons": _grade_buttons(scheme, unit=n, legend="Grade of this instance", grade_name=grade_name,
                                      current=current, read_only=read_only, missing=missing),
            "title": safe[f"title-{n}"], "body": safe[f"body-{n}"], "comment": safe[f"comment-{n}"],
            "thread_url": post_url(instance.post.post_id) if instance.post and post_url else "",
        })
    current = _shown(posted, "grade", "comment", page.judgment)
    item = page.item
    missing = task == Campaign.Task.ANSWERS and has_posts
    judged = {i.formula_id for i in page.shown.instances if i.judgment} | ({""} if page.judgment else set())
    place = selectors.item_place(assignment=assignment, item=item)
    return {
        "assignment": assignment, "campaign": campaign, "topic": topic, "item": page.item,
        "topic_title": safe["topic_title"], "topic_question": safe["topic_question"],
        "topic_tags": topic.tags.split(), "topic_siblings": pooling_selectors.sibling_topics(topic=topic),
        "post": post, "post_body": safe["post_body"], "question_title": safe["question_title"],
        "post_title": safe["post_title"],
        "answer": page.shown.answer,
        # The evidence beside a candidate, when the organizer turned it on; never where it came from.
        "candidate_notes": pooling_selectors.candidate_notes(topic=topic, item_id=item.item_id)
        if campaign.candidate_notes and task == Campaign.Task.ANSWERS else [],
        "suspect": pooling_selectors.pool_item_suspect(item=item),
        "post_thread_url": post_url(post.post_id) if post and post_url else "",
        "judgment": page.judgment, "current": current,
        "saved_label": scheme.label(page.judgment.grade) if page.judgment else "",
        "buttons": _grade_buttons(scheme, unit="", legend="Relevance of this answer", grade_name="grade",
                                  current=current, read_only=read_only, missing=missing),
        "missing": missing, "comment_hint": comment_hint(scheme), "suggestion": suggestion(""),
        "missing_hint": missing_hint(scheme),
        "missing_note": "the run names a post the collection does not have, so there is nothing to judge. "
                        + missing_hint(scheme),
        "instances": instances, "grade_forms": grade_forms,
        "definitions": _render("judging/_definitions.html", scheme, formulas=task == Campaign.Task.FORMULAS),
        "formulas": task == Campaign.Task.FORMULAS,
        "progress": progress_shown(assignment, page.progress),
        # Back: the item shown before this one (any judging order); a closed assignment is browsed in pool order.
        "previous": page.previous if read_only else selectors.shown_before(assignment=assignment, item=item),
        "errors": errors, "read_only": read_only,
        "item_title": f"{topic.topic_id}: item {place}",
        "item_label": f"item {place} of {page.progress.total}",
        "complete": services.judged_complete(judged, None if task == Campaign.Task.ANSWERS else {
            i.formula_id: "" for i in page.shown.instances}),
        # The revision shown, sent back with the grades: a newer one on the server is not replaced unseen.
        "seen_revision": services.item_revision([j for j in [page.judgment, *(i.judgment for i in page.shown.instances)]
                                                 if j is not None]),
        "stamp": item_stamp(assignment_pk=assignment.pk, position=item.position, pool_item_pk=item.pk,
                            at=rendered_at),
    }


def progress_shown(assignment: Assignment, progress: selectors.Progress) -> selectors.Progress:
    """The judging page's counter ("done of total judged"): of the assignment's budget when one applies and is below
    its items (budgets.assignment_budget), else of its items."""
    budget = budgets.assignment_budget(assignment=assignment)
    if budget.items is None or budget.items >= progress.total:
        return progress
    return selectors.Progress(done=progress.done, total=budget.items)


def history_context(assignment: Assignment, item) -> dict:
    """An item's judgment history as its assessor sees it (the history page): every revision of their judgments of
    it (Task 2: of each instance), oldest first, with the grade's label, the facets answered at that submission by
    their questions' and options' labels, and the LLM grade that was on screen, if one was."""
    scheme = assignment.campaign.judging_scheme
    facets = {f.name: (f.question, {o.value: o.label for o in f.options}) for f in scheme.facets}
    revisions = (JudgmentRevision.objects.filter(judgment__assignment=assignment, judgment__item_id=item.item_id)
                 .select_related("judgment", "suggestion").order_by("judgment__formula_id", "number"))
    rows = []
    for r in revisions:
        given = r.facets or {}
        answered = [(question, options.get(given[name], given[name]))
                    for name, (question, options) in facets.items() if name in given]
        rows.append({"revision": r, "formula_id": r.judgment.formula_id, "label": scheme.label(r.grade),
                     "old_label": scheme.label(r.old_grade) if r.old_grade else "", "facets": answered,
                     "suggestion": scheme.label(str(r.suggestion.grade)) if r.suggestion and
                     r.suggestion.grade is not None else "" if not r.suggested else "(a grade since deleted)"})
    return {"assignment": assignment, "topic": assignment.topic, "item": item, "rows": rows,
            "formulas": assignment.campaign.task == Campaign.Task.FORMULAS, "facets": bool(scheme.facets),
            "suggested": any(r.suggested for r in revisions)}
