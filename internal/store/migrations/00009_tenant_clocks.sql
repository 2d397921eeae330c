-- +goose Up
-- One sandbox clock per top-level customer (a PSP and its merchants share
-- it): a tenant's offset ahead of the wall clock, at most 10 years
-- (clock.MaxOffset). No row: the tenant's clock is the wall clock. It
-- replaces the one clock every customer shared; a tenant's offset starts
-- from that shared offset (bounded), so no clock goes back on upgrade.
CREATE TABLE tenant_clocks (
    tenant_id  TEXT PRIMARY KEY REFERENCES customers (id),
    offset_us  BIGINT NOT NULL
);
INSERT INTO tenant_clocks (tenant_id, offset_us)
    SELECT c.id, (SELECT CASE WHEN offset_us > 315360000000000 THEN 315360000000000 ELSE offset_us END
                  FROM sandbox_clock WHERE id = 1)
    FROM customers c
    WHERE c.parent_id IS NULL AND (SELECT offset_us FROM sandbox_clock WHERE id = 1) > 0;
DROP TABLE sandbox_clock;

-- +goose Down
CREATE TABLE sandbox_clock (
    id        INTEGER PRIMARY KEY CHECK (id = 1),
    offset_us BIGINT NOT NULL
);
INSERT INTO sandbox_clock (id, offset_us) VALUES (1, COALESCE((SELECT MAX(offset_us) FROM tenant_clocks), 0));
DROP TABLE tenant_clocks;
