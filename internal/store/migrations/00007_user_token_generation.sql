-- +goose Up
-- A user's token generation is carried in every access token (claim "gen")
-- and bumped when the user's role, password or status changes: tokens of an
-- older generation stop working on every instance within seconds. A disabled
-- user can neither sign in nor use a token.
ALTER TABLE users ADD COLUMN token_generation BIGINT NOT NULL DEFAULT 0;
ALTER TABLE users ADD COLUMN disabled_at BIGINT;

-- +goose Down
ALTER TABLE users DROP COLUMN disabled_at;
ALTER TABLE users DROP COLUMN token_generation;
