"""The leaderboard's cached scores: while one request computes a new version, others get the newest scores there
are, never older ones that a slower request finished later."""
from django.core.cache import cache

from evaluation import services
from tests.evaluation.test_campaign import judged_answers  # noqa: F401 (fixture)


def test_a_slower_request_on_older_judgments_does_not_replace_the_newer_previous_scores(judged_answers, monkeypatch):  # noqa: F811
    cache.clear()
    clock = iter([1.0, 2.0])  # request "old" begins first, request "new" after it
    monkeypatch.setattr(services, "_now", lambda: next(clock), raising=False)
    real = services.evaluate_campaign
    overtaken: dict[str, str] = {}

    def evaluate(**kwargs):
        if "new" not in overtaken:  # while "old" computes, "new" begins, computes and finishes first
            overtaken["new"] = "computing"
            overtaken["new"] = services.leaderboard_scores(campaign=judged_answers, version="new").version
        return real(**kwargs)

    monkeypatch.setattr(services, "evaluate_campaign", evaluate)
    assert services.leaderboard_scores(campaign=judged_answers, version="old").version == "old"
    assert overtaken == {"new": "new"}
    # A third request while a newer version is being computed gets the previous scores: the newest, not "old".
    assert cache.add(f"leaderboard:v3:{judged_answers.pk}:0:newest:computing", True)
    assert services.leaderboard_scores(campaign=judged_answers, version="newest").version == "new"
