// Package plan is the query planner shared by SQL and the Predicate API:
// one logical plan, one set of rules, one physical form with fragments
// that every member runs, and one EXPLAIN.
//
//	SQL text ──▶ query/sql ─────────┐            Predicate tree ──▶ query/predicate
//	  pre-pass (Hazelcast dialect)  │              values become parameters
//	  vitess sqlparser / DDL parser │                      │
//	  AST ──▶ expr + logical nodes  │                      │
//	                                ▼                      ▼
//	                ┌──────────── logical plan ──────────────┐
//	                │ Scan · Filter · Project · Aggregate    │
//	                │ Join (inner, left, semi, anti)         │
//	                │ Sort · Limit · Distinct · UnionAll     │
//	                │ Values · Insert · Update · Delete · DDL│
//	                └────────────────────────────────────────┘
//	                                │  Build: Rules, in order
//	                                ▼
//	   fold-constants ─▶ push-filters ─▶ count-non-null ─▶ prune-columns
//	     ─▶ merge-projections ─▶ choose-indexes ─▶ plan-joins
//	                                │
//	                                ▼  split
//	   coordinator operators ──▶ MergeAggregate ─▶ Gather ═══▶ Fragment (wire form)
//	   (Filter, Project, Sort,         ▲                        scan | index lookup | entry count
//	    Limit, Distinct, UnionAll,     │ partial states          | join of two fragments, each
//	    Values, Aggregate,             │ row batches               input staying or moving
//	    HashJoin)                      │                           through an Exchange
//	                                   │                        filter · project | partial aggregate
//	                                   │                        top-N / limit per member
//	                                   └────────── every member, its partitions (internal/exec)
//
// # Front ends
//
// The SQL front end (query/sql) rewrites what vitess cannot read, parses,
// and converts the AST over the catalog's mappings: columns become scan
// columns (attribute paths with types), expressions become expr trees with
// static types, ? becomes a typed Param. The Predicate API front end
// (query/predicate) builds the same nodes from a predicate tree, with
// every value as a Param, so that a predicate and its SQL twin with ?
// parameters give the same plan and the same EXPLAIN text. Both look up
// the plan Cache first.
//
// # Logical plan
//
// Nodes are immutable values (node.go). A Scan reads a map: Cols are the
// attributes it reads from each entry (__key, this, fields, nested paths,
// JSON paths), Filter and Project are expressions over those columns. All
// other nodes take their input's rows as columns 0..n-1.
//
// # Rules
//
// Rules (rules.go) is an ordered list of named rules; each rewrites the
// whole tree once, and each has its own test:
//
//   - fold-constants: calls whose arguments are literals (no parameters,
//     no clock or random functions) become literals, evaluated under the
//     planning call's context (a fold still running when it ends stops and
//     is left for run time; the planners then return the context's error
//     and cache nothing);
//   - push-filters: filters move down through projections, sorts, DISTINCT
//     and UNION ALL, into scans (with the scan's projections substituted
//     in) and through joins: into an input they only read, except from
//     WHERE into an outer join's NULL-supplying side or from ON into its
//     preserved side; conditions on both inputs become the join's;
//   - count-non-null: COUNT of a never-NULL column counts rows, or a left
//     join's right key on its NULL-supplying side;
//   - prune-columns: nodes below joins and aggregates produce only the
//     columns read above them;
//   - merge-projections: a Project over a Scan becomes the Scan's
//     projection, two Projects compose, an identity Project over an
//     Aggregate only renames;
//   - choose-indexes: equality and IN on an indexed attribute use a hash
//     or sorted index (hash preferred), ranges use a sorted index; the
//     condition stays in the filter, which keeps stale index entries
//     harmless;
//   - plan-joins (join.go): equality keys and residual, the build side by
//     the inputs' estimated rows (Stats), and the strategy: colocated,
//     broadcast, repartition (one side or both), or coordinator.
//
// # Physical plan and fragments
//
// split (physical.go) cuts the tree where rows cross members. Each Scan,
// and each filter, projection or join of scans, becomes a Gather of a
// Fragment, the unit every member runs over the partitions it owns; a join
// fragment's inputs are fragments, and an input that moves names its
// Exchange (repartition by key, or broadcast). A join with an input that
// needs all rows in one place is a HashJoin on the coordinator. An Aggregate directly over a Scan becomes a
// MergeAggregate over a Gather whose Fragment computes partial states
// (count; sum and count; min; max; compared value and result), so members
// send one row per group; COUNT(*) without a filter reads the stores'
// entry counts. A LIMIT (and ORDER BY ... LIMIT) bounds each member's rows
// (top-N). Finally JSON_VALUE(this, 'path') becomes a scan column read by
// the in-place JSON evaluator, and scan columns nothing reads are dropped.
//
// Fragments are self-contained: MarshalFragment gives their wire form
// (api/proto/atoll/v1 Fragment), with the statement's parameter values
// bound, so a coordinator can run them on other members through
// exec.Remote; they name partitions, so they can be re-run for the
// partitions of a member that failed or lost them to a migration.
//
// # Plan cache
//
// Cache (cache.go) keeps physical plans in ristretto under the normalized
// statement, the parameter types and the catalog version; a new mapping or
// index moves the version and empties the cache.
//
// # EXPLAIN
//
// ExplainText prints the physical plan, coordinator operators first and
// each fragment below its Exchange, the same for SQL and for predicates. A
// join prints its kind, strategy, build side (with its estimated rows),
// keys and residual, then its inputs, each below the Exchange it moves
// through.
//
// # Errors
//
// Every problem in a statement is an *Error matching ErrQuery, with the
// 1-based line and column when the front end knows them.
package plan
