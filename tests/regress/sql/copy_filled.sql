--
-- copy_filled: COPY into a table that already has rows and a primary key
-- (autocommit COPY sorts each batch by key and checks it against the stored
-- rows with one scan, copy_sort.c): duplicates among the new rows and with
-- the stored ones fail with 23505 at the first line PostgreSQL reports and
-- load nothing; earlier duplicates win over later bad rows; rows in and out
-- of key order, composite and text keys, secondary indexes kept exact.
--
CREATE TABLE cf (a int, b text, c numeric(6,2), PRIMARY KEY (a, b));
CREATE INDEX cf_c ON cf (c);
INSERT INTO cf SELECT g, 'k' || g, g / 4.0 FROM generate_series(1, 2000, 2) g;
-- new keys between the stored ones, out of order
COPY cf FROM STDIN (FORMAT csv);
6,k6,1.5
2,k2,0.5
1000,k1000,250
4,k4,1
\.
SELECT count(*), sum(a), sum(c) FROM cf;
SELECT * FROM cf WHERE a <= 7 ORDER BY a, b;
SELECT a, b FROM cf WHERE c = 250;
-- a stored key in the middle of the batch: nothing loaded
COPY cf FROM STDIN (FORMAT csv);
8,k8,2
3,k3,7
10,k10,2.5
\.
SELECT count(*) FROM cf WHERE a IN (8, 10);
-- a duplicate within the batch: the second line is reported
COPY cf FROM STDIN (FORMAT csv);
12,k12,3
14,k14,3.5
12,k12,3.25
16,k16,4
\.
SELECT count(*) FROM cf WHERE a IN (12, 14, 16);
-- the same key as a stored row and later twice: the first line with it is reported
COPY cf FROM STDIN (FORMAT csv);
20,k20,5
99,k99,1
22,k22,5.5
99,k99,2
\.
-- two different duplicates: the one at the lower line wins, whatever the key order
COPY cf FROM STDIN (FORMAT csv);
30,k30,1
900,k900,1
30,k30,2
5,k5,1
\.
-- same a, different b: not a duplicate
COPY cf FROM STDIN (FORMAT csv);
40,x,1
40,y,2
40,k40,3
\.
SELECT * FROM cf WHERE a = 40 ORDER BY b;
-- a duplicate before a bad value, a NOT NULL failure and a CHECK failure:
-- the duplicate is reported (PostgreSQL stops at it)
COPY cf FROM STDIN (FORMAT csv);
50,k50,1
52,k52,1
50,k50,1
54,k54,oops
\.
COPY cf FROM STDIN (FORMAT csv);
60,k60,1
7,k7,1
62,,1
\.
ALTER TABLE cf ADD CONSTRAINT c_small CHECK (c < 1000);
COPY cf FROM STDIN (FORMAT csv);
70,k70,1
9,k9,1
72,k72,5000
\.
-- a bad value before a duplicate: the bad value is reported
COPY cf FROM STDIN (FORMAT csv);
80,k80,nope
11,k11,1
\.
-- PostgreSQL inserts in blocks of 1000 rows: a duplicate at line 2 wins over
-- a bad value at line 1500, but not over one at line 900
\copy cf FROM PROGRAM 'awk ''BEGIN { print "3000,d,1"; print "3000,d,2"; for (i = 3; i < 1500; i++) print 3000 + 2 * i ",d,1"; print "9999,d,bad" }''' (FORMAT csv)
\copy cf FROM PROGRAM 'awk ''BEGIN { print "3000,d,1"; print "3000,d,2"; for (i = 3; i < 900; i++) print 3000 + 2 * i ",d,1"; print "9999,d,bad" }''' (FORMAT csv)
\copy cf FROM PROGRAM 'awk ''BEGIN { for (i = 1; i <= 1200; i++) print 5000 - 2 * i ",e," i % 100 }''' (FORMAT csv)
SELECT count(*), min(a), max(a), sum(c) FROM cf WHERE b = 'e';
SELECT count(*) FROM cf WHERE b = 'd';
SELECT count(*) FROM cf WHERE a >= 50 AND a < 100 AND a % 2 = 0;
-- text format, key order, a header-less empty load
COPY cf FROM STDIN;
100	k100	1
102	k102	2
\.
COPY cf FROM STDIN;
\.
-- in a transaction block: rolled back leaves nothing
BEGIN;
COPY cf FROM STDIN (FORMAT csv);
200,k200,1
202,k202,1
\.
SELECT count(*) FROM cf WHERE b IN ('k200', 'k202');
ROLLBACK;
SELECT count(*) FROM cf WHERE b IN ('k200', 'k202');
-- the index answers like the table
SET enable_seqscan = off;
SELECT count(*), sum(a) FROM cf WHERE c >= 0;
RESET enable_seqscan;
SELECT count(*), sum(a), sum(c) FROM cf;
DROP TABLE cf;
-- a single-column text key loaded in reverse order into a filled table
CREATE TABLE cft (k text PRIMARY KEY, v int NOT NULL);
INSERT INTO cft VALUES ('m', 1), ('b', 2);
COPY cft FROM STDIN;
z	1
y	2
a	3
ab	4
\.
COPY cft FROM STDIN;
q	1
ab	9
\.
SELECT * FROM cft ORDER BY k;
DROP TABLE cft;
