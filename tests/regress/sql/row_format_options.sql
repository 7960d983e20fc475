-- WITH (row_format = cells | packed): a Strata storage parameter (docs/row-format.md,
-- "Packed rows"); PostgreSQL refuses it (22023) and has no strata_checksum, hence
-- expected/row_format_options_strata.out. strata_checksum's cell count shows the
-- format: one cell per row packed, a sentinel and a cell per non-NULL column else.
CREATE TABLE rfo_p (id int PRIMARY KEY, a int, b text) WITH (row_format = packed);
CREATE TABLE rfo_c (id int PRIMARY KEY, a int, b text) WITH (row_format = 'cells');
CREATE TABLE rfo_bad (id int) WITH (row_format = wide);
INSERT INTO rfo_p SELECT i, i, CASE WHEN i % 5 = 0 THEN NULL ELSE 'b' || i END FROM generate_series(1, 10) i;
INSERT INTO rfo_c SELECT * FROM rfo_p;
SELECT cells FROM strata_checksum('rfo_p');
SELECT cells FROM strata_checksum('rfo_c');
UPDATE rfo_p SET b = 'x' WHERE id = 5;
UPDATE rfo_p SET b = NULL WHERE id = 6;
SELECT cells FROM strata_checksum('rfo_p');
SELECT * FROM rfo_p WHERE id BETWEEN 4 AND 7 ORDER BY id;
ALTER TABLE rfo_p SET (row_format = cells);
SELECT relname, reloptions FROM pg_class WHERE relname IN ('rfo_p', 'rfo_c') ORDER BY relname;
-- the setting decides for tables created without the option, and is not recorded
SET strata.row_format = packed;
CREATE TABLE rfo_s (id int PRIMARY KEY, a int, b text);
CREATE TABLE rfo_o (id int PRIMARY KEY, a int, b text) WITH (row_format = cells);
INSERT INTO rfo_s SELECT * FROM rfo_c;
INSERT INTO rfo_o SELECT * FROM rfo_c;
SELECT cells FROM strata_checksum('rfo_s');
SELECT cells FROM strata_checksum('rfo_o');
SELECT relname, reloptions FROM pg_class WHERE relname IN ('rfo_s', 'rfo_o') ORDER BY relname;
SET strata.row_format = wide;
RESET strata.row_format;
-- a re-key and a TRUNCATE keep the format
CREATE TABLE rfo_k (a int NOT NULL, b text) WITH (row_format = packed);
INSERT INTO rfo_k SELECT i, 'k' || i FROM generate_series(1, 6) i;
ALTER TABLE rfo_k ADD PRIMARY KEY (a);
SELECT cells FROM strata_checksum('rfo_k');
TRUNCATE rfo_k;
INSERT INTO rfo_k VALUES (1, 'one'), (2, NULL);
SELECT cells FROM strata_checksum('rfo_k');
SELECT * FROM rfo_k ORDER BY a;
-- an interleaved child (docs/entity-groups.md) packed in a cells parent, and the reverse
CREATE TABLE rfo_kid (id int, n int, v text, w int, PRIMARY KEY (id, n))
	WITH (interleave_in_parent = 'rfo_c', row_format = packed);
CREATE TABLE rfo_kid2 (id int, m int, v text, PRIMARY KEY (id, m))
	WITH (interleave_in_parent = 'rfo_p', row_format = cells);
INSERT INTO rfo_kid SELECT i % 3 + 1, i, 'v' || i, CASE WHEN i % 2 = 0 THEN i END FROM generate_series(1, 9) i;
INSERT INTO rfo_kid2 SELECT i % 3 + 1, i, 'w' || i FROM generate_series(1, 6) i;
UPDATE rfo_kid SET w = -w WHERE n <= 4;
DELETE FROM rfo_kid WHERE n = 9;
SELECT cells FROM strata_checksum('rfo_kid', true);
SELECT cells FROM strata_checksum('rfo_kid2', true);
SELECT c.id, c.b, k.n, k.v, k.w FROM rfo_c c JOIN rfo_kid k USING (id) WHERE c.id <= 2 ORDER BY c.id, k.n;
SELECT p.id, p.b, k.m, k.v FROM rfo_p p JOIN rfo_kid2 k USING (id) ORDER BY p.id, k.m;
DROP TABLE IF EXISTS rfo_kid, rfo_kid2, rfo_p, rfo_c, rfo_s, rfo_o, rfo_k;
