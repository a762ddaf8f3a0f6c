#!/usr/bin/env python3
"""Reference engine for the differential tests: loads CSV files into DuckDB
tables and runs each query of a list, printing a JSON list of
{"rows": [[...], ...]} or {"error": "..."}.

usage: duckdb_ref.py SPEC.json

SPEC is {"tables": [{"name": "t", "csv": "t.csv", "columns": {"c": "INTEGER", ...}}],
         "queries": ["SELECT ...", ...]}; CSV files have a header and write NULL as \\N.

NULLs sort as Hazelcast sorts them: first in ascending order, last in
descending order (DuckDB's default is last in both).
"""
import datetime
import decimal
import json
import sys

import duckdb


def main():
    with open(sys.argv[1]) as f:
        spec = json.load(f)
    con = duckdb.connect()
    con.execute("SET default_null_order = 'nulls_first_on_asc_last_on_desc'")
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
