#!/usr/bin/env python3
"""Reference engine for the differential test: loads a CSV into DuckDB
table t and runs each query of a JSON list, printing a JSON list of
{"rows": [[...], ...]} or {"error": "..."}.

usage: duckdb_ref.py DATA.csv QUERIES.json
"""
import json
import sys

import duckdb


def main():
    data, queries = sys.argv[1], sys.argv[2]
    con = duckdb.connect()
    con.execute(
        "CREATE TABLE t (__key INTEGER, a INTEGER, b BIGINT, c DOUBLE, s VARCHAR, g INTEGER)"
    )
    con.execute(
        "INSERT INTO t SELECT * FROM read_csv(?, header=true, nullstr='\\N', "
        "columns={'__key':'INTEGER','a':'INTEGER','b':'BIGINT','c':'DOUBLE','s':'VARCHAR','g':'INTEGER'})",
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
    if v is None or isinstance(v, (bool, str)):
        return v
    if isinstance(v, int):
        return str(v)  # exact, whatever its size
    return float(v)


if __name__ == "__main__":
    main()
