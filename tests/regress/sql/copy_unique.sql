--
-- copy_unique: COPY into a table with unique secondary indexes (autocommit
-- COPY checks each flush's unique values at once: sorted, compared with each
-- other and, by one scan of each index, with the committed entries, which are
-- validated against their rows; copy_sort.c, index_write.c). Duplicates fail
-- with 23505, PostgreSQL's detail and the line PostgreSQL reports, and load
-- nothing; stale entries (a row updated or deleted) do not count; NULLs and
-- rows outside a partial index's predicate never conflict.
--
CREATE TABLE cu (id int PRIMARY KEY, u text, g int, h int, name text);
CREATE UNIQUE INDEX cu_u ON cu (u);
CREATE UNIQUE INDEX cu_gh ON cu (g, h);
CREATE UNIQUE INDEX cu_lname ON cu (lower(name));
CREATE UNIQUE INDEX cu_part ON cu (h) WHERE g > 100;
CREATE INDEX cu_g ON cu (g);
INSERT INTO cu SELECT i, 'u' || i, i % 10, i, 'N' || i FROM generate_series(1, 100) i;
-- new values, out of order
COPY cu FROM STDIN (FORMAT csv);
205,u205,1,205,x205
201,u201,1,201,x201
203,,2,203,x203
204,,2,204,x204
\.
SELECT count(*) FROM cu;
SELECT id, u FROM cu WHERE u = 'u201';
SELECT id FROM cu WHERE u IS NULL ORDER BY id;
SELECT id FROM cu WHERE g = 2 AND h = 204;
SELECT id FROM cu WHERE lower(name) = 'x205';
-- a stored value: nothing loaded
COPY cu FROM STDIN (FORMAT csv);
210,u210,3,210,x210
211,u7,3,211,x211
212,u212,3,212,x212
\.
SELECT count(*) FROM cu WHERE id >= 210;
-- a value twice in the load: the second line is reported
COPY cu FROM STDIN (FORMAT csv);
220,u220,3,220,x220
221,u221,3,221,x221
222,u220,3,222,x222
\.
-- multi-column and expression indexes
COPY cu FROM STDIN (FORMAT csv);
230,u230,5,5,x230
\.
COPY cu FROM STDIN (FORMAT csv);
231,u231,7,231,n9
\.
-- the partial index: rows with g <= 100 never conflict on h, rows with g > 100 do
COPY cu FROM STDIN (FORMAT csv);
240,u240,1,500,x240
241,u241,2,500,x241
242,u242,101,500,x242
243,u243,102,501,x243
\.
COPY cu FROM STDIN (FORMAT csv);
244,u244,103,500,x244
\.
SELECT id, g, h FROM cu WHERE h >= 500 ORDER BY id;
-- the lowest line wins between a unique index and the primary key
COPY cu FROM STDIN (FORMAT csv);
250,u250,3,250,x250
251,u5,3,251,x251
3,u252,3,252,x252
\.
COPY cu FROM STDIN (FORMAT csv);
260,u260,3,260,x260
4,u261,3,261,x261
262,u6,3,262,x262
\.
-- the same line: the primary key is reported
COPY cu FROM STDIN (FORMAT csv);
270,u270,3,270,x270
8,u8,3,271,x271
\.
-- stale entries: a value whose row changed or went away may be loaded
UPDATE cu SET u = 'moved' || id WHERE id IN (10, 11);
DELETE FROM cu WHERE id = 12;
COPY cu FROM STDIN (FORMAT csv);
280,u10,3,280,x280
281,u11,3,281,x281
282,u12,3,282,x282
\.
SELECT id, u FROM cu WHERE u IN ('u10', 'u11', 'u12', 'moved10') ORDER BY id;
-- a bad value before a duplicate: the bad value is reported
COPY cu FROM STDIN (FORMAT csv);
290,u290,x,290,x290
291,u1,3,291,x291
\.
-- inside a transaction block: the same errors, rows visible, ROLLBACK leaves nothing
BEGIN;
COPY cu FROM STDIN (FORMAT csv);
300,u300,3,300,x300
301,u301,3,301,x301
\.
SELECT id FROM cu WHERE u IN ('u300', 'u301') ORDER BY id;
COPY cu FROM STDIN (FORMAT csv);
302,u302,3,302,x302
303,u300,3,303,x303
\.
ROLLBACK;
BEGIN;
INSERT INTO cu VALUES (310, 'u310', 3, 310, 'x310');
COPY cu FROM STDIN (FORMAT csv);
311,u310,3,311,x311
\.
ROLLBACK;
SELECT count(*) FROM cu WHERE id >= 300;
SELECT count(*), count(u), sum(id) FROM cu;
DROP TABLE cu;
