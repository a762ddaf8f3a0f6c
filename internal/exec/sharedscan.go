package exec

// Shared scans. Scans of one map that filter or aggregate and run at the
// same time on a member read each partition once between them: a scan that takes a partition
// reads it for itself and for every other scan that still needs it and
// is free to ride along, handing each entry to each scan's filter in
// turn. Every scan's partitions are handed out from one cursor per map
// that goes round the partitions: a scan that starts while others run
// joins them where they are, rides along to the last partition, and
// takes the ones it missed after the cursor comes round again (as SQL
// Server's "merry-go-round" scans do). A scan over values larger than
// the caches then reads memory once for all of them, and the cost of a
// query falls towards that of its filter alone.
//
// A scan rides along on its riders, workers of its own made for it when
// it joins a map that other scans read, one for each of its goroutines
// (as many reads as run at once); the taking scan's goroutine runs a free
// one for the partition, then hands it back. Only the scan's own
// goroutines send what its workers hold, so a scan whose client reads
// slowly never holds up another: a rider whose rows wait to be sent
// rides no more until they are. Each scan checks the partition's owner
// before and after it as it would alone, and an error of one scan's
// filter stops that scan only. The scans of a read take the fields of
// each entry through one memo (entryMemo): scans that filter or
// aggregate on one field read it once per entry between them.
//
// A scan whose filter is slow would hold every scan in its reads to its
// pace: shared reads time each scan's filter on every sampleEvery-th
// entry, and a scan that took more than slowRead on most of its timed
// entries reads alone from then on. A read shared by several queries is
// profiled under the labels of the query whose goroutine read it.

import (
	"context"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/atolldb/atoll/internal/store"
)

// scanShares are the shared scans of an Engine, by map.
type scanShares struct {
	mu    sync.Mutex
	byMap map[*store.Map]*scanShare
	reads int64 // partition reads that served more than one scan
}

// scanShare is the scans of one map running now.
type scanShare struct {
	runs   []*scanRun
	cursor int // the next partition the cursor comes to
}

// shareState is a shared scan's part in its share; every field is
// guarded by scanShares.mu.
type shareState struct {
	share *scanShare
	need  []bool // by partition id: not taken yet
	left  int    // partitions still needed
	// riders are the workers other scans' goroutines run for this scan
	// (none: it does not ride along), from index ridersAt of the scan's
	// workers on; busy[i] says one runs riders[i] now, rode[i] that one
	// ever did, and busyCount how many are busy.
	riders    []*worker
	busy      []bool
	rode      []bool
	ridersAt  int
	busyCount int
	times     filterTimes // its filter's, in shared reads
	solo      bool        // reads alone: its filter was slow
	// running counts the scan's goroutines still taking partitions;
	// released wakes the last, which waits for the riders to be handed
	// back.
	running  int
	released *sync.Cond
}

// ride is rider i of scan sc, running for another scan's read.
type ride struct {
	sc *scanRun
	i  int
}

func (r ride) worker() *worker { return r.sc.shared.riders[r.i] }

// join adds sc, which reads parts of st on goroutines goroutines, to the
// scans of st, and reports whether it did: parts outside the map's
// partitions leave the scan to read alone, which reports them. The scan
// gets riders, made by newRider, when other scans run on the map.
func (ss *scanShares) join(st *store.Map, sc *scanRun, parts []int32, goroutines int, newRider func() (*worker, error)) (bool, error) {
	n := st.PartitionCount()
	need := make([]bool, n)
	left := 0
	for _, p := range parts {
		if p < 0 || int(p) >= n {
			return false, nil
		}
		if !need[p] {
			need[p] = true
			left++
		}
	}
	ss.mu.Lock()
	others := ss.byMap[st] != nil
	ss.mu.Unlock()
	state := &shareState{need: need, left: left, running: goroutines, ridersAt: goroutines}
	if others {
		for range goroutines {
			w, err := newRider()
			if err != nil {
				for _, r := range state.riders {
					r.ops.release()
				}
				return false, err
			}
			state.riders = append(state.riders, w)
		}
		state.busy = make([]bool, goroutines)
		state.rode = make([]bool, goroutines)
	}
	ss.mu.Lock()
	defer ss.mu.Unlock()
	sh := ss.byMap[st]
	if sh == nil {
		if ss.byMap == nil {
			ss.byMap = map[*store.Map]*scanShare{}
		}
		sh = &scanShare{}
		ss.byMap[st] = sh
	}
	state.share = sh
	sh.runs = append(sh.runs, sc)
	sc.shared = state
	return true, nil
}

// read is a partition take hands a goroutine: whether the goroutine's
// own scan needs it, the scans that read it along, and whether other
// scans share the map now.
type read struct {
	pid     int32
	own     bool
	rides   []ride
	crowded bool
}

// take gives a goroutine of sc, in rd, the next partition from the
// cursor on that a scan of the map needs and can read now: sc, or
// another with a free rider. The scans that read it along with sc's
// worker, or alone when sc does not need it, are rd.rides, their riders
// now busy. It reports false when sc needs no more.
func (ss *scanShares) take(sc *scanRun, rd *read) bool {
	rd.rides = rd.rides[:0]
	ss.mu.Lock()
	defer ss.mu.Unlock()
	me := sc.shared
	if me.left == 0 {
		return false
	}
	sh := me.share
	n := len(me.need)
	p := sh.cursor % n
	for !me.need[p] && (me.solo || !sh.rideable(p)) {
		p = (p + 1) % n
	}
	sh.cursor = p + 1
	if rd.own = me.need[p]; rd.own {
		me.need[p] = false
		me.left--
	}
	for _, r := range sh.runs {
		if me.solo {
			break // reads alone: takes no rider either
		}
		if r == sc {
			continue
		}
		if i := r.shared.freeRider(p, r); i >= 0 {
			o := r.shared
			o.need[p] = false
			o.left--
			o.busy[i], o.rode[i] = true, true
			o.busyCount++
			rd.rides = append(rd.rides, ride{r, i})
		}
	}
	if rd.own && len(rd.rides) > 0 || len(rd.rides) > 1 {
		ss.reads++
	}
	rd.pid, rd.crowded = int32(p), len(sh.runs) > 1
	return true
}

// rideable reports whether a scan of the share needs partition p and has
// a rider free to read it.
func (sh *scanShare) rideable(p int) bool {
	for _, r := range sh.runs {
		if r.shared.freeRider(p, r) >= 0 {
			return true
		}
	}
	return false
}

// freeRider is the index of a rider of o, the share of scan r, free to
// read partition p for it, or -1 when r does not need p, reads alone,
// has stopped or has no rider free: busy, done with its LIMIT, or
// holding a full batch that r's goroutines are to send first.
func (o *shareState) freeRider(p int, r *scanRun) int {
	if o.solo || !o.need[p] || r.stopped.Load() {
		return -1
	}
	for i, w := range o.riders {
		if !o.busy[i] && !w.done && len(w.buf) < flushBytes {
			return i
		}
	}
	return -1
}

// giveBack returns partition pid to the scans of rides, which did not
// read it, and hands their riders back.
func (ss *scanShares) giveBack(pid int32, rides []ride) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	for _, r := range rides {
		if o := r.sc.shared; !o.need[pid] {
			o.need[pid] = true
			o.left++
		}
		ss.releaseLocked(r)
	}
}

// slowRead is the time on one entry from which a scan's filter is slow:
// some fifty times what the usual filters take (a variable for tests).
// Filters that slow gain little from sharing a read, whose cost they
// are, and would hold up the scans they share it with.
var slowRead = time.Microsecond

// sampleEvery is how often shared reads time the scans' filters: every
// 64th entry, which adds under a nanosecond per entry and scan.
const sampleEvery = 64

// filterTimes counts the entries whose filter was timed and those of
// them that took longer than slowRead.
type filterTimes struct{ timed, over int }

func (t *filterTimes) add(u filterTimes) {
	t.timed += u.timed
	t.over += u.over
}

// slow reports whether most of the timed entries took longer than
// slowRead: a filter slow now and then, or a goroutine stopped by the
// runtime or the kernel while one entry was timed, is not.
func (t filterTimes) slow() bool { return t.timed >= 3 && 2*t.over > t.timed }

// release hands the riders of rides back to their scans, and adds times,
// how long the filters of the read took (sc's first, when own; then each
// ride's), to their scans' own: a scan whose filter is slow reads alone
// from now on.
func (ss *scanShares) release(sc *scanRun, own bool, rides []ride, times []filterTimes) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	note := func(o *shareState, t filterTimes) {
		if o.times.add(t); o.times.slow() {
			o.solo = true
		}
	}
	if own && len(times) > 0 {
		note(sc.shared, times[0])
		times = times[1:]
	}
	for i, r := range rides {
		ss.releaseLocked(r)
		if i < len(times) {
			note(r.sc.shared, times[i])
		}
	}
}

func (ss *scanShares) releaseLocked(r ride) {
	o := r.sc.shared
	o.busy[r.i] = false
	o.busyCount--
	if o.busyCount == 0 && o.released != nil {
		o.released.Broadcast()
	}
}

// claimFull takes one of sc's free riders that holds a full batch, for
// sc's goroutine to send it.
func (ss *scanShares) claimFull(sc *scanRun) (ride, bool) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	o := sc.shared
	for i, w := range o.riders {
		if !o.busy[i] && len(w.buf) >= flushBytes {
			o.busy[i] = true
			o.busyCount++
			return ride{sc, i}, true
		}
	}
	return ride{}, false
}

// leave ends a goroutine of sc; the last one takes sc out of its share,
// waits for its riders to be handed back and reports true.
func (ss *scanShares) leave(sc *scanRun) bool {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	o := sc.shared
	if o.running--; o.running > 0 {
		return false
	}
	sh := o.share
	if i := slices.Index(sh.runs, sc); i >= 0 {
		sh.runs = slices.Delete(sh.runs, i, i+1)
	}
	if len(sh.runs) == 0 && ss.byMap[sc.st] == sh {
		delete(ss.byMap, sc.st)
	}
	for o.busyCount > 0 {
		if o.released == nil {
			o.released = sync.NewCond(&ss.mu)
		}
		o.released.Wait()
	}
	return true
}

// sharedReads is how many partition reads served more than one scan.
func (ss *scanShares) sharedReads() int64 {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	return ss.reads
}

// scanShared is scan for a scan that shares its reads: worker wi takes
// partitions from the share until sc needs no more, stops or ctx ends,
// reading each for the scans that ride along too. The last of sc's
// goroutines passes on what its riders hold.
func (sc *scanRun) scanShared(ctx context.Context, wi int) {
	ss := &sc.e.shares
	w := sc.workers[wi]
	defer func() {
		w.ops.release()
		if !ss.leave(sc) {
			return
		}
		o := sc.shared
		for i, r := range o.riders {
			if o.rode[i] && !sc.stopped.Load() {
				if err := sc.finish(o.ridersAt + i); err != nil {
					sc.fail(err)
				}
			}
			r.ops.release()
		}
	}()
	var rd read
	for !sc.stopped.Load() && !w.done && ss.take(sc, &rd) {
		if err := sc.partitionAlong(ctx, wi, &rd); err != nil {
			sc.fail(err)
			return
		}
		if err := sc.sendRiders(); err != nil {
			sc.fail(err)
			return
		}
		if rd.crowded {
			// Let the other scans' goroutines run: one that the runtime
			// stops while it reads holds riders of every scan, which
			// then miss the partitions read meanwhile. Yielding between
			// reads keeps each well inside its time slice.
			runtime.Gosched()
		}
	}
	if sc.stopped.Load() {
		return // another worker failed: nothing more is sent
	}
	if err := sc.finish(wi); err != nil {
		sc.fail(err)
	}
}

// partitionAlong is partition for worker wi reading rd.pid, when its
// scan needs it, and for the scans of rd.rides; an error of a rider's
// stops that scan, and is not wi's.
func (sc *scanRun) partitionAlong(ctx context.Context, wi int, rd *read) error {
	ss := &sc.e.shares
	pid, own, rides := rd.pid, rd.own, rd.rides
	if err := ctx.Err(); err != nil {
		ss.giveBack(pid, rides) // this scan's end is not theirs
		return err
	}
	w := sc.workers[wi]
	buf := w.ridersBuf[:0]
	for _, r := range rides {
		buf = append(buf, r.worker())
	}
	w.ridersBuf = buf
	lead, along := w, buf
	if !own {
		lead, along = buf[0], buf[1:]
	}
	err := sc.e.owns(pid)
	var readErr error
	var times []filterTimes
	if err == nil {
		readErr = lead.scanAlong(pid, along)
		err = sc.e.owns(pid)
		if len(along) > 0 {
			times = lead.times
		}
	}
	clear(buf)
	for _, r := range rides {
		rerr := err
		if rerr == nil {
			rerr = r.worker().failure(readErr)
		}
		if rerr != nil {
			r.sc.fail(rerr)
		}
	}
	ss.release(sc, own, rides, times)
	if on := sc.e.cfg.OnScanRead; on != nil && err == nil {
		n := len(rides)
		if own {
			n++
		}
		on(n)
	}
	if !own {
		return nil
	}
	if err == nil {
		err = w.failure(readErr)
	}
	if err != nil {
		return err
	}
	if len(w.buf) >= flushBytes {
		return sc.out(wi, w.take())
	}
	return nil
}

// sendRiders sends the rows each of sc's riders holds once they fill a
// batch.
func (sc *scanRun) sendRiders() error {
	ss := &sc.e.shares
	for {
		r, ok := ss.claimFull(sc)
		if !ok {
			return nil
		}
		err := sc.out(sc.shared.ridersAt+r.i, r.worker().take())
		ss.mu.Lock()
		ss.releaseLocked(r)
		ss.mu.Unlock()
		if err != nil {
			return err
		}
	}
}
