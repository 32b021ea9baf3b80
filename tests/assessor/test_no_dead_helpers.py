"""The judging modules keep no second way to the same read: the replaced helpers are gone, not left to drift."""
from assessor import dashboard_views, rendering, selectors, views


def test_the_replaced_judging_reads_and_the_thread_url_alias_are_gone():
    # judging_assignment_item replaced own_assignment and pool_item_at on the judging page.
    assert not hasattr(selectors, "own_assignment")
    assert not hasattr(selectors, "pool_item_at")
    assert not hasattr(views, "_post_url")
    assert dashboard_views._post_url is rendering.thread_url
