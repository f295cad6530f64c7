-- Migration from schema version 7 to 8: the undo rows clustered by change.
-- `history_undo` was a rowid table with a second index on `change_id`, so
-- each undo row was written twice (the table and the index), and every
-- change's commit carried one more page: the index's. Every read and
-- prune of undo rows goes by change, so the rows are now kept in their
-- change's order in one b-tree keyed by (change_id, seq): `seq` orders a
-- change's rows (the old global ids keep their order). Frozen like v1.sql.

CREATE TABLE history_undo_v8 (
    change_id INTEGER NOT NULL CHECK (change_id >= 1),
    seq INTEGER NOT NULL CHECK (seq >= 1),
    table_name TEXT NOT NULL CHECK (table_name IN ('configuration', 'roles', 'devices',
        'interfaces', 'device_pairs', 'magnetometer_calibrations', 'rf_settings',
        'data_streams', 'position_limits', 'settings', 'alert_rules', 'schedules', 'zones',
        'outputs')),
    action TEXT NOT NULL CHECK (action IN ('insert', 'update', 'delete')),
    key TEXT CHECK (key IS NULL OR json_valid(key)),
    old TEXT CHECK (old IS NULL OR json_valid(old)),
    CHECK ((action = 'insert') = (key IS NULL)),
    CHECK ((action = 'delete') = (old IS NULL)),
    PRIMARY KEY (change_id, seq)
) STRICT, WITHOUT ROWID;

INSERT INTO history_undo_v8 (change_id, seq, table_name, action, key, old)
    SELECT change_id, id, table_name, action, key, old FROM history_undo;
DROP TABLE history_undo;
ALTER TABLE history_undo_v8 RENAME TO history_undo;
