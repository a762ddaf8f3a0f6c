package expr

import (
	"bytes"
	"fmt"
	"unicode"
	"unicode/utf8"
)

// LIKE matching
//
// A pattern is cut at its % wildcards into segments of fixed length in
// characters (literal characters and _, which matches any one). The text
// matches when the first segment matches its start, the last its end, and
// the segments between them occur in order, each as early as possible
// after the previous one: taking the earliest occurrence never loses a
// match, so nothing is ever tried twice and a match costs at most
// len(text) × len(pattern) character comparisons, without backtracking.
// Segments without _ (and without case folding) are found with
// bytes.Index; a pattern made only of such segments (the common abc%,
// %abc%, %abc%def%) is matched by the bytes package alone, in one pass
// over the text, with no need to look at the context. Long matches check the evaluation's context as they go
// (Env.Interrupted), so a cancelled query stops within a few milliseconds
// of work.

// MaxLikePattern bounds the length of LIKE and ILIKE patterns, and of
// REGEX patterns, in bytes.
const MaxLikePattern = 64 << 10

// likeCheckEvery is how many character comparisons a match makes between
// two looks at its context.
const likeCheckEvery = 1 << 14

// likeTok is one character of a segment: a literal rune (with its case
// variants when folding), or any character.
type likeTok struct {
	any  bool
	r    rune
	fold []rune // the other runes equal to r under simple case folding
}

type likeSegment struct {
	toks []likeTok
	lit  []byte // the segment's bytes when it has no _ and no folding: found with bytes.Index
}

// likePattern is a compiled LIKE pattern.
type likePattern struct {
	segs []likeSegment
	// open reports a % before the first segment and after the last.
	openStart, openEnd bool
	// literal: every segment is plain bytes (no _, no folding).
	literal bool
}

// compileLike compiles a LIKE pattern: % any run, _ one character, the
// escape character before a character that is literal (a % or _ or the
// escape itself).
func compileLike(p []byte, escape byte, fold bool) (*likePattern, error) {
	if len(p) > MaxLikePattern {
		return nil, fmt.Errorf("the pattern has %d bytes, more than the limit of %d", len(p), MaxLikePattern)
	}
	lp := &likePattern{}
	var cur []likeTok
	lit := []byte{}
	literal := true // cur has no _
	flush := func() {
		seg := likeSegment{toks: cur}
		if literal && !fold {
			seg.lit = lit
		}
		lp.segs = append(lp.segs, seg)
		cur, lit, literal = nil, []byte{}, true
	}
	for i := 0; i < len(p); {
		switch c := p[i]; {
		case c == escape:
			if i+1 >= len(p) {
				return nil, fmt.Errorf("pattern ends with the escape character")
			}
			r, n := utf8.DecodeRune(p[i+1:])
			cur = append(cur, literalTok(r, fold))
			lit = append(lit, p[i+1:i+1+n]...)
			i += 1 + n
		case c == '%':
			if i == 0 {
				lp.openStart = true
			} else if len(cur) > 0 {
				flush()
			}
			for i < len(p) && p[i] == '%' { // a run of % is one
				i++
			}
			lp.openEnd = i == len(p)
		case c == '_':
			cur = append(cur, likeTok{any: true})
			literal = false
			i++
		default:
			r, n := utf8.DecodeRune(p[i:])
			cur = append(cur, literalTok(r, fold))
			lit = append(lit, p[i:i+n]...)
			i += n
		}
	}
	if len(cur) > 0 {
		flush()
	}
	lp.literal = true
	for i := range lp.segs {
		lp.literal = lp.literal && lp.segs[i].lit != nil
	}
	return lp, nil
}

func literalTok(r rune, fold bool) likeTok {
	t := likeTok{r: r}
	if fold {
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			t.fold = append(t.fold, f)
		}
	}
	return t
}

func (t *likeTok) matches(r rune) bool {
	if t.any || t.r == r {
		return true
	}
	for _, f := range t.fold {
		if f == r {
			return true
		}
	}
	return false
}

// likeMatcher counts a match's work and stops it when its context ends.
type likeMatcher struct {
	env   *Env
	steps int
	stop  bool
}

func (m *likeMatcher) tick(n int) bool {
	if m.steps += n; m.steps >= likeCheckEvery {
		m.steps = 0
		if m.env != nil && m.env.Interrupted() {
			m.stop = true
		}
	}
	return !m.stop
}

// at reports whether seg matches text at byte offset i, and where its match
// ends.
func (m *likeMatcher) at(seg *likeSegment, text []byte, i int) (end int, ok bool) {
	if seg.lit != nil {
		m.tick(len(seg.lit))
		if bytes.HasPrefix(text[i:], seg.lit) {
			return i + len(seg.lit), true
		}
		return 0, false
	}
	for k := range seg.toks {
		if i >= len(text) {
			return 0, false
		}
		r, n := utf8.DecodeRune(text[i:])
		if !seg.toks[k].matches(r) {
			m.tick(k + 1)
			return 0, false
		}
		i += n
	}
	m.tick(len(seg.toks))
	return i, true
}

// find returns the earliest match of seg in text at or after byte offset
// from (on a character boundary): its start and end, or ok false.
func (m *likeMatcher) find(seg *likeSegment, text []byte, from int) (start, end int, ok bool) {
	if seg.lit != nil {
		j := bytes.Index(text[from:], seg.lit)
		m.tick(len(text) - from)
		if j < 0 {
			return 0, 0, false
		}
		return from + j, from + j + len(seg.lit), true
	}
	for i := from; i <= len(text) && !m.stop; {
		if e, ok := m.at(seg, text, i); ok {
			return i, e, true
		}
		if i == len(text) {
			break
		}
		_, n := utf8.DecodeRune(text[i:])
		i += n
	}
	return 0, 0, false
}

// suffixStart returns the byte offset where the last n characters of text
// start, or -1 if it has fewer.
func suffixStart(text []byte, n int) int {
	i := len(text)
	for ; n > 0; n-- {
		if i == 0 {
			return -1
		}
		_, w := utf8.DecodeLastRune(text[:i])
		i -= w
	}
	return i
}

// match reports whether text matches the pattern. It returns false early
// when env's context ends (Env.Err then says why).
func (lp *likePattern) match(env *Env, text []byte) bool {
	if lp.literal {
		return lp.matchLiteral(text)
	}
	m := &likeMatcher{env: env}
	segs := lp.segs
	pos := 0
	if !lp.openStart {
		if len(segs) == 0 {
			return len(text) == 0
		}
		e, ok := m.at(&segs[0], text, 0)
		if !ok {
			return false
		}
		if len(segs) == 1 && !lp.openEnd {
			return e == len(text)
		}
		pos, segs = e, segs[1:]
	}
	var last *likeSegment
	if !lp.openEnd && len(segs) > 0 {
		last, segs = &segs[len(segs)-1], segs[:len(segs)-1]
	}
	for i := range segs {
		_, e, ok := m.find(&segs[i], text, pos)
		if !ok || m.stop {
			return false
		}
		pos = e
	}
	if last == nil {
		return !m.stop
	}
	s := len(text) - len(last.lit)
	if last.lit == nil {
		s = suffixStart(text, len(last.toks))
	}
	if s < pos {
		return false
	}
	e, ok := m.at(last, text, s)
	return ok && e == len(text) && !m.stop
}

// matchLiteral matches a pattern whose segments are all plain bytes: the
// first at the start unless the pattern opens with %, the last at the end
// unless it closes with %, the others in order, each at its earliest
// position.
func (lp *likePattern) matchLiteral(text []byte) bool {
	segs := lp.segs
	switch {
	case len(segs) == 0:
		return lp.openStart || len(text) == 0
	case len(segs) == 1:
		lit := segs[0].lit
		switch {
		case lp.openStart && lp.openEnd:
			return bytes.Contains(text, lit)
		case lp.openStart:
			return bytes.HasSuffix(text, lit)
		case lp.openEnd:
			return bytes.HasPrefix(text, lit)
		}
		return bytes.Equal(text, lit)
	}
	if !lp.openStart {
		if !bytes.HasPrefix(text, segs[0].lit) {
			return false
		}
		text, segs = text[len(segs[0].lit):], segs[1:]
	}
	var last []byte
	if !lp.openEnd {
		last, segs = segs[len(segs)-1].lit, segs[:len(segs)-1]
	}
	for i := range segs {
		j := bytes.Index(text, segs[i].lit)
		if j < 0 {
			return false
		}
		text = text[j+len(segs[i].lit):]
	}
	return last == nil || bytes.HasSuffix(text, last)
}
