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
    key = services.leaderboard_key(campaign=judged_answers, all_topics=False, measures=())
    assert cache.add(f"{key}:newest:computing", True)
    assert services.leaderboard_scores(campaign=judged_answers, version="newest").version == "new"


def test_the_relevance_level_and_the_measures_key_the_scores(judged_answers):  # noqa: F811
    cache.clear()
    at_two = services.leaderboard_scores(campaign=judged_answers, version="v")
    judged_answers.relevance_level = 3
    at_three = services.leaderboard_scores(campaign=judged_answers, version="v")
    assert at_two.relevance_level == 2 and at_three.relevance_level == 3
    measured = services.leaderboard_scores(campaign=judged_answers, version="v", measures=["RR"])
    assert measured.measures[-1] == "RR" and "RR" not in at_three.measures
