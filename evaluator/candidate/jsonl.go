package candidate

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// maxLine bounds one JSONL line: four times the candidate limit leaves room
// for JSON's escapes; a longer line could only hold a candidate that would
// be refused anyway.
func (lim limit) maxLine() int { return int(4 * lim) }

// jsonCandidate is one line of a JSONL candidates file. Fields it does not
// know are ignored, so that generators may add their own.
type jsonCandidate struct {
	Name        *string                    `json:"name"`
	Patch       *string                    `json:"patch"`
	Files       map[string]json.RawMessage `json:"files"` // a string, or null to delete the path
	Parent      *string                    `json:"parent"`
	Explanation *string                    `json:"explanation"`
}

// ParseJSONL reads candidates from a JSONL stream, one JSON object a line:
//
//	{"name": "fast", "patch": "diff --git a/x.go b/x.go\n..."}
//	{"name": "rewrite", "files": {"x.go": "package x\n...", "old.go": null}, "parent": "fast", "explanation": "..."}
//
// "name" and exactly one of "patch" and "files" are required; "parent" and
// "explanation" are optional strings; other fields are ignored. In "files" a
// null content deletes that path. Blank lines are skipped, and a UTF-8 byte
// order mark and CRLF line ends are tolerated. file names the stream in
// Source ("file:LINE") and in errors.
//
// A malformed line stops the parse with a *SyntaxError ("file:LINE: ..."):
// it is the file's writer who must fix it. A well-formed line with a bad
// path, an empty change, a non-diff or binary patch, or more than MaxBytes
// gives a candidate with Invalid set. Names are not checked for duplicates
// here: see CheckNames.
func ParseJSONL(r io.Reader, file string) ([]Candidate, error) {
	return limit(MaxBytes).parseJSONL(r, file)
}

func (lim limit) parseJSONL(r io.Reader, file string) ([]Candidate, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	var out []Candidate
	for n := 1; ; n++ {
		line, err := lim.readLine(br)
		if errors.Is(err, errLineTooLong) {
			return nil, &SyntaxError{File: file, Line: n, Msg: fmt.Sprintf("line is over %d MB; one candidate may hold at most %d MB", lim.maxLine()>>20, lim>>20)}
		}
		if err != nil && err != io.EOF {
			return nil, fmt.Errorf("read %s: %w", file, err)
		}
		if n == 1 {
			line = bytes.TrimPrefix(line, []byte("\xef\xbb\xbf"))
		}
		if len(bytes.TrimSpace(line)) > 0 {
			c, msg := lim.parseLine(line, fmt.Sprintf("%s:%d", file, n))
			if msg != "" {
				return nil, &SyntaxError{File: file, Line: n, Msg: msg}
			}
			out = append(out, c)
		}
		if err == io.EOF {
			return out, nil
		}
	}
}

var errLineTooLong = errors.New("line too long")

// readLine returns the next line without its "\n" or "\r\n", and io.EOF
// with the last line.
func (lim limit) readLine(br *bufio.Reader) ([]byte, error) {
	var line []byte
	for {
		chunk, err := br.ReadSlice('\n')
		if len(line)+len(chunk) > lim.maxLine() {
			return nil, errLineTooLong
		}
		line = append(line, chunk...)
		switch err {
		case bufio.ErrBufferFull:
			continue
		case nil:
			line = bytes.TrimSuffix(line[:len(line)-1], []byte("\r"))
			return line, nil
		default:
			return bytes.TrimSuffix(line, []byte("\r")), err
		}
	}
}

// parseLine turns one line into a candidate, or says what is wrong with it.
func (lim limit) parseLine(line []byte, source string) (Candidate, string) {
	var j jsonCandidate
	if err := json.Unmarshal(line, &j); err != nil {
		return Candidate{}, jsonMessage(err)
	}
	switch {
	case j.Name == nil:
		return Candidate{}, `missing "name"`
	case *j.Name == "":
		return Candidate{}, `"name" is empty`
	}
	name := *j.Name
	switch {
	case j.Patch != nil && j.Files != nil:
		return Candidate{}, fmt.Sprintf(`candidate %q has both "patch" and "files"; give one`, name)
	case j.Patch == nil && j.Files == nil:
		return Candidate{}, fmt.Sprintf(`candidate %q has neither "patch" nor "files"`, name)
	}
	c := Candidate{Name: name, Source: source, Parent: deref(j.Parent), Explanation: deref(j.Explanation)}
	if j.Patch != nil {
		c.Patch = []byte(*j.Patch)
	} else {
		c.Files = map[string][]byte{}
		for _, p := range sortedKeys(j.Files) {
			var content *string
			if err := json.Unmarshal(j.Files[p], &content); err != nil {
				return Candidate{}, fmt.Sprintf(`"files" entry %q is %s, want a string (or null to delete the file)`, p, jsonKind(j.Files[p]))
			}
			if content != nil {
				c.Files[p] = []byte(*content)
			} else {
				c.Deleted = append(c.Deleted, p)
			}
		}
	}
	c.Invalid = invalid(source, lim.check(c))
	if errors.Is(c.Invalid, ErrTooLarge) {
		c.Patch, c.Files, c.Deleted = nil, nil, nil
	}
	return c, ""
}

// check is Validate plus the emptiness a loaded candidate may not have.
func (lim limit) check(c Candidate) error {
	if len(c.Patch) == 0 && len(c.Files) == 0 && len(c.Deleted) == 0 {
		return fmt.Errorf("%w: it changes no file", ErrEmpty)
	}
	return lim.validate(c)
}

// invalid prefixes a candidate-level problem with the candidate's source.
func invalid(source string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%s: %w", source, err)
}

// jsonMessage says what encoding/json found wrong, in the file's terms.
func jsonMessage(err error) string {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		return fmt.Sprintf("invalid JSON at column %d: %s", syn.Offset, syn.Error())
	case errors.As(err, &typ) && typ.Field == "":
		return fmt.Sprintf("want a JSON object, got %s", article(typ.Value))
	case errors.As(err, &typ):
		return fmt.Sprintf("%q is %s, want %s", typ.Field, article(typ.Value), kindOf(typ.Type.Kind().String()))
	}
	return "invalid JSON: " + err.Error()
}

func article(v string) string {
	switch v {
	case "array", "object":
		return "an " + v
	case "":
		return "a value of the wrong type"
	}
	return "a " + v
}

func kindOf(k string) string {
	switch k {
	case "map", "struct":
		return "an object"
	case "ptr", "pointer":
		return "a string"
	}
	return "a " + k
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// jsonKind names the kind of a JSON value by its first byte.
func jsonKind(v json.RawMessage) string {
	if len(v) == 0 {
		return "a value of the wrong type"
	}
	switch v[0] {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case 't', 'f':
		return "a bool"
	}
	return "a number"
}
