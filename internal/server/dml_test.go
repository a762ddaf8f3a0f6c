package server

import (
	"context"
	"testing"

	pb "github.com/atolldb/atoll/api/proto/atoll/v1"
	"github.com/atolldb/atoll/internal/exec"
)

// TestDMLCountsAfterRetry: an attempt that failed may have made its change
// before failing, so a retry that finds it made counts the row.
func TestDMLCountsAfterRetry(t *testing.T) {
	mine, other := []byte("mine"), []byte("other")
	answering := func(present bool, value []byte) entryCalls {
		return entryCalls{
			putIfAbsent: func(context.Context, *pb.PutRequest) (*pb.ValueResponse, error) {
				return &pb.ValueResponse{Found: present, Value: value}, nil
			},
			delete: func(context.Context, *pb.KeyRequest) (*pb.BoolResponse, error) {
				return &pb.BoolResponse{Value: present}, nil
			},
		}
	}
	insert := exec.Write{Kind: exec.WriteInsert, Map: "m", Key: []byte("k"), Value: mine}
	del := exec.Write{Kind: exec.WriteDelete, Map: "m", Key: []byte("k")}
	for _, tc := range []struct {
		name    string
		calls   entryCalls
		op      exec.Write
		retried bool
		want    bool
	}{
		{"insert, absent", answering(false, nil), insert, false, true},
		{"insert, present", answering(true, other), insert, false, false},
		{"insert retried, own value present", answering(true, mine), insert, true, true},
		{"insert retried, another value present", answering(true, other), insert, true, false},
		{"insert, own value present, first attempt", answering(true, mine), insert, false, false},
		{"delete, present", answering(true, nil), del, false, true},
		{"delete, absent", answering(false, nil), del, false, false},
		{"delete retried, absent", answering(false, nil), del, true, true},
	} {
		got, err := tc.calls.apply(context.Background(), tc.op, tc.retried)
		if err != nil || got != tc.want {
			t.Errorf("%s: %v, %v; want %v", tc.name, got, err, tc.want)
		}
	}
}
