-- +goose Up
-- A bank file's MsgId is unique per sender, not per instance: each sandbox
-- customer has a mock bank of its own, whose camt.054 credit advices of
-- POST /payin take their MsgId from the customer's externalPaymentId, which
-- another customer may use too. So the files the bank sent (IN) are unique
-- per customer (production's: customer ''). The files bankrail writes (OUT,
-- pain.001) keep an MsgId unique on the whole instance: a pain.002 names
-- only the MsgId of the file it answers.
DROP INDEX transfer_files_msg;
CREATE UNIQUE INDEX transfer_files_msg ON transfer_files (customer_id, direction, msg_id);
CREATE UNIQUE INDEX transfer_files_out_msg ON transfer_files (msg_id) WHERE direction = 'OUT';

-- +goose Down
DROP INDEX transfer_files_out_msg;
DROP INDEX transfer_files_msg;
CREATE UNIQUE INDEX transfer_files_msg ON transfer_files (direction, msg_id);
