-- Migration from schema version 8 to 9: the journal's checks without
-- lists. SQLite checks `x IN (a, b, c)` (a list of more than two values)
-- by building a temporary b-tree of the list each time the check runs, and
-- every change writes a `history` row and `history_undo` rows: the three
-- list checks were a third of what journalling an undo row cost. The same
-- checks, written as comparisons joined by OR, ask the same of each row.
-- The rows are copied as they are. Frozen like v1.sql.

CREATE TABLE history_v9 (
    id INTEGER PRIMARY KEY CHECK (id >= 1),
    timestamp_ms INTEGER NOT NULL CHECK (timestamp_ms >= 0),
    origin TEXT NOT NULL CHECK (length(origin) BETWEEN 1 AND 64),
    address TEXT CHECK (address IS NULL OR length(address) BETWEEN 1 AND 64),
    method TEXT NOT NULL CHECK (method = '' OR method = 'POST' OR method = 'PUT'
        OR method = 'PATCH' OR method = 'DELETE'),
    path TEXT NOT NULL CHECK (length(path) <= 2048),
    summary TEXT NOT NULL CHECK (length(summary) <= 1024)
) STRICT;

INSERT INTO history_v9 (id, timestamp_ms, origin, address, method, path, summary)
    SELECT id, timestamp_ms, origin, address, method, path, summary FROM history;
DROP TABLE history;
ALTER TABLE history_v9 RENAME TO history;

CREATE TABLE history_undo_v9 (
    change_id INTEGER NOT NULL CHECK (change_id >= 1),
    seq INTEGER NOT NULL CHECK (seq >= 1),
    table_name TEXT NOT NULL CHECK (table_name = 'configuration' OR table_name = 'roles'
        OR table_name = 'devices' OR table_name = 'interfaces' OR table_name = 'device_pairs'
        OR table_name = 'magnetometer_calibrations' OR table_name = 'rf_settings'
        OR table_name = 'data_streams' OR table_name = 'position_limits'
        OR table_name = 'settings' OR table_name = 'alert_rules' OR table_name = 'schedules'
        OR table_name = 'zones' OR table_name = 'outputs'),
    action TEXT NOT NULL CHECK (action = 'insert' OR action = 'update' OR action = 'delete'),
    key TEXT CHECK (key IS NULL OR json_valid(key)),
    old TEXT CHECK (old IS NULL OR json_valid(old)),
    CHECK ((action = 'insert') = (key IS NULL)),
    CHECK ((action = 'delete') = (old IS NULL)),
    PRIMARY KEY (change_id, seq)
) STRICT, WITHOUT ROWID;

INSERT INTO history_undo_v9 (change_id, seq, table_name, action, key, old)
    SELECT change_id, seq, table_name, action, key, old FROM history_undo;
DROP TABLE history_undo;
ALTER TABLE history_undo_v9 RENAME TO history_undo;
