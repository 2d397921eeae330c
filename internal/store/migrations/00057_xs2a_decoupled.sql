-- +goose Up
-- NextGenPSD2 decoupled SCA (issue 27): the payer authorises the payment in
-- the bank's app, not on a page the bank redirects to.
--
-- xs2a_initiations.sca_approach: REDIRECT (the payer goes to sca_redirect)
-- or DECOUPLED (the payer waits on bankrail's page, psu_message says what
-- the bank asked of the payer).
ALTER TABLE xs2a_initiations ADD COLUMN sca_approach TEXT NOT NULL DEFAULT 'REDIRECT';
ALTER TABLE xs2a_initiations ADD COLUMN psu_message TEXT NOT NULL DEFAULT '';
-- xs2a_mock_payments.sca_approach: the approach the mock ASPSP chose for
-- the payment (DECOUPLED when the TPP sent TPP-Redirect-Preferred: false).
ALTER TABLE xs2a_mock_payments ADD COLUMN sca_approach TEXT NOT NULL DEFAULT 'REDIRECT';

-- +goose Down
ALTER TABLE xs2a_mock_payments DROP COLUMN sca_approach;
ALTER TABLE xs2a_initiations DROP COLUMN psu_message;
ALTER TABLE xs2a_initiations DROP COLUMN sca_approach;
