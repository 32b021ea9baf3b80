"""A small RAG topic for the nugget bank tests: the judging fixtures' answers campaign with two runs' generated
answers to A.1 (in sentences citing the collection's posts) and none to A.2."""
from __future__ import annotations

from pooling.models import AnswerSentence, AnswerText, Campaign, Run, RunAnswer, Topic
from pooling.services.answers import answer_digest
from tests.factories import RunFactory

ANSWERS = {
    "alpha": [("The integral of x squared from 0 to 1 is one third.", ["10"]),
              ("The power rule gives it at once.", ["10", "11"])],
    "beta": [("Riemann sums converge to the same value.", ["12"])],
}


def answers_of(campaign: Campaign, topic_id: str = "A.1") -> tuple[Topic, list[RunAnswer]]:
    topic = campaign.topics.get(topic_id=topic_id)
    made = []
    for number, (name, sentences) in enumerate(sorted(ANSWERS.items()), start=1):
        run = Run.objects.filter(campaign=campaign, name=name).first() or RunFactory(campaign=campaign, name=name)
        text = " ".join(s for s, _ in sentences)
        stored = AnswerText.objects.create(campaign=campaign, topic=topic, number=200 + number,
                                           answer_id=f"bank_{topic_id}_{number}", digest=answer_digest(text),
                                           text=text)
        answer = RunAnswer.objects.create(run=run, topic=topic, answer=stored, line=number, rank=1, score=1.0,
                                          run_tag=name, text=text)
        for position, (sentence, cited) in enumerate(sentences):
            AnswerSentence.objects.create(answer=answer, position=position, text=sentence, citations=cited)
        made.append(answer)
    return topic, made
