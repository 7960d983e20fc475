-- COPY FROM inputs of many chunks (sql/copy_par.c parses chunks of ~128 kB of
-- lines on worker threads and loads them in line order): the rows, and the
-- first error in line order with its line and column, whatever thread parsed
-- the bad line's chunk. strata.copy_workers is a placeholder on PostgreSQL.
SET strata.copy_workers = 1;
CREATE TABLE cp (id int PRIMARY KEY, g int NOT NULL, t text, d date, n numeric(10,2));
-- 60000 csv rows, a quoted field with a newline, the delimiter and a quote every 7th row.
\copy cp FROM PROGRAM 'awk ''BEGIN { q = sprintf("%c", 34); nl = sprintf("%c", 10); for (i = 1; i <= 60000; i++) print i "," i % 7 "," (i % 7 ? "row " i : q "multi" nl "line, " q q "quoted" q q " " i q) ",2020-01-" sprintf("%02d", i % 28 + 1) "," i "." i % 100 }''' WITH (FORMAT csv)
SELECT count(*), sum(id), sum(g), count(DISTINCT d), sum(n), sum(length(t)), count(*) FILTER (WHERE t LIKE E'multi\nline, "quoted" %') FROM cp;
SELECT * FROM cp WHERE id IN (1, 7, 29999, 60000) ORDER BY id;
TRUNCATE cp;
-- The same rows in text format with escapes (\n, \t, \\, \N) every 5th row.
\copy cp FROM PROGRAM 'awk ''BEGIN { b = sprintf("%c", 92); for (i = 1; i <= 60000; i++) print i sprintf("%c", 9) i % 7 sprintf("%c", 9) (i % 5 ? "row " i : (i % 10 ? b "N" : "a" b "nb" b "tc" b b "d " i)) sprintf("%c", 9) "2020-01-" sprintf("%02d", i % 28 + 1) sprintf("%c", 9) i "." i % 100 }'''
SELECT count(*), sum(id), count(t), sum(length(t)), count(*) FILTER (WHERE t LIKE E'a\nb\tc\\\\d %') FROM cp;
TRUNCATE cp;
-- A bad value in a late chunk: nothing loaded.
\copy cp FROM PROGRAM 'awk ''BEGIN { for (i = 1; i <= 60000; i++) print i "," (i == 50000 ? "x" : i % 7) ",t,2020-01-01,1" }''' WITH (FORMAT csv)
SELECT count(*) FROM cp;
-- Several bad lines in different chunks: the first in line order is reported.
\copy cp FROM PROGRAM 'awk ''BEGIN { for (i = 1; i <= 60000; i++) print i "," (i == 20001 ? "y" : i % 7) "," (i == 40000 ? "" : "t,2020-01-01,1") (i == 55000 ? ",extra" : "") }''' WITH (FORMAT csv)
\copy cp FROM PROGRAM 'awk ''BEGIN { for (i = 1; i <= 60000; i++) print i "," i % 7 ",t," (i == 12345 ? "2020-02-30" : "2020-01-01") "," (i == 30000 ? "1e20" : "1") }''' WITH (FORMAT csv)
-- Invalid UTF-8 in a late chunk (checked before the line is split).
\copy cp FROM PROGRAM 'awk ''BEGIN { for (i = 1; i <= 60000; i++) print i "," (i == 33333 ? sprintf("%c", 255) : i % 7) ",t,2020-01-01,1" }''' WITH (FORMAT csv)
-- NOT NULL in a late chunk, then a duplicate key in a later block before a bad value.
\copy cp FROM PROGRAM 'awk ''BEGIN { for (i = 1; i <= 60000; i++) print i "," (i == 45000 ? "" : i % 7) ",t,2020-01-01,1" }''' WITH (FORMAT csv)
\copy cp FROM PROGRAM 'awk ''BEGIN { for (i = 1; i <= 60000; i++) print (i == 30000 ? 5 : i) "," i % 7 ",t,2020-01-01," (i == 45000 ? "z" : "1") }''' WITH (FORMAT csv)
SELECT count(*) FROM cp;
-- More workers, and none: the same first error.
SET strata.copy_workers = 3;
\copy cp FROM PROGRAM 'awk ''BEGIN { for (i = 1; i <= 60000; i++) print i "," (i == 20001 ? "y" : i % 7) "," (i == 40000 ? "" : "t,2020-01-01,1") (i == 55000 ? ",extra" : "") }''' WITH (FORMAT csv)
\copy cp FROM PROGRAM 'awk ''BEGIN { for (i = 1; i <= 60000; i++) print i "," i % 7 ",t,2020-01-01," (i == 59999 ? "q" : "1") }''' WITH (FORMAT csv)
SET strata.copy_workers = 0;
\copy cp FROM PROGRAM 'awk ''BEGIN { for (i = 1; i <= 60000; i++) print i "," (i == 20001 ? "y" : i % 7) "," (i == 40000 ? "" : "t,2020-01-01,1") (i == 55000 ? ",extra" : "") }''' WITH (FORMAT csv)
SELECT count(*) FROM cp;
-- The session goes on, and a header line is skipped once.
SET strata.copy_workers = 2;
\copy cp FROM PROGRAM 'awk ''BEGIN { print "id,g,t,d,n"; for (i = 1; i <= 60000; i++) print i "," i % 7 ",t,2020-01-01,1" }''' WITH (FORMAT csv, HEADER)
SELECT count(*), sum(id) FROM cp;
RESET strata.copy_workers;
DROP TABLE cp;
