-- Migration from schema version 10 to 11: tracking (decisions §18). Every
-- tag role (the built-in DEFAULT TAG, id 4, and every custom role, from 5)
-- gets `tracking` ('off', 'light', 'default' or 'strong') and
-- `max_speed_mm_s` (100 to 100,000 mm/s), 'default' and 3,000; the other
-- roles have neither (NULL; the model checks which roles may, as SQLite
-- tests a new column's checks against the rows already there). The undo rows of roles written before carry
-- the two columns too, with the values the migration gave, so a restore
-- to before the migration puts back roles as they are read now. Frozen
-- like v1.sql.

ALTER TABLE roles ADD COLUMN tracking TEXT CHECK (tracking IS NULL OR tracking = 'off'
    OR tracking = 'light' OR tracking = 'default' OR tracking = 'strong');
ALTER TABLE roles ADD COLUMN max_speed_mm_s INTEGER CHECK (max_speed_mm_s IS NULL
    OR max_speed_mm_s BETWEEN 100 AND 100000);
UPDATE roles SET tracking = 'default', max_speed_mm_s = 3000 WHERE id >= 4;

UPDATE history_undo
    SET old = CASE WHEN json_extract(old, '$.id') >= 4
        THEN json_set(old, '$.tracking', 'default', '$.max_speed_mm_s', 3000)
        ELSE json_set(old, '$.tracking', NULL, '$.max_speed_mm_s', NULL) END
    WHERE table_name = 'roles' AND old IS NOT NULL;
