package mcp

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"

	"github.com/optimizer-dev/optimizer/gitcmd"
)

// maxArchive bounds the tree of base that the targets and benchmarks
// tools export: 1 GiB.
const maxArchive = 1 << 30

// baseOf finds the repository at dir and resolves rev ("" is HEAD) in it.
func baseOf(ctx context.Context, dir, rev string) (gitcmd.Repo, string, error) {
	r, err := gitcmd.FindRepo(ctx, dir)
	if err != nil {
		return r, "", err
	}
	if rev == "" {
		rev = "HEAD"
	}
	if strings.HasPrefix(rev, "-") {
		return r, "", fmt.Errorf("base %q is no revision", rev)
	}
	base, err := r.Resolve(ctx, rev)
	if err != nil {
		return r, "", err
	}
	return r, base, nil
}

// exportBase writes base's tree into a new temporary directory with git
// archive, which reads the repository and writes nothing to it. Symbolic
// links are left out, so nothing is written outside the directory. The
// caller removes the directory.
func exportBase(ctx context.Context, r gitcmd.Repo, base string) (string, error) {
	out, err := gitcmd.Run(ctx, gitcmd.Cmd{Dir: r.Root, Args: []string{"archive", "--format=tar", base}, ReadOnly: true})
	if err != nil {
		return "", fmt.Errorf("export base %s: %w", base[:12], err)
	}
	dir, err := os.MkdirTemp("", "optimizer-mcp-base-")
	if err != nil {
		return "", err
	}
	if err := untar(bytes.NewReader(out), dir); err != nil {
		os.RemoveAll(dir)
		return "", fmt.Errorf("export base %s: %w", base[:12], err)
	}
	return dir, nil
}

// untar writes tr's directories and regular files under dir.
func untar(rd io.Reader, dir string) error {
	tr := tar.NewReader(rd)
	var total int64
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		name := path.Clean(h.Name)
		if !filepath.IsLocal(filepath.FromSlash(name)) {
			return fmt.Errorf("archive entry %q leaves the tree", h.Name)
		}
		full := filepath.Join(dir, filepath.FromSlash(name))
		switch h.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(full, 0o755); err != nil {
				return err
			}
		case tar.TypeReg:
			if total += h.Size; total > maxArchive {
				return fmt.Errorf("the tree is larger than %d bytes", maxArchive)
			}
			if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
				return err
			}
			f, err := os.OpenFile(full, os.O_WRONLY|os.O_CREATE|os.O_EXCL, os.FileMode(h.Mode)&0o755|0o600)
			if err != nil {
				return err
			}
			_, err = io.Copy(f, tr)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				return err
			}
		}
	}
}

// cache keeps one value per key, computed once by the first caller while
// the others wait. A failed computation is forgotten, so a later call
// tries again.
type cache[V any] struct {
	mu sync.Mutex
	m  map[string]*cacheEntry[V]
}

type cacheEntry[V any] struct {
	done chan struct{}
	v    V
	err  error
}

func (c *cache[V]) get(ctx context.Context, key string, compute func() (V, error)) (V, error) {
	c.mu.Lock()
	if c.m == nil {
		c.m = map[string]*cacheEntry[V]{}
	}
	e, ok := c.m[key]
	if !ok {
		e = &cacheEntry[V]{done: make(chan struct{})}
		c.m[key] = e
		c.mu.Unlock()
		e.v, e.err = compute()
		if e.err != nil {
			c.mu.Lock()
			delete(c.m, key)
			c.mu.Unlock()
		}
		close(e.done)
		return e.v, e.err
	}
	c.mu.Unlock()
	select {
	case <-e.done:
		return e.v, e.err
	case <-ctx.Done():
		var zero V
		return zero, ctx.Err()
	}
}
