package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/netip"
	"os"
	"strings"

	"github.com/bankrail/bankrail/internal/config"
)

// newFlagSet returns a flag set whose help is help followed by its flags.
// It prints nothing while parsing: exitCode prints the help (after -h, on
// standard output) or the error.
func newFlagSet(name, help string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {
		out := fs.Output()
		fmt.Fprint(out, help)
		fmt.Fprintln(out, "\nFlags (each also BANKRAIL_<NAME>, e.g. --data-dir is BANKRAIL_DATA_DIR):")
		fs.PrintDefaults()
	}
	return fs
}

// storageFlags binds the flags every command that opens the database needs.
func storageFlags(fs *flag.FlagSet, c *config.Config) {
	fs.StringVar(&c.DataDir, "data-dir", c.DataDir, "directory of the SQLite database")
	fs.StringVar(&c.DatabaseURL, "database-url", c.DatabaseURL, "PostgreSQL URL (postgres://user:pass@host:5432/db); empty uses SQLite in --data-dir")
	fs.Var(modeFlag{c}, "mode", "sandbox (mock banks, virtual clock, demo merchant) or production. The first serve records it in the database, "+
		"which then refuses the other mode (bankrail migrate --convert-to changes it); the administration commands take the database's mode when --mode is not given")
	fs.StringVar(&c.LogLevel, "log-level", c.LogLevel, "debug, info, warn or error")
	fs.StringVar(&c.LogFormat, "log-format", c.LogFormat, "text or json")
}

// modeFlag is --mode: setting it (flag or environment) marks the mode as
// given, which the administration commands compare with the database's.
type modeFlag struct{ c *config.Config }

// String is the mode.
func (m modeFlag) String() string {
	if m.c == nil {
		return ""
	}
	return string(m.c.Mode)
}

// Set sets the mode and marks it given.
func (m modeFlag) Set(s string) error {
	m.c.Mode, m.c.ModeGiven = config.Mode(s), true
	return nil
}

// parse parses args, then fills every flag not given on the command line from
// its BANKRAIL_<NAME> environment variable. It returns errHelp after -h.
func parse(fs *flag.FlagSet, args []string) error { return parseWithFiles(fs, args, false) }

// parseWithFiles is parse that, with files true, leaves the arguments after
// the flags to the command (fs.Args: the files it reads).
func parseWithFiles(fs *flag.FlagSet, args []string, files bool) error {
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 && !files {
		return fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	return fillFromEnv(fs)
}

// parseWithArgs is parse for a command that takes arguments (files): flags
// may come before, between and after them; it returns the arguments.
func parseWithArgs(fs *flag.FlagSet, args []string) ([]string, error) {
	var rest []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		if fs.NArg() == 0 {
			break
		}
		rest = append(rest, fs.Arg(0))
		args = fs.Args()[1:]
	}
	return rest, fillFromEnv(fs)
}

// fillFromEnv sets every flag of fs not given on the command line from its
// BANKRAIL_<NAME> environment variable.
func fillFromEnv(fs *flag.FlagSet) error {
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	var problems []error
	fs.VisitAll(func(f *flag.Flag) {
		env := "BANKRAIL_" + strings.ToUpper(strings.ReplaceAll(f.Name, "-", "_"))
		if v, ok := os.LookupEnv(env); ok && !set[f.Name] {
			if err := fs.Set(f.Name, v); err != nil {
				problems = append(problems, fmt.Errorf("%s=%q: %w", env, v, err))
			}
		}
	})
	return errors.Join(problems...)
}

// exitCode turns a parse error of fs into an exit code: after -h or --help
// the help goes to stdout (0); another error goes to stderr (2).
func exitCode(fs *flag.FlagSet, err error, stdout, stderr io.Writer) int {
	if errors.Is(err, flag.ErrHelp) {
		fs.SetOutput(stdout)
		fs.Usage()
		return 0
	}
	fmt.Fprintf(stderr, "bankrail: %v\nRun 'bankrail %s --help' for its flags.\n", err, fs.Name())
	return 2
}

// newLogger builds the process logger on stderr.
func newLogger(c config.Config, stderr io.Writer) *slog.Logger {
	var level slog.Level
	_ = level.UnmarshalText([]byte(c.LogLevel))
	opts := &slog.HandlerOptions{Level: level}
	if c.LogFormat == "json" {
		return slog.New(slog.NewJSONHandler(stderr, opts))
	}
	return slog.New(slog.NewTextHandler(stderr, opts))
}

// parsePrefixes reads a comma-separated list of networks (CIDR; a bare
// address is its own /32 or /128) into to.
func parsePrefixes(s string, to *[]netip.Prefix) error {
	var out []netip.Prefix
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		p, err := netip.ParsePrefix(f)
		if err != nil {
			a, aerr := netip.ParseAddr(f)
			if aerr != nil {
				return fmt.Errorf("%q is not a network such as 10.0.0.0/8: %w", f, err)
			}
			p = netip.PrefixFrom(a, a.BitLen())
		}
		out = append(out, p.Masked())
	}
	*to = out
	return nil
}
