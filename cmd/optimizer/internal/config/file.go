package config

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"
	"github.com/spf13/pflag"
)

// File is the name of the configuration file at the repo root.
const File = "optimizer.toml"

// Keys of optimizer.toml that are not flags, or that name a path relative
// to the file.
var (
	refused = map[string]string{
		"repo":    "optimizer.toml is found through --repo",
		"verbose": "it is a flag only",
		"help":    "it is a flag only",
	}
	paths = map[string]bool{"candidates": true, "db": true}
)

// Merge reads the optimizer.toml at path, if there is one, and sets every
// flag of flags it names that was not given on the command line. Keys are
// the long flag names; a repeatable flag takes an array. Relative paths are
// relative to the file. A missing file is no error; an unreadable one, an
// unknown key or a bad value is, and the first bad key in sorted order is
// the one named.
func Merge(flags *pflag.FlagSet, path string) error {
	var raw map[string]any
	if _, err := toml.DecodeFile(path, &raw); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil
		}
		return fmt.Errorf("read %s: %w", path, err)
	}
	keys := make([]string, 0, len(raw))
	for k := range raw {
		keys = append(keys, k)
	}
	slices.Sort(keys) // the first bad key is always the same one
	for _, key := range keys {
		if why, ok := refused[key]; ok {
			return fmt.Errorf("%s: key %q is not allowed: %s", path, key, why)
		}
		f := flags.Lookup(key)
		if f == nil {
			if near := ClosestFlag(flags, key); near != "" {
				return fmt.Errorf("%s: unknown key %q: did you mean %q? (keys are the long flag names of optimizer run)", path, key, near)
			}
			return fmt.Errorf("%s: unknown key %q (keys are the long flag names of optimizer run)", path, key)
		}
		if f.Changed {
			continue // the command line wins
		}
		if err := set(flags, f, path, raw[key]); err != nil {
			return err
		}
	}
	return nil
}

// set gives flag f the TOML value v of the file at path.
func set(flags *pflag.FlagSet, f *pflag.Flag, path string, v any) error {
	values, err := flagValues(v)
	if err != nil {
		return fmt.Errorf("%s: key %q: %w", path, f.Name, err)
	}
	if len(values) > 1 && !strings.HasSuffix(f.Value.Type(), "Array") {
		return fmt.Errorf("%s: key %q takes one value, not an array", path, f.Name)
	}
	for _, s := range values {
		if paths[f.Name] && s != "" && !filepath.IsAbs(s) {
			s = filepath.Join(filepath.Dir(path), s)
		}
		if err := flags.Set(f.Name, s); err != nil {
			return fmt.Errorf("%s: key %q: %w", path, f.Name, err)
		}
	}
	return nil
}

// flagValues turns a TOML value into the strings a flag's Set parses.
func flagValues(v any) ([]string, error) {
	switch v := v.(type) {
	case string:
		return []string{v}, nil
	case bool:
		return []string{strconv.FormatBool(v)}, nil
	case int64:
		return []string{strconv.FormatInt(v, 10)}, nil
	case float64:
		return []string{strconv.FormatFloat(v, 'g', -1, 64)}, nil
	case []any:
		var out []string
		for _, e := range v {
			s, err := flagValues(e)
			if err != nil {
				return nil, err
			}
			if len(s) != 1 {
				return nil, fmt.Errorf("arrays of arrays are not allowed")
			}
			out = append(out, s[0])
		}
		return out, nil
	default:
		return nil, fmt.Errorf("unsupported value %v (%T)", v, v)
	}
}
