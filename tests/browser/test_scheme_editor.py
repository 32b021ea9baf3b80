"""The scheme editor in the browser (issue 25): an organizer opens it from the campaign's settings, starts from the
MathOverflow preset, renames an option and saves; the settings page then shows the scheme as assessors will see it."""
import pytest
from playwright.sync_api import expect

from pooling.models import Campaign
from tests.browser.test_organizer_pages import log_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_an_organizer_edits_the_scheme_from_a_preset(page, live_server, answers, organizer, screenshot):
    log_in(page, live_server, "olga", "organizer-pass-1")
    page.goto(f"{live_server.url}/campaigns/{answers.pk}/settings/")
    page.click("#scheme-edit-link")
    page.click("text=mo-facets")
    expect(page.locator("[name=facet-0-options]")).to_have_value("total t Total\npartial p Partial\nnone o None")
    page.fill("[name=name]", "mo-facets, our words")
    page.fill("[name=facet-0-options]", "total t Total\npartial p Part of it\nnone o None")
    page.locator("h2:has-text('Grades')").evaluate("e => e.scrollIntoView()")
    screenshot(page, "scheme-editor.png")
    page.click("button:has-text('Save the scheme')")
    expect(page.locator("#scheme")).to_contain_text("Judging scheme: mo-facets, our words")
    expect(page.locator("#scheme fieldset.facet").first).to_contain_text("Part of it")
    scheme = Campaign.objects.get(pk=answers.pk).judging_scheme
    assert [o.label for o in scheme.facets[0].options] == ["Total", "Part of it", "None"]
    assert scheme.table[("partial", "direct")] == 2


def test_a_refused_field_shows_its_message_beside_it_and_the_marks_are_named_above_their_boxes(
        page, live_server, answers, organizer, screenshot):
    log_in(page, live_server, "olga", "organizer-pass-1")
    page.goto(f"{live_server.url}/campaigns/{answers.pk}/scheme/")
    legend, first_box = page.locator("legend:has-text('Marks')"), page.locator("[name=marks]").first
    assert legend.bounding_box()["y"] + legend.bounding_box()["height"] <= first_box.bounding_box()["y"]
    # The field's maxlength stops typing at 500; a script (or an old page) may still send more.
    page.locator("[name=grade-0-definition]").evaluate("e => { e.removeAttribute('maxlength'); "
                                                       "e.value = 'D'.repeat(700); }")
    page.fill("[name=grade-1-value]", "x")
    page.click("button:has-text('Save the scheme')")
    error = page.locator("#id_grade-0-definition-error")
    expect(error).to_be_visible()
    expect(error).to_have_text("Ensure this value has at most 500 characters (it has 700).")
    field = page.locator("[name=grade-0-definition]").bounding_box()
    assert error.bounding_box()["y"] >= field["y"] + field["height"]  # below its own field, in its cell
    expect(page.locator("#scheme-problems")).to_contain_text("grade 1, definition: Ensure this value")
    page.locator("#scheme-grades").evaluate("e => e.scrollIntoView()")
    screenshot(page, "scheme-editor-refused-field.png")
    page.fill("[name=grade-0-definition]", "short")
    page.click("button:has-text('Save the scheme')")
    expect(page.locator("#scheme-problems")).to_contain_text("grade 2: a value is a whole number from 0 to 3, not x")
    expect(page.locator("[name=grade-1-value]")).to_have_value("x")
    assert Campaign.objects.get(pk=answers.pk).scheme == {}
