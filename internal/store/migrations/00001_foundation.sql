-- +goose Up
-- Times are BIGINT Unix microseconds (UTC) on both engines; ids are text uuids.

CREATE TABLE customers (
    id         TEXT PRIMARY KEY,
    name       TEXT NOT NULL,
    parent_id  TEXT REFERENCES customers (id),
    created_at BIGINT NOT NULL
);
CREATE INDEX customers_name ON customers (name);

-- Closure table of the customer tree: one row per (ancestor, descendant),
-- including (self, self, 0), so "this customer and everyone below" is one join.
CREATE TABLE customer_tree (
    ancestor_id   TEXT NOT NULL REFERENCES customers (id),
    descendant_id TEXT NOT NULL REFERENCES customers (id),
    depth         INTEGER NOT NULL,
    PRIMARY KEY (ancestor_id, descendant_id)
);
CREATE INDEX customer_tree_descendant ON customer_tree (descendant_id);

CREATE TABLE applications (
    id                  TEXT PRIMARY KEY,
    customer_id         TEXT NOT NULL REFERENCES customers (id),
    client_id           TEXT NOT NULL UNIQUE,
    client_secret_hash  TEXT NOT NULL,
    notification_url    TEXT NOT NULL DEFAULT '',
    notification_secret TEXT NOT NULL,
    created_at          BIGINT NOT NULL
);
CREATE INDEX applications_customer ON applications (customer_id);

CREATE TABLE users (
    id            TEXT PRIMARY KEY,
    customer_id   TEXT NOT NULL REFERENCES customers (id),
    username      TEXT NOT NULL UNIQUE,
    password_hash TEXT NOT NULL,
    role          TEXT NOT NULL,
    created_at    BIGINT NOT NULL
);
CREATE INDEX users_customer ON users (customer_id);

-- JWT signing keys, shared by every instance. The newest unretired key signs;
-- every key not retired is published at /.well-known/jwks.json.
CREATE TABLE signing_keys (
    kid         TEXT PRIMARY KEY,
    algorithm   TEXT NOT NULL,
    private_key TEXT NOT NULL,
    created_at  BIGINT NOT NULL,
    retired_at  BIGINT
);

-- Refresh tokens: only a SHA-256 of the token is kept. A family is the chain
-- of tokens issued from one login; reuse of a spent token revokes the family.
CREATE TABLE refresh_tokens (
    id             TEXT PRIMARY KEY,
    family_id      TEXT NOT NULL,
    token_hash     TEXT NOT NULL UNIQUE,
    user_id        TEXT NOT NULL REFERENCES users (id),
    application_id TEXT NOT NULL REFERENCES applications (id),
    created_at     BIGINT NOT NULL,
    expires_at     BIGINT NOT NULL,
    used_at        BIGINT,
    revoked_at     BIGINT
);
CREATE INDEX refresh_tokens_family ON refresh_tokens (family_id);

-- Failed-login counters, per username and per client address.
CREATE TABLE login_throttle (
    scope_key    TEXT PRIMARY KEY,
    failures     INTEGER NOT NULL,
    window_start BIGINT NOT NULL,
    locked_until BIGINT
);

-- The sandbox clock offset, one row, shared by every instance.
CREATE TABLE sandbox_clock (
    id        INTEGER PRIMARY KEY CHECK (id = 1),
    offset_us BIGINT NOT NULL
);
INSERT INTO sandbox_clock (id, offset_us) VALUES (1, 0);

-- +goose Down
DROP TABLE sandbox_clock;
DROP TABLE login_throttle;
DROP TABLE refresh_tokens;
DROP TABLE signing_keys;
DROP TABLE users;
DROP TABLE applications;
DROP TABLE customer_tree;
DROP TABLE customers;
