// Command embedded is an example merchant site that embeds bankrail's
// checkout in its own page: its server creates the checkout session (POST
// /dropin), its page mounts it with /js/v1/checkout.js and shows the
// events, and its notification endpoint verifies the signed notifications
// with the public github.com/bankrail/bankrail/notification package. See README.md.
package main

import (
	"flag"
	"log"
	"net/http"
	"os"
	"time"
)

func main() {
	cfg := config{}
	flag.StringVar(&cfg.Bankrail, "bankrail", env("BANKRAIL_URL", "http://127.0.0.1:8080"), "bankrail's address")
	flag.StringVar(&cfg.PublicURL, "public-url", env("SHOP_PUBLIC_URL", "http://127.0.0.1:8081"), "this shop's address as browsers and bankrail reach it")
	flag.StringVar(&cfg.ClientID, "client-id", env("SHOP_CLIENT_ID", "demo-client"), "OAuth client id")
	flag.StringVar(&cfg.ClientSecret, "client-secret", env("SHOP_CLIENT_SECRET", "demo-client-secret"), "OAuth client secret")
	flag.StringVar(&cfg.Username, "username", env("SHOP_USERNAME", "merchant@demo.test"), "merchant user")
	flag.StringVar(&cfg.Password, "password", env("SHOP_PASSWORD", "demo-password"), "merchant password")
	flag.StringVar(&cfg.NotificationSecret, "notification-secret", env("SHOP_NOTIFICATION_SECRET", "demo-notification-secret"), "the application's notification secret")
	addr := flag.String("addr", env("SHOP_ADDR", "127.0.0.1:8081"), "address to listen on")
	flag.Parse()
	srv := &http.Server{Addr: *addr, Handler: newShop(cfg), ReadHeaderTimeout: 10 * time.Second}
	log.Printf("demo shop at %s (bankrail at %s)", cfg.PublicURL, cfg.Bankrail)
	log.Fatal(srv.ListenAndServe())
}

// env is the environment variable name, or def.
func env(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}
