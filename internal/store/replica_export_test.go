package store

import (
	"context"

	"github.com/bankrail/bankrail/internal/replica"
)

// SetReplicaPositions replaces the WAL positions a report's wait reads.
func (s *Store) SetReplicaPositions(p replica.Positions) { s.positions = p }

// ReportReadsOnReplica reports whether a report's query would read on the
// replica now (after its wait).
func (s *Store) ReportReadsOnReplica(ctx context.Context) bool { return s.reportPool(ctx) == s.replica }
