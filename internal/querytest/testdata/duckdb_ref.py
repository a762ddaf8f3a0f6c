#!/usr/bin/env python3
"""Reference engine for the differential tests: loads CSV files into DuckDB
tables and runs each query of a list, printing a JSON list of
{"rows": [[...], ...]} or {"error": "..."}.

usage: duckdb_ref.py SPEC.json

SPEC is {"tables": [{"name": "t", "csv": "t.csv", "columns": {"c": "INTEGER", ...}}],
         "queries": ["SELECT ...", ...]}; CSV files have a header and write NULL as \\N.
"""
import json
import sys

import duckdb


def main():
    with open(sys.argv[1]) as f:
        spec = json.load(f)
    con = duckdb.connect()
    for t in spec["tables"]:
        cols = t["columns"]
        con.execute(
            "CREATE TABLE %s (%s)" % (t["name"], ", ".join('"%s" %s' % (c, ty) for c, ty in cols.items()))
        )
        con.execute(
            "INSERT INTO %s SELECT * FROM read_csv(?, header=true, nullstr='\\N', columns=%s)"
            % (t["name"], "{" + ", ".join("'%s':'%s'" % (c, ty) for c, ty in cols.items()) + "}"),
            [t["csv"]],
        )
    out = []
    for q in spec["queries"]:
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
