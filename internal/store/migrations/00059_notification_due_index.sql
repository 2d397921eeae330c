-- +goose Up
-- The dispatcher's look for due work goes application by application
-- (ClaimNotifications, dueApplications): the distinct applications of the
-- PENDING notifications, then each one's oldest due ones, by this index. A
-- paused application's backlog, or a busy one's, is then one index seek,
-- not a scan of its rows on every wake (docs/performance.md, "Notification
-- delivery"). notifications_due (time order over every application) served
-- only the scan it replaces; dropped, it costs no write.
CREATE INDEX notifications_pending_application ON notifications (application_id, next_attempt_at, id) WHERE status = 'PENDING';
DROP INDEX notifications_due;

-- +goose Down
CREATE INDEX notifications_due ON notifications (next_attempt_at, id) WHERE status = 'PENDING';
DROP INDEX notifications_pending_application;
