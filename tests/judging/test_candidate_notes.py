"""A candidate's note on the judging page (issue 25): shown only when the organizer turns it on, its source never."""
import pytest

from pooling.models import Candidate, PoolItem
from tests.commands import command_output
from tests.judging.fixtures import assign

pytestmark = pytest.mark.django_db


def test_the_note_beside_a_candidate_shows_only_when_the_campaign_says_so(ada_client, answers, ada):
    a = assign(answers, ada, "A.1")
    item = PoolItem.objects.get(campaign=answers, topic__topic_id="A.1", item_id="10")
    Candidate.objects.create(campaign=answers, topic=item.topic, item_id="10", source="cited-in-accepted-answer",
                             note="Thanks <b>this</b> settled it", position=1)
    url = f"/assess/assignments/{a.pk}/items/{item.position}/"
    assert "settled it" not in ada_client.get(url).content.decode()
    out, _ = command_output("edit_campaign", answers.name, "--candidate-notes", "on")
    assert "candidate notes shown" in out
    page = ada_client.get(url).content.decode()
    assert "Thanks &lt;b&gt;this&lt;/b&gt; settled it" in page  # plain text, escaped
    assert "cited-in-accepted-answer" not in page
    command_output("edit_campaign", answers.name, "--candidate-notes", "off")
    assert "settled it" not in ada_client.get(url).content.decode()
