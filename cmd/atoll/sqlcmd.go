package main

import (
	"bufio"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/atolldb/atoll/pkg/client"
)

type sqlFlags struct {
	clientFlags
	format   string
	explain  bool
	params   []string
	pageSize int
	history  string
}

func newSQLCmd() *cobra.Command {
	f := &sqlFlags{}
	cmd := &cobra.Command{
		Use:   "sql [STATEMENT]",
		Short: "Run a SQL statement, or an interactive SQL shell when none is given",
		Long: `Runs one statement and prints its result, or starts an interactive shell
when no statement is given: statements may span lines and end with ';',
previous statements come back with the arrow keys (saved in --history),
\history lists them and \q (or exit) quits.

Results print as a table, as CSV (--format csv: a header line with the
column names, then one line per row, RFC 4180 quoting, NULL as an empty
field) or as JSON lines (--format json). --explain prints the plan instead.
A statement the members' memory circuit breaker refuses is sent again
after a wait (binary exponential backoff with full jitter: --retry-base,
--retry-cap, --retry-attempts), never once it has printed rows.
A failing statement prints its error on stderr and exits with status 1.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			switch f.format {
			case "table", "csv", "json":
			default:
				return fmt.Errorf("--format must be table, csv or json, not %q", f.format)
			}
			c, ctx, done, err := f.connect(cmd)
			if err != nil {
				return err
			}
			defer done()
			if len(args) == 1 {
				return f.run(ctx, c, args[0], cmd.OutOrStdout())
			}
			return f.shell(cmd, c)
		},
	}
	f.register(cmd)
	cmd.Flags().StringVar(&f.format, "format", "table", "output format: table, csv or json")
	cmd.Flags().BoolVar(&f.explain, "explain", false, "print the plan instead of running the statement")
	cmd.Flags().StringArrayVar(&f.params, "param", nil, "a ? parameter as TYPE:VALUE (int, long, double, string, bool) or a plain string; repeat in order")
	cmd.Flags().IntVar(&f.pageSize, "page-size", 0, "rows per page fetched from the member (member default when 0)")
	cmd.Flags().IntVar(&f.queryRetry.Attempts, "retry-attempts", 10, "attempts of a statement the members' memory breaker refuses (1: no retry)")
	cmd.Flags().DurationVar(&f.queryRetry.Initial, "retry-base", 100*time.Millisecond, "bound of the first wait before retrying a refused statement (doubling, full jitter)")
	cmd.Flags().DurationVar(&f.queryRetry.Max, "retry-cap", 5*time.Second, "cap of the waits between attempts of a refused statement")
	home, _ := os.UserHomeDir()
	cmd.Flags().StringVar(&f.history, "history", filepath.Join(home, ".atoll_sql_history"), "history file of the interactive shell")
	return cmd
}

// parseParam reads a --param value.
func parseParam(s string) (any, error) {
	typ, val, ok := strings.Cut(s, ":")
	if !ok {
		return s, nil
	}
	switch typ {
	case "int":
		v, err := strconv.ParseInt(val, 10, 32)
		return int32(v), err
	case "long":
		return strconv.ParseInt(val, 10, 64)
	case "double":
		return strconv.ParseFloat(val, 64)
	case "bool":
		return strconv.ParseBool(val)
	case "string":
		return val, nil
	}
	return s, nil
}

// run executes one statement and prints its result.
func (f *sqlFlags) run(ctx context.Context, c *client.Client, stmt string, out io.Writer) error {
	var params []any
	for _, p := range f.params {
		v, err := parseParam(p)
		if err != nil {
			return fmt.Errorf("--param %q: %w", p, err)
		}
		params = append(params, v)
	}
	if f.explain {
		text, err := c.ExplainSQL(ctx, stmt, params...)
		if err != nil {
			return &exitError{code: 1, message: "atoll: " + errMessage(err)}
		}
		_, err = fmt.Fprintln(out, text)
		return err
	}
	if f.pageSize > 0 {
		params = append(params, client.WithPageSize(f.pageSize))
	}
	rows, err := c.SQL(ctx, stmt, params...)
	if err != nil {
		return &exitError{code: 1, message: "atoll: " + errMessage(err)}
	}
	defer rows.Close()
	if len(rows.Columns()) == 0 && f.format == "table" && isDDL(stmt) {
		_, err := fmt.Fprintln(out, "OK")
		return err
	}
	if err := printRows(rows, f.format, out); err != nil {
		return &exitError{code: 1, message: "atoll: " + errMessage(err)}
	}
	return nil
}

// isDDL reports statements that change metadata, not rows.
func isDDL(stmt string) bool {
	w := strings.ToUpper(strings.Fields(stmt + " x")[0])
	return w == "CREATE" || w == "DROP"
}

func errMessage(err error) string {
	var me *client.QueryMemoryError
	if errors.As(err, &me) {
		return strings.TrimPrefix(me.Error(), "atoll: ")
	}
	var e *client.Error
	if errors.As(err, &e) {
		return e.Message
	}
	return err.Error()
}

// cell renders a value for table and CSV output ("" for NULL in CSV).
func cell(v any, null string) string {
	switch x := v.(type) {
	case nil:
		return null
	case time.Time:
		if x.Hour() == 0 && x.Minute() == 0 && x.Second() == 0 && x.Nanosecond() == 0 {
			return x.Format("2006-01-02")
		}
		return x.Format("2006-01-02T15:04:05.999999Z07:00")
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	case float32:
		return strconv.FormatFloat(float64(x), 'g', -1, 32)
	case bool:
		return strconv.FormatBool(x)
	case int8, int16, int32, int64:
		return fmt.Sprint(x)
	}
	return format(v)
}

func printRows(rows *client.Rows, format string, out io.Writer) error {
	cols := rows.Columns()
	if len(cols) == 0 {
		if format == "table" {
			n := rows.UpdateCount()
			_, err := fmt.Fprintf(out, "OK, %d row%s changed\n", n, plural(n))
			return err
		}
		return rows.Err()
	}
	names := make([]string, len(cols))
	for i, c := range cols {
		names[i] = c.Name
	}
	switch format {
	case "csv":
		w := csv.NewWriter(out)
		if err := w.Write(names); err != nil {
			return err
		}
		rec := make([]string, len(cols))
		for rows.Next() {
			vals, err := rows.Values()
			if err != nil {
				return err
			}
			for i, v := range vals {
				rec[i] = cell(v, "")
			}
			if err := w.Write(rec); err != nil {
				return err
			}
		}
		w.Flush()
		if err := w.Error(); err != nil {
			return err
		}
		return rows.Err()
	case "json":
		enc := json.NewEncoder(out)
		for rows.Next() {
			vals, err := rows.Values()
			if err != nil {
				return err
			}
			obj := make(map[string]any, len(vals))
			for i, v := range vals {
				switch v.(type) {
				case nil, bool, int8, int16, int32, int64, float32, float64, string:
					obj[names[i]] = v
				default:
					obj[names[i]] = cell(v, "")
				}
			}
			if err := enc.Encode(obj); err != nil {
				return err
			}
		}
		return rows.Err()
	}
	var table [][]string
	widths := make([]int, len(cols))
	for i, n := range names {
		widths[i] = utf8.RuneCountInString(n)
	}
	for rows.Next() {
		vals, err := rows.Values()
		if err != nil {
			return err
		}
		line := make([]string, len(vals))
		for i, v := range vals {
			line[i] = cell(v, "NULL")
			widths[i] = max(widths[i], utf8.RuneCountInString(line[i]))
		}
		table = append(table, line)
	}
	if err := rows.Err(); err != nil {
		return err
	}
	sep := "+"
	for _, w := range widths {
		sep += strings.Repeat("-", w+2) + "+"
	}
	var b strings.Builder
	row := func(cells []string) {
		b.WriteString("|")
		for i, s := range cells {
			b.WriteString(" " + s + strings.Repeat(" ", widths[i]-utf8.RuneCountInString(s)) + " |")
		}
		b.WriteString("\n")
	}
	b.WriteString(sep + "\n")
	row(names)
	b.WriteString(sep + "\n")
	for _, l := range table {
		row(l)
	}
	b.WriteString(sep + "\n")
	fmt.Fprintf(&b, "(%d row%s)\n", len(table), plural(int64(len(table))))
	_, err := io.WriteString(out, b.String())
	return err
}

func plural(n int64) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// statementEnd reports whether text holds a complete statement: a ';'
// outside quotes and comments.
func statementEnd(text string) (string, bool) {
	var quote byte
	for i := 0; i < len(text); i++ {
		c := text[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '\'' || c == '"' || c == '`':
			quote = c
		case c == '-' && i+1 < len(text) && text[i+1] == '-':
			for i < len(text) && text[i] != '\n' {
				i++
			}
		case c == ';':
			return strings.TrimSpace(text[:i]), true
		}
	}
	return "", false
}

// shell runs the interactive shell: line editing and history on a
// terminal, plain line reading otherwise (scripts piped in).
func (f *sqlFlags) shell(cmd *cobra.Command, c *client.Client) error {
	in, out := cmd.InOrStdin(), cmd.OutOrStdout()
	var readLine func(prompt string) (string, error)
	var history []string
	if fh, err := os.ReadFile(f.history); err == nil {
		for _, l := range strings.Split(string(fh), "\x00") {
			if l = strings.TrimSpace(l); l != "" {
				history = append(history, l)
			}
		}
	}
	saveHistory := func(stmt string) {
		history = append(history, stmt)
		if fh, err := os.OpenFile(f.history, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600); err == nil {
			_, _ = fh.WriteString(stmt + "\x00")
			_ = fh.Close()
		}
	}
	if file, ok := in.(*os.File); ok && term.IsTerminal(int(file.Fd())) {
		state, err := term.MakeRaw(int(file.Fd()))
		if err != nil {
			return err
		}
		defer func() { _ = term.Restore(int(file.Fd()), state) }()
		t := term.NewTerminal(struct {
			io.Reader
			io.Writer
		}{file, out}, "")
		for _, h := range history {
			t.History.Add(h)
		}
		out = t
		readLine = func(prompt string) (string, error) {
			t.SetPrompt(prompt)
			return t.ReadLine()
		}
	} else {
		sc := bufio.NewScanner(in)
		sc.Buffer(make([]byte, 64<<10), 16<<20)
		readLine = func(string) (string, error) {
			if sc.Scan() {
				return sc.Text(), nil
			}
			if err := sc.Err(); err != nil {
				return "", err
			}
			return "", io.EOF
		}
	}
	fmt.Fprintln(out, "Atoll SQL shell. End statements with ';'. \\history lists past statements, \\q quits.")
	var buf strings.Builder
	failed := false
	for {
		prompt := "atoll> "
		if buf.Len() > 0 {
			prompt = "    -> "
		}
		line, err := readLine(prompt)
		if err == io.EOF {
			if failed {
				return &exitError{code: 1}
			}
			return nil
		}
		if err != nil {
			return err
		}
		trimmed := strings.TrimSpace(line)
		if buf.Len() == 0 {
			switch trimmed {
			case "":
				continue
			case `\q`, "exit", "quit", "exit;", "quit;":
				return nil
			case `\history`:
				for i, h := range history {
					fmt.Fprintf(out, "%4d  %s\n", i+1, h)
				}
				continue
			}
		}
		buf.WriteString(line + "\n")
		stmt, done := statementEnd(buf.String())
		if !done {
			continue
		}
		buf.Reset()
		if stmt == "" {
			continue
		}
		saveHistory(stmt)
		ctx, cancel := context.WithTimeout(cmd.Context(), f.timeout)
		err = f.run(ctx, c, stmt, out)
		cancel()
		if err != nil {
			failed = true
			var ee *exitError
			if errors.As(err, &ee) {
				fmt.Fprintln(cmd.ErrOrStderr(), ee.message)
			} else {
				fmt.Fprintln(cmd.ErrOrStderr(), "atoll:", err)
			}
		}
	}
}
