"""The training rounds page's topic grid, like the assignments page's: each topic with its title, and the topics an
earlier round already holds marked with that round (issue 13.12)."""
import re

from agreement import rounds


def _box(page: str, topic_id: str) -> str:
    return re.search(rf'<label class="check[^"]*">\s*<input[^>]*value="{re.escape(topic_id)}".*?</label>', page,
                     re.S).group(0)


def test_the_topic_grid_shows_titles_and_the_rounds_that_hold_a_topic(client, organizer, answers, ada, bob):
    rounds.training_round_create(campaign=answers, topic_ids=["A.1"], assessors=[ada, bob], user=organizer)
    client.force_login(organizer)
    page = client.get(f"/campaigns/{answers.pk}/training/").content.decode()
    held, free = _box(page, "A.1"), _box(page, "A.2")
    assert answers.topics.get(topic_id="A.1").title[:20] in held
    assert 'class="check assigned"' in held and "in round: 1" in held
    assert answers.topics.get(topic_id="A.2").title[:20] in free
    assert "in round" not in free and 'class="check"' in free
