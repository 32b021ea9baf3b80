"""The organizer reads the LLM's calibration on the agreement page: the reliability diagram and the expected
calibration error before and after (docs/llm_calibration.md, "In the product"), fitted by a job (here in-process)."""
import pytest

from llm.models import Calibration
from tests.browser.test_organizer_pages import log_in
from tests.llm.test_calibration import graded  # noqa: F401 (fixture)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_the_agreement_page_shows_the_reliability_diagram(page, live_server, organizer, graded, screenshot):  # noqa: F811
    log_in(page, live_server, "olga", "organizer-pass-1")
    page.goto(f"{live_server.url}/campaigns/{graded.pk}/agreement/")
    page.reload()  # the first view queued the refit, which ran in the web process (no broker)
    calibration = Calibration.objects.get(campaign=graded)
    chart = page.locator(".reliability-chart").first
    chart.scroll_into_view_if_needed()
    assert chart.is_visible() and page.locator(".reliability-chart .bar.after").count() >= 1
    assert page.inner_text(".ece-after").strip() == f"{calibration.ece_after:.3f}"
    page.evaluate("document.querySelector('.reliability-chart').scrollIntoView({block: 'center'})")
    screenshot(page, "llm-reliability.png")
