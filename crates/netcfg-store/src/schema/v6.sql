-- Migration from schema version 5 to 6: zones (decisions section 13).
-- `zones` is content like the rest: tracked by the change history, so
-- `history_undo` is rebuilt with the wider list of tables its rows may
-- name (SQLite cannot change a CHECK in place). A zone's polygon, filters
-- and actions are JSON text the model reads and checks; `zone_id` is the
-- number the data streams know it by, kept through renames. Frozen like
-- v1.sql.

CREATE TABLE zones (
    name TEXT PRIMARY KEY CHECK (length(name) BETWEEN 1 AND 64),
    zone_id INTEGER NOT NULL UNIQUE CHECK (zone_id BETWEEN 1 AND 65535),
    polygon TEXT NOT NULL CHECK (json_valid(polygon) AND json_type(polygon) = 'array'),
    z_min INTEGER CHECK (z_min IS NULL OR z_min BETWEEN -2147483648 AND 2147483647),
    z_max INTEGER CHECK (z_max IS NULL OR z_max BETWEEN -2147483648 AND 2147483647),
    hysteresis_mm INTEGER NOT NULL CHECK (hysteresis_mm BETWEEN 0 AND 10000),
    dwell_ms INTEGER NOT NULL CHECK (dwell_ms BETWEEN 0 AND 3600000),
    tags TEXT NOT NULL CHECK (json_valid(tags) AND json_type(tags) = 'array'),
    roles TEXT NOT NULL CHECK (json_valid(roles) AND json_type(roles) = 'array'),
    on_enter TEXT CHECK (on_enter IS NULL OR json_valid(on_enter)),
    on_exit TEXT CHECK (on_exit IS NULL OR json_valid(on_exit)),
    CHECK (z_min IS NULL OR z_max IS NULL OR z_min < z_max)
) STRICT;

CREATE TABLE history_undo_v6 (
    id INTEGER PRIMARY KEY,
    change_id INTEGER NOT NULL CHECK (change_id >= 1),
    table_name TEXT NOT NULL CHECK (table_name IN ('configuration', 'roles', 'devices',
        'interfaces', 'device_pairs', 'magnetometer_calibrations', 'rf_settings',
        'data_streams', 'position_limits', 'settings', 'alert_rules', 'schedules', 'zones')),
    action TEXT NOT NULL CHECK (action IN ('insert', 'update', 'delete')),
    key TEXT CHECK (key IS NULL OR json_valid(key)),
    old TEXT CHECK (old IS NULL OR json_valid(old)),
    CHECK ((action = 'insert') = (key IS NULL)),
    CHECK ((action = 'delete') = (old IS NULL))
) STRICT;

INSERT INTO history_undo_v6 (id, change_id, table_name, action, key, old)
    SELECT id, change_id, table_name, action, key, old FROM history_undo;
DROP TABLE history_undo;
ALTER TABLE history_undo_v6 RENAME TO history_undo;
CREATE INDEX history_undo_by_change ON history_undo (change_id);
