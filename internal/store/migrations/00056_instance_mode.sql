-- +goose Up
-- The instance's settings that belong to its data rather than to a process:
-- today only 'mode' (sandbox or production), recorded by the first serve (or
-- migrate --mode), changed only by migrate --convert-to (docs/operations.md).
-- A sandbox refuses a production database and the reverse, so that a
-- sandbox's reset can never roll production data back (issue 30, item 2).
-- Kept across a sandbox's reset, snapshot and restore (keptTables).
CREATE TABLE instance_settings (
    name  TEXT PRIMARY KEY,
    value TEXT NOT NULL
);

-- +goose Down
DROP TABLE instance_settings;
