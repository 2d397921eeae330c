package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/bankrail/bankrail/client"
)

// profile is what `bankrail login` stores so that the merchant developer's
// commands (trigger, notifications tail) need no flags: where the instance
// is and how to sign in to it.
type profile struct {
	URL          string `json:"url"`
	ClientID     string `json:"clientId"`
	ClientSecret string `json:"clientSecret"`
	Username     string `json:"username"`
	Password     string `json:"password"`
	// NotificationSecret signs what `notifications tail --forward-to`
	// re-delivers; optional.
	NotificationSecret string `json:"notificationSecret,omitempty"`
}

// profiles is the profile file: named profiles and the one in use.
type profiles struct {
	Current  string             `json:"current"`
	Profiles map[string]profile `json:"profiles"`
}

// defaultProfile is the name of the profile login writes without --profile.
const defaultProfile = "default"

// defaultProfilesPath is bankrail/profiles.json in the user's configuration
// directory ($XDG_CONFIG_HOME or ~/.config on Linux, ~/Library/Application
// Support on macOS, %AppData% on Windows).
func defaultProfilesPath() string {
	dir, err := os.UserConfigDir()
	if err != nil {
		return filepath.Join(".bankrail", "profiles.json")
	}
	return filepath.Join(dir, "bankrail", "profiles.json")
}

// loadProfiles reads the profile file; a missing file is no profiles.
func loadProfiles(path string) (profiles, error) {
	f := profiles{Profiles: map[string]profile{}}
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return f, nil
	}
	if err != nil {
		return f, err
	}
	if err := json.Unmarshal(b, &f); err != nil {
		return f, fmt.Errorf("%s is not a bankrail profile file: %w", path, err)
	}
	if f.Profiles == nil {
		f.Profiles = map[string]profile{}
	}
	return f, nil
}

// saveProfiles writes the profile file readable by its owner only (0600, in
// a directory of mode 0700 when it creates it): it holds passwords. The file
// is replaced whole (written beside it, then renamed).
func saveProfiles(path string, f profiles) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	b, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".profiles-*.json")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(0o600); err != nil {
		_ = tmp.Close() // the write's error is the one to report
		return err
	}
	if _, err := tmp.Write(append(b, '\n')); err != nil {
		_ = tmp.Close() // the write's error is the one to report
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// connection is the flags of the commands that call a running instance:
// a profile, and flags that override its parts.
type connection struct {
	config, profile                              string
	url, clientID, clientSecret, username, passw string
	fallback                                     *profile // used when no profile is stored (nil: none)
}

// bind adds the connection flags to fs.
func (c *connection) bind(fs *flag.FlagSet) {
	fs.StringVar(&c.config, "config", defaultProfilesPath(), "the profile file that 'bankrail login' writes")
	fs.StringVar(&c.profile, "profile", "", "the profile to use (default: the last one 'bankrail login' stored)")
	fs.StringVar(&c.url, "url", "", "the instance's address, e.g. http://127.0.0.1:8080 (overrides the profile)")
	fs.StringVar(&c.clientID, "client-id", "", "the application's client id (overrides the profile)")
	fs.StringVar(&c.clientSecret, "client-secret", "", "the application's client secret (overrides the profile)")
	fs.StringVar(&c.username, "username", "", "the user to sign in as (overrides the profile)")
	fs.StringVar(&c.passw, "password", "", "the user's password (overrides the profile)")
}

// resolve is the profile with the flags given on top of it.
func (c *connection) resolve() (profile, error) {
	f, err := loadProfiles(c.config)
	if err != nil {
		return profile{}, err
	}
	name := c.profile
	if name == "" {
		name = f.Current
	}
	p, found := f.Profiles[name]
	if c.profile != "" && !found {
		//lint:ignore ST1005 the message ends with a command line, whose "..." stands for its other flags
		return profile{}, fmt.Errorf("no profile %q in %s; store it with: bankrail login --profile %s ...", c.profile, c.config, c.profile)
	}
	if !found && c.fallback != nil {
		p = *c.fallback
	}
	for dst, v := range map[*string]string{&p.URL: c.url, &p.ClientID: c.clientID, &p.ClientSecret: c.clientSecret,
		&p.Username: c.username, &p.Password: c.passw} {
		if v != "" {
			*dst = v
		}
	}
	var missing []string
	for _, m := range []struct{ flag, v string }{{"--url", p.URL}, {"--client-id", p.ClientID}, {"--client-secret", p.ClientSecret},
		{"--username", p.Username}, {"--password", p.Password}} {
		if m.v == "" {
			missing = append(missing, m.flag)
		}
	}
	if len(missing) > 0 {
		return p, fmt.Errorf("not signed in: run `bankrail login` first, or pass %s", strings.Join(missing, ", "))
	}
	return p, nil
}

// profileClient is an SDK client of p.
func profileClient(p profile) (*client.Client, error) {
	return client.New(p.URL, client.WithCredentials(client.Credentials{ClientID: p.ClientID, ClientSecret: p.ClientSecret,
		Username: p.Username, Password: p.Password}))
}

// parseArgs parses args whose flags may come before and after the
// positional arguments (`bankrail trigger COMPLETED --json`), fills the
// flags from the environment as parse does, and returns the positional
// arguments.
func parseArgs(fs *flag.FlagSet, args []string) ([]string, error) {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		if fs.NArg() == 0 {
			break
		}
		positional = append(positional, fs.Arg(0))
		args = fs.Args()[1:]
	}
	return positional, parse(fs, nil)
}
