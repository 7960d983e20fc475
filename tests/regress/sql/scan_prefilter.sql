-- A scan filter whose first conjunct is `col [NOT] [I]LIKE 'constant'` on a text
-- column is judged on the cell's bytes before the row is decoded (sql/exec_scan.c,
-- rb_pre): rows without the cell (NULL), deleted and updated rows, every LIKE
-- shape, later conjuncts, the transaction's own writes, rows in sorted files.
CREATE TABLE pf_t (id int PRIMARY KEY, amount numeric(10,2), kind int, note text, extra text);
INSERT INTO pf_t SELECT i, i * 1.5, i % 4,
	CASE WHEN i % 7 = 0 THEN NULL WHEN i % 11 = 0 THEN 'Ab-' || i WHEN i % 13 = 0 THEN 'ÄbÖ' || i
	     ELSE 'n' || i || 'x' END,
	CASE WHEN i % 3 = 0 THEN NULL ELSE 'e' || i END
	FROM generate_series(1, 400) i;
CHECKPOINT;
-- updated and deleted rows, some of them after the checkpoint (newer versions
-- over older ones in files), notes set to NULL and from NULL
UPDATE pf_t SET note = 'ab-upd' || id WHERE id IN (5, 6, 14, 21);
UPDATE pf_t SET note = NULL WHERE id IN (22, 33, 44);
DELETE FROM pf_t WHERE id IN (55, 66, 77, 110, 121);
UPDATE pf_t SET note = 'zzab' WHERE id = 12;
UPDATE pf_t SET note = 'zz' WHERE id = 12;
SELECT count(*), max(amount) FROM pf_t WHERE note LIKE '%ab%';
SELECT id, note FROM pf_t WHERE note LIKE '%ab%' ORDER BY id;
SELECT id, note FROM pf_t WHERE note LIKE 'Ab%' AND id < 100 ORDER BY id;
SELECT id, note FROM pf_t WHERE note LIKE '%9x' ORDER BY id;
SELECT id, note FROM pf_t WHERE note LIKE 'n10x' ORDER BY id;
SELECT count(*) FROM pf_t WHERE note LIKE '%';
SELECT count(*) FROM pf_t WHERE note LIKE '';
SELECT id, note FROM pf_t WHERE note LIKE 'n_2x' ORDER BY id;
SELECT id, note FROM pf_t WHERE note LIKE '%b\-1%' ORDER BY id;
SELECT id, note FROM pf_t WHERE note LIKE '%bÖ2%' ORDER BY id;
SELECT id, note FROM pf_t WHERE note LIKE 'Ä_Ö1%' ORDER BY id;
-- ILIKE and the negated forms: NULL notes are never kept
SELECT id, note FROM pf_t WHERE note ILIKE '%ab-%' AND id < 150 ORDER BY id;
SELECT id, note FROM pf_t WHERE note ILIKE 'äb%' ORDER BY id;
SELECT count(*), sum(amount) FROM pf_t WHERE note NOT LIKE 'n%';
SELECT count(*), sum(amount) FROM pf_t WHERE note NOT ILIKE 'N%';
SELECT count(*) FROM pf_t WHERE NOT (note LIKE 'n%');
-- later conjuncts, and LIKE not first
SELECT id, amount, extra FROM pf_t WHERE note LIKE '%1%' AND kind = 2 AND extra IS NULL ORDER BY id;
SELECT id, note FROM pf_t WHERE kind = 1 AND note LIKE '%3%' ORDER BY id;
SELECT id, note FROM pf_t WHERE note LIKE '%3%' OR id < 4 ORDER BY id;
SELECT count(*) FROM pf_t WHERE note LIKE '%5%' AND 10 / (id % 5) > 1;
-- a NULL note (id 7) stops the filter as PostgreSQL's qual list does: no error
SELECT count(*) FROM pf_t WHERE note LIKE '%zz%' AND 1 / (id - 7) > 0;
-- other columns and the key returned for the rows kept; a slot reused after dropped rows
SELECT * FROM pf_t WHERE note LIKE 'ab%' ORDER BY id;
SELECT id, note, extra FROM pf_t WHERE note LIKE '%0x' AND id < 120 ORDER BY id;
-- grouped and ordered by the filtered column
SELECT kind, count(*), min(note), max(note) FROM pf_t WHERE note LIKE '%1%' GROUP BY kind ORDER BY kind;
-- a NULL pattern, and a pattern from a subquery (neither is judged early)
SELECT count(*) FROM pf_t WHERE note LIKE NULL;
SELECT count(*) FROM pf_t WHERE note LIKE (SELECT '%7%');
-- a pattern ending in the escape character: an error from the first note
-- matched, none where no row has a note
SELECT count(*) FROM pf_t WHERE note LIKE 'n1\';
CREATE TABLE pf_e (id int PRIMARY KEY, note text);
INSERT INTO pf_e VALUES (1, NULL), (2, NULL);
SELECT count(*) FROM pf_e WHERE note LIKE 'n1\';
DROP TABLE pf_e;
-- a prepared statement with a constant pattern, run twice
PREPARE pf_q(int) AS SELECT count(*) FROM pf_t WHERE note LIKE '%2%' AND id > $1;
EXECUTE pf_q(0);
EXECUTE pf_q(200);
DEALLOCATE pf_q;
-- the transaction's own writes change the filtered column
BEGIN;
UPDATE pf_t SET note = 'ab-txn' WHERE id IN (1, 2);
UPDATE pf_t SET note = NULL WHERE id = 5;
UPDATE pf_t SET note = 'nothing' WHERE id = 6;
INSERT INTO pf_t VALUES (1000, 1, 1, 'ab-new', NULL), (1001, 2, 2, NULL, 'x');
DELETE FROM pf_t WHERE id = 14;
SELECT id, note FROM pf_t WHERE note LIKE '%ab%' ORDER BY id;
SELECT count(*) FROM pf_t WHERE note NOT LIKE '%ab%';
ROLLBACK;
SELECT id, note FROM pf_t WHERE note LIKE '%ab%' ORDER BY id;
-- a varchar column and a column of the key (neither judged early; same results)
CREATE TABLE pf_k (k text PRIMARY KEY, v varchar(20), n int);
INSERT INTO pf_k SELECT 'k' || i, CASE WHEN i % 4 = 0 THEN NULL ELSE 'v' || i END, i
	FROM generate_series(1, 60) i;
SELECT k, v FROM pf_k WHERE k LIKE '%5%' ORDER BY k;
SELECT k, v FROM pf_k WHERE v LIKE '%5%' ORDER BY k;
DROP TABLE pf_k;
DROP TABLE pf_t;
-- rows in one sorted file (the store's fast path): rows whose first conjunct is
-- not true are skipped inside the kv loop (kv_iter_skip_rows) and the rows kept
-- get the cells read ahead; long notes are decoded outside the block loop, rows
-- span block ends
CREATE TABLE pf_f (id int PRIMARY KEY, amount numeric(10,2), kind int, note text, extra text);
INSERT INTO pf_f SELECT i, i * 0.5, i % 5,
	CASE WHEN i % 9 = 0 THEN NULL WHEN i % 10 = 0 THEN repeat('x', 150 + i % 50) || 'ab' || i
	     WHEN i % 17 = 0 THEN 'ab' || i WHEN i % 23 = 0 THEN 'ÄB' || i ELSE 'n' || i END,
	CASE WHEN i % 4 = 0 THEN NULL ELSE repeat('e', i % 300) END
	FROM generate_series(1, 3000) i;
CHECKPOINT;
SELECT count(*), max(amount), sum(kind) FROM pf_f WHERE note LIKE '%ab%';
SELECT id, amount, kind, length(note), length(extra) FROM pf_f WHERE note LIKE '%ab1%' ORDER BY id;
SELECT count(*), sum(amount), sum(length(extra)) FROM pf_f WHERE note NOT LIKE 'n%';
SELECT count(*), min(id), max(id) FROM pf_f WHERE note ILIKE 'äb%';
SELECT id, note FROM pf_f WHERE note LIKE 'ab%' AND kind = 3 ORDER BY id LIMIT 5;
SELECT count(*) FROM pf_f WHERE note LIKE '%zz%';
SELECT * FROM pf_f WHERE note LIKE 'ab2%' ORDER BY id;
SELECT kind, count(*), max(note) FROM pf_f WHERE note LIKE 'n1%' GROUP BY kind ORDER BY kind;
DROP TABLE pf_f;
