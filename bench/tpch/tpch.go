// Package tpch brings TPC-H's customer and orders tables into Atoll and
// runs Query 13 on them: the data comes from tpchgen-cli (PyPI
// tpchgen-cli, a generator binary inside the wheel, offline) as CSV, the
// loader puts each row into a map as a Compact value keyed by its primary
// key, and DuckDB answers the same query on the same CSV files, as the
// reference for the result and for the time.
package tpch

import (
	"context"
	_ "embed"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/atolldb/atoll/pkg/client"
	"github.com/atolldb/atoll/pkg/serialization"
)

// Customer is a customer row's value (c_custkey is the key).
type Customer struct {
	Name       string  `compact:"c_name"`
	Address    string  `compact:"c_address"`
	NationKey  int64   `compact:"c_nationkey"`
	Phone      string  `compact:"c_phone"`
	AcctBal    float64 `compact:"c_acctbal"`
	MktSegment string  `compact:"c_mktsegment"`
	Comment    string  `compact:"c_comment"`
}

// CompactTypeName names the Compact type.
func (Customer) CompactTypeName() string { return "tpch.customer" }

// Order is an orders row's value (o_orderkey is the key).
type Order struct {
	CustKey       int64                   `compact:"o_custkey"`
	OrderStatus   string                  `compact:"o_orderstatus"`
	TotalPrice    float64                 `compact:"o_totalprice"`
	OrderDate     serialization.LocalDate `compact:"o_orderdate"`
	OrderPriority string                  `compact:"o_orderpriority"`
	Clerk         string                  `compact:"o_clerk"`
	ShipPriority  int32                   `compact:"o_shippriority"`
	Comment       string                  `compact:"o_comment"`
}

// CompactTypeName names the Compact type.
func (Order) CompactTypeName() string { return "tpch.orders" }

// Mappings are the SQL mappings of both maps (decimals are DOUBLE).
var Mappings = []string{
	`CREATE OR REPLACE MAPPING customer (c_custkey BIGINT EXTERNAL NAME "__key", c_name VARCHAR, c_address VARCHAR,
		c_nationkey BIGINT, c_phone VARCHAR, c_acctbal DOUBLE, c_mktsegment VARCHAR, c_comment VARCHAR)
		TYPE IMap OPTIONS ('keyFormat'='bigint', 'valueFormat'='compact', 'valueCompactTypeName'='tpch.customer')`,
	`CREATE OR REPLACE MAPPING orders (o_orderkey BIGINT EXTERNAL NAME "__key", o_custkey BIGINT, o_orderstatus VARCHAR,
		o_totalprice DOUBLE, o_orderdate DATE, o_orderpriority VARCHAR, o_clerk VARCHAR, o_shippriority INT, o_comment VARCHAR)
		TYPE IMap OPTIONS ('keyFormat'='bigint', 'valueFormat'='compact', 'valueCompactTypeName'='tpch.orders')`,
}

// Q13 is TPC-H Query 13 with its default substitution parameters
// (WORD1 = special, WORD2 = requests).
const Q13 = `SELECT c_count, COUNT(*) AS custdist
FROM (
  SELECT c_custkey, COUNT(o_orderkey)
  FROM customer LEFT OUTER JOIN orders ON c_custkey = o_custkey AND o_comment NOT LIKE '%special%requests%'
  GROUP BY c_custkey
) AS c_orders (c_custkey, c_count)
GROUP BY c_count
ORDER BY custdist DESC, c_count DESC`

// ErrNoGenerator reports that tpchgen-cli is not installed.
var ErrNoGenerator = errors.New("tpch: tpchgen-cli not found (scripts/install-deps.sh installs PyPI tpchgen-cli 4.0.0)")

// generator finds the tpchgen-cli binary: on PATH, or in the user scheme's
// bin directory where pip --user puts it.
func generator() (string, error) {
	if p, err := exec.LookPath("tpchgen-cli"); err == nil {
		return p, nil
	}
	out, err := exec.Command("python3", "-m", "site", "--user-base").Output()
	if err == nil {
		p := filepath.Join(strings.TrimSpace(string(out)), "bin", "tpchgen-cli")
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
	}
	return "", ErrNoGenerator
}

// Dir is where the CSV files of a scale factor go under root.
func Dir(root string, sf float64) string {
	return filepath.Join(root, "sf"+strconv.FormatFloat(sf, 'f', -1, 64))
}

// Generate writes customer.csv and orders.csv of scale factor sf into dir,
// unless they are there already.
func Generate(ctx context.Context, dir string, sf float64) error {
	if fileExists(filepath.Join(dir, "customer.csv")) && fileExists(filepath.Join(dir, "orders.csv")) {
		return nil
	}
	bin, err := generator()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	cmd := exec.CommandContext(ctx, bin, "csv", "-s", strconv.FormatFloat(sf, 'f', -1, 64), "--tables", "customer,orders", "-o", dir, "--overwrite")
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("tpchgen-cli: %v: %s", err, out)
	}
	return nil
}

func fileExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Size() > 0
}

// Progress is told how many rows of a table are loaded, of how many (-1
// while the file is still being read).
type Progress func(table string, done, total int64)

// Load puts the CSV files of dir into the maps customer and orders (in
// putAll batches on parallel goroutines) and creates the mappings. It
// returns the rows loaded per table.
func Load(ctx context.Context, c *client.Client, dir string, threads int, progress Progress) (map[string]int64, error) {
	counts := map[string]int64{}
	customers := client.GetMap[int64, *Customer](c, "customer")
	n, err := loadTable(ctx, filepath.Join(dir, "customer.csv"), "customer", threads, progress, func(ctx context.Context, recs [][]string) error {
		batch := make([]client.Entry[int64, *Customer], 0, len(recs))
		for _, r := range recs {
			key, v, err := customerOf(r)
			if err != nil {
				return err
			}
			batch = append(batch, client.Entry[int64, *Customer]{Key: key, Value: v})
		}
		return customers.PutAll(ctx, batch)
	})
	if err != nil {
		return nil, err
	}
	counts["customer"] = n
	orders := client.GetMap[int64, *Order](c, "orders")
	n, err = loadTable(ctx, filepath.Join(dir, "orders.csv"), "orders", threads, progress, func(ctx context.Context, recs [][]string) error {
		batch := make([]client.Entry[int64, *Order], 0, len(recs))
		for _, r := range recs {
			key, v, err := orderOf(r)
			if err != nil {
				return err
			}
			batch = append(batch, client.Entry[int64, *Order]{Key: key, Value: v})
		}
		return orders.PutAll(ctx, batch)
	})
	if err != nil {
		return nil, err
	}
	counts["orders"] = n
	for _, ddl := range Mappings {
		rows, err := c.SQL(ctx, ddl)
		if err != nil {
			return nil, fmt.Errorf("creating the mappings: %w", err)
		}
		rows.Close()
	}
	for table, want := range counts {
		rows, err := c.SQL(ctx, "SELECT COUNT(*) FROM "+table)
		if err != nil {
			return nil, err
		}
		var got int64
		for rows.Next() {
			if err := rows.Scan(&got); err != nil {
				rows.Close()
				return nil, err
			}
		}
		rows.Close()
		if got != want {
			return nil, fmt.Errorf("tpch: %s holds %d rows after loading %d", table, got, want)
		}
	}
	return counts, nil
}

// batchRows is the rows of one putAll.
const batchRows = 1000

// loadTable reads a CSV file (with a header) and hands batches of records
// to put on threads goroutines.
func loadTable(ctx context.Context, path, table string, threads int, progress Progress, put func(context.Context, [][]string) error) (int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	r := csv.NewReader(f)
	r.ReuseRecord = false
	if _, err := r.Read(); err != nil {
		return 0, fmt.Errorf("%s: %w", path, err)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	batches := make(chan [][]string, threads)
	var wg sync.WaitGroup
	var firstErr error
	var errOnce sync.Once
	var done atomic.Int64
	for i := 0; i < max(threads, 1); i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for b := range batches {
				if err := put(ctx, b); err != nil {
					errOnce.Do(func() { firstErr = fmt.Errorf("loading %s: %w", table, err); cancel() })
					continue
				}
				d := done.Add(int64(len(b)))
				if progress != nil {
					progress(table, d, -1)
				}
			}
		}()
	}
	var rows int64
	batch := make([][]string, 0, batchRows)
	var readErr error
	for {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			readErr = fmt.Errorf("%s: %w", path, err)
			break
		}
		batch = append(batch, rec)
		rows++
		if len(batch) == batchRows {
			select {
			case batches <- batch:
			case <-ctx.Done():
			}
			batch = make([][]string, 0, batchRows)
		}
		if ctx.Err() != nil {
			break
		}
	}
	if len(batch) > 0 && ctx.Err() == nil {
		batches <- batch
	}
	close(batches)
	wg.Wait()
	if readErr != nil {
		return 0, readErr
	}
	if firstErr != nil {
		return 0, firstErr
	}
	if progress != nil {
		progress(table, rows, rows)
	}
	return rows, ctx.Err()
}

func customerOf(r []string) (int64, *Customer, error) {
	if len(r) != 8 {
		return 0, nil, fmt.Errorf("a customer row has %d fields, want 8", len(r))
	}
	key, err := strconv.ParseInt(r[0], 10, 64)
	if err != nil {
		return 0, nil, fmt.Errorf("c_custkey %q: %w", r[0], err)
	}
	nation, err := strconv.ParseInt(r[3], 10, 64)
	if err != nil {
		return 0, nil, fmt.Errorf("c_nationkey %q: %w", r[3], err)
	}
	bal, err := strconv.ParseFloat(r[5], 64)
	if err != nil {
		return 0, nil, fmt.Errorf("c_acctbal %q: %w", r[5], err)
	}
	return key, &Customer{Name: r[1], Address: r[2], NationKey: nation, Phone: r[4], AcctBal: bal, MktSegment: r[6], Comment: r[7]}, nil
}

func orderOf(r []string) (int64, *Order, error) {
	if len(r) != 9 {
		return 0, nil, fmt.Errorf("an orders row has %d fields, want 9", len(r))
	}
	key, err := strconv.ParseInt(r[0], 10, 64)
	if err != nil {
		return 0, nil, fmt.Errorf("o_orderkey %q: %w", r[0], err)
	}
	cust, err := strconv.ParseInt(r[1], 10, 64)
	if err != nil {
		return 0, nil, fmt.Errorf("o_custkey %q: %w", r[1], err)
	}
	price, err := strconv.ParseFloat(r[3], 64)
	if err != nil {
		return 0, nil, fmt.Errorf("o_totalprice %q: %w", r[3], err)
	}
	var y, m, d int
	if _, err := fmt.Sscanf(r[4], "%d-%d-%d", &y, &m, &d); err != nil {
		return 0, nil, fmt.Errorf("o_orderdate %q: %w", r[4], err)
	}
	ship, err := strconv.ParseInt(r[7], 10, 32)
	if err != nil {
		return 0, nil, fmt.Errorf("o_shippriority %q: %w", r[7], err)
	}
	return key, &Order{CustKey: cust, OrderStatus: r[2], TotalPrice: price,
		OrderDate:     serialization.LocalDate{Year: int32(y), Month: int8(m), Day: int8(d)},
		OrderPriority: r[5], Clerk: r[6], ShipPriority: int32(ship), Comment: r[8]}, nil
}

//go:embed duckdb_q13.py
var duckdbScript []byte

// Reference is DuckDB's answer to Q13 on the same CSV files and its times.
type Reference struct {
	Rows [][2]int64 `json:"rows"` // c_count, custdist
	// Millis are the times of the timed runs; Threads is DuckDB's thread
	// count.
	Millis  []float64 `json:"millis"`
	Threads int       `json:"threads"`
	Version string    `json:"version"`
}

// DuckDB runs Q13 in DuckDB over dir's CSV files: once to warm up, then
// runs timed times on threads threads (0: DuckDB's default).
func DuckDB(ctx context.Context, dir string, runs, threads int) (*Reference, error) {
	f, err := os.CreateTemp("", "atoll-duckdb-q13-*.py")
	if err != nil {
		return nil, err
	}
	defer os.Remove(f.Name())
	if _, err := f.Write(duckdbScript); err != nil {
		f.Close()
		return nil, err
	}
	f.Close()
	cmd := exec.CommandContext(ctx, "python3", f.Name(), dir, strconv.Itoa(runs), strconv.Itoa(threads))
	cmd.Stdin = strings.NewReader(Q13)
	out, err := cmd.Output()
	if err != nil {
		var stderr []byte
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = ee.Stderr
		}
		return nil, fmt.Errorf("duckdb (python3 with PyPI duckdb, scripts/install-deps.sh): %v: %s", err, stderr)
	}
	var ref Reference
	if err := json.Unmarshal(out, &ref); err != nil {
		return nil, fmt.Errorf("duckdb answer: %w", err)
	}
	return &ref, nil
}

// Q13Rows runs Q13 through a client and returns its rows.
func Q13Rows(ctx context.Context, c *client.Client, query string) ([][2]int64, error) {
	rows, err := c.SQL(ctx, query)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out [][2]int64
	for rows.Next() {
		var count, dist int64
		if err := rows.Scan(&count, &dist); err != nil {
			return nil, err
		}
		out = append(out, [2]int64{count, dist})
	}
	return out, rows.Err()
}

// Diff describes how two Q13 results differ ("" when they are equal).
func Diff(got, want [][2]int64) string {
	if len(got) != len(want) {
		return fmt.Sprintf("%d rows, want %d", len(got), len(want))
	}
	for i := range got {
		if got[i] != want[i] {
			return fmt.Sprintf("row %d is %v, want %v", i+1, got[i], want[i])
		}
	}
	return ""
}
