#!/usr/bin/env bash
# Installs what the test suite needs on a fresh machine. Idempotent: every step
# checks first and does nothing when the tool is already there.
set -euo pipefail
cd "$(dirname "$0")/.."

need() { command -v "$1" >/dev/null 2>&1; }

need go || { echo "install-deps: Go 1.26 is required (https://go.dev/dl/)" >&2; exit 1; }
go mod download

# The Java SDK needs a JDK 17+ and Maven; Debian packages them.
if ! need mvn || ! need javac; then
	if need apt-get && [ "$(id -u)" = 0 ]; then
		apt-get update -qq && apt-get install -y -qq openjdk-17-jdk-headless maven >/dev/null
	else
		echo "install-deps: install a JDK 17+ and Maven" >&2
		exit 1
	fi
fi

# The query engine's differential test compares results with DuckDB
# (PyPI duckdb, pinned), run by python3.
need python3 || { echo "install-deps: python3 is required for the DuckDB reference engine" >&2; exit 1; }
if ! python3 -c 'import duckdb' 2>/dev/null; then
	python3 -m pip install --user --quiet 'duckdb==2.0.0' 2>/dev/null ||
		python3 -m pip install --quiet 'duckdb==2.0.0'
fi

# TPC-H Q13 (the join test and atoll-bench q13) generates its data with
# tpchgen-cli (PyPI tpchgen-cli, pinned: a generator binary in the wheel).
if ! command -v tpchgen-cli >/dev/null 2>&1 && ! [ -x "$(python3 -m site --user-base)/bin/tpchgen-cli" ]; then
	python3 -m pip install --user --quiet 'tpchgen-cli==4.0.0' 2>/dev/null ||
		python3 -m pip install --quiet 'tpchgen-cli==4.0.0'
fi

# The dashboards test runs a real Prometheus server; Debian packages it.
if ! need prometheus; then
	# Not fatal here: without it the dashboards test skips and says why, and
	# fails with CI set.
	if ! { need apt-get && [ "$(id -u)" = 0 ] && apt-get update -qq &&
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq prometheus >/dev/null; }; then
		echo "install-deps: could not install Prometheus (Debian: apt-get install prometheus); the dashboards test will skip, or fail with CI set" >&2
	fi
fi
