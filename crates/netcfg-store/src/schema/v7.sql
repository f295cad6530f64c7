-- Migration from schema version 6 to 7: outputs (decisions section 14).
-- `outputs` is content like the rest: tracked by the change history, so
-- `history_undo` is rebuilt with the wider list of tables its rows may
-- name. An output's credentials are NOT here: they live beside the file
-- (secrets/<name>.json in the data directory), and only whether each is
-- set is kept, so that a copy or an upload can say what it lacks. Frozen
-- like v1.sql.

CREATE TABLE outputs (
    name TEXT PRIMARY KEY CHECK (length(name) BETWEEN 1 AND 64),
    url TEXT NOT NULL CHECK (length(url) BETWEEN 1 AND 2048),
    events TEXT NOT NULL CHECK (json_valid(events) AND json_type(events) = 'array'),
    enabled INTEGER NOT NULL CHECK (enabled IN (0, 1)),
    topic_prefix TEXT CHECK (topic_prefix IS NULL OR length(topic_prefix) BETWEEN 1 AND 200),
    qos INTEGER CHECK (qos IS NULL OR qos IN (0, 1)),
    max_rate_hz REAL NOT NULL CHECK (max_rate_hz BETWEEN 0 AND 1000),
    batch_ms INTEGER NOT NULL CHECK (batch_ms BETWEEN 0 AND 60000),
    ca_file TEXT CHECK (ca_file IS NULL OR length(ca_file) BETWEEN 1 AND 4096),
    username_set INTEGER NOT NULL CHECK (username_set IN (0, 1)),
    password_set INTEGER NOT NULL CHECK (password_set IN (0, 1)),
    secret_set INTEGER NOT NULL CHECK (secret_set IN (0, 1))
) STRICT;

CREATE TABLE history_undo_v7 (
    id INTEGER PRIMARY KEY,
    change_id INTEGER NOT NULL CHECK (change_id >= 1),
    table_name TEXT NOT NULL CHECK (table_name IN ('configuration', 'roles', 'devices',
        'interfaces', 'device_pairs', 'magnetometer_calibrations', 'rf_settings',
        'data_streams', 'position_limits', 'settings', 'alert_rules', 'schedules', 'zones',
        'outputs')),
    action TEXT NOT NULL CHECK (action IN ('insert', 'update', 'delete')),
    key TEXT CHECK (key IS NULL OR json_valid(key)),
    old TEXT CHECK (old IS NULL OR json_valid(old)),
    CHECK ((action = 'insert') = (key IS NULL)),
    CHECK ((action = 'delete') = (old IS NULL))
) STRICT;

INSERT INTO history_undo_v7 (id, change_id, table_name, action, key, old)
    SELECT id, change_id, table_name, action, key, old FROM history_undo;
DROP TABLE history_undo;
ALTER TABLE history_undo_v7 RENAME TO history_undo;
CREATE INDEX history_undo_by_change ON history_undo (change_id);
