package main

import (
	"context"
	"time"

	"github.com/spf13/cobra"

	"github.com/optimizer-dev/optimizer/cmd/optimizer/internal/config"
)

// completeTimeout bounds reading the store for a completion.
const completeTimeout = 2 * time.Second

// completeJobs completes a JOB argument with the ids of the latest jobs,
// newest first, from the store of the repository --repo names. Each one's
// kind, state and winner are its description. It never creates a store.
func completeJobs(cmd *cobra.Command, args []string, _ string) ([]string, cobra.ShellCompDirective) {
	if len(args) > 0 {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	var o storeOptions
	o.Repo, _ = cmd.Flags().GetString("repo")
	o.DB, _ = cmd.Flags().GetString("db")
	ctx, cancel := context.WithTimeout(context.Background(), completeTimeout)
	defer cancel()
	db, _, err := o.open(ctx)
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	defer db.Close()
	jobs, err := db.Jobs(ctx, 50)
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	out := make([]string, 0, len(jobs))
	for _, j := range jobs {
		desc := j.Kind + ", " + j.State
		if j.Winner != "" {
			desc += ", winner " + j.Winner
		}
		out = append(out, j.ID+"\t"+desc)
	}
	return out, cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveKeepOrder
}

// completeValues completes a flag with a fixed set of values.
func completeValues(values ...string) func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
	return func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return values, cobra.ShellCompDirectiveNoFileComp
	}
}

// addCompletions registers completions for the flags and arguments of every
// command under c that has them.
func addCompletions(c *cobra.Command) {
	if c.Flags().Lookup("format") != nil {
		formats := []string{config.FormatText, config.FormatJSON, config.FormatMarkdown}
		if c.Name() == "watch" {
			formats = []string{config.FormatText, config.FormatJSON}
		}
		c.RegisterFlagCompletionFunc("format", completeValues(formats...))
	}
	if c.Flags().Lookup("metric") != nil {
		c.RegisterFlagCompletionFunc("metric", completeValues("wall", "cpu", "rss", "allocs", "bytes"))
	}
	switch c.Name() {
	case "show", "report", "apply":
		c.ValidArgsFunction = completeJobs
	}
	for _, sub := range c.Commands() {
		addCompletions(sub)
	}
}
