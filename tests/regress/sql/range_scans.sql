-- Range scans over the primary key: key ranges, ORDER BY in key order or its
-- reverse (no sort), LIMIT pushed into the scan, MIN/MAX by first/last row,
-- and the transaction's own uncommitted writes merged into all of them.
CREATE TABLE rs_t (a int, b int, c text, PRIMARY KEY (a, b));
INSERT INTO rs_t SELECT i % 5, i, 'x' || i FROM generate_series(1, 100) i;
SELECT * FROM rs_t WHERE a = 2 ORDER BY b DESC LIMIT 3;
SELECT * FROM rs_t WHERE a = 2 ORDER BY a, b LIMIT 3 OFFSET 2;
SELECT * FROM rs_t ORDER BY a DESC, b DESC LIMIT 4;
SELECT * FROM rs_t ORDER BY a, b LIMIT 4;
SELECT * FROM rs_t WHERE a IN (1, 3) ORDER BY a DESC, b DESC LIMIT 4;
SELECT * FROM rs_t WHERE a IN (3, 1) AND b > 90 ORDER BY a, b;
SELECT * FROM rs_t WHERE a IN (3, 1) AND b > 90 ORDER BY a DESC, b DESC;
SELECT * FROM rs_t WHERE a = 4 AND b BETWEEN 20 AND 40 ORDER BY b DESC;
SELECT * FROM rs_t WHERE a = 4 AND b > 20 AND b <= 40 ORDER BY b DESC LIMIT 2;
SELECT b FROM rs_t WHERE a = 0 ORDER BY b DESC LIMIT 0;
SELECT b FROM rs_t WHERE a = 0 ORDER BY b DESC LIMIT NULL;
SELECT b FROM rs_t WHERE a = 0 AND c LIKE 'x1%' ORDER BY b DESC LIMIT 3;
SELECT min(b), max(b) FROM rs_t WHERE a = 3;
SELECT max(b) FROM rs_t WHERE a = 3 AND c LIKE 'x1%';
SELECT min(a), max(a) FROM rs_t;
SELECT min(b) FROM rs_t WHERE a = 42;
SELECT min(b), max(b), count(*) FROM rs_t WHERE a = 3;
SELECT a, (SELECT max(b) FROM rs_t i WHERE i.a = o.a) FROM generate_series(0, 5) o(a) ORDER BY 1;
-- The transaction's own writes.
BEGIN;
INSERT INTO rs_t VALUES (2, 1000, 'new'), (2, -5, 'neg'), (3, 500, 'three');
DELETE FROM rs_t WHERE a = 2 AND b = 97;
UPDATE rs_t SET c = 'upd' WHERE a = 2 AND b = 92;
SELECT * FROM rs_t WHERE a = 2 ORDER BY b DESC LIMIT 3;
SELECT * FROM rs_t WHERE a = 2 ORDER BY b LIMIT 3;
SELECT min(b), max(b) FROM rs_t WHERE a = 2;
SELECT * FROM rs_t WHERE a IN (2, 3) ORDER BY a DESC, b DESC LIMIT 5;
SELECT * FROM rs_t WHERE a IN (2, 3) AND b > 85 ORDER BY a, b;
SELECT * FROM rs_t ORDER BY a DESC, b DESC LIMIT 2;
ROLLBACK;
SELECT * FROM rs_t WHERE a = 2 ORDER BY b DESC LIMIT 3;
-- Text and timestamp keys.
CREATE TABLE rs_ev (tenant text, at timestamp, id bigint, amount numeric(10,2), PRIMARY KEY (tenant, at, id));
INSERT INTO rs_ev SELECT 't' || (i % 3), timestamp '2026-01-01' + i * interval '1 hour', i, i * 1.5
  FROM generate_series(1, 300) i;
SELECT count(*), sum(amount) FROM rs_ev
 WHERE tenant = 't1' AND at >= timestamp '2026-01-01' + 2 * interval '1 day'
   AND at < timestamp '2026-01-01' + 5 * interval '1 day';
SELECT at, id, amount FROM rs_ev WHERE tenant = 't2' ORDER BY at DESC LIMIT 5;
SELECT min(at), max(at) FROM rs_ev WHERE tenant = 't0';
SELECT tenant, min(at) FROM rs_ev GROUP BY tenant ORDER BY tenant;
SELECT * FROM rs_ev WHERE tenant > 't0' ORDER BY tenant DESC, at DESC, id DESC LIMIT 3;
PREPARE rs_last(text, int) AS SELECT id FROM rs_ev WHERE tenant = $1 ORDER BY at DESC LIMIT $2;
EXECUTE rs_last('t1', 3);
EXECUTE rs_last('t0', 2);
DEALLOCATE rs_last;
DROP TABLE rs_t;
DROP TABLE rs_ev;
