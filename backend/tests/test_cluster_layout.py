"""The cluster layout's one list covers the schema, and every per-person table keeps the rules
that let Citus hold each person's rows on one node: checked from the models (the schema, as
the migrations make it: tests/test_migrations.py), so a table added without its place, or with
a key that leaves the person out, fails here, without a cluster."""

from __future__ import annotations

import re

import pytest
import sqlalchemy as sa
from sqlmodel import SQLModel

import parley.models  # noqa: F401  (registers the tables)
from parley.cluster import layout
from parley.sql import HERE

pytestmark = pytest.mark.unit

TABLES = SQLModel.metadata.tables


def test_every_table_of_the_schema_has_its_place_and_only_one() -> None:
    assert layout.unplaced(set(TABLES)) == set(), "add each to a list of parley.cluster.layout"
    lists = [set(layout.PER_PERSON), set(layout.REFERENCE), set(layout.ON_COORDINATOR)]
    assert sum(len(s) for s in lists) == len(set().union(*lists)), "a table in two lists"
    assert set().union(*lists) <= set(TABLES), "a list names a table the schema does not have"


def test_a_table_in_no_list_is_caught() -> None:
    assert layout.unplaced({*TABLES, "space_members"}) == {"space_members"}


def keys_leaving_out_the_person(table: sa.Table) -> list[str]:
    """What in `table` would keep Citus from holding a person's rows on one node."""
    key = layout.TENANT_KEY
    wrong = []
    if key not in table.c or not isinstance(table.c[key].type, sa.Text):
        wrong.append("user_id is not text (the functions' person argument is)")
    if key not in table.primary_key.columns:
        wrong.append("the primary key leaves user_id out")
    for constraint in table.constraints:
        if isinstance(constraint, sa.UniqueConstraint) and key not in constraint.columns:
            wrong.append(f"unique {constraint.name} leaves user_id out")
    for index in table.indexes:
        if index.unique and key not in index.columns:
            wrong.append(f"unique index {index.name} leaves user_id out")
    for foreign in table.foreign_key_constraints:
        target = foreign.referred_table.name
        if target in layout.PER_PERSON:
            if foreign.column_keys[0] != key or foreign.elements[0].column.name != key:
                wrong.append(f"{foreign.name} does not lead with user_id on both sides")
            if (foreign.ondelete or "NO ACTION").upper() not in ("CASCADE", "NO ACTION"):
                wrong.append(f"{foreign.name} sets its columns (user_id among them) on delete")
        elif target not in layout.REFERENCE:
            wrong.append(f"{foreign.name} points at {target}, which is not on every node")
    return wrong


@pytest.mark.parametrize("name", layout.PER_PERSON)
def test_each_key_of_a_per_person_table_holds_the_person(name: str) -> None:
    assert keys_leaving_out_the_person(TABLES[name]) == []


def test_a_key_that_leaves_the_person_out_is_caught() -> None:
    metadata = sa.MetaData()
    sa.Table(
        "conversations",
        metadata,
        sa.Column("user_id", sa.Text, primary_key=True),
        sa.Column("id", sa.BigInteger, primary_key=True),
    )
    bad = sa.Table(
        "notes",
        metadata,
        sa.Column("id", sa.BigInteger, primary_key=True),
        sa.Column("user_id", sa.String(64)),
        sa.Column("conversation_id", sa.BigInteger),
        sa.Column("slug", sa.Text, unique=True),
        sa.ForeignKeyConstraint(
            ["conversation_id"], ["conversations.id"], ondelete="SET NULL", name="notes_fk"
        ),
    )
    assert len(keys_leaving_out_the_person(bad)) == 5  # type, key, unique, key, SET NULL


def test_each_distributed_function_exists_with_its_person_argument() -> None:
    for signature, argument in layout.DISTRIBUTED_FUNCTIONS.items():
        name = signature.split("(")[0]
        source = (HERE / f"{name.removeprefix('parley_')}.sql").read_text()
        assert f"FUNCTION {name}(" in source
        assert re.search(rf"\b{argument} text\b", source), f"{name}: {argument} is not text"
