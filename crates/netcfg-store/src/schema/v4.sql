-- Migration from schema version 3 to 4: alert rules (decisions section
-- 16). `alert_rules` is content like the rest: tracked by the change
-- history, so `history_undo` is rebuilt with the wider list of tables its
-- rows may name (SQLite cannot change a CHECK in place). Every file, new
-- or migrated, gets the two default rules: an anchor offline or unsynced
-- for 30 s is an error (level 1). Frozen like v1.sql.

CREATE TABLE alert_rules (
    name TEXT PRIMARY KEY CHECK (length(name) BETWEEN 1 AND 64),
    condition TEXT NOT NULL CHECK (condition IN ('anchor_offline', 'anchor_unsynced',
        'tag_silent', 'battery_below', 'packet_loss_above', 'positions_below')),
    threshold INTEGER CHECK (threshold IS NULL OR threshold BETWEEN 0 AND 1000000),
    for_s INTEGER NOT NULL CHECK (for_s BETWEEN 0 AND 86400),
    level INTEGER NOT NULL CHECK (level BETWEEN 1 AND 4)
) STRICT;

INSERT INTO alert_rules (name, condition, threshold, for_s, level) VALUES
    ('anchor-offline', 'anchor_offline', NULL, 30, 1),
    ('anchor-unsynced', 'anchor_unsynced', NULL, 30, 1);

CREATE TABLE history_undo_v4 (
    id INTEGER PRIMARY KEY,
    change_id INTEGER NOT NULL CHECK (change_id >= 1),
    table_name TEXT NOT NULL CHECK (table_name IN ('configuration', 'roles', 'devices',
        'interfaces', 'device_pairs', 'magnetometer_calibrations', 'rf_settings',
        'data_streams', 'position_limits', 'settings', 'alert_rules')),
    action TEXT NOT NULL CHECK (action IN ('insert', 'update', 'delete')),
    key TEXT CHECK (key IS NULL OR json_valid(key)),
    old TEXT CHECK (old IS NULL OR json_valid(old)),
    CHECK ((action = 'insert') = (key IS NULL)),
    CHECK ((action = 'delete') = (old IS NULL))
) STRICT;

INSERT INTO history_undo_v4 (id, change_id, table_name, action, key, old)
    SELECT id, change_id, table_name, action, key, old FROM history_undo;
DROP TABLE history_undo;
ALTER TABLE history_undo_v4 RENAME TO history_undo;
CREATE INDEX history_undo_by_change ON history_undo (change_id);
