package serialization

import (
	"github.com/atolldb/atoll/internal/serialization/core"
)

// validCompactKind reports whether k may appear in a Compact schema.
func validCompactKind(k core.FieldKind) bool {
	return k > 0 && k < core.KindCount && k != core.KindChar && k != core.KindArrayOfChar && k != core.KindPortable && k != core.KindArrayOfPortable
}

// fixedSize returns the byte size of a fixed-size Compact kind (booleans
// report 0: they are bit-packed), and -1 for variable-size kinds.
func fixedSize(k core.FieldKind) int {
	switch k {
	case core.KindInt8:
		return 1
	case core.KindInt16:
		return 2
	case core.KindInt32, core.KindFloat32:
		return 4
	case core.KindInt64, core.KindFloat64:
		return 8
	case core.KindBoolean:
		return 0
	}
	return -1
}
