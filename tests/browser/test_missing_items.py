"""Items the collection lacks, in a real browser (issue 22 point 3): only System failure and Do not know are offered,
with the reason; Task 2 names the run's formula id and what the formula index knows. And the run kind chosen on the
upload page, said on the job page (point 6)."""
import pytest
from playwright.sync_api import expect

from jobs.models import Job
from jobs.runner import job_execute
from judging.models import Judgment
from pooling.models import PoolItem, Run
from tests.browser.test_organizer_pages import log_in
from tests.judging.fixtures import assign

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_missing_answer_offers_only_sf_and_dk_with_the_reason(page, live_server, answers, ada, screenshot):
    a = assign(answers, ada, "A.2")
    position = PoolItem.objects.get(topic=a.topic, item_id="99").position
    log_in(page, live_server, "ada", "assessor-pass-1")
    page.goto(f"{live_server.url}/assess/assignments/{a.pk}/items/{position}/")
    page.wait_for_selector(".item-view[data-bound='1']")  # judge.js has bound the keys (a slow machine loads it late)
    buttons = page.locator("#judge-form .grade-buttons label")
    expect(buttons).to_have_count(2)
    assert buttons.all_inner_texts() == ["f System failure", "d Do not know"]
    expect(page.locator(".missing-item")).to_contain_text("Post 99 is not in the collection")
    expect(page.locator(".missing-note")).to_contain_text("Only System failure or Do not know")
    page.keyboard.press("3")  # the key of High does nothing here
    expect(page.locator("#judge-form input[type=radio]:checked")).to_have_count(0)
    screenshot(page, "judge-missing.png")
    page.keyboard.press("f")
    page.fill("textarea[name=comment]", "post 99 is not in the collection")
    page.evaluate("document.activeElement.blur()")
    page.keyboard.press("Enter")
    expect(page.locator("#sync-status")).to_have_text("Saved", timeout=20000)  # the server answered the submit
    expect(page.locator("#sync-status")).to_have_attribute("data-outbox", "0", timeout=20000)
    assert Judgment.objects.get(item_id="99").grade == "SF"


def test_a_missing_formula_instance_shows_the_run_s_formula_id_and_the_index(page, live_server, formulas_missing,
                                                                           ada, screenshot):
    a = assign(formulas_missing, ada, "B.1")
    position = PoolItem.objects.get(topic=a.topic, item_id="900").position
    log_in(page, live_server, "ada", "assessor-pass-1")
    page.goto(f"{live_server.url}/assess/assignments/{a.pk}/items/{position}/")
    instance = page.locator("#instance-0")
    expect(instance.locator("header")).to_contain_text("post 90 (not in the collection)")
    expect(instance.locator(".formula-id")).to_have_text("9")
    expect(instance.locator(".index-knows")).to_contain_text("The formula index has formula 9: answer post 90, "
                                                             "visual id 900, LaTeX x^{9}")
    assert instance.locator(".grade-buttons label").all_inner_texts() == ["f System failure", "d Do not know"]
    screenshot(page, "judge-formulas-missing.png")


def test_the_job_page_says_which_run_kind_was_taken_and_why(page, live_server, organizer, answers, tmp_path,
                                                           screenshot):
    path = tmp_path / "team-task1-sys-auto-both-A.tsv"
    path.write_text("A.1\t10\t1\t2.0\tsys\nA.1\t11\t2\t1.0\tsys\n")
    log_in(page, live_server, "olga", "organizer-pass-1")
    page.goto(f"{live_server.url}/campaigns/{answers.pk}/runs/upload/")
    expect(page.locator("input[name=kind][value=name]")).to_be_checked()  # the default: what the name says
    page.set_input_files("input[name=file]", str(path))
    page.check("input[name=kind][value=primary]")
    screenshot(page, "run-upload-kind.png")
    page.click("button:has-text('Upload and check')")
    page.wait_for_url("**/jobs/*/")
    job_execute(job_id=Job.objects.latest("pk").pk)  # no worker in the test: run it here, the page polls
    expect(page.locator(".status-line")).to_contain_text("Taken as primary: chosen on upload.", timeout=20000)
    page.reload()
    expect(page.locator(".run-kind")).to_have_text("primary (chosen on upload)")
    assert Run.objects.get(name="team-task1-sys-auto-both-A").kind == "primary"
    screenshot(page, "job-run-kind.png")
