package gotest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestParse_GoTest(t *testing.T) {
	stream := goTestJSON(t, "variety", variety, false)
	run, err := parse(bytes.NewReader(stream))
	if err != nil {
		t.Fatal(err)
	}
	const m = "example.com/m/"
	for key, want := range map[string]Status{
		m + "ok.TestA":           StatusPass,
		m + "ok.TestSkip":        StatusSkip,
		m + "fail.TestGood":      StatusPass,
		m + "fail.TestBad":       StatusFail,
		m + "sub.TestT":          StatusFail,
		m + "sub.TestT/good":     StatusPass,
		m + "sub.TestT/bad_case": StatusFail,
		m + "panicky.TestOK":     StatusPass,
		m + "panicky.TestPanic":  StatusFail,
		m + "panicky.TestAfter":  "", // never ran
		m + "panicky":            "", // explained by TestPanic
		m + "fail":               "", // explained by TestBad
		m + "mainpanic":          StatusFail,
		m + "mainpanic.TestX":    "",
		m + "broken":             StatusFail,
		m + "setup":              StatusFail,
		m + "chatty.TestChatty":  StatusFail,
		m + "notests":            "",
	} {
		if got := run.Tests[key]; got != want {
			t.Errorf("Tests[%s] = %q, want %q", key, got, want)
		}
	}
	for pkg, want := range map[string]Status{
		m + "ok": StatusPass, m + "fail": StatusFail, m + "notests": StatusSkip,
		m + "broken": StatusFail, m + "mainpanic": StatusFail,
	} {
		if got := run.Packages[pkg]; got != want {
			t.Errorf("Packages[%s] = %q, want %q", pkg, got, want)
		}
	}
	if want := []string{m + "broken", m + "setup"}; !slices.Equal(run.BuildFailed, want) {
		t.Errorf("BuildFailed = %v, want %v", run.BuildFailed, want)
	}
	for key, wants := range map[string][]string{
		m + "fail.TestBad":       {"fail_test.go:4: got 1 want 2", "--- FAIL: TestBad"},
		m + "sub.TestT/bad_case": {"sub_test.go:5: boom"},
		m + "sub.TestT":          {"--- FAIL: TestT", "sub_test.go:5: boom"},
		m + "panicky.TestPanic":  {"panic: assignment to entry in nil map", "p_test.go:4"},
		m + "mainpanic":          {"panic: setup broke", "m_test.go:3"},
		m + "broken":             {"b.go:3:23: cannot use \"x\"", "# example.com/m/broken"},
		m + "setup":              {"example.com/m/nonexistent"},
		m + "chatty.TestChatty":  {"c_test.go:7: first error", "c_test.go:11: last error", "lines cut"},
	} {
		got, ok := run.Output[key]
		for _, w := range wants {
			if !strings.Contains(got, w) {
				t.Errorf("Output[%s] lacks %q (present %v):\n%s", key, w, ok, got)
			}
		}
		if strings.Contains(got, "=== RUN") {
			t.Errorf("Output[%s] keeps framing lines:\n%s", key, got)
		}
		if len(got) > MaxExcerpt+200 {
			t.Errorf("Output[%s] holds %d bytes, want at most about %d", key, len(got), MaxExcerpt)
		}
	}
	for key, st := range run.Tests {
		if _, ok := run.Output[key]; ok != (st == StatusFail) {
			t.Errorf("Tests[%s] = %s but Output present %v", key, st, ok)
		}
	}
	assertCounts(t, run)
	if t.Failed() {
		t.Log(dump(run))
	}
}

// The same stream written in pieces of any size gives the same Run.
func TestParser_Chunks(t *testing.T) {
	stream := goTestJSON(t, "variety", variety, false)
	want, err := parse(bytes.NewReader(stream))
	if err != nil {
		t.Fatal(err)
	}
	for _, size := range []int{1, 7, 1000, 1 << 20} {
		p := NewParser()
		for b := stream; len(b) > 0; {
			n := min(size, len(b))
			if k, err := p.Write(b[:n]); k != n || err != nil {
				t.Fatalf("Write = %d, %v", k, err)
			}
			b = b[n:]
		}
		if got := p.Result(); !reflect.DeepEqual(got, want) {
			t.Errorf("pieces of %d: got\n%s\nwant\n%s", size, dump(got), dump(want))
		}
	}
}

// Before Go 1.24, and with GODEBUG=gotestjsonbuildtext=1, build output is
// text on stderr; merged into the stream, it is still attributed.
func TestParse_BuildText(t *testing.T) {
	stream := goTestJSON(t, "variety-text", variety, true, "GODEBUG=gotestjsonbuildtext=1")
	if bytes.Contains(stream, []byte(`"build-output"`)) {
		t.Skip("this go ignores gotestjsonbuildtext")
	}
	run, err := parse(bytes.NewReader(stream))
	if err != nil {
		t.Fatal(err)
	}
	const m = "example.com/m/"
	if want := []string{m + "broken", m + "setup"}; !slices.Equal(run.BuildFailed, want) {
		t.Errorf("BuildFailed = %v, want %v", run.BuildFailed, want)
	}
	if got := run.Output[m+"broken"]; !strings.Contains(got, "b.go:3:23: cannot use") {
		t.Errorf("Output[broken] lacks the compile error:\n%s", got)
	}
	if run.Tests[m+"ok.TestA"] != StatusPass || run.Tests[m+"fail.TestBad"] != StatusFail {
		t.Errorf("tests around the text were lost:\n%s", dump(run))
	}
}

func TestParse_Synthetic(t *testing.T) {
	for _, tt := range []struct {
		name        string
		stream      string
		tests       map[string]Status
		buildFailed []string
		output      map[string]string // key: substring
		text        string
	}{
		{
			name:   "Empty",
			stream: "",
			tests:  map[string]Status{},
		},
		{
			name: "TextBuildFailureOnly",
			stream: "# example.com/x\n./x.go:1:1: syntax error\n" +
				"FAIL\texample.com/x [build failed]\n",
			tests:       map[string]Status{"example.com/x": StatusFail},
			buildFailed: []string{"example.com/x"},
			output:      map[string]string{"example.com/x": "./x.go:1:1: syntax error"},
		},
		{
			name: "SetupFailedText",
			stream: "FAIL\tp [setup failed]\n" +
				`{"Action":"start","Package":"p"}` + "\n" +
				`{"Action":"fail","Package":"p"}` + "\n",
			tests:       map[string]Status{"p": StatusFail},
			buildFailed: []string{"p"},
		},
		{
			name: "CutMidTest",
			stream: `{"Action":"start","Package":"p"}` + "\n" +
				`{"Action":"run","Package":"p","Test":"TestDone"}` + "\n" +
				`{"Action":"pass","Package":"p","Test":"TestDone"}` + "\n" +
				`{"Action":"run","Package":"p","Test":"TestHang"}` + "\n" +
				`{"Action":"output","Package":"p","Test":"TestHang","Output":"x_test.go:9: waiting\n"}` + "\n" +
				`{"Action":"output","Package":"p","Test":"TestHang","Out`,
			tests:  map[string]Status{"p.TestDone": StatusPass, "p.TestHang": StatusFail},
			output: map[string]string{"p.TestHang": "x_test.go:9: waiting\n(TestHang did not finish)"},
			text:   `{"Action":"output","Package":"p","Test":"TestHang","Out`,
		},
		{
			name: "PackageCutWithoutTests",
			stream: `{"Action":"start","Package":"p"}` + "\n" +
				`{"Action":"output","Package":"p","Output":"starting\n"}` + "\n",
			tests:  map[string]Status{"p": StatusFail},
			output: map[string]string{"p": "starting\n(the package did not finish)"},
		},
		{
			name: "ExitAfterPassingTests",
			stream: `{"Action":"run","Package":"p","Test":"TestA"}` + "\n" +
				`{"Action":"pass","Package":"p","Test":"TestA"}` + "\n" +
				`{"Action":"output","Package":"p","Output":"FAIL\tp\t0.01s\n"}` + "\n" +
				`{"Action":"fail","Package":"p"}` + "\n",
			tests:  map[string]Status{"p.TestA": StatusPass, "p": StatusFail},
			output: map[string]string{"p": "FAIL\tp"},
		},
		{
			name: "CountFailureSticks",
			stream: `{"Action":"run","Package":"p","Test":"TestFlaky"}` + "\n" +
				`{"Action":"output","Package":"p","Test":"TestFlaky","Output":"f_test.go:3: once\n"}` + "\n" +
				`{"Action":"fail","Package":"p","Test":"TestFlaky"}` + "\n" +
				`{"Action":"run","Package":"p","Test":"TestFlaky"}` + "\n" +
				`{"Action":"pass","Package":"p","Test":"TestFlaky"}` + "\n" +
				`{"Action":"fail","Package":"p"}` + "\n",
			tests:  map[string]Status{"p.TestFlaky": StatusFail},
			output: map[string]string{"p.TestFlaky": "f_test.go:3: once"},
		},
		{
			name: "SharedFailedBuild",
			stream: `{"ImportPath":"q/dep","Action":"build-output","Output":"# q/dep\n"}` + "\n" +
				`{"ImportPath":"q/dep","Action":"build-output","Output":"dep.go:2:1: undefined: x\n"}` + "\n" +
				`{"ImportPath":"q/dep","Action":"build-fail"}` + "\n" +
				`{"Action":"start","Package":"q/a"}` + "\n" +
				`{"Action":"fail","Package":"q/a","FailedBuild":"q/dep"}` + "\n" +
				`{"Action":"start","Package":"q/b"}` + "\n" +
				`{"Action":"fail","Package":"q/b","FailedBuild":"q/dep"}` + "\n",
			tests:       map[string]Status{"q/a": StatusFail, "q/b": StatusFail},
			buildFailed: []string{"q/a", "q/b"},
			output:      map[string]string{"q/a": "dep.go:2:1: undefined: x", "q/b": "dep.go:2:1: undefined: x"},
		},
		{
			name: "CRLFAndUnknownActions",
			stream: `{"Action":"run","Package":"p","Test":"TestA"}` + "\r\n" +
				`{"Action":"attr","Package":"p","Test":"TestA","Key":"k","Value":"v"}` + "\r\n" +
				`{"Action":"pause","Package":"p","Test":"TestA"}` + "\r\n" +
				`{"Action":"cont","Package":"p","Test":"TestA"}` + "\r\n" +
				`{"Action":"bench","Package":"p","Test":"BenchmarkX","Output":"BenchmarkX 1 2 ns/op\n"}` + "\r\n" +
				`{"Action":"pass","Package":"p","Test":"TestA"}` + "\r\n" +
				`{"Action":"pass","Package":"p"}`,
			tests: map[string]Status{"p.TestA": StatusPass},
		},
		{
			name: "NotJSON",
			stream: "{not json}\n" + `{"Test":"NoAction"}` + "\nhello\n" +
				`{"Action":"run","Test":"TestBare"}` + "\n" +
				`{"Action":"fail","Test":"TestBare"}` + "\n",
			tests: map[string]Status{"TestBare": StatusFail},
			text:  "{not json}\n{\"Test\":\"NoAction\"}\nhello",
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			run, err := parse(strings.NewReader(tt.stream))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(run.Tests, tt.tests) {
				t.Errorf("Tests = %v, want %v", run.Tests, tt.tests)
			}
			if !slices.Equal(run.BuildFailed, tt.buildFailed) {
				t.Errorf("BuildFailed = %v, want %v", run.BuildFailed, tt.buildFailed)
			}
			for key, want := range tt.output {
				if !strings.Contains(run.Output[key], want) {
					t.Errorf("Output[%s] = %q, want it to hold %q", key, run.Output[key], want)
				}
			}
			if run.Text != tt.text {
				t.Errorf("Text = %q, want %q", run.Text, tt.text)
			}
			assertCounts(t, run)
		})
	}
}

func TestParser_LongLines(t *testing.T) {
	p := NewParser()
	huge := bytes.Repeat([]byte("y"), 10*MaxLine)
	p.Write([]byte(`{"Action":"run","Package":"p","Test":"TestA"}` + "\n"))
	for range 10 {
		p.Write(huge) // one line of 100 MaxLines, in pieces
	}
	p.Write([]byte("\n" + `{"Action":"output","Package":"p","Test":"TestA","Output":"` + strings.Repeat("z", 3*MaxLine) + `\n"}` + "\n"))
	p.Write([]byte(`{"Action":"output","Package":"p","Test":"TestA","Output":"a_test.go:1: bad\n"}` + "\n"))
	p.Write([]byte(`{"Action":"fail","Package":"p","Test":"TestA"}` + "\n"))
	if c := cap(p.line); c > MaxLine*2 {
		t.Errorf("the line buffer holds %d bytes", c)
	}
	run := p.Result()
	if run.Tests["p.TestA"] != StatusFail || !strings.Contains(run.Output["p.TestA"], "a_test.go:1: bad") {
		t.Errorf("got %v, output:\n%s", run.Tests, run.Output["p.TestA"])
	}
	if len(run.Output["p.TestA"]) > MaxExcerpt {
		t.Errorf("excerpt holds %d bytes", len(run.Output["p.TestA"]))
	}
}

func TestParser_Result(t *testing.T) {
	p := NewParser()
	p.Write([]byte(`{"Action":"run","Package":"p","Test":"TestA"}` + "\n"))
	r1 := p.Result()
	if _, err := p.Write([]byte("more\n")); err != ErrClosed {
		t.Errorf("Write after Result = %v, want ErrClosed", err)
	}
	if r2 := p.Result(); r2 != r1 {
		t.Error("a second Result returned another Run")
	}
}

func TestRun_JSON(t *testing.T) {
	stream := goTestJSON(t, "variety", variety, false)
	run, err := parse(bytes.NewReader(stream))
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(run)
	if err != nil {
		t.Fatal(err)
	}
	var back Run
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(&back, run) {
		t.Errorf("JSON round trip changed the Run:\n%s\nwant\n%s", dump(&back), dump(run))
	}
}

func assertCounts(t *testing.T, r *Run) {
	t.Helper()
	if r.Passed+r.Failed+r.Skipped != len(r.Tests) {
		t.Errorf("counts %d+%d+%d != %d tests", r.Passed, r.Failed, r.Skipped, len(r.Tests))
	}
	for _, p := range r.BuildFailed {
		if r.Tests[p] != StatusFail {
			t.Errorf("build-failed %s has Tests status %q", p, r.Tests[p])
		}
	}
}

// TestParser_Running: the tests running as the stream so far says, each
// since the parser read its start or its resumption. A paused parallel test
// is not running. A test that passed has its elapsed time in the Run.
func TestParser_Running(t *testing.T) {
	t0 := time.Date(2025, 1, 1, 12, 0, 0, 0, time.UTC)
	now := t0
	p := NewParser()
	p.now = func() time.Time { return now }
	write := func(s float64, lines ...string) {
		now = t0.Add(time.Duration(s * float64(time.Second)))
		for _, l := range lines {
			p.Write([]byte(l + "\n"))
		}
	}
	write(0, `{"Action":"start","Package":"p"}`, `{"Action":"run","Package":"p","Test":"TestA"}`)
	write(1, `{"Action":"run","Package":"p","Test":"TestA/sub"}`, `{"Action":"run","Package":"p","Test":"TestB"}`,
		`{"Action":"pause","Package":"p","Test":"TestB"}`)
	write(2, `{"Action":"pass","Package":"p","Test":"TestA/sub","Elapsed":1.5}`)
	write(3, `{"Action":"cont","Package":"p","Test":"TestB"}`)
	want := []Running{{Key: "p.TestA", Since: t0, Subtests: true}, {Key: "p.TestB", Since: t0.Add(3 * time.Second)}}
	if got := p.Running(); !reflect.DeepEqual(got, want) {
		t.Errorf("Running = %v, want %v", got, want)
	}
	write(4, `{"Action":"pass","Package":"p","Test":"TestA","Elapsed":2}`, `{"Action":"fail","Package":"p","Test":"TestB","Elapsed":1}`,
		`{"Action":"fail","Package":"p","Elapsed":4}`)
	if got := p.Running(); len(got) != 0 {
		t.Errorf("after the package ended, Running = %v, want none", got)
	}
	if got, want := p.Result().Elapsed, map[string]float64{"p.TestA": 2, "p.TestA/sub": 1.5}; !reflect.DeepEqual(got, want) {
		t.Errorf("Elapsed = %v, want %v", got, want)
	}
}

// parse reads a whole go test -json stream. The error is only the reader's.
func parse(r io.Reader) (*Run, error) {
	p := NewParser()
	if _, err := io.Copy(p, r); err != nil {
		return p.Result(), fmt.Errorf("read test2json stream: %w", err)
	}
	return p.Result(), nil
}
