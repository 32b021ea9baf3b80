"""The pools page once judging has started: the download link keeps a button's height beside the rebuild form and its
warning (it was stretched to the form's height)."""
import pytest

from tests.browser.test_organizer_pages import log_in
from tests.pooling.undo_data import judged  # noqa: F401 (a fixture)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_the_download_link_is_a_button_level_with_the_rebuild_button(page, live_server, organizer, judged):  # noqa: F811
    log_in(page, live_server, "olga", "organizer-pass-1")
    page.goto(f"{live_server.url}/campaigns/{judged.pk}/pools/")
    assert page.locator("#judging-started").is_visible()
    rebuild = page.locator("form[action$='/pools/build/'] button").bounding_box()
    download = page.locator("a:has-text('Download pools')").bounding_box()
    assert abs(download["height"] - rebuild["height"]) <= 2, (download, rebuild)      # one line, not stretched
    assert abs((download["y"] + download["height"]) - (rebuild["y"] + rebuild["height"])) <= 2, (download, rebuild)
