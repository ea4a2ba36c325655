package main

import (
	"github.com/spf13/pflag"

	"github.com/optimizer-dev/optimizer/client"
	"github.com/optimizer-dev/optimizer/cmd/optimizer/internal/config"
)

// runOptions are the flags of optimizer run (and of the root command), which
// optimizer.toml sets too: config.Run, with the command's own methods.
type runOptions struct{ config.Run }

// defaultRunOptions are the values before flags and optimizer.toml.
func defaultRunOptions() runOptions { return runOptions{config.Defaults()} }

// register defines the run flags on fs, bound to o.
func (o *runOptions) register(fs *pflag.FlagSet) { o.Register(fs) }

// registerDaemon adds the flags of the commands that may go through a daemon.
func (o *runOptions) registerDaemon(fs *pflag.FlagSet) {
	fs.StringVar(&o.Socket, "socket", o.Socket, "the daemon's socket (default $OPTIMIZER_SOCKET, else "+client.DefaultSocket()+")")
	fs.BoolVar(&o.NoDaemon, "no-daemon", o.NoDaemon, "run in this process even when a daemon answers on the socket")
}

// validate checks values that flags and optimizer.toml cannot check by
// type (config.Run.Validate); a bad one is a usage error.
func (o *runOptions) validate() error {
	if err := o.Validate(); err != nil {
		return &usageError{err}
	}
	return nil
}
