package expr

import (
	"context"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// likeRegexp is the reference the matcher is checked against: the pattern
// translated into an anchored regular expression.
func likeRegexp(p []byte, escape byte, fold bool) (*regexp.Regexp, error) {
	var b strings.Builder
	if fold {
		b.WriteString("(?i)")
	}
	b.WriteString("(?s)^")
	for i := 0; i < len(p); i++ {
		switch c := p[i]; {
		case c == escape:
			if i+1 >= len(p) {
				return nil, errEscape
			}
			r, n := utf8.DecodeRune(p[i+1:])
			b.WriteString(regexp.QuoteMeta(string(r)))
			i += n
		case c == '%':
			b.WriteString(".*")
		case c == '_':
			b.WriteString(".")
		default:
			r, n := utf8.DecodeRune(p[i:])
			b.WriteString(regexp.QuoteMeta(string(r)))
			i += n - 1
		}
	}
	b.WriteString("$")
	return regexp.Compile(b.String())
}

var errEscape = &EvalError{Msg: "pattern ends with the escape character"}

func TestLike(t *testing.T) {
	for _, c := range []struct {
		text, pattern string
		fold, want    bool
	}{
		{"", "", false, true},
		{"a", "", false, false},
		{"", "%", false, true},
		{"abc", "abc", false, true},
		{"abc", "ab", false, false},
		{"abc", "a%", false, true},
		{"abc", "%c", false, true},
		{"abc", "%b%", false, true},
		{"abc", "a_c", false, true},
		{"abc", "a__c", false, false},
		{"aXbXc", "a%b%c", false, true},
		{"ab", "a%b%b", false, false},
		{"abab", "a%b%b", false, true},
		{"abcab", "%ab", false, true},
		{"ab", "%ab%ab", false, false},
		{"é", "_", false, true},
		{"éa", "__", false, true},
		{"a_b", `a\_b`, false, true},
		{"axb", `a\_b`, false, false},
		{"50%", `50\%`, false, true},
		{"Hello", "h%", true, true},
		{"HELLO", "%ll_", true, true},
		{"K", "k", true, true}, // the Kelvin sign folds to k
		{"straße", "STRASSE", true, false},
		{strings.Repeat("a", 100_000) + "c", strings.Repeat("%a", 5000) + "%b", false, false},
	} {
		lp, err := compileLike([]byte(c.pattern), '\\', c.fold)
		require.NoError(t, err, "%q", c.pattern)
		assert.Equal(t, c.want, lp.match(nil, []byte(c.text)), "%.40q LIKE %.40q (fold %v)", c.text, c.pattern, c.fold)
	}
	_, err := compileLike([]byte(`ab\`), '\\', false)
	assert.Error(t, err, "a pattern ending with the escape character")
	_, err = compileLike(make([]byte, MaxLikePattern+1), '\\', false)
	assert.Error(t, err, "a pattern over the length limit")
}

// TestLikeStopsWhenCancelled: a match that would take seconds stops soon
// after its context ends, with the context's error.
func TestLikeStopsWhenCancelled(t *testing.T) {
	text := []byte(strings.Repeat("a", 1_000_000))
	// Every segment nearly matches everywhere: about len(text) × 4000
	// comparisons, seconds of work.
	lp, err := compileLike([]byte("%"+strings.Repeat("a_", 2000)+"b%"), '\\', false)
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	env := &Env{Ctx: ctx}
	time.AfterFunc(50*time.Millisecond, cancel)
	start := time.Now()
	require.False(t, lp.match(env, text), "matched")
	require.ErrorIs(t, env.Err, context.Canceled, "the match ends with its context")
	t.Logf("stopped %v after it started (cancelled after 50ms)", time.Since(start))
}

// FuzzLike checks the matcher against the regular-expression reference.
func FuzzLike(f *testing.F) {
	for _, s := range [][2]string{{"abc", "a%c"}, {"aXbXc", "a%b%c"}, {"é_", "__"}, {"a_b", `a\_b`}, {"Hello", "h%O"}, {"abab", "%ab%b"}} {
		f.Add(s[0], s[1], false)
		f.Add(s[0], s[1], true)
	}
	f.Fuzz(func(t *testing.T, text, pattern string, fold bool) {
		if len(pattern) > 64 || len(text) > 256 {
			return
		}
		re, rerr := likeRegexp([]byte(pattern), '\\', fold)
		lp, err := compileLike([]byte(pattern), '\\', fold)
		require.Equal(t, rerr == nil, err == nil, "%q compiles as the reference does: %v, reference %v", pattern, err, rerr)
		if err != nil || !utf8.ValidString(text) || !utf8.ValidString(pattern) {
			return // the reference reads invalid UTF-8 differently
		}
		require.Equal(t, re.MatchString(text), lp.match(nil, []byte(text)), "%q LIKE %q (fold %v): the reference (expected) and the matcher (actual)", text, pattern, fold)
	})
}

// BenchmarkLike matches comment-like texts: patterns of plain segments
// (the bytes package alone) and ones with _ or folding (the segment
// matcher).
func BenchmarkLike(b *testing.B) {
	texts := make([][]byte, 1000)
	for i := range texts {
		s := strings.Repeat("carefully final deposits detect slyly agai", 1+i%3)
		if i%10 == 0 {
			s += " special packages wake requests "
		}
		texts[i] = []byte(s)
	}
	for _, c := range []struct {
		pattern string
		fold    bool
	}{{"%special%requests%", false}, {"carefully%", false}, {"%agai", false}, {"%sp_cial%requests%", false}, {"%SPECIAL%", true}} {
		b.Run(c.pattern, func(b *testing.B) {
			lp, err := compileLike([]byte(c.pattern), '\\', c.fold)
			require.NoError(b, err)
			env := &Env{Ctx: context.Background()}
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				lp.match(env, texts[i%len(texts)])
			}
		})
	}
}
