package locks

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/atolldb/atoll/pkg/serialization"
)

func uuid(b byte) UUID {
	var u UUID
	for i := range u {
		u[i] = b + byte(i)
	}
	return u
}

func TestRecordRoundTrip(t *testing.T) {
	cases := map[string]Record{
		"hold": {Hold: &Hold{Owner: uuid(1), Count: 3, Deadline: 1234567, Session: true}},
		"secondary put": {Txn: &Txn{ID: uuid(2), Client: uuid(3), Deadline: 99, State: Prepared,
			PrimaryMap: "accounts", PrimaryKey: []byte{0, 0, 0, 0, 255, 255, 255, 247, 0, 0, 0, 1},
			Intent: IntentPut, Value: []byte("value")}},
		"secondary read lock": {Txn: &Txn{ID: uuid(2), Client: uuid(3), Deadline: 99, State: Prepared,
			PrimaryMap: "m", PrimaryKey: []byte("k")}},
		"committed primary": {Txn: &Txn{ID: uuid(4), Client: uuid(5), Deadline: 7, Primary: true, State: Committed,
			Intent: IntentRemove, Secondaries: []Key{{Map: "a", Key: []byte("x")}, {Map: "b", Key: []byte("y")}}}},
		"both": {Hold: &Hold{Owner: uuid(1), Count: 1, Deadline: 5},
			Txn: &Txn{ID: uuid(6), Client: uuid(1), Deadline: 8, Primary: true, State: Prepared}},
	}
	for name, rec := range cases {
		t.Run(name, func(t *testing.T) {
			b, err := Encode([]byte("prefix"), rec)
			require.NoError(t, err)
			require.True(t, bytes.HasPrefix(b, []byte("prefix")))
			data := b[len("prefix"):]
			require.NoError(t, serialization.Data(data).Check())
			svc, err := serialization.NewService(serialization.Config{})
			require.NoError(t, err)
			require.NoError(t, svc.Validate(data), "a lock record is a valid byte array Data")
			got, err := Decode(data)
			require.NoError(t, err)
			assert.Equal(t, rec, got)
		})
	}
}

func TestDecodeRefusesWhatNoMemberWrites(t *testing.T) {
	good, err := Encode(nil, Record{Txn: &Txn{ID: uuid(1), Deadline: 1, Primary: true, State: Prepared, Intent: IntentPut, Value: []byte("v")}})
	require.NoError(t, err)
	for name, b := range map[string][]byte{
		"empty":     nil,
		"truncated": good[:len(good)-1],
		"trailing":  append(append([]byte(nil), good...), 0),
		"string":    {0, 0, 0, 0, 255, 255, 255, 245, 0, 0, 0, 0},
	} {
		_, err := Decode(b)
		assert.ErrorIs(t, err, ErrCorrupt, name)
	}
	for name, rec := range map[string]Record{
		"no lock":           {},
		"zero count":        {Hold: &Hold{Count: 0}},
		"bad state":         {Txn: &Txn{State: 9}},
		"put without value": {Txn: &Txn{State: Prepared, Intent: IntentPut}},
		"committed second":  {Txn: &Txn{State: Committed}},
	} {
		b, err := Encode(nil, rec)
		require.NoError(t, err)
		_, err = Decode(b)
		assert.ErrorIs(t, err, ErrCorrupt, name)
	}
}

func TestOutcomeRecords(t *testing.T) {
	for _, pid := range []int32{0, 1, 270} {
		k := OutcomeKey(uuid(9), pid, 271)
		assert.Equal(t, pid, serialization.Data(k).PartitionID(271), "the outcome record lives in the primary's partition")
	}
	for _, o := range []Outcome{OutcomeCommitted, OutcomeAborted} {
		got, err := DecodeOutcome(EncodeOutcome(o))
		require.NoError(t, err)
		assert.Equal(t, o, got)
	}
	_, err := DecodeOutcome([]byte{1, 2, 3})
	assert.ErrorIs(t, err, ErrCorrupt)
}

func FuzzDecode(f *testing.F) {
	for _, rec := range []Record{
		{Hold: &Hold{Owner: uuid(1), Count: 2, Deadline: 3}},
		{Txn: &Txn{ID: uuid(2), State: Committed, Primary: true, Secondaries: []Key{{Map: "m", Key: []byte("k")}}}},
		{Txn: &Txn{ID: uuid(2), State: Prepared, PrimaryMap: "p", PrimaryKey: []byte("q"), Intent: IntentPut, Value: []byte("v")}},
	} {
		b, _ := Encode(nil, rec)
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		rec, err := Decode(b)
		if err != nil {
			return
		}
		again, err := Encode(nil, rec)
		if err != nil {
			t.Fatalf("a decoded record does not encode: %v", err)
		}
		rec2, err := Decode(again)
		if err != nil {
			t.Fatalf("a re-encoded record does not decode: %v", err)
		}
		if !assert.ObjectsAreEqual(rec, rec2) {
			t.Fatalf("round trip changed the record: %+v vs %+v", rec, rec2)
		}
	})
}

func TestHidesWhatTheMapDoesNotShowYet(t *testing.T) {
	put := Record{Txn: &Txn{State: Prepared, Intent: IntentPut, Value: []byte("new")}}
	assert.True(t, put.Hides(true, []byte("old")), "a write not in yet")
	assert.True(t, put.Hides(false, nil), "a write of an absent key not in yet")
	assert.False(t, put.Hides(true, []byte("new")), "a write the map shows")
	remove := Record{Txn: &Txn{State: Committed, Primary: true, Intent: IntentRemove}}
	assert.True(t, remove.Hides(true, []byte("old")))
	assert.False(t, remove.Hides(false, nil))
	assert.False(t, Record{Txn: &Txn{State: Prepared}}.Hides(true, []byte("v")), "a read lock hides nothing")
	assert.False(t, Record{Hold: &Hold{Count: 1}}.Hides(true, []byte("v")), "a client's lock hides nothing")
}
