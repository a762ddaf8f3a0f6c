package serialization

import (
	"github.com/atolldb/atoll/internal/serialization/core"
	"github.com/atolldb/atoll/internal/serialization/json"
)

// JSONPath is a compiled path into a JSON document: member names and array
// indexes, optionally with [*] (or Hazelcast's [any]) wildcards. It accepts
// the SQL/JSON form used by JSON_VALUE ("$.a.b", "$['a b']") and the
// attribute form of Hazelcast predicates ("a.b[0]", "arr[any].x").
// A JSONPath is immutable and safe for concurrent use.
type JSONPath = json.Path

// JSONKind is the type of a JSON value.
type JSONKind = json.Kind

// JSON value kinds. JSONMissing means the path selected nothing.
const (
	JSONMissing = json.Missing
	JSONNull    = json.Null
	JSONBool    = json.Bool
	JSONNumber  = json.Number
	JSONString  = json.String
	JSONObject  = json.Object
	JSONArray   = json.Array
)

// JSONValue is a value found in a document: its kind and its raw bytes,
// which alias the document.
type JSONValue = json.Value

// ParseJSONPath compiles a path. "$" alone (or "") selects the whole document.
func ParseJSONPath(expr string) (*JSONPath, error) { return json.ParsePath(expr) }

// readJSON reads the reader's path in a JSON document (a JSON Data, or a
// String Data read as one). A malformed document reads as nothing.
func (r *FieldReader) readJSON(d core.Data, out *core.Sink) error {
	doc, ok, err := d.Text()
	if err != nil || !ok {
		return nil
	}
	return json.Read(doc, r.json, out)
}
