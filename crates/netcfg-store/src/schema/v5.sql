-- Migration from schema version 4 to 5: schedules (decisions section 16).
-- `schedules` is content like the rest: tracked by the change history, so
-- `history_undo` is rebuilt with the wider list of tables its rows may
-- name (SQLite cannot change a CHECK in place). `schedule_runs` is where
-- each schedule stands (up to when its runs are accounted for, and its
-- last run): the scheduler writes it, a restore leaves it as it is, like
-- the notifications. Frozen like v1.sql.

CREATE TABLE schedules (
    name TEXT PRIMARY KEY CHECK (length(name) BETWEEN 1 AND 64),
    cron TEXT NOT NULL CHECK (length(cron) BETWEEN 1 AND 200),
    timezone TEXT NOT NULL CHECK (length(timezone) BETWEEN 1 AND 64),
    action TEXT NOT NULL CHECK (action IN ('start', 'stop', 'restart', 'reload')),
    enabled INTEGER NOT NULL CHECK (enabled IN (0, 1))
) STRICT;

CREATE TABLE schedule_runs (
    schedule TEXT PRIMARY KEY CHECK (length(schedule) BETWEEN 1 AND 64),
    since_ms INTEGER NOT NULL,
    due_ms INTEGER,
    at_ms INTEGER,
    outcome TEXT CHECK (outcome IS NULL OR outcome IN ('running', 'ok', 'skipped', 'failed',
        'missed')),
    message TEXT CHECK (message IS NULL OR length(message) <= 1024),
    CHECK ((due_ms IS NULL) = (outcome IS NULL)),
    CHECK ((at_ms IS NULL) = (outcome IS NULL)),
    CHECK ((message IS NULL) = (outcome IS NULL))
) STRICT;

CREATE TABLE history_undo_v5 (
    id INTEGER PRIMARY KEY,
    change_id INTEGER NOT NULL CHECK (change_id >= 1),
    table_name TEXT NOT NULL CHECK (table_name IN ('configuration', 'roles', 'devices',
        'interfaces', 'device_pairs', 'magnetometer_calibrations', 'rf_settings',
        'data_streams', 'position_limits', 'settings', 'alert_rules', 'schedules')),
    action TEXT NOT NULL CHECK (action IN ('insert', 'update', 'delete')),
    key TEXT CHECK (key IS NULL OR json_valid(key)),
    old TEXT CHECK (old IS NULL OR json_valid(old)),
    CHECK ((action = 'insert') = (key IS NULL)),
    CHECK ((action = 'delete') = (old IS NULL))
) STRICT;

INSERT INTO history_undo_v5 (id, change_id, table_name, action, key, old)
    SELECT id, change_id, table_name, action, key, old FROM history_undo;
DROP TABLE history_undo;
ALTER TABLE history_undo_v5 RENAME TO history_undo;
CREATE INDEX history_undo_by_change ON history_undo (change_id);
