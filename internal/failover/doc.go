// Package failover holds the PostgreSQL failover test of bankrail (build
// tag failover: go test -tags failover ./internal/failover/): two
// instances on a multi-host URL take a stream of idempotent creates,
// payins, refunds and payouts while the primary is SIGKILLed and its
// standby promoted (internal/pgcluster), then the old primary comes back
// as the new standby (pg_rewind) and the cluster fails over again.
// docs/operations.md "Failover" has the runbook and the figures.
package failover
