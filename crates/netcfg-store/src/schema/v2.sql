-- Migration from schema version 1 to 2: device pairs name interfaces (the
-- 5.0 paired-interface endpoints), and the file gains notifications and the
-- cached device data. Frozen like v1.sql.

CREATE TABLE device_pairs_v2 (
    serial_number_1 INTEGER NOT NULL REFERENCES devices (serial_number) ON DELETE CASCADE ON UPDATE CASCADE,
    interface_1 INTEGER NOT NULL CHECK (interface_1 BETWEEN 0 AND 255),
    serial_number_2 INTEGER NOT NULL REFERENCES devices (serial_number) ON DELETE CASCADE ON UPDATE CASCADE,
    interface_2 INTEGER NOT NULL CHECK (interface_2 BETWEEN 0 AND 255),
    pair_type TEXT NOT NULL CHECK (pair_type IN ('twr', 'blacklist')),
    PRIMARY KEY (serial_number_1, interface_1, serial_number_2, interface_2),
    CHECK (serial_number_1 <> serial_number_2 OR interface_1 <> interface_2)
) STRICT, WITHOUT ROWID;

INSERT INTO device_pairs_v2 (serial_number_1, interface_1, serial_number_2, interface_2, pair_type)
    SELECT serial_number_1, 0, serial_number_2, 0, pair_type FROM device_pairs;

DROP TABLE device_pairs;

ALTER TABLE device_pairs_v2 RENAME TO device_pairs;

CREATE INDEX device_pairs_by_second ON device_pairs (serial_number_2, interface_2);

CREATE TABLE notifications (
    identifier INTEGER PRIMARY KEY AUTOINCREMENT CHECK (identifier >= 1),
    level INTEGER NOT NULL CHECK (level BETWEEN 1 AND 4),
    message TEXT NOT NULL CHECK (length(message) <= 65536),
    serial_number INTEGER CHECK (serial_number IS NULL OR serial_number BETWEEN 0 AND 4294967295),
    timestamp_ms INTEGER NOT NULL CHECK (timestamp_ms >= 0),
    read INTEGER NOT NULL CHECK (read IN (0, 1))
) STRICT;

CREATE INDEX notifications_unread ON notifications (identifier) WHERE read = 0;

CREATE TABLE cached_devices (
    serial_number INTEGER PRIMARY KEY CHECK (serial_number BETWEEN 0 AND 4294967295),
    data TEXT NOT NULL CHECK (json_valid(data))
) STRICT;
