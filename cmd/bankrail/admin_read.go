package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/bankrail/bankrail/internal/app"
	"github.com/bankrail/bankrail/internal/identity"
)

// table writes aligned columns to w; flush writes them.
func table(w io.Writer, header string) (*tabwriter.Writer, func() error) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, header)
	return tw, tw.Flush
}

// orDash shows an empty value as "-".
func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// when formats a time for the tables.
func when(t time.Time) string { return t.UTC().Format(time.RFC3339) }

// status is a user's status column.
func status(u identity.User) string {
	if u.Disabled() {
		return "disabled " + when(u.DisabledAt)
	}
	return "active"
}

func customerList(_ *flag.FlagSet, stdout io.Writer) func(context.Context, *app.App) error {
	return func(ctx context.Context, a *app.App) error {
		cs, err := a.Store().Directory().Customers(ctx)
		if err != nil {
			return err
		}
		tw, flush := table(stdout, "ID\tPARENT\tCREATED\tNAME")
		for _, c := range cs {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", c.ID, orDash(c.ParentID), when(c.CreatedAt), c.Name)
		}
		return flush()
	}
}

func customerGet(fs *flag.FlagSet, stdout io.Writer) func(context.Context, *app.App) error {
	var id string
	fs.StringVar(&id, "id", "", "customer uuid (required)")
	return func(ctx context.Context, a *app.App) error {
		c, err := a.Store().GetCustomer(ctx, id)
		if err != nil {
			return fmt.Errorf("--id: %w", err)
		}
		apps, err := a.Store().Directory().Applications(ctx, c.ID)
		if err != nil {
			return err
		}
		users, err := a.Store().Directory().Users(ctx, c.ID)
		if err != nil {
			return err
		}
		tw, flush := table(stdout, "customer\t"+c.ID)
		fmt.Fprintf(tw, "name\t%s\nparent\t%s\ncreated\t%s\n", c.Name, orDash(c.ParentID), when(c.CreatedAt))
		fmt.Fprintf(tw, "applications\t%d\n", len(apps))
		for _, ap := range apps {
			fmt.Fprintf(tw, "\t%s\n", ap.ClientID)
		}
		fmt.Fprintf(tw, "users\t%d\n", len(users))
		for _, u := range users {
			fmt.Fprintf(tw, "\t%s (%s, %s)\n", u.Username, u.Role, status(u))
		}
		return flush()
	}
}

func applicationList(fs *flag.FlagSet, stdout io.Writer) func(context.Context, *app.App) error {
	var customer string
	fs.StringVar(&customer, "customer", "", "only the applications of this customer uuid")
	return func(ctx context.Context, a *app.App) error {
		apps, err := a.Store().Directory().Applications(ctx, customer)
		if err != nil {
			return err
		}
		tw, flush := table(stdout, "CLIENT ID\tCUSTOMER\tCREATED\tNOTIFICATION URL")
		for _, ap := range apps {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", ap.ClientID, ap.CustomerID, when(ap.CreatedAt), orDash(ap.NotificationURL))
		}
		return flush()
	}
}

func applicationGet(fs *flag.FlagSet, stdout io.Writer) func(context.Context, *app.App) error {
	var clientID string
	var showSecret bool
	fs.StringVar(&clientID, "client-id", "", "OAuth client id (required)")
	fs.BoolVar(&showSecret, "show-secret", false, "also print the notification secret")
	return func(ctx context.Context, a *app.App) error {
		ap, err := a.Store().GetApplicationByClientID(ctx, clientID)
		if err != nil {
			return fmt.Errorf("--client-id: %w", err)
		}
		secret := "(set; --show-secret prints it)"
		if showSecret {
			secret = ap.NotificationSecret
		}
		tw, flush := table(stdout, "application\t"+ap.ClientID)
		fmt.Fprintf(tw, "id\t%s\ncustomer\t%s\ncreated\t%s\nnotification url\t%s\nnotification secret\t%s\n",
			ap.ID, ap.CustomerID, when(ap.CreatedAt), orDash(ap.NotificationURL), secret)
		return flush()
	}
}

func userList(fs *flag.FlagSet, stdout io.Writer) func(context.Context, *app.App) error {
	var customer string
	fs.StringVar(&customer, "customer", "", "only the users of this customer uuid")
	return func(ctx context.Context, a *app.App) error {
		users, err := a.Store().Directory().Users(ctx, customer)
		if err != nil {
			return err
		}
		tw, flush := table(stdout, "USERNAME\tROLE\tSTATUS\tCUSTOMER\tCREATED")
		for _, u := range users {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", u.Username, u.Role, status(u), u.CustomerID, when(u.CreatedAt))
		}
		return flush()
	}
}

func userGet(fs *flag.FlagSet, stdout io.Writer) func(context.Context, *app.App) error {
	var username string
	fs.StringVar(&username, "username", "", "login name (required)")
	return func(ctx context.Context, a *app.App) error {
		u, err := a.Store().GetUserByUsername(ctx, username)
		if err != nil {
			return fmt.Errorf("--username: %w", err)
		}
		tw, flush := table(stdout, "user\t"+u.Username)
		fmt.Fprintf(tw, "id\t%s\ncustomer\t%s\nrole\t%s\nstatus\t%s\ncreated\t%s\n",
			u.ID, u.CustomerID, u.Role, status(u), when(u.CreatedAt))
		return flush()
	}
}
