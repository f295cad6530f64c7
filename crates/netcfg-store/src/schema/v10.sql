-- Migration from schema version 9 to 10: the undo rows in a rowid table.
-- Every change appends undo rows, and the writer's work on them was half
-- of what journalling a change cost: a WITHOUT ROWID b-tree keyed by
-- (change_id, seq), a look-up of the change's last seq for each row, and
-- `json_valid` run over both JSON columns by their checks. Now a row's
-- rowid is its change's id times 2^24 plus its place in the change (from
-- 1): the rows stay in change order and a change's rows are one range of
-- rowids, and a new row goes at the end of the table (its id from the
-- table's largest one). The JSON is made by the store's own triggers with
-- `json_object`; an uploaded file's undo rows are parsed by the upload
-- check, as before. The rows are copied, numbered within their change in
-- their order. A change cannot hold 2^24 rows: that row's place would be
-- 0, which the check refuses. Frozen like v1.sql.

CREATE TABLE history_undo_v10 (
    id INTEGER PRIMARY KEY CHECK (id > 16777216 AND (id & 16777215) > 0),
    table_name TEXT NOT NULL CHECK (table_name = 'configuration' OR table_name = 'roles'
        OR table_name = 'devices' OR table_name = 'interfaces' OR table_name = 'device_pairs'
        OR table_name = 'magnetometer_calibrations' OR table_name = 'rf_settings'
        OR table_name = 'data_streams' OR table_name = 'position_limits'
        OR table_name = 'settings' OR table_name = 'alert_rules' OR table_name = 'schedules'
        OR table_name = 'zones' OR table_name = 'outputs'),
    action TEXT NOT NULL CHECK (action = 'insert' OR action = 'update' OR action = 'delete'),
    key TEXT,
    old TEXT,
    CHECK ((action = 'insert') = (key IS NULL)),
    CHECK ((action = 'delete') = (old IS NULL))
) STRICT;

INSERT INTO history_undo_v10 (id, table_name, action, key, old)
    SELECT (change_id << 24) + row_number() OVER (PARTITION BY change_id ORDER BY seq),
        table_name, action, key, old
    FROM history_undo ORDER BY change_id, seq;
DROP TABLE history_undo;
ALTER TABLE history_undo_v10 RENAME TO history_undo;
