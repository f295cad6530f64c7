-- Schema version 1 of a netcfg configuration file. Frozen: a new file is
-- built from this text plus every migration, so old and new files converge
-- on the same schema. Never edit it; add a migration instead.

CREATE TABLE configuration (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    instance TEXT NOT NULL CHECK (length(instance) <= 4096),
    group_image_path TEXT CHECK (group_image_path IS NULL OR length(group_image_path) BETWEEN 1 AND 4096)
) STRICT;

CREATE TABLE roles (
    id INTEGER PRIMARY KEY AUTOINCREMENT CHECK (id BETWEEN 0 AND 4294967295 AND id <> 1),
    name TEXT NOT NULL UNIQUE CHECK (length(name) BETWEEN 1 AND 64),
    network_period INTEGER NOT NULL CHECK (network_period BETWEEN 0 AND 4294967295),
    window_duration INTEGER NOT NULL CHECK (window_duration BETWEEN 0 AND 4294967295),
    device_count INTEGER NOT NULL CHECK (device_count BETWEEN 0 AND 4294967295),
    accelerometer_period INTEGER NOT NULL CHECK (accelerometer_period = 0 OR accelerometer_period BETWEEN 975 AND 4294967295),
    gyroscope_period INTEGER NOT NULL CHECK (gyroscope_period = 0 OR gyroscope_period BETWEEN 975 AND 4294967295),
    quaternion_period INTEGER NOT NULL CHECK (quaternion_period = 0 OR quaternion_period BETWEEN 975 AND 4294967295),
    magnetometer_period INTEGER NOT NULL CHECK (magnetometer_period = 0 OR magnetometer_period BETWEEN 975 AND 4294967295),
    pressure_period INTEGER NOT NULL CHECK (pressure_period = 0 OR pressure_period BETWEEN 975 AND 4294967295),
    temperature_period INTEGER NOT NULL CHECK (temperature_period = 0 OR temperature_period BETWEEN 975 AND 4294967295),
    led_brightness TEXT NOT NULL CHECK (led_brightness IN ('Off', 'Very Dim', 'Dim', 'Bright'))
) STRICT;

CREATE TABLE devices (
    id INTEGER PRIMARY KEY AUTOINCREMENT CHECK (id BETWEEN 1 AND 9999999),
    serial_number INTEGER NOT NULL UNIQUE CHECK (serial_number BETWEEN 0 AND 4294967295),
    name TEXT CHECK (name IS NULL OR length(name) BETWEEN 1 AND 64),
    disabled INTEGER NOT NULL CHECK (disabled IN (0, 1))
) STRICT;

CREATE TABLE interfaces (
    device_id INTEGER NOT NULL REFERENCES devices (id) ON DELETE CASCADE ON UPDATE CASCADE,
    identifier INTEGER NOT NULL CHECK (identifier BETWEEN 0 AND 255),
    role_id INTEGER NOT NULL REFERENCES roles (id),
    x INTEGER CHECK (x BETWEEN -2147483648 AND 2147483647),
    y INTEGER CHECK (y BETWEEN -2147483648 AND 2147483647),
    z INTEGER CHECK (z BETWEEN -2147483648 AND 2147483647),
    PRIMARY KEY (device_id, identifier),
    CHECK (role_id NOT IN (2, 3) OR (x IS NOT NULL AND y IS NOT NULL AND z IS NOT NULL))
) STRICT, WITHOUT ROWID;

CREATE INDEX interfaces_by_role ON interfaces (role_id);

CREATE TABLE device_pairs (
    serial_number_1 INTEGER NOT NULL REFERENCES devices (serial_number) ON DELETE CASCADE ON UPDATE CASCADE,
    serial_number_2 INTEGER NOT NULL REFERENCES devices (serial_number) ON DELETE CASCADE ON UPDATE CASCADE,
    pair_type TEXT NOT NULL CHECK (pair_type IN ('twr', 'blacklist')),
    PRIMARY KEY (serial_number_1, serial_number_2),
    CHECK (serial_number_1 <> serial_number_2)
) STRICT, WITHOUT ROWID;

CREATE INDEX device_pairs_by_second ON device_pairs (serial_number_2);

CREATE TABLE magnetometer_calibrations (
    device_id INTEGER PRIMARY KEY REFERENCES devices (id) ON DELETE CASCADE ON UPDATE CASCADE,
    x_offset INTEGER NOT NULL CHECK (x_offset BETWEEN -32768 AND 32767),
    y_offset INTEGER NOT NULL CHECK (y_offset BETWEEN -32768 AND 32767),
    z_offset INTEGER NOT NULL CHECK (z_offset BETWEEN -32768 AND 32767)
) STRICT;

CREATE TABLE rf_settings (
    name TEXT PRIMARY KEY CHECK (length(name) BETWEEN 1 AND 64),
    bit_rate INTEGER NOT NULL CHECK (bit_rate IN (110, 850, 6800)),
    channel INTEGER NOT NULL CHECK (channel IN (1, 2, 3, 4, 5, 7, 9)),
    preamble_code INTEGER NOT NULL CHECK (preamble_code BETWEEN 1 AND 24),
    preamble_length INTEGER NOT NULL CHECK (preamble_length IN (64, 128, 256, 512, 1024, 1536, 2048, 4096)),
    prf INTEGER NOT NULL CHECK (prf IN (16, 64))
) STRICT, WITHOUT ROWID;

CREATE TABLE data_streams (
    id INTEGER PRIMARY KEY AUTOINCREMENT CHECK (id BETWEEN 1 AND 4294967295),
    name TEXT NOT NULL UNIQUE CHECK (length(name) BETWEEN 1 AND 64),
    destination_ip TEXT NOT NULL CHECK (length(destination_ip) BETWEEN 2 AND 45),
    destination_port INTEGER NOT NULL CHECK (destination_port BETWEEN 1 AND 65535),
    interface TEXT NOT NULL CHECK (length(interface) BETWEEN 2 AND 45),
    interface_port INTEGER NOT NULL CHECK (interface_port BETWEEN 0 AND 65535),
    time_to_live INTEGER NOT NULL CHECK (time_to_live BETWEEN 1 AND 255)
) STRICT;

CREATE TABLE position_limits (
    id INTEGER PRIMARY KEY AUTOINCREMENT CHECK (id BETWEEN 1 AND 4294967295),
    name TEXT NOT NULL UNIQUE CHECK (length(name) BETWEEN 1 AND 64),
    min_x INTEGER NOT NULL CHECK (min_x BETWEEN -2147483648 AND 2147483647),
    min_y INTEGER NOT NULL CHECK (min_y BETWEEN -2147483648 AND 2147483647),
    min_z INTEGER NOT NULL CHECK (min_z BETWEEN -2147483648 AND 2147483647),
    max_x INTEGER NOT NULL CHECK (max_x BETWEEN -2147483648 AND 2147483647),
    max_y INTEGER NOT NULL CHECK (max_y BETWEEN -2147483648 AND 2147483647),
    max_z INTEGER NOT NULL CHECK (max_z BETWEEN -2147483648 AND 2147483647),
    CHECK (min_x < max_x AND min_y < max_y AND min_z < max_z)
) STRICT;

CREATE TABLE settings (
    setting_class TEXT NOT NULL CHECK (length(setting_class) BETWEEN 1 AND 64),
    setting_id INTEGER NOT NULL CHECK (setting_id BETWEEN 0 AND 4294967295),
    setting_key TEXT NOT NULL CHECK (length(setting_key) BETWEEN 1 AND 64),
    value TEXT NOT NULL CHECK (json_valid(value)),
    PRIMARY KEY (setting_class, setting_id, setting_key),
    CHECK (setting_class <> 'system' OR setting_id <> 0 OR setting_key <> 'network_mode'
           OR value IN ('"multitime"', '"multirange"'))
) STRICT, WITHOUT ROWID;
