package client

import (
	"fmt"

	pb "github.com/atolldb/atoll/api/proto/atoll/v1"
)

// limits are the sizes a member accepts, as it reported them when the
// client connected (limits.* of its configuration), bounded by the
// client's own Config.MaxMessageSize. The client refuses a request over
// them before it sends anything, with a *RequestError naming the limit,
// and splits PutAll and GetAll batches to fit.
type limits struct {
	maxMessage        int
	maxMessageSetting string // what sets maxMessage
	maxKey, maxValue  int    // 0: not reported
	maxBatch          int    // 0: not reported
}

func newLimits(cfg *Config, l *pb.Limits) *limits {
	out := &limits{maxMessage: cfg.MaxMessageSize, maxMessageSetting: "Config.MaxMessageSize"}
	if l == nil {
		return out
	}
	if m := int(l.MaxMessageSize); m > 0 && m < out.maxMessage {
		out.maxMessage, out.maxMessageSetting = m, "the member's limits.max-message-size"
	}
	out.maxKey, out.maxValue, out.maxBatch = int(l.MaxKeySize), int(l.MaxValueSize), int(l.MaxBatchEntries)
	return out
}

// checkKey and checkValue refuse a serialized key or value (field "key",
// "value", "entries[3].value", ...) over the member's limit.
func (l *limits) checkKey(field string, size int) error {
	return tooLarge(field, "key", size, l.maxKey, "limits.max-key-size")
}

func (l *limits) checkValue(field string, size int) error {
	return tooLarge(field, "value", size, l.maxValue, "limits.max-value-size")
}

// checkMessage refuses an encoded request of n bytes over the message
// limit.
func (l *limits) checkMessage(n int) error {
	if n <= l.maxMessage {
		return nil
	}
	return &RequestError{Reason: fmt.Sprintf("the message has %d bytes, more than the limit of %d (%s)", n, l.maxMessage, l.maxMessageSetting),
		Limit: l.maxMessage, kind: ErrTooLarge}
}

func tooLarge(field, what string, size, limit int, setting string) error {
	if limit <= 0 || size <= limit {
		return nil
	}
	return &RequestError{Field: field, Reason: fmt.Sprintf("the %s has %d bytes, more than the member's limit of %d (%s)", what, size, limit, setting),
		Limit: limit, kind: ErrTooLarge}
}

// batchBytes is how many bytes of keys and values one request of a batch
// (PutAll, GetAll) may carry: the message limit less room for the rest of
// the request (the map name, at most maxMapName bytes, and the call's
// fields).
func (l *limits) batchBytes() int { return l.maxMessage - maxMapName - 64 }

// entryOverhead is what an entry adds to a batch request beyond its key
// and value bytes (tags and lengths), as the member counts it.
const entryOverhead = 16

// batches splits idx, the indexes of a batch's entries, into runs whose
// entries (size(i) bytes each, overhead included) fit in one request and
// that hold at most maxBatch entries.
func (l *limits) batches(idx []int, size func(i int) int) [][]int {
	budget := l.batchBytes()
	var out [][]int
	start, bytes := 0, 0
	for j, i := range idx {
		n := size(i)
		full := j > start && (bytes+n > budget || l.maxBatch > 0 && j-start >= l.maxBatch)
		if full {
			out = append(out, idx[start:j])
			start, bytes = j, 0
		}
		bytes += n
	}
	return append(out, idx[start:])
}
