package core

import (
	"reflect"
)

// AsPtr accepts nil, T or *T.
func AsPtr[T any](v any) (*T, bool) {
	switch x := v.(type) {
	case nil:
		return nil, true
	case T:
		return &x, true
	case *T:
		return x, true
	}
	return nil, false
}

// AsPtrSlice accepts nil, []*T or []T.
func AsPtrSlice[T any](v any) ([]*T, bool) {
	switch x := v.(type) {
	case nil:
		return nil, true
	case []*T:
		return x, true
	case []T:
		if x == nil {
			return nil, true
		}
		out := make([]*T, len(x))
		for i := range x {
			out[i] = &x[i]
		}
		return out, true
	}
	return nil, false
}

// AsSlice accepts nil or []T.
func AsSlice[T any](v any) ([]T, bool) {
	if v == nil {
		return nil, true
	}
	x, ok := v.([]T)
	return x, ok
}

// DerefOrNil turns a (*T, error) getter result into an any holding T or nil.
func DerefOrNil[T any](v *T, err error) (any, error) {
	if v == nil || err != nil {
		return nil, err
	}
	return *v, nil
}

// NilSlice keeps a null array as an untyped nil in an any.
func NilSlice[T any](v []T, err error) (any, error) {
	if v == nil || err != nil {
		return nil, err
	}
	return v, nil
}

// IsNil reports whether v is nil or a nil pointer, map, slice or interface.
func IsNil(v any) bool {
	if v == nil {
		return true
	}
	switch rv := reflect.ValueOf(v); rv.Kind() {
	case reflect.Pointer, reflect.Map, reflect.Slice, reflect.Interface, reflect.Func, reflect.Chan:
		return rv.IsNil()
	}
	return false
}

// DerefSlice accepts nil, []T or []*T without nil items.
func DerefSlice[T any](v any) ([]T, bool) {
	switch x := v.(type) {
	case nil:
		return nil, true
	case []T:
		return x, true
	case []*T:
		out := make([]T, len(x))
		for i, p := range x {
			if p == nil {
				return nil, false
			}
			out[i] = *p
		}
		return out, true
	}
	return nil, false
}

func Int8sToBytes(v []int8) []byte {
	if v == nil {
		return nil
	}
	out := make([]byte, len(v))
	for i, x := range v {
		out[i] = byte(x)
	}
	return out
}

// BytesToInt8s is the inverse of Int8sToBytes.
func BytesToInt8s(v []byte) []int8 {
	if v == nil {
		return nil
	}
	out := make([]int8, len(v))
	for i, x := range v {
		out[i] = int8(x)
	}
	return out
}
