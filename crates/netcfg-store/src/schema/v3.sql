-- Migration from schema version 2 to 3: the change history (decisions
-- section 10). `history` holds one entry per change; `history_undo` holds,
-- for each row a change added, changed or removed, what puts that row back
-- (written by triggers the writer connection creates, not by the schema),
-- so a restore replays them newest first. A change's undo rows are written
-- before its entry (the entry ends the change), so no foreign key ties
-- them: the store prunes both together and the upload check refuses an
-- undo row without its entry. Frozen like v1.sql.

CREATE TABLE history (
    id INTEGER PRIMARY KEY CHECK (id >= 1),
    timestamp_ms INTEGER NOT NULL CHECK (timestamp_ms >= 0),
    origin TEXT NOT NULL CHECK (length(origin) BETWEEN 1 AND 64),
    address TEXT CHECK (address IS NULL OR length(address) BETWEEN 1 AND 64),
    method TEXT NOT NULL CHECK (method IN ('', 'POST', 'PUT', 'PATCH', 'DELETE')),
    path TEXT NOT NULL CHECK (length(path) <= 2048),
    summary TEXT NOT NULL CHECK (length(summary) <= 1024)
) STRICT;

CREATE TABLE history_undo (
    id INTEGER PRIMARY KEY,
    change_id INTEGER NOT NULL CHECK (change_id >= 1),
    table_name TEXT NOT NULL CHECK (table_name IN ('configuration', 'roles', 'devices',
        'interfaces', 'device_pairs', 'magnetometer_calibrations', 'rf_settings',
        'data_streams', 'position_limits', 'settings')),
    action TEXT NOT NULL CHECK (action IN ('insert', 'update', 'delete')),
    key TEXT CHECK (key IS NULL OR json_valid(key)),
    old TEXT CHECK (old IS NULL OR json_valid(old)),
    CHECK ((action = 'insert') = (key IS NULL)),
    CHECK ((action = 'delete') = (old IS NULL))
) STRICT;

CREATE INDEX history_undo_by_change ON history_undo (change_id);
