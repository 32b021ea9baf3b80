"""Each LLM grade's probabilities (docs/llm.md, "Grade probabilities"): from the grade token's log probabilities when
the endpoint gives them, else from the samples' grades, else the one grade with probability 1; and the LLM page's
summary of them."""
from __future__ import annotations

import math

import pytest

from ir import grades as ir_grades
from ir.llm_replies import logprob_distribution, sample_distribution, token_grade
from llm import services
from llm.client import EndpointSettings
from llm.models import LlmGrade
from tests.llm.server import Answer, ChatServer

pytestmark = pytest.mark.django_db


def settings_for(server: ChatServer, **more) -> EndpointSettings:
    return EndpointSettings(**{"base_url": server.url, "model": "m", "retries": 0, "timeout": 5.0, **more})


def stored(item_id: str) -> LlmGrade:
    return LlmGrade.objects.get(item_id=item_id, canary__isnull=True)


def close(a: dict, b: dict) -> bool:
    return a.keys() == b.keys() and all(math.isclose(a[k], b[k], abs_tol=1e-9) for k in a)


def test_the_grade_tokens_alternatives_become_the_grades_distribution(answers):
    # Alternatives " 2" and "2" both name grade 2; " two" names none; grade 0 is among no alternative.
    top = {" 2": 0.5, "2": 0.1, " 1": 0.2, " 3": 0.1, " two": 0.1}
    with ChatServer(lambda prompt, n: Answer("M: 1\nT: 3\n##final score: 2", top=top)) as server:
        services.llm_judge(campaign=answers, settings=settings_for(server), topics=["A.1"])
    body = server.bodies[0]
    assert body["logprobs"] is True and body["top_logprobs"] == 5
    grade = stored("10")
    assert grade.grade == 2 and grade.probability_source == "logprobs"
    # Renormalised over the scheme's grades: 0.9 of the mass named a grade.
    assert close(grade.probabilities, {"0": 0.0, "1": 0.2 / 0.9, "2": 0.6 / 0.9, "3": 0.1 / 0.9})


def test_logprobs_of_several_samples_are_averaged(answers):
    tops = [{" 3": 0.8, " 2": 0.2}, {" 3": 0.4, " 2": 0.6}]
    with ChatServer(lambda prompt, n: Answer("##final score: 3", top=tops[n % 2])) as server:
        services.llm_judge(campaign=answers, settings=settings_for(server, samples=2, concurrency=1),
                           topics=["A.1"], limit_per_topic=1)
    grade = LlmGrade.objects.get()
    assert grade.probability_source == "logprobs"
    assert close(grade.probabilities, {"0": 0.0, "1": 0.0, "2": 0.4, "3": 0.6})


def test_an_endpoint_that_refuses_logprobs_is_asked_without_them_and_the_samples_give_the_distribution(answers):
    replies = ["##final score: 2", "##final score: 2", "##final score: 1", "no grade here"]
    with ChatServer(lambda prompt, n: Answer(replies[n % 4]), logprobs="refuse") as server:
        result = services.llm_judge(campaign=answers, settings=settings_for(server, samples=4, concurrency=1),
                                    topics=["A.1"], limit_per_topic=1)
    assert result.judged == 1 and result.failed == 0
    asked = [bool(body.get("logprobs")) for body in server.bodies]
    # The first request asked for them and was refused; from its retry on, none asks again.
    assert asked[:2] == [True, False] and not any(asked[2:]) and len(asked) == 5
    grade = LlmGrade.objects.get()
    assert grade.grade == 2 and grade.probability_source == "samples"
    # The sample without a grade is left out, as the majority leaves it out.
    assert close(grade.probabilities, {"0": 0.0, "1": 1 / 3, "2": 2 / 3, "3": 0.0})


def test_an_endpoint_that_ignores_logprobs_with_one_sample_gives_its_grade_probability_1(answers):
    with ChatServer(lambda prompt, n: Answer("##final score: 1"), logprobs="ignore") as server:
        services.llm_judge(campaign=answers, settings=settings_for(server), topics=["A.1"])
    assert all(body.get("logprobs") for body in server.bodies)  # it was asked every time: nothing refused them
    grade = stored("11")
    assert grade.probability_source == "single"
    assert grade.probabilities == {"0": 0.0, "1": 1.0, "2": 0.0, "3": 0.0}


def test_a_failure_has_no_probabilities(answers):
    with ChatServer(lambda prompt, n: Answer("I cannot decide.")) as server:
        services.llm_judge(campaign=answers, settings=settings_for(server), topics=["A.1"])
    failure = stored("10")
    assert failure.grade is None and failure.probabilities == {} and failure.probability_source == ""


def test_a_0_to_2_scheme_distributes_over_its_own_grades(answers):
    answers.scheme = ir_grades.preset("trec-3").to_json()
    answers.save()
    top = {" 2": 0.5, " 3": 0.3, " 1": 0.2}  # 3 is no grade of this scheme: its mass is left out
    with ChatServer(lambda prompt, n: Answer("##final score: 2", top=top)) as server:
        services.llm_judge(campaign=answers, settings=settings_for(server), topics=["A.1"])
    grade = stored("12")
    assert close(grade.probabilities, {"0": 0.0, "1": 0.2 / 0.7, "2": 0.5 / 0.7})


def test_the_grade_token_is_the_last_final_score_number():
    def tokens(*pairs):
        return [(text, 0.0, alternatives) for text, alternatives in pairs]

    reply = tokens(("Format: final score: ", []), ("3", [("3", 0.0)]), ("\n##final score:", []),
                   (" 1", [(" 1", math.log(0.75)), (" 0", math.log(0.25))]), (".", []))
    assert logprob_distribution(reply, grades=(0, 1, 2, 3)) == {0: 0.25, 1: 0.75, 2: 0.0, 3: 0.0}
    # "10" cut as "1" then "0": no one token's alternatives are the grades.
    split = tokens(("final score: ", []), ("1", [("1", 0.0)]), ("0", [("0", 0.0)]))
    assert logprob_distribution(split, grades=range(11)) is None
    assert logprob_distribution(tokens(("no grade", [])), grades=(0, 1)) is None
    assert [token_grade(t, (0, 1, 2, 3)) for t in (" 2", "**2", ":2", "2.", "02", "two", "7", "-1")] == [
        2, 2, 2, 2, None, None, None, None]
    assert sample_distribution([None, None], grades=(0, 1)) is None


def test_the_llm_page_shows_how_many_grades_have_probabilities_and_their_means(answers, organizer_client):
    with ChatServer(lambda prompt, n: Answer("##final score: 3", top={" 3": 0.5, " 2": 0.5})) as server:
        services.llm_judge(campaign=answers, settings=settings_for(server), topics=["A.1"])
    with ChatServer(lambda prompt, n: Answer("##final score: 1"), logprobs="ignore") as server:
        services.llm_judge(campaign=answers, settings=settings_for(server, model="other"), topics=["A.2"])
    LlmGrade.objects.filter(model="other").update(probabilities={}, probability_source="")  # stored before them
    page = organizer_client.get(f"/campaigns/{answers.pk}/llm/").content.decode()
    table = page[page.index('id="llm-probabilities"'):page.index("</table>", page.index('id="llm-probabilities"'))]
    assert "<th class=\"num\" title=\"the mean probability of grade 0" in table
    row_m = table[table.index("<td>m</td>"):]
    row_m = row_m[:row_m.index("</tr>")]
    assert ("<td class=\"num\">3</td><td>the grade token&#x27;s log probabilities: 3</td><td class=\"num\">0</td>"
            "<td class=\"num\">0.000</td><td class=\"num\">0.000</td><td class=\"num\">0.500</td>"
            "<td class=\"num\">0.500</td>") in row_m
    row_other = table[table.index("<td>other</td>"):]
    assert row_other.startswith("<td>other</td><td class=\"num\">0</td><td>none</td><td class=\"num\">1</td>")
