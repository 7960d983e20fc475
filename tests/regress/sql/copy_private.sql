--
-- copy_private: COPY into a table created or truncated by the same
-- transaction (Strata writes such rows straight into the new storage).
-- The transaction sees its rows; ROLLBACK, a failed COPY and ROLLBACK TO
-- SAVEPOINT leave the table as it was; later statements update them.
--
CREATE TABLE cp (a int, b text, c numeric);
INSERT INTO cp VALUES (100, 'old', 1.5);
-- truncate + copy + read back + update in one transaction
BEGIN;
TRUNCATE cp;
COPY cp FROM STDIN;
1	one	1.25
2	two	\N
3	three	3
\.
SELECT * FROM cp ORDER BY a;
UPDATE cp SET b = 'TWO' WHERE a = 2;
DELETE FROM cp WHERE a = 3;
INSERT INTO cp VALUES (4, 'four', 4);
COPY cp FROM STDIN (FORMAT csv);
5,five,5
\.
SELECT * FROM cp ORDER BY a;
COMMIT;
SELECT * FROM cp ORDER BY a;
SELECT count(*) FROM cp;
-- rollback of a truncate + copy keeps the old rows
BEGIN;
TRUNCATE cp;
COPY cp FROM STDIN;
9	nine	9
\.
SELECT count(*) FROM cp;
ROLLBACK;
SELECT * FROM cp ORDER BY a;
-- a COPY that fails half way fails the transaction: nothing of it stays
BEGIN;
TRUNCATE cp;
COPY cp FROM STDIN;
10	ten	10
11	eleven	not_a_number
\.
SELECT count(*) FROM cp;
ROLLBACK;
SELECT * FROM cp ORDER BY a;
-- under a savepoint: ROLLBACK TO takes the copied rows back
BEGIN;
TRUNCATE cp;
SAVEPOINT s1;
COPY cp FROM STDIN;
20	twenty	20
\.
SELECT count(*) FROM cp;
ROLLBACK TO SAVEPOINT s1;
SELECT count(*) FROM cp;
COPY cp FROM STDIN;
21	twentyone	21
\.
COMMIT;
SELECT * FROM cp ORDER BY a;
-- a table created in the transaction, REPEATABLE READ
BEGIN ISOLATION LEVEL REPEATABLE READ;
CREATE TABLE cp2 (x int, y text);
COPY cp2 FROM STDIN;
1	a
2	b
\.
SELECT * FROM cp2 ORDER BY x;
UPDATE cp2 SET y = y || '!' WHERE x = 1;
SELECT * FROM cp2 ORDER BY x;
COMMIT;
SELECT * FROM cp2 ORDER BY x;
BEGIN;
CREATE TABLE cp3 (x int);
COPY cp3 FROM STDIN;
1
\.
ROLLBACK;
SELECT * FROM cp3;
-- a primary key added afterwards re-keys the copied rows
BEGIN;
TRUNCATE cp2;
COPY cp2 FROM STDIN;
3	c
1	a
2	b
\.
ALTER TABLE cp2 ADD PRIMARY KEY (x);
SELECT * FROM cp2 ORDER BY x;
COMMIT;
SELECT * FROM cp2 WHERE x = 2;
ALTER TABLE cp2 DROP CONSTRAINT cp2_pkey;
INSERT INTO cp2 VALUES (2, 'dup');
ALTER TABLE cp2 ADD PRIMARY KEY (x);
DROP TABLE cp, cp2;
