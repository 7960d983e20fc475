--
-- dml: INSERT (multi-row VALUES, DEFAULT, column lists, INSERT ... SELECT,
-- ON CONFLICT DO NOTHING / DO UPDATE with EXCLUDED and WHERE, RETURNING),
-- UPDATE (expressions, subqueries, FROM joins, key changes, RETURNING),
-- DELETE (USING, subqueries, RETURNING), and constraint errors.
--
CREATE TABLE inv (id int PRIMARY KEY, name text NOT NULL, qty int DEFAULT 0 CHECK (qty >= 0), note text DEFAULT 'none');
CREATE TABLE src (id int, name text, qty int);
INSERT INTO src VALUES (10, 'ten', 10), (11, 'eleven', 11), (1, 'dup', 5);
INSERT INTO inv VALUES (1, 'one', 1, 'a'), (2, 'two', 2, 'b');
INSERT INTO inv (id, name) VALUES (3, 'three');
INSERT INTO inv VALUES (4, 'four', DEFAULT, DEFAULT), (5, 'five', 5, NULL);
INSERT INTO inv (name, id) VALUES ('six', 6) RETURNING *;
INSERT INTO inv SELECT id, name, qty FROM src WHERE id > 5 RETURNING id, qty * 2 AS dq;
INSERT INTO inv (id, name) SELECT 20 + g, 'gen' || g FROM generate_series(1, 3) g;
INSERT INTO inv DEFAULT VALUES;
SELECT * FROM inv ORDER BY id;
INSERT INTO inv VALUES (1, 'again') ON CONFLICT DO NOTHING;
INSERT INTO inv VALUES (1, 'again') ON CONFLICT (id) DO NOTHING RETURNING *;
INSERT INTO inv VALUES (1, 'upd', 7) ON CONFLICT (id) DO UPDATE SET name = EXCLUDED.name, qty = inv.qty + EXCLUDED.qty RETURNING *;
INSERT INTO inv VALUES (2, 'skip', 9) ON CONFLICT (id) DO UPDATE SET name = EXCLUDED.name WHERE inv.qty > 100 RETURNING *;
INSERT INTO inv AS i VALUES (3, 'three', 3), (30, 'thirty', 30) ON CONFLICT (id) DO UPDATE SET qty = i.qty + 100 RETURNING id, qty;
INSERT INTO inv SELECT id, name, qty FROM src ON CONFLICT (id) DO UPDATE SET note = 'from src' RETURNING id, note;
SELECT * FROM inv ORDER BY id;
-- UPDATE
UPDATE inv SET qty = qty + 1 WHERE id < 3 RETURNING id, qty;
UPDATE inv SET name = upper(name), note = DEFAULT WHERE id = 4;
UPDATE inv SET qty = (SELECT max(qty) FROM src) WHERE id = 5 RETURNING qty;
UPDATE inv SET (name, qty) = ('pair', 42) WHERE id = 6;
UPDATE inv SET (name, qty) = (SELECT name, qty FROM src WHERE src.id = 10) WHERE id = 21;
UPDATE inv SET qty = src.qty * 10 FROM src WHERE src.id = inv.id AND src.id > 5 RETURNING inv.id, inv.qty, src.name;
UPDATE inv SET qty = src.qty * 10 FROM src WHERE src.id = inv.id AND src.id = 1 RETURNING inv.id, inv.qty, src.name;
UPDATE inv i SET note = 'aliased' WHERE i.id = 22;
UPDATE inv SET id = id + 100 WHERE id = 23 RETURNING id;
UPDATE inv SET qty = 0 WHERE false;
UPDATE inv SET note = 'x' WHERE id IN (SELECT id FROM src);
SELECT id, note FROM inv WHERE id IN (SELECT id FROM src) ORDER BY id;
SELECT * FROM inv ORDER BY id;
-- DELETE
DELETE FROM inv WHERE id = 123 RETURNING *;
DELETE FROM inv USING src WHERE inv.id = src.id AND src.qty > 10 RETURNING inv.id;
DELETE FROM inv WHERE id IN (SELECT id FROM inv WHERE qty > 100) RETURNING id;
DELETE FROM inv i WHERE NOT EXISTS (SELECT 1 FROM src s WHERE s.id = i.id) AND i.id > 20 RETURNING i.id;
DELETE FROM inv WHERE false;
SELECT id, name, qty FROM inv ORDER BY id;
-- data-modifying statements in WITH (run once, to completion, whatever is read)
WITH d AS (DELETE FROM inv WHERE id = 5 RETURNING *) SELECT count(*) FROM d;
WITH i AS (INSERT INTO inv VALUES (50, 'fifty') RETURNING id) SELECT id + 1 FROM i;
WITH u AS (UPDATE inv SET qty = 1 WHERE id = 50 RETURNING qty) SELECT * FROM u;
WITH u AS (UPDATE inv SET qty = qty + 1 WHERE id < 3 RETURNING id) SELECT count(*) FROM u;
WITH d AS (DELETE FROM inv WHERE id = 4) SELECT 1;
WITH moved AS (DELETE FROM inv WHERE id = 50 RETURNING id, name, qty) INSERT INTO inv SELECT id + 100, name, qty FROM moved;
SELECT id, name, qty FROM inv ORDER BY id;
WITH d AS (DELETE FROM inv WHERE id = 1) SELECT * FROM d;
SELECT * FROM (WITH d AS (DELETE FROM inv RETURNING *) SELECT * FROM d) s;
WITH a AS (INSERT INTO inv VALUES (2, 'dup') RETURNING *) SELECT * FROM a;
-- errors
INSERT INTO inv VALUES (1, 'dup');
INSERT INTO inv (id) VALUES (99);
INSERT INTO inv VALUES (99, 'neg', -1);
INSERT INTO inv (nosuch) VALUES (1);
INSERT INTO inv (id, id) VALUES (1, 2);
INSERT INTO inv VALUES (1, 'a', 1, 'b', 'extra');
INSERT INTO inv (id, name) VALUES (1);
INSERT INTO inv VALUES (99, 'x') ON CONFLICT (name) DO NOTHING;
UPDATE inv SET nosuch = 1;
UPDATE inv SET qty = -5 WHERE id = 1;
UPDATE inv SET name = NULL WHERE id = 1;
UPDATE inv SET id = 2 WHERE id = 1;
UPDATE inv SET qty = 'x';
UPDATE inv SET qty = (SELECT qty FROM src);
DELETE FROM nosuch;
DELETE FROM inv WHERE nosuch = 1;
INSERT INTO inv VALUES (200, 'ok'), (201, NULL);
SELECT count(*) FROM inv WHERE id >= 200;
DROP TABLE inv, src;
