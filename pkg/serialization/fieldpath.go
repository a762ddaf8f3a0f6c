package serialization

import (
	"strconv"
	"strings"
)

// pathStep is one step of an attribute path: a field name, optionally
// indexed with a position or with [any].
type pathStep struct {
	name  string
	index int  // -1: none
	any   bool // [any] or [*]
}

// parseAttributePath splits an attribute path ("a.b", "arr[0]",
// "arr[any].x") into steps. An empty path has no steps: it reads the whole
// value.
func parseAttributePath(p string) ([]pathStep, error) {
	if p == "" {
		return nil, nil
	}
	bad := func(why string) ([]pathStep, error) {
		return nil, &DefinitionError{What: "attribute path " + strconv.Quote(p), Reason: why}
	}
	var steps []pathStep
	for _, part := range splitAttributePath(p) {
		st := pathStep{name: part, index: -1}
		if i := strings.IndexByte(part, '['); i >= 0 {
			if !strings.HasSuffix(part, "]") {
				return bad("a [ has no closing ]")
			}
			st.name = part[:i]
			switch inner := strings.TrimSpace(part[i+1 : len(part)-1]); inner {
			case "any", "*":
				st.any = true
			default:
				n, err := strconv.Atoi(inner)
				if err != nil || n < 0 {
					return bad("an index must be a non-negative integer, any or *")
				}
				st.index = n
			}
		}
		if st.name == "" && len(steps) == 0 && st.index < 0 && !st.any {
			return bad("it starts with an empty name")
		}
		steps = append(steps, st)
	}
	return steps, nil
}

// splitAttributePath splits on the dots outside brackets.
func splitAttributePath(p string) []string {
	var out []string
	depth, start := 0, 0
	for i := 0; i < len(p); i++ {
		switch p[i] {
		case '[':
			depth++
		case ']':
			depth--
		case '.':
			if depth == 0 {
				out = append(out, p[start:i])
				start = i + 1
			}
		}
	}
	return append(out, p[start:])
}
