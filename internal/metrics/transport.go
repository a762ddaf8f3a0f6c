package metrics

import (
	"sync"

	"github.com/prometheus/client_golang/prometheus"
)

// Transport records the traffic between members, per peer member
// address: messages and payload bytes each way, and how long sends wait
// for the transport to take a message (flow control towards a peer that
// reads slowly).
type Transport struct {
	messages  *prometheus.CounterVec
	bytes     *prometheus.CounterVec
	sendQueue *prometheus.HistogramVec

	mu    sync.Mutex
	peers map[string]*Peer
}

// Peer holds the recorders of one peer member.
type Peer struct {
	SentMessages, SentBytes         prometheus.Counter
	ReceivedMessages, ReceivedBytes prometheus.Counter
	// SendQueue observes, in seconds, how long a send waited before the
	// transport accepted the message.
	SendQueue prometheus.Observer
}

func newTransport() *Transport {
	labels := []string{"peer", "direction"}
	return &Transport{
		messages: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: namespace, Name: "transport_messages_total",
			Help: "Messages exchanged with other members (gossip, replication, table and metadata calls), by peer and direction (sent or received)."}, labels),
		bytes: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: namespace, Name: "transport_bytes_total",
			Help: "Payload bytes of the messages exchanged with other members, by peer and direction."}, labels),
		sendQueue: prometheus.NewHistogramVec(prometheus.HistogramOpts{Namespace: namespace, Name: "transport_send_queue_seconds",
			Help:    "Time a message to another member waited before the transport accepted it (stream flow control), by peer.",
			Buckets: prometheus.ExponentialBuckets(1e-6, 4, 12)}, []string{"peer"}),
		peers: map[string]*Peer{},
	}
}

// Peer returns the recorders of the member at addr.
func (t *Transport) Peer(addr string) *Peer {
	t.mu.Lock()
	defer t.mu.Unlock()
	p, ok := t.peers[addr]
	if !ok {
		p = &Peer{
			SentMessages: t.messages.WithLabelValues(addr, "sent"), SentBytes: t.bytes.WithLabelValues(addr, "sent"),
			ReceivedMessages: t.messages.WithLabelValues(addr, "received"), ReceivedBytes: t.bytes.WithLabelValues(addr, "received"),
			SendQueue: t.sendQueue.WithLabelValues(addr),
		}
		t.peers[addr] = p
	}
	return p
}

// Describe implements prometheus.Collector.
func (t *Transport) Describe(ch chan<- *prometheus.Desc) {
	t.messages.Describe(ch)
	t.bytes.Describe(ch)
	t.sendQueue.Describe(ch)
}

// Collect implements prometheus.Collector.
func (t *Transport) Collect(ch chan<- prometheus.Metric) {
	t.messages.Collect(ch)
	t.bytes.Collect(ch)
	t.sendQueue.Collect(ch)
}
