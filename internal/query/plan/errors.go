package plan

import (
	"errors"
	"fmt"
)

// ErrQuery is the sentinel of every error in a statement or predicate:
// syntax, unknown mapping or column, type mismatch, unsupported feature.
var ErrQuery = errors.New("query error")

// Error is a problem in a statement, with its 1-based line and column when
// known (0 otherwise).
type Error struct {
	Line, Column int
	Msg          string
}

func (e *Error) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("line %d, column %d: %s", e.Line, e.Column, e.Msg)
	}
	return e.Msg
}

// Unwrap returns ErrQuery.
func (e *Error) Unwrap() error { return ErrQuery }

// Errorf returns an Error without a position.
func Errorf(format string, args ...any) *Error {
	return &Error{Msg: fmt.Sprintf(format, args...)}
}

// ErrorAt returns an Error at the given byte offset of text.
func ErrorAt(text string, offset int, format string, args ...any) *Error {
	line, col := Position(text, offset)
	return &Error{Line: line, Column: col, Msg: fmt.Sprintf(format, args...)}
}

// Position converts a byte offset of text to a 1-based line and column
// (columns count characters).
func Position(text string, offset int) (line, col int) {
	if offset < 0 {
		return 0, 0
	}
	if offset > len(text) {
		offset = len(text)
	}
	line, col = 1, 1
	for _, r := range text[:offset] {
		if r == '\n' {
			line++
			col = 1
		} else {
			col++
		}
	}
	return line, col
}
