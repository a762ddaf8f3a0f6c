package serialization_test

import (
	"encoding/hex"
	"errors"
	"testing"

	s "github.com/atolldb/atoll/pkg/serialization"
)

func TestValidateAcceptsEveryVector(t *testing.T) {
	svc := serviceForVectors(t)
	for name, v := range committedVectors(t) {
		b, _ := hex.DecodeString(v.DataHex)
		if err := svc.Validate(b); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func TestValidateRejects(t *testing.T) {
	svc := serviceForVectors(t)
	cases := map[string]string{
		"short":              "000000",
		"int too long":       "00000000fffffff90000002a00",
		"string length":      "00000000fffffff50000000568656c6c",
		"unknown type":       "00000000ffffff9c00",
		"compact no schema":  "00000000ffffffc91111111111111111",
		"portable truncated": "00000000ffffffff00000002",
		"array length":       "00000000fffffff000000002000000010000",
	}
	for name, h := range cases {
		b, _ := hex.DecodeString(h)
		err := svc.Validate(b)
		if !errors.Is(err, s.ErrMalformed) && !errors.Is(err, s.ErrUnknownSchema) {
			t.Errorf("%s: %v, want a malformed or unknown-schema error", name, err)
		}
	}
	for name, v := range committedVectors(t) {
		b, _ := hex.DecodeString(v.DataHex)
		if err := svc.Validate(append(b[:len(b):len(b)], 0)); err == nil && v.Format != "identified" {
			t.Errorf("%s with a trailing byte validated", name)
		}
	}
}
