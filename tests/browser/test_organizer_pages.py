"""An organizer in a real browser: log in, upload a broken run and a good one, watch the job, see the run."""
import pytest

from pooling import services

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

TOPICS = ('<Topics>\n<Topic number="A.1"><Title>Limits</Title><Question>q</Question><Tags>calculus</Tags></Topic>\n'
          '<Topic number="A.2"><Title>Series</Title><Question>q</Question><Tags>sequences</Tags></Topic>\n</Topics>\n')


def log_in(page, live_server, username, password):
    page.goto(f"{live_server.url}/")
    assert page.url.startswith(f"{live_server.url}/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", password)
    with page.expect_navigation():
        page.click("button:has-text('Log in')")
    assert not page.url.startswith(f"{live_server.url}/login/"), page.inner_text("main")


def test_organizer_uploads_runs_and_sees_the_report(page, live_server, organizer, tmp_path, screenshot):
    campaign = services.campaign_create(name="ARQMath-3 Task 1", task="answers", collection_name="MSE")
    topics = tmp_path / "topics.xml"
    topics.write_text(TOPICS)
    services.topics_ingest(campaign=campaign, path=topics)
    bad = tmp_path / "team-bad.tsv"
    bad.write_text("A.1\t10\t1\t2.0\tt\nA.1\t11\tsecond\t1.0\tt\nA.3\t12\t1\t1.0\tt\n")
    good = tmp_path / "team-P.tsv"
    good.write_text("".join(f"A.{t}\t{t}{i}\t{i}\t{100 - i}\tteam-P\n" for t in (1, 2) for i in range(1, 51)))

    log_in(page, live_server, "olga", "organizer-pass-1")
    assert page.url == f"{live_server.url}/campaigns/"
    page.click("text=ARQMath-3 Task 1")
    page.click("text=Upload a run")
    page.set_input_files("#id_file", str(bad))
    page.click("button:has-text('Upload and check')")
    page.wait_for_selector(".problems")
    problems = page.inner_text(".problems")
    assert "nothing was written" in problems
    assert "team-bad.tsv: line 2: rank 'second' is not a whole number >= 1" in problems
    assert "team-bad.tsv: line 3: topic 'A.3' is not a topic of this campaign" in problems
    screenshot(page, "run-rejected.png")

    page.goto(f"{live_server.url}/campaigns/{campaign.pk}/runs/upload/")
    page.set_input_files("#id_file", str(good))
    page.check("input[name=kind][value=alternate]")
    page.click("button:has-text('Upload and check')")
    page.wait_for_selector(".status:text('done')")
    page.click("text=Back to ARQMath-3 Task 1")
    row = page.inner_text("#runs tbody tr")
    assert "team-P" in row and "alternate" in row and "100" in row
    screenshot(page, "campaign.png")


def test_job_list_shows_a_progress_bar_per_job(page, live_server, organizer, tmp_path):
    campaign = services.campaign_create(name="c", task="answers")
    topics = tmp_path / "topics.xml"
    topics.write_text(TOPICS)
    services.topics_ingest(campaign=campaign, path=topics)
    log_in(page, live_server, "olga", "organizer-pass-1")
    page.goto(f"{live_server.url}/campaigns/{campaign.pk}/topics/upload/")
    page.set_input_files("#id_file", str(topics))
    page.click("button:has-text('Upload and check')")
    page.wait_for_selector(".status:text('done')")
    page.goto(f"{live_server.url}/jobs/")
    assert page.locator("table.jobs progress").count() == 1
    assert page.locator("table.jobs progress").get_attribute("value") == "1.0"


def test_an_assessor_cannot_open_organizer_pages(page, live_server, assessor_user):
    log_in(page, live_server, "ada", "assessor-pass-1")
    assert page.url == f"{live_server.url}/assess/"
    response = page.goto(f"{live_server.url}/campaigns/")
    assert response.status == 403
