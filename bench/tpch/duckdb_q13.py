#!/usr/bin/env python3
"""DuckDB's answer to TPC-H Query 13 over tpchgen-cli's CSV files.

usage: duckdb_q13.py DIR RUNS THREADS < query.sql
Loads DIR/customer.csv and DIR/orders.csv into tables, runs the query once
to warm up and RUNS times timed (THREADS threads; 0 keeps DuckDB's
default), and prints {"rows": [[c_count, custdist], ...], "millis": [...],
"threads": N, "version": "..."}.
"""
import json
import sys
import time

import duckdb


def main():
    d, runs, threads = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    query = sys.stdin.read()
    con = duckdb.connect()
    if threads > 0:
        con.execute("SET threads = %d" % threads)
    con.execute("CREATE TABLE customer AS SELECT * FROM read_csv(?, header=true)", [d + "/customer.csv"])
    con.execute("CREATE TABLE orders AS SELECT * FROM read_csv(?, header=true)", [d + "/orders.csv"])
    rows = con.execute(query).fetchall()
    millis = []
    for _ in range(runs):
        t = time.perf_counter()
        con.execute(query).fetchall()
        millis.append((time.perf_counter() - t) * 1000)
    n = con.execute("SELECT current_setting('threads')").fetchone()[0]
    json.dump({"rows": [[int(a), int(b)] for a, b in rows], "millis": millis, "threads": int(n),
               "version": duckdb.__version__}, sys.stdout)


if __name__ == "__main__":
    main()
