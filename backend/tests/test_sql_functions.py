"""Each database function's current body is its file in `parley/sql/`, and nothing else.

A migration changes a function by applying its file (`parley.sql.apply`); this test fails when
the two drift apart: a function a migration changed without its file (or a file changed
without a migration), a function with no file, or a file for a function that is gone. It
creates each file's function in a scratch schema, in a transaction it rolls back, and
compares PostgreSQL's own rendering of the two (`pg_get_functiondef`): body, arguments,
result, language and volatility alike.
"""

from __future__ import annotations

import asyncpg

from parley.db import Database
from parley.sql import HERE, source

PREFIX = "parley_"

# Functions of the schema, not of an extension.
_FUNCTIONS = """
SELECT p.proname AS name, pg_get_functiondef(p.oid) AS definition
FROM pg_proc AS p JOIN pg_namespace AS n ON n.oid = p.pronamespace
WHERE n.nspname = $1
  AND NOT EXISTS (SELECT 1 FROM pg_depend AS d
                  WHERE d.objid = p.oid AND d.classid = 'pg_proc'::regclass AND d.deptype = 'e')
ORDER BY p.proname
"""


def _files() -> dict[str, str]:
    return {PREFIX + p.stem: p.stem for p in sorted(HERE.glob("*.sql"))}


async def _definitions(conn: asyncpg.Connection, schema: str) -> dict[str, str]:
    rows = await conn.fetch(_FUNCTIONS, schema)
    return {r["name"]: r["definition"].replace(f"FUNCTION {schema}.", "FUNCTION ", 1) for r in rows}


async def test_every_function_has_its_file(db: Database) -> None:
    async with db.connection() as conn:
        in_database = set(await _definitions(conn, "public"))
    assert len(in_database) >= 14, in_database  # the reader sees the functions
    files = set(_files())
    assert in_database - files == set(), "functions without a file in parley/sql/"
    assert files - in_database == set(), "files in parley/sql/ for functions that are gone"


async def test_each_function_in_the_database_is_its_file(db: Database) -> None:
    drifted = []
    async with db.connection() as conn:
        for name, stem in _files().items():
            tx = conn.transaction()
            await tx.start()
            try:
                await conn.execute("CREATE SCHEMA parley_sql_check")
                await conn.execute("SET LOCAL search_path = parley_sql_check, public")
                await conn.execute(source(stem))
                created = await _definitions(conn, "parley_sql_check")
                # Compared under the same search_path, so types print alike in both.
                current_here = await _definitions(conn, "public")
            finally:
                await tx.rollback()
            assert set(created) == {name}, f"sql/{stem}.sql must create {name} and only it"
            if created[name] != current_here.get(name):
                drifted.append(stem)
    assert drifted == [], f"sql/<name>.sql differs from the database's function: {drifted}"
