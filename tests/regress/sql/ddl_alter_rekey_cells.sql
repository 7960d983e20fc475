--
-- ddl_alter_rekey_cells: ADD PRIMARY KEY on a table without one copies each
-- row's stored values under the new key, decoding only the key columns (the
-- path pgbench -i takes). NULLs and duplicates are reported as PostgreSQL
-- does and leave the table as it was; keys of several columns and types,
-- dropped columns, secondary indexes, keys out of load order, ROLLBACK, and
-- a transaction's own writes (read through the executor) all keep every row.
--
CREATE TABLE kc (a int, b text, c numeric(8,2), d timestamp, e bool, f float8, g bytea, h int[]);
INSERT INTO kc SELECT g, 'b' || (g % 50), g / 4.0, timestamp '2024-01-01' + g * interval '1 minute',
  g % 2 = 0, CASE WHEN g % 9 = 0 THEN NULL ELSE g * 0.5 END, decode(lpad(to_hex(g), 4, '0'), 'hex'),
  ARRAY[g, -g] FROM generate_series(1, 1500) g;
-- a NULL in the new key: 23502, the table unchanged
UPDATE kc SET a = NULL WHERE a = 700;
ALTER TABLE kc ADD PRIMARY KEY (a);
SELECT count(*), count(a) FROM kc;
UPDATE kc SET a = 700 WHERE a IS NULL;
-- a duplicate: 23505 with the key in DETAIL
UPDATE kc SET a = 1200 WHERE a = 1300;
ALTER TABLE kc ADD PRIMARY KEY (a);
UPDATE kc SET a = 1300 WHERE a = 1200 AND c = 325.00;
ALTER TABLE kc ADD PRIMARY KEY (a);
SELECT count(*), sum(a), count(f), sum(c), count(DISTINCT g), sum(h[2]) FROM kc;
SELECT * FROM kc WHERE a IN (1, 9, 700, 1300, 1500) ORDER BY a;
INSERT INTO kc (a) VALUES (1300);
\d kc
-- keys of several columns: text and timestamp, numeric and text
ALTER TABLE kc DROP CONSTRAINT kc_pkey;
ALTER TABLE kc ADD PRIMARY KEY (b, d);
SELECT a, b, d FROM kc WHERE b = 'b7' ORDER BY d LIMIT 3;
SELECT count(*) FROM kc WHERE b = 'b7';
ALTER TABLE kc DROP CONSTRAINT kc_pkey;
ALTER TABLE kc ADD PRIMARY KEY (c, b);
SELECT a, b, c FROM kc WHERE c BETWEEN 10 AND 11 ORDER BY c;
ALTER TABLE kc DROP CONSTRAINT kc_pkey;
-- a duplicate of a two-column key (timestamp, bool)
UPDATE kc SET d = timestamp '2024-01-01 01:39:00', e = false WHERE a = 100;
ALTER TABLE kc ADD PRIMARY KEY (d, e);
SELECT a, d, e FROM kc WHERE d = timestamp '2024-01-01 01:39:00' ORDER BY a;
UPDATE kc SET d = timestamp '2024-01-01 01:40:00', e = true WHERE a = 100;
ALTER TABLE kc ADD PRIMARY KEY (d, e);
SELECT a, d, e FROM kc WHERE d BETWEEN timestamp '2024-01-01 01:38:00' AND timestamp '2024-01-01 01:41:00' ORDER BY d;
ALTER TABLE kc DROP CONSTRAINT kc_pkey;
-- dropped columns: before the re-key, and in the same statement
ALTER TABLE kc DROP COLUMN g;
ALTER TABLE kc DROP COLUMN h, ADD PRIMARY KEY (a);
SELECT * FROM kc WHERE a IN (2, 9, 1499) ORDER BY a;
SELECT count(*), sum(a), count(f) FROM kc;
ALTER TABLE kc DROP CONSTRAINT kc_pkey;
-- secondary indexes are rebuilt for the new keys
CREATE INDEX kc_b ON kc (b);
CREATE UNIQUE INDEX kc_d ON kc (d);
ALTER TABLE kc ADD PRIMARY KEY (a);
SET enable_seqscan = off;
SELECT a, b FROM kc WHERE b = 'b3' ORDER BY a LIMIT 4;
SELECT a, d FROM kc WHERE d = timestamp '2024-01-01 02:00:00';
INSERT INTO kc (a, d) VALUES (5000, timestamp '2024-01-01 02:00:00');
RESET enable_seqscan;
\d kc
DROP TABLE kc;
-- keys below earlier ones (the unordered path), with a char filler as pgbench's
CREATE TABLE kd (aid int, bid int, abalance int, filler char(84));
INSERT INTO kd SELECT 3001 - g, g % 10, 0, '' FROM generate_series(1, 3000) g;
INSERT INTO kd VALUES (1500, -1, -1, 'dup');
ALTER TABLE kd ADD PRIMARY KEY (aid);
DELETE FROM kd WHERE bid = -1;
ALTER TABLE kd ADD PRIMARY KEY (aid);
SELECT count(*), sum(aid), sum(bid), min(aid), max(aid), max(length(filler)) FROM kd;
SELECT aid, bid FROM kd ORDER BY aid LIMIT 3;
-- inside a transaction, then ROLLBACK: the old table, without a key
ALTER TABLE kd DROP CONSTRAINT kd_pkey;
BEGIN;
ALTER TABLE kd ADD PRIMARY KEY (aid);
SELECT * FROM kd WHERE aid = 17;
INSERT INTO kd VALUES (17, 0, 0, 'dup');
ROLLBACK;
INSERT INTO kd VALUES (17, 0, 0, 'dup');
SELECT count(*) FROM kd WHERE aid = 17;
DELETE FROM kd WHERE filler = 'dup';
-- the transaction's own writes to the table come along
BEGIN;
INSERT INTO kd VALUES (3001, 1, 1, 'own');
UPDATE kd SET abalance = 5 WHERE aid = 2;
DELETE FROM kd WHERE aid = 3;
ALTER TABLE kd ADD PRIMARY KEY (aid);
SELECT aid, bid, abalance, filler FROM kd WHERE aid IN (1, 2, 3, 3001) ORDER BY aid;
COMMIT;
SELECT count(*), sum(abalance) FROM kd;
SELECT aid, abalance, filler FROM kd WHERE aid IN (2, 3, 3001) ORDER BY aid;
DROP TABLE kd;
-- rows wider than the re-key's first cell arrays (more than 15 columns)
CREATE TABLE kw (a int, c1 int, c2 int, c3 int, c4 int, c5 int, c6 int, c7 int, c8 int, c9 int, c10 int, c11 int, c12 int, c13 int, c14 int, c15 int, c16 int, c17 int, c18 int, c19 int, c20 int, c21 int, c22 int, t text);
INSERT INTO kw SELECT g, g + 1, g + 2, g + 3, g + 4, g + 5, g + 6, g + 7, g + 8, g + 9, g + 10, g + 11, g + 12, g + 13, g + 14, g + 15, g + 16, g + 17, g + 18, g + 19, g + 20, g + 21, g + 22, 'w' || g FROM generate_series(1, 300) g;
ALTER TABLE kw ADD PRIMARY KEY (a);
SELECT count(*), sum(c1), sum(c15), sum(c16), sum(c22), max(t) FROM kw;
SELECT * FROM kw WHERE a = 7;
-- the same width through COPY into a table created in the transaction
BEGIN;
CREATE TABLE kw2 (a int PRIMARY KEY, c1 int, c2 int, c3 int, c4 int, c5 int, c6 int, c7 int, c8 int, c9 int, c10 int, c11 int, c12 int, c13 int, c14 int, c15 int, c16 int, c17 int, c18 int, c19 int, c20 int, c21 int, c22 int, t text);
COPY kw2 FROM stdin;
1	2	3	4	5	6	7	8	9	10	11	12	13	14	15	16	17	18	19	20	21	22	23	x1
2	2	4	6	8	10	12	14	16	18	20	22	24	26	28	30	32	34	36	38	40	42	44	x2
\.
COMMIT;
SELECT * FROM kw2 ORDER BY a;
DROP TABLE kw, kw2;
