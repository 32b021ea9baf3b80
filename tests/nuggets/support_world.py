"""A small RAG topic for support judging: the judging fixtures' answers campaign (its collection's posts) with two
generated answers to A.1, in sentences citing the collection's posts, and a bank of three nuggets."""
from __future__ import annotations

from dataclasses import dataclass

from nuggets.models import Nugget
from pooling.models import AnswerSentence, AnswerText, Campaign, Run, RunAnswer, Topic
from pooling.services.answers import answer_digest
from tests.factories import RunFactory

ANSWERS = {
    # run name -> sentences (text, cited post ids)
    "alpha": [("The integral of x squared from 0 to 1 is one third.", ["10"]),
              ("The power rule gives it at once.", ["10", "11"])],
    "beta": [("Riemann sums converge to the same value.", ["12"]),
             ("Nothing here is cited.", [])],
}
NUGGETS = [("The integral equals one third", "vital"), ("The power rule applies", "okay"),
           ("Riemann sums give the value", "okay")]


@dataclass
class World:
    campaign: Campaign
    topic: Topic
    answers: list[RunAnswer]  # in the order the judging page shows them: by run name
    nuggets: list[Nugget]


def make_world(campaign: Campaign, topic_id: str = "A.1") -> World:
    topic = campaign.topics.get(topic_id=topic_id)
    made = []
    for number, (name, sentences) in enumerate(sorted(ANSWERS.items()), start=1):
        run: Run = Run.objects.filter(campaign=campaign, name=name).first() or RunFactory.create(campaign=campaign,
                                                                                              name=name)
        text = " ".join(s for s, _ in sentences)
        stored = AnswerText.objects.create(campaign=campaign, topic=topic, number=100 * topic.position + 100 + number,
                                           answer_id=f"g_{topic_id}_{number}", digest=answer_digest(text), text=text)
        answer = RunAnswer.objects.create(run=run, topic=topic, answer=stored, line=number, rank=1, score=1.0,
                                          run_tag=name, text=text)
        for position, (sentence, cited) in enumerate(sentences):
            AnswerSentence.objects.create(answer=answer, position=position, text=sentence, citations=cited)
        made.append(answer)
    nuggets = [Nugget.objects.create(campaign=campaign, topic=topic, text=text, importance=importance,
                                     position=n) for n, (text, importance) in enumerate(NUGGETS)]
    return World(campaign, topic, made, nuggets)
