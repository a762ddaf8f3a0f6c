package metrics

import "github.com/prometheus/client_golang/prometheus"

// Security counts what the member's access check refused and the panics
// its handlers' guards recovered.
type Security struct {
	// Denied counts calls refused for want of a permission, by action
	// (create, destroy, put, read, remove, index, listen, lock, sql,
	// admin): a bounded label set.
	Denied *prometheus.CounterVec
	// AuthFailures counts calls refused because their credentials named
	// no principal (missing, unknown, wrong password).
	AuthFailures prometheus.Counter
	// Panics counts handler panics that were recovered and answered as
	// internal errors.
	Panics prometheus.Counter
}

// SecurityActions are the values of Denied's action label, created at
// zero so that rates exist before the first denial.
var SecurityActions = []string{"create", "destroy", "put", "read", "remove", "index", "listen", "lock", "sql", "admin"}

func newSecurity() *Security {
	s := &Security{
		Denied: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: namespace, Name: "security_denied_total",
			Help: "Calls refused because the caller's roles do not grant the action, by action.",
		}, []string{"action"}),
		AuthFailures: prometheus.NewCounter(prometheus.CounterOpts{
			Namespace: namespace, Name: "security_authentication_failures_total",
			Help: "Calls refused because their credentials were missing or named no principal (unknown user, wrong password, unknown token or certificate).",
		}),
		Panics: prometheus.NewCounter(prometheus.CounterOpts{
			Namespace: namespace, Name: "panics_recovered_total",
			Help: "Panics in call handlers that the member recovered from and answered as internal errors (each is a bug: the log holds its stack).",
		}),
	}
	for _, a := range SecurityActions {
		s.Denied.WithLabelValues(a)
	}
	return s
}
