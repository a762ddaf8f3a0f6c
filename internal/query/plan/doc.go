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
//	                │ Sort · Limit · Distinct · UnionAll     │
//	                │ Values · Insert · Update · Delete · DDL│
//	                └────────────────────────────────────────┘
//	                                │  Build
//	                                ▼
//	   rules:  fold constants ─▶ merge Filter/Project into Scan ─▶ choose index
//	                                │
//	                                ▼  split
//	   coordinator operators ──▶ MergeAggregate ─▶ Gather ═══▶ Fragment (wire form)
//	   (Filter, Project, Sort,         ▲                        scan | index lookup | entry count
//	    Limit, Distinct, UnionAll,     │ partial states          filter · project | partial aggregate
//	    Values, Aggregate)             │ row batches              top-N / limit per member
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
// optimize (optimize.go) runs once, top-down over the tree:
//
//   - constant folding: calls whose arguments are literals (no parameters,
//     no clock or random functions) become literals, evaluated under the
//     planning call's context (a fold still running when it ends stops and
//     is left for run time; the planners then return the context's error
//     and cache nothing);
//   - filter pushdown: a Filter over a Scan joins the Scan's filter, with the
//     scan's projections substituted in;
//   - projection pushdown: a Project over a Scan becomes the Scan's
//     projection; an identity Project over an Aggregate only renames;
//   - index choice: equality and IN on an indexed attribute use a hash or
//     sorted index (hash preferred), ranges use a sorted index; the
//     condition stays in the filter, which keeps stale index entries
//     harmless.
//
// # Physical plan and fragments
//
// split (physical.go) cuts the tree where rows cross members. Each Scan
// becomes a Gather of a Fragment, the unit every member runs over the
// partitions it owns. An Aggregate directly over a Scan becomes a
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
// each fragment below its Exchange, the same for SQL and for predicates.
//
// # Errors
//
// Every problem in a statement is an *Error matching ErrQuery, with the
// 1-based line and column when the front end knows them.
package plan
