-- The LIKE prefilter (sql/exec_scan.c, rb_pre) on packed rows: the kv loop tests
-- the column's value inside the sentinel (docs/row-format.md, "Packed rows") and
-- the row builder decodes only the needed columns. NULLs (absent from the
-- packed value), columns added later (with and without a default), dropped
-- columns, wide rows and long values, rows in the memstore and in sorted files,
-- beside a table in the cells format. = and IS NULL filters read the same rows.
-- PostgreSQL takes the SETs as placeholder settings.
SET strata.row_format = packed;
CREATE TABLE pp_t (id int PRIMARY KEY, amount numeric(10,2), kind int, note text, extra text);
-- notes: NULL every 7th, 'Ab-i' every 11th, 'ÄbÖi' every 13th, else 'nix'
INSERT INTO pp_t (id, amount, kind, extra) SELECT i, i * 1.5, i % 4, nullif('e' || i, 'e' || (i / 3 * 3))
	FROM generate_series(1, 400) i;
UPDATE pp_t SET note = CASE WHEN id % 11 = 0 THEN 'Ab-' || id WHEN id % 13 = 0 THEN 'ÄbÖ' || id
	ELSE 'n' || id || 'x' END WHERE id % 7 <> 0;
-- in the memstore
SELECT count(*), max(amount) FROM pp_t WHERE note LIKE '%ab%';
SELECT count(*), max(amount) FROM pp_t WHERE note ILIKE '%ab%';
SELECT count(*), sum(amount) FROM pp_t WHERE note NOT LIKE 'n%';
SELECT count(*) FROM pp_t WHERE note IS NULL;
SELECT id, note FROM pp_t WHERE note = 'Ab-22' OR note = 'n1x' ORDER BY id;
CHECKPOINT;
-- in a sorted file, then newer versions in the memstore over it
SELECT count(*), max(amount) FROM pp_t WHERE note LIKE '%ab%';
SELECT id, kind, note, extra FROM pp_t WHERE note LIKE 'Ab-1%' ORDER BY id;
UPDATE pp_t SET note = 'ab-upd' || id WHERE id IN (5, 6, 14, 21);
UPDATE pp_t SET note = NULL WHERE id IN (22, 33, 44);
UPDATE pp_t SET extra = 'ab-extra' WHERE id = 55;
DELETE FROM pp_t WHERE id IN (66, 77, 110, 121);
SELECT id, note, extra FROM pp_t WHERE note LIKE '%ab%' ORDER BY id;
SELECT count(*) FROM pp_t WHERE note IS NULL;
SELECT count(*) FROM pp_t WHERE note NOT ILIKE '%AB%';
CHECKPOINT;
SELECT id, note, extra FROM pp_t WHERE note LIKE '%ab%' ORDER BY id;
SELECT * FROM pp_t WHERE note LIKE 'ab%' ORDER BY id;
-- a column added later: absent from the older rows (NULL), and one added with a
-- default (every row has it)
ALTER TABLE pp_t ADD COLUMN late text;
ALTER TABLE pp_t ADD COLUMN dflt text DEFAULT 'dab';
INSERT INTO pp_t VALUES (500, 1, 1, 'n500x', NULL, 'late-ab', 'zz'), (501, 2, 2, 'ab501', 'e', NULL, NULL),
	(502, 3, 3, NULL, NULL, 'late', DEFAULT);
UPDATE pp_t SET late = 'ab-late' || id WHERE id IN (1, 2, 3);
SELECT id, note, late, dflt FROM pp_t WHERE late LIKE '%ab%' ORDER BY id;
SELECT count(*) FROM pp_t WHERE late NOT LIKE '%ab%';
SELECT count(*) FROM pp_t WHERE late IS NULL;
SELECT count(*), min(id), max(id) FROM pp_t WHERE dflt LIKE 'd%';
SELECT id, dflt FROM pp_t WHERE dflt NOT LIKE 'dab' OR dflt IS NULL ORDER BY id;
CHECKPOINT;
SELECT id, note, late, dflt FROM pp_t WHERE late LIKE '%ab%' ORDER BY id;
SELECT count(*), min(id), max(id) FROM pp_t WHERE dflt LIKE '%ab';
SELECT count(*) FROM pp_t WHERE dflt = 'dab';
-- a dropped column (its values stay in older rows until a rewrite), and a new
-- column of the same name
ALTER TABLE pp_t DROP COLUMN note;
SELECT count(*) FROM pp_t WHERE extra LIKE 'e1%';
ALTER TABLE pp_t ADD COLUMN note text;
SELECT count(*) FROM pp_t WHERE note LIKE '%';
SELECT count(*) FROM pp_t WHERE note IS NULL;
UPDATE pp_t SET note = 'ab-new' WHERE id % 50 = 0;
SELECT id, note, extra FROM pp_t WHERE note LIKE 'ab%' ORDER BY id;
CHECKPOINT;
SELECT id, note, extra FROM pp_t WHERE note LIKE 'ab%' AND kind = 2 ORDER BY id;
SELECT count(*) FROM pp_t WHERE note NOT LIKE 'ab%';
-- the transaction's own writes (no prefilter then)
BEGIN;
UPDATE pp_t SET note = 'ab-txn' WHERE id IN (1, 2);
UPDATE pp_t SET note = NULL WHERE id = 50;
INSERT INTO pp_t (id, note) VALUES (1000, 'ab-ins');
SELECT id, note FROM pp_t WHERE note LIKE 'ab%' ORDER BY id;
ROLLBACK;
SELECT id, note FROM pp_t WHERE note LIKE 'ab%' ORDER BY id;
DROP TABLE pp_t;
-- wide rows: more columns than the packer keeps inline, the filtered one last;
-- values past 64 kB (4-byte offsets in the packed value)
CREATE TABLE pp_w (id int PRIMARY KEY,
	c01 text, c02 text, c03 text, c04 text, c05 text, c06 text, c07 text, c08 text, c09 text, c10 text,
	c11 text, c12 text, c13 text, c14 text, c15 text, c16 text, c17 text, c18 text, c19 text, c20 text,
	c21 text, c22 text, c23 text, c24 text, c25 text, c26 text, c27 text, c28 text, c29 text, c30 text,
	c31 text, c32 text, c33 text, c34 text, c35 text, c36 text, c37 text, c38 text, c39 text, c40 text,
	c41 text, c42 text, c43 text, c44 text, c45 text, c46 text, c47 text, c48 text, c49 text, c50 text,
	c51 text, c52 text, c53 text, c54 text, c55 text, c56 text, c57 text, c58 text, c59 text, c60 text,
	c61 text, c62 text, c63 text, c64 text, c65 text, c66 text, c67 text, c68 text, c69 text, c70 text,
	big text, note text);
INSERT INTO pp_w (id, c01, c35, c70, big, note) SELECT i, 'a' || i, 'b' || i, 'c' || i,
	CASE WHEN i % 10 = 0 THEN repeat('y', 70000 + i) ELSE NULL END,
	CASE WHEN i % 5 = 0 THEN NULL WHEN i % 3 = 0 THEN 'ab' || i ELSE 'n' || i END
	FROM generate_series(1, 60) i;
UPDATE pp_w SET c02 = c01, c03 = c01, c04 = c01, c05 = c01, c06 = c01, c07 = c01, c08 = c01, c09 = c01,
	c10 = c01, c11 = c01, c12 = c01, c13 = c01, c14 = c01, c15 = c01, c16 = c01, c17 = c01, c18 = c01,
	c19 = c01, c20 = c01, c21 = c01, c22 = c01, c23 = c01, c24 = c01, c25 = c01, c26 = c01, c27 = c01,
	c28 = c01, c29 = c01, c30 = c01, c31 = c01, c32 = c01, c33 = c01, c34 = c01, c36 = c35, c37 = c35,
	c38 = c35, c39 = c35, c40 = c35, c41 = c35, c42 = c35, c43 = c35, c44 = c35, c45 = c35, c46 = c35,
	c47 = c35, c48 = c35, c49 = c35, c50 = c35, c51 = c35, c52 = c35, c53 = c35, c54 = c35, c55 = c35,
	c56 = c35, c57 = c35, c58 = c35, c59 = c35, c60 = c35, c61 = c70, c62 = c70, c63 = c70, c64 = c70,
	c65 = c70, c66 = c70, c67 = c70, c68 = c70, c69 = c70
	WHERE id % 2 = 0;
SELECT id, c01, c69, length(big), note FROM pp_w WHERE note LIKE 'ab%' ORDER BY id;
SELECT count(*), sum(length(big)) FROM pp_w WHERE big LIKE '%y';
CHECKPOINT;
SELECT id, c01, c69, length(big), note FROM pp_w WHERE note LIKE 'ab%' ORDER BY id;
SELECT count(*), sum(length(big)) FROM pp_w WHERE big LIKE 'yyy%';
SELECT id, c02, c70 FROM pp_w WHERE c70 LIKE '%5' AND note IS NULL ORDER BY id;
SELECT count(*) FROM pp_w WHERE note IS NULL;
SELECT count(*) FROM pp_w WHERE c02 = 'a4';
DROP TABLE pp_w;
-- a packed table and a cells table side by side, the same rows, joined on the
-- filtered rows
CREATE TABLE pp_p (id int PRIMARY KEY, note text, v int);
SET strata.row_format = cells;
CREATE TABLE pp_c (id int PRIMARY KEY, note text, v int);
SET strata.row_format = packed;
INSERT INTO pp_p SELECT i, CASE WHEN i % 6 = 0 THEN NULL ELSE 'n' || i % 17 END, i FROM generate_series(1, 300) i;
INSERT INTO pp_c SELECT * FROM pp_p;
CHECKPOINT;
SELECT (SELECT count(*) FROM pp_p WHERE note LIKE '%1%'), (SELECT count(*) FROM pp_c WHERE note LIKE '%1%');
SELECT p.id, p.note, c.v FROM pp_p p JOIN pp_c c ON c.id = p.id
	WHERE p.note LIKE 'n16' AND c.note LIKE 'n16' ORDER BY p.id;
SELECT count(*) FROM pp_p p JOIN pp_c c ON c.id = p.id WHERE p.note NOT LIKE 'n1%' AND c.note IS NOT NULL;
-- a table without a primary key
CREATE TABLE pp_nk (note text, v int);
INSERT INTO pp_nk SELECT CASE WHEN i % 4 = 0 THEN NULL ELSE 'k' || i END, i FROM generate_series(1, 100) i;
CHECKPOINT;
SELECT count(*), sum(v) FROM pp_nk WHERE note LIKE 'k1%';
SELECT count(*), sum(v) FROM pp_nk WHERE note IS NULL;
DROP TABLE pp_nk;
DROP TABLE pp_p;
DROP TABLE pp_c;
RESET strata.row_format;
