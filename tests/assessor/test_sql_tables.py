"""The judging requests' written-out SQL names its tables from the models (Model._meta.db_table), like the ORM."""
import re

from assessor import selectors, services, sql
from assessor.models import Assignment, ItemVisit, Judgment, JudgmentRevision
from pooling.models import Campaign, PoolItem, Post, Topic

MODELS = (Assignment, ItemVisit, Judgment, JudgmentRevision, Campaign, PoolItem, Post, Topic)
STATEMENTS = (selectors._item_judgments_sql, selectors._next_item_sql, selectors._answer_sql, selectors._judging_sql,
              services._visit_insert_sql, services._visit_update_sql, services._judgment_insert_sql,
              services._revision_sql, services._visit_and_judgments_insert_sql)


def _clear():
    sql.table.cache_clear()
    for statement in STATEMENTS:
        statement.cache_clear()


def _text(built):
    return built if isinstance(built, str) else built[0]


def test_every_written_out_statement_follows_renamed_tables():
    names = {model: model._meta.db_table for model in MODELS}
    try:
        for model in MODELS:
            model._meta.db_table = f"renamed_{names[model]}"
        _clear()
        built = [selectors._item_judgments_sql(), selectors._next_item_sql(), selectors._answer_sql(),
                 services._visit_insert_sql(), services._judgment_insert_sql(), services._revision_sql(),
                 services._visit_and_judgments_insert_sql(1), services._visit_and_judgments_insert_sql(3)]
        built += [selectors._judging_sql(page, lock) for page in (True, False) for lock in (True, False)]
        built += [services._visit_update_sql(add, complete) for add in (True, False) for complete in (True, False)
                  if add or complete]
        for statement in map(_text, built):
            for name in names.values():
                assert not re.search(rf"(?<!renamed_)\b{name}\b", statement), statement
            assert "renamed_" in statement
    finally:
        for model, name in names.items():
            model._meta.db_table = name
        _clear()
