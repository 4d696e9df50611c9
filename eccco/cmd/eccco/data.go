package main

import (
	"context"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/eccco-go/eccco-go/eccco/data"
)

func runData(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return fmt.Errorf("data: want a subcommand: 'data list' or 'data fetch NAME|all'")
	}
	switch args[0] {
	case "list":
		return runDataList(args[1:], stdout, stderr)
	case "fetch":
		return runDataFetch(ctx, args[1:], stdout, stderr)
	}
	return fmt.Errorf("data: unknown subcommand %q (want list or fetch)", args[0])
}

func runDataList(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("data list", "data list (the data directory is $ECCCO_DATA_DIR, default data/cache in the repository)", stderr)
	if err := fs.Parse(args); err != nil {
		return err
	}
	dir := data.DefaultDir()
	fmt.Fprintf(stdout, "data directory: %s\n\n", dir)
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tKIND\tPRESENT\tLICENCE\tSOURCE")
	for _, name := range data.Names() {
		info, err := data.Lookup(name)
		if err != nil {
			return err
		}
		present := "no"
		if ok, err := data.Present(name, dir); err != nil {
			present = "error: " + err.Error()
		} else if ok {
			present = "yes"
		}
		if info.Kind == "synthetic" {
			present = "yes (generated)"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", name, info.Kind, present, info.Licence, info.Source)
	}
	return tw.Flush()
}

func runDataFetch(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("data fetch", "data fetch NAME|all [--from MIRROR] (into $ECCCO_DATA_DIR, default data/cache in the repository)", stderr)
	from := fs.String("from", "", "local directory holding the upstream files (e.g. a shared mirror) to copy from instead of downloading")
	names, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(names) != 1 {
		return fmt.Errorf("data fetch: want one data-set name or 'all', got %d arguments", len(names))
	}
	targets := []string{names[0]}
	if names[0] == "all" {
		targets = data.Names()
	}
	var failed []string
	for _, name := range targets {
		err := data.Fetch(ctx, name, data.FetchOptions{From: *from, Log: stderr})
		if err != nil {
			if len(targets) == 1 {
				return err
			}
			fmt.Fprintf(stderr, "%s: %v\n", name, err)
			failed = append(failed, name)
			continue
		}
		fmt.Fprintf(stdout, "%s: ready\n", name)
	}
	if len(failed) > 0 {
		return fmt.Errorf("data fetch: %d of %d data sets could not be fetched: %v (see the messages above)", len(failed), len(targets), failed)
	}
	return nil
}

// parseInterleaved parses flags that may come before or after positional arguments.
func parseInterleaved(fs interface {
	Parse([]string) error
	Args() []string
}, args []string) ([]string, error) {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return positional, nil
		}
		positional = append(positional, rest[0])
		args = rest[1:]
	}
}
