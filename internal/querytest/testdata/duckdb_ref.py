#!/usr/bin/env python3
"""Reference engine for the differential test: creates table t from a JSON
list of [column, DuckDB type] pairs, loads a CSV into it and runs each
query of a JSON list, printing a JSON list of {"rows": [[...], ...]} or
{"error": "..."}.

NULLs sort as Hazelcast sorts them: first in ascending order, last in
descending order (DuckDB's default is last in both).

usage: duckdb_ref.py SCHEMA.json DATA.csv QUERIES.json
"""
import datetime
import decimal
import json
import sys

import duckdb


def main():
    schema, data, queries = sys.argv[1], sys.argv[2], sys.argv[3]
    with open(schema) as f:
        cols = json.load(f)
    con = duckdb.connect()
    con.execute("SET default_null_order = 'nulls_first_on_asc_last_on_desc'")
    con.execute("CREATE TABLE t (" + ", ".join(f"{n} {t}" for n, t in cols) + ")")
    types = "{" + ", ".join(f"'{n}': '{t}'" for n, t in cols) + "}"
    con.execute(
        f"INSERT INTO t SELECT * FROM read_csv(?, header=true, nullstr='\\N', columns={types})",
        [data],
    )
    with open(queries) as f:
        qs = json.load(f)
    out = []
    for q in qs:
        try:
            rows = con.execute(q).fetchall()
            out.append({"rows": [[norm(v) for v in r] for r in rows]})
        except Exception as e:  # the Go side reports it
            out.append({"error": str(e)})
    json.dump(out, sys.stdout)


def norm(v):
    """Prints a value the way the Go side's norm reads it: integers as
    strings (exact, whatever their size), temporal values as text in UTC."""
    if v is None or isinstance(v, (bool, str)):
        return v
    if isinstance(v, int):
        return str(v)
    if isinstance(v, decimal.Decimal):
        return float(v)
    if isinstance(v, datetime.datetime):
        return v.strftime("%Y-%m-%d %H:%M:%S.%f").rstrip("0").rstrip(".")
    if isinstance(v, datetime.date):
        return v.strftime("%Y-%m-%d 00:00:00")
    if isinstance(v, datetime.time):
        return v.strftime("%H:%M:%S.%f").rstrip("0").rstrip(".")
    return float(v)


if __name__ == "__main__":
    main()
