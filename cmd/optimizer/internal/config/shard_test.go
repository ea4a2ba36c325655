package config

import (
	"strings"
	"testing"

	"github.com/optimizer-dev/optimizer/shard"
)

// TestShard_Resolve: --shard K/N, --shard auto from a Kubernetes index and
// --shards or $OPTIMIZER_SHARDS, and what is refused.
func TestShard_Resolve(t *testing.T) {
	for _, tt := range []struct {
		name    string
		f       Shard
		db      string
		env     map[string]string
		want    shard.Spec
		wantErr string
	}{
		{name: "Whole", want: shard.Spec{}},
		{name: "KofN", f: Shard{Spec: "2/3"}, db: "s.db", want: shard.Spec{K: 2, N: 3}},
		{name: "AutoCount", f: Shard{Spec: "auto", Count: 4}, db: "s.db", env: map[string]string{EnvShardIndex: "0"}, want: shard.Spec{K: 1, N: 4}},
		{name: "AutoEnv", f: Shard{Spec: "auto"}, db: "s.db", env: map[string]string{EnvShardIndex: "2", EnvShardCount: "3"}, want: shard.Spec{K: 3, N: 3}},
		{name: "ShardsAlone", f: Shard{Count: 2}, wantErr: "--shards goes with --shard auto"},
		{name: "Bad", f: Shard{Spec: "3/2"}, db: "s.db", wantErr: "--shard: "},
		{name: "NoDB", f: Shard{Spec: "1/2"}, wantErr: "--shard 1/2 needs --db FILE"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv(EnvShardIndex, tt.env[EnvShardIndex])
			t.Setenv(EnvShardCount, tt.env[EnvShardCount])
			got, err := tt.f.Resolve(tt.db)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Resolve = %v, %v; want an error saying %q", got, err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("Resolve = %v, %v; want %v", got, err, tt.want)
			}
		})
	}
}
