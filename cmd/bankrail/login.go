package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/bankrail/bankrail/api"
	"github.com/bankrail/bankrail/internal/seed"
)

const loginHelp = `Usage: bankrail login [--url URL] --client-id ID --client-secret SECRET --username USER
                      [--password P | --password-stdin] [--notification-secret S] [--profile NAME]
       bankrail login --demo [--url URL]

Signs in to a running bankrail (POST /oauth) to check the credentials, then stores them as a
profile that 'bankrail trigger' and 'bankrail notifications tail' use without flags. The profile
file (--config) is readable by you only (mode 0600): it holds the password and secrets.
--demo takes the sandbox demo merchant's public credentials, as 'bankrail serve' prints them.
The profile stored last is the one used by default; choose another with --profile.
`

// login serves `bankrail login`.
func login(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	var p profile
	var config, name string
	var fromStdin, demo, asJSON bool
	fs := newFlagSet("login", loginHelp)
	fs.StringVar(&p.URL, "url", "http://127.0.0.1:8080", "the instance's address")
	fs.StringVar(&p.ClientID, "client-id", "", "the application's client id")
	fs.StringVar(&p.ClientSecret, "client-secret", "", "the application's client secret")
	fs.StringVar(&p.Username, "username", "", "the user to sign in as")
	fs.StringVar(&p.Password, "password", "", "the user's password (prefer --password-stdin)")
	fs.BoolVar(&fromStdin, "password-stdin", false, "read the password from the first line of standard input")
	fs.StringVar(&p.NotificationSecret, "notification-secret", "", "the application's notification secret, to sign what 'notifications tail --forward-to' re-delivers")
	fs.StringVar(&name, "profile", defaultProfile, "the name to store the profile under")
	fs.StringVar(&config, "config", defaultProfilesPath(), "the profile file")
	fs.BoolVar(&demo, "demo", false, "use the sandbox demo merchant's credentials")
	fs.BoolVar(&asJSON, "json", false, "print the result as JSON")
	if err := parse(fs, args); err != nil {
		return exitCode(fs, err, stdout, stderr)
	}
	if demo {
		p.ClientID, p.ClientSecret, p.Username, p.Password = seed.DemoClientID, seed.DemoClientSecret, seed.DemoUsername, seed.DemoPassword
		if p.NotificationSecret == "" {
			p.NotificationSecret = seed.DemoNotificationSecret
		}
	}
	if fromStdin {
		line, err := bufio.NewReader(os.Stdin).ReadString('\n')
		if err != nil && line == "" {
			fmt.Fprintf(stderr, "bankrail: read the password from standard input: %v\n", err)
			return 1
		}
		p.Password = strings.TrimRight(line, "\r\n")
	}
	var missing []string
	for _, m := range []struct{ flag, v string }{{"--client-id", p.ClientID}, {"--client-secret", p.ClientSecret},
		{"--username", p.Username}, {"--password or --password-stdin", p.Password}} {
		if m.v == "" {
			missing = append(missing, m.flag)
		}
	}
	if len(missing) > 0 {
		return exitCode(fs, fmt.Errorf("missing %s (or --demo for the sandbox demo merchant)", strings.Join(missing, ", ")), stdout, stderr)
	}
	p.URL = strings.TrimRight(p.URL, "/")
	c, err := profileClient(p)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 2
	}
	if _, err := c.CreateToken(ctx, api.TokenRequest{GrantType: "password", ClientID: p.ClientID, ClientSecret: p.ClientSecret,
		Username: &p.Username, Password: &p.Password}); err != nil {
		fmt.Fprintf(stderr, "bankrail: sign in to %s as %s: %v\nNothing was stored.\n", p.URL, p.Username, err)
		return 1
	}
	f, err := loadProfiles(config)
	if err == nil {
		f.Profiles[name], f.Current = p, name
		err = saveProfiles(config, f)
	}
	if err != nil {
		fmt.Fprintf(stderr, "bankrail: store the profile: %v\n", err)
		return 1
	}
	if asJSON {
		_ = json.NewEncoder(stdout).Encode(map[string]string{"profile": name, "config": config, "url": p.URL,
			"clientId": p.ClientID, "username": p.Username})
		return 0
	}
	fmt.Fprintf(stdout, "Signed in to %s as %s (application %s).\n", p.URL, p.Username, p.ClientID)
	fmt.Fprintf(stdout, "Profile %q stored in %s (readable by you only); it is now the default.\n", name, config)
	if p.NotificationSecret == "" {
		fmt.Fprintln(stdout, "No --notification-secret: 'notifications tail --forward-to' will need --secret.")
	}
	fmt.Fprintln(stdout, "Next: bankrail trigger COMPLETED, or bankrail notifications tail.")
	return 0
}
