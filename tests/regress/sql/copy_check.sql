--
-- copy_check: COPY FROM enforces CHECK constraints as INSERT does (NULL passes),
-- with PostgreSQL's message, detail and context, on every load path.
--
CREATE TABLE ck (a int CHECK (a > 0), b text, CONSTRAINT b_short CHECK (length(b) < 4));
COPY ck FROM STDIN;
1	x
\N	y
\.
COPY ck FROM STDIN;
2	z
-1	w
\.
COPY ck FROM STDIN (FORMAT csv);
3,long
\.
BEGIN;
TRUNCATE ck;
COPY ck FROM STDIN;
5	ok
0	bad
\.
ROLLBACK;
SELECT * FROM ck ORDER BY a;
DROP TABLE ck;
