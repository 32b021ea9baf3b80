"""Reader of ARQMath topic files (Task 1 answer topics, Task 2 formula topics), defused XML."""
from __future__ import annotations

import re
from typing import BinaryIO, NamedTuple
from xml.sax.handler import ContentHandler
from xml.sax.xmlreader import Locator

from ir.formats.kinds import TOPICS_TASK1, TOPICS_TASK2, looks_like, stream_kind
from ir.formats.se_xml import StopParsing, feed_xml, normalize_tags
from ir.formats.textio import FIELD_MAX, field_problem
from ir.problems import Problems

TASKS = ("answers", "formulas")
# What a reader given a file of another kind expected, in the campaign's words (pooling/words.py): a document-retrieval
# track is an answers campaign that takes any topic file but Task 2's.
EXPECTED = {"answers": "an ARQMath Task 1 (or Task 3) topic file", "formulas": "an ARQMath Task 2 topic file",
            "documents": "a topic file (TREC <top>, TSV queries, JSONL topics or <Topics> XML)"}
# Child element -> TopicRecord field.
FIELDS = {"Title": "title", "Question": "question", "Tags": "tags", "Formula_Id": "formula_id", "Latex": "latex"}


class TopicRecord(NamedTuple):
    line: int
    topic_id: str
    title: str  # HTML
    question: str  # HTML
    tags: str  # space-separated
    formula_id: str  # '' for answer topics
    latex: str  # '' for answer topics
    description: str = ""  # plain text (TREC <desc>, JSONL); ARQMath topics have none
    narrative: str = ""  # plain text: what a relevant item must hold (TREC <narr>, JSONL)
    prelude: str = ""  # a micro-topic's: the context its parent gives all of its micro-topics
    parent: str = ""  # a micro-topic's parent topic id ('' for a topic of its own)
    parent_title: str = ""


class _TopicHandler(ContentHandler):
    """Collects each <Topic>'s line, number attribute and child texts; a text longer than FIELD_MAX bytes is reported
    with its line and not kept (nor more of it than FIELD_MAX characters held meanwhile)."""

    _locator: Locator  # set by the parser (ContentHandler.setDocumentLocator) before the first element

    def __init__(self, problems: Problems) -> None:
        super().__init__()
        self.problems = problems
        self.depth = 0
        self.topics: list[tuple[int, str | None, dict[str, str]]] = []
        self.field: str | None = None
        self.element = ""
        self.field_line = 0
        self.text: list[str] = []
        self.size = 0

    def startElement(self, name, attrs):
        self.depth += 1
        line = self._locator.getLineNumber()
        assert line is not None  # expat always knows its line
        if self.depth == 1 and name != "Topics":
            self.problems.add(line, f"root element is <{name}>, expected <Topics>")
            raise StopParsing
        if self.depth == 2 and name == "Topic":
            self.topics.append((line, attrs.get("number"), {}))
        elif self.depth == 3 and name in FIELDS and self.topics:
            self.field, self.element, self.field_line, self.text, self.size = FIELDS[name], name, line, [], 0

    def characters(self, content):
        if self.field is not None and self.size <= FIELD_MAX:
            self.text.append(content)
            self.size += len(content)

    def endElement(self, name):
        if self.depth == 3 and self.field is not None:
            text = "".join(self.text).strip()
            problem = (f"{self.element} is longer than {FIELD_MAX:,} bytes" if self.size > FIELD_MAX
                       else field_problem(self.element, text))
            if problem:
                self.problems.add(self.field_line, problem)
                text = ""
            self.topics[-1][2][self.field] = text
            self.field = None
        self.depth -= 1


def read_topics(stream: BinaryIO, problems: Problems, *, task: str, words: str | None = None) -> list[TopicRecord]:
    """All topics of the file; task is 'answers' (Task 1) or 'formulas' (Task 2); `words` the key of EXPECTED a
    refusal names (the task's by default)."""
    if task not in TASKS:
        raise ValueError(f"task must be one of {TASKS}, not {task!r}")
    expected = EXPECTED[words or task]
    # A file of another known kind (a run, qrels, a CSV) fails as XML on its first line: say what it is instead.
    kind = stream_kind(stream)
    if kind is not None and kind not in (TOPICS_TASK1, TOPICS_TASK2):
        problems.add(1, looks_like(kind, expected))
        return []
    handler = _TopicHandler(problems)
    for _ in feed_xml(stream, handler, problems):
        pass
    # A topic file of the other task is refused whole, once, rather than topic by topic (or not at all: a Task 2
    # file has everything a Task 1 topic needs). Task 2 topics are the ones with a Formula_Id.
    with_formula = [line for line, _number, fields in handler.topics if fields.get("formula_id")]
    if task == "answers" and with_formula:
        problems.add(with_formula[0], looks_like(TOPICS_TASK2, expected))
        return []
    if task == "formulas" and handler.topics and not with_formula:
        problems.add(handler.topics[0][0], looks_like(TOPICS_TASK1, expected))
        return []
    if not handler.topics and not problems:
        problems.add(None, "the file has no topics")
    topics: list[TopicRecord] = []
    first_line: dict[str, int] = {}
    for line, number, fields in handler.topics:
        topic_id = (number or "").strip()
        errors = _topic_errors(topic_id, fields, task)
        earlier = first_line.get(topic_id)
        if topic_id and earlier is not None:
            errors.insert(0, f"duplicate topic number '{topic_id}' (lines {earlier} and {line})")
        problems.add_all(line, errors)
        first_line.setdefault(topic_id, line)
        if not errors:
            topics.append(_record(line, topic_id, fields))
    return topics


def _topic_errors(topic_id: str, fields: dict[str, str], task: str) -> list[str]:
    if not topic_id:
        return ["topic without number"]
    return _formula_errors(topic_id, fields) if task == "formulas" else []


def _formula_errors(topic_id: str, fields: dict[str, str]) -> list[str]:
    formula_id = fields.get("formula_id", "")
    if not formula_id:
        return [f"topic '{topic_id}' has no Formula_Id"]
    span = re.compile(r"""\bid\s*=\s*["']""" + re.escape(formula_id) + r"""["']""")
    if not (span.search(fields.get("title", "")) or span.search(fields.get("question", ""))):
        return [f"Formula_Id '{formula_id}' of topic '{topic_id}' is not the id of a formula in its title or question"]
    return []


def _record(line: int, topic_id: str, fields: dict[str, str]) -> TopicRecord:
    return TopicRecord(
        line=line,
        topic_id=topic_id,
        title=fields.get("title", ""),
        question=fields.get("question", ""),
        tags=normalize_tags(fields.get("tags", "")),
        formula_id=fields.get("formula_id", ""),
        latex=fields.get("latex", ""),
    )
