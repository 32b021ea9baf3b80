"""The judging page's words follow the campaign's scheme (issue 25): the comment box says which marks need a comment
(or that it is optional), and an item the collection lacks says what this scheme lets the assessor give it."""
from html import unescape

import pytest

from ir import grades
from pooling.models import PoolItem
from tests.judging.fixtures import assign

pytestmark = pytest.mark.django_db

DK_ONLY = {"name": "custom", "grades": [{"value": 1, "label": "Yes", "key": "y"}, {"value": 0, "label": "No",
                                                                                    "key": "x"}], "marks": ["DK"]}


@pytest.mark.parametrize("scheme, comment, missing", [
    (grades.preset("arqmath"), "Comment <small>(required for System failure and Do not know)</small>",
     "Only System failure or Do not know: the post is not in the collection"),
    (grades.preset("trec-binary"), "Comment <small>(optional)</small>",
     ""),
    (grades.scheme_from_json(DK_ONLY), "Comment <small>(required for Do not know)</small>",
     "Only Do not know: the post is not in the collection"),
])
def test_the_comment_box_and_a_missing_item_speak_of_the_scheme_s_own_marks(answers, ada, ada_client, scheme,
                                                                            comment, missing):
    answers.scheme = scheme.to_json()
    answers.save()
    a = assign(answers, ada, "A.2")
    at = PoolItem.objects.get(topic=a.topic, item_id="99").position
    page = unescape(ada_client.get(f"/assess/assignments/{a.pk}/items/{at}/").content.decode())
    assert comment in page
    if scheme.marks:
        assert missing in page and "the other grades are not offered" in page
    else:   # no mark to give: every grade is offered, and the page says what to do
        assert "System failure" not in page.replace("This scheme has no System failure or Do not know", "")
        assert ("This scheme has no System failure or Do not know: give the grade that fits an item you cannot see "
                "and say in the comment that it is missing") in page
