"""Support judging's API answers as its OpenAPI schema says (schemathesis's conformance checks on real objects):
a submit made, repeated and refused, and the organizer's list with the kappa (docs/nuggets.md, "Support judging")."""
import pytest

from nuggets.services.support import support_assign, support_submit
from tests.nuggets.support_world import make_world
from tests.test_api_conformance import call, schema  # noqa: F401 (fixtures)

pytestmark = pytest.mark.django_db


def test_a_submit_answers_as_documented(call, answers, organizer):  # noqa: F811
    world = make_world(answers)
    mine = support_assign(campaign=answers, topic=world.topic, assessor=organizer)[0]
    body = {"assignment": mine.pk, "answer": world.answers[0].pk, "key": "0123456789abcdef",
            "labels": [{"nugget": n.pk, "label": "support"} for n in world.nuggets]}
    made = call("POST", "/api/support-judgments/", body=body, media_type="application/json")
    assert made.status_code == 201 and made.json()["complete"] is True
    again = call("POST", "/api/support-judgments/", body=body, media_type="application/json")
    assert again.status_code == 200 and again.json()["repeated"] is True
    refused = call("POST", "/api/support-judgments/", media_type="application/json",
                   body=body | {"key": "", "labels": [{"nugget": world.nuggets[0].pk, "label": "maybe"}]})
    assert refused.status_code == 400 and "is not one of" in refused.json()["problems"][0]
    missing = call("POST", "/api/support-judgments/", body=body | {"answer": 987654}, media_type="application/json")
    assert missing.status_code == 404


def test_the_assignment_list_with_its_kappa_matches_the_schema(call, answers, ada, bob):  # noqa: F811
    world = make_world(answers)
    official = support_assign(campaign=answers, topic=world.topic, assessor=ada)[0]
    dual = support_assign(campaign=answers, topic=world.topic, assessor=bob, kind="dual")[0]
    for assignment, labels in ((official, ("support", "not_support", "support")),
                               (dual, ("support", "not_support", "not_support"))):
        support_submit(assignment=assignment, answer=world.answers[0],
                       labels={n.pk: (label, "") for n, label in zip(world.nuggets, labels, strict=True)})
    rows = call("GET", "/api/campaigns/{id}/support-assignments/", path_parameters={"id": answers.pk}).json()
    assert [(r["assessor"], r["kind"], r["done"], r["total"]) for r in rows] == [("ada", "official", 1, 2),
                                                                                ("bob", "dual", 1, 2)]
    assert rows[0]["agreement"] is None
    assert rows[1]["agreement"]["items"] == 3 and rows[1]["agreement"]["confusion"] == [[1, 0, 1], [0, 0, 0],
                                                                                      [0, 0, 1]]
