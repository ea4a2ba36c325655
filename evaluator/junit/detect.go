package junit

import (
	"path"
	"strings"
)

// Detect returns the report paths that a test command line writes JUnit XML
// to, as its flags and the runner's conventions say. They are relative to
// the directory the command runs in. It is nil when the line writes none
// that is known. It splits the line on spaces, as a shell would for plain
// arguments. A path with spaces or quotes is not detected; --test-report
// names it.
//
// Known:
//   - pytest --junitxml F;
//   - node --test-reporter=junit with --test-reporter-destination F;
//   - vitest --reporter=junit with --outputFile F;
//   - jest with jest-junit (JEST_JUNIT_OUTPUT_FILE, JEST_JUNIT_OUTPUT_DIR,
//     else junit.xml);
//   - ctest --output-junit F (under --test-dir);
//   - cargo nextest (target/nextest/PROFILE/junit.xml, when the profile
//     turns junit on);
//   - mvn (Surefire's target/surefire-reports/TEST-*.xml) and gradle
//     (build/test-results/test/TEST-*.xml), also one module deep.
func Detect(cmd string) []string {
	args := strings.Fields(cmd)
	var out []string
	add := func(p string) {
		p = strings.Trim(p, `"'`)
		if p != "" {
			out = append(out, p)
		}
	}
	has := func(name string) bool {
		for _, a := range args {
			if path.Base(a) == name {
				return true
			}
		}
		return false
	}
	if f, ok := value(args, "--junitxml", "--junit-xml"); ok {
		add(f)
	}
	if reporterIndex(args, "--test-reporter", "junit") >= 0 {
		i := reporterIndex(args, "--test-reporter", "junit")
		if dests := values(args, "--test-reporter-destination"); i < len(dests) {
			add(dests[i])
		}
	}
	if reporterIndex(args, "--reporter", "junit") >= 0 || reporterIndex(args, "--reporters", "junit") >= 0 {
		if f, ok := value(args, "--outputFile.junit", "--outputFile"); ok {
			add(f)
		}
	}
	if has("jest") || strings.Contains(cmd, "jest-junit") || strings.Contains(cmd, "JEST_JUNIT_") {
		if f, ok := envValue(args, "JEST_JUNIT_OUTPUT_FILE"); ok {
			add(f)
		} else if strings.Contains(cmd, "jest-junit") {
			dir, _ := envValue(args, "JEST_JUNIT_OUTPUT_DIR")
			name, ok := envValue(args, "JEST_JUNIT_OUTPUT_NAME")
			if !ok {
				name = "junit.xml"
			}
			add(path.Join(dir, name))
		}
	}
	if f, ok := value(args, "--output-junit"); ok {
		if dir, ok := value(args, "--test-dir"); ok && !path.IsAbs(f) {
			f = path.Join(dir, f)
		}
		add(f)
	}
	if has("cargo") && has("nextest") {
		profile, ok := value(args, "--profile", "-P")
		if !ok {
			profile = "default"
		}
		add("target/nextest/" + profile + "/junit.xml")
	}
	if has("mvn") || has("mvnw") {
		add("target/surefire-reports/TEST-*.xml")
		add("*/target/surefire-reports/TEST-*.xml")
	}
	if has("gradle") || has("gradlew") {
		add("build/test-results/test/TEST-*.xml")
		add("*/build/test-results/test/TEST-*.xml")
	}
	return out
}

// value returns the value of the first of names given as "--name=V" or
// "--name V".
func value(args []string, names ...string) (string, bool) {
	for _, n := range names {
		if vs := values(args, n); len(vs) > 0 {
			return vs[0], true
		}
	}
	return "", false
}

// values returns every value of flag name, in order.
func values(args []string, name string) []string {
	var out []string
	for i, a := range args {
		switch {
		case strings.HasPrefix(a, name+"="):
			out = append(out, a[len(name)+1:])
		case a == name && i+1 < len(args):
			out = append(out, args[i+1])
		}
	}
	return out
}

// reporterIndex is the position of want among the values of a repeatable
// reporter flag, or -1.
func reporterIndex(args []string, flag, want string) int {
	for i, v := range values(args, flag) {
		if v == want {
			return i
		}
	}
	return -1
}

// envValue returns the value of an environment assignment NAME=V on the
// command line.
func envValue(args []string, name string) (string, bool) {
	for _, a := range args {
		if v, ok := strings.CutPrefix(a, name+"="); ok {
			return v, true
		}
	}
	return "", false
}
