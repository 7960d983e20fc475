-- LIKE patterns by shape (types/str_like.c: a pattern made of one literal
-- with '%' only at its ends is a byte compare, decided once per call site;
-- anything else takes the general matcher): in a table scan's filter over
-- many rows (the pattern kept per expression), with '_' wildcards, escapes,
-- ILIKE, NOT LIKE, bytea, multi-byte texts, a NULL pattern and a pattern
-- that changes from row to row. The scan also skips the cells of columns
-- the query does not read (kv_iter_row_sel).
CREATE TABLE ls_t (id int PRIMARY KEY, u int, k text, note text, amount numeric(10,2), pat text);
INSERT INTO ls_t SELECT i, i % 11, 'k' || (i % 3),
	CASE WHEN i % 17 = 0 THEN NULL
	     WHEN i % 13 = 0 THEN 'caf' || chr(233) || '_' || i
	     WHEN i % 7 = 0 THEN 'AB%' || i
	     ELSE md5(i::text) END,
	i * 0.5,
	CASE i % 5 WHEN 0 THEN '%a%' WHEN 1 THEN 'a%' WHEN 2 THEN '%1' WHEN 3 THEN NULL ELSE '_b%' END
	FROM generate_series(1, 400) i;
-- contains, prefix, suffix, exact, everything
SELECT count(*), max(amount) FROM ls_t WHERE note LIKE '%ab%';
SELECT count(*), max(amount) FROM ls_t WHERE note LIKE '%%ab%%';
SELECT count(*), min(id) FROM ls_t WHERE note LIKE 'ab%';
SELECT count(*), min(id) FROM ls_t WHERE note LIKE '%7';
SELECT id, note FROM ls_t WHERE note LIKE 'AB%14';
SELECT id FROM ls_t WHERE note LIKE 'AB%14%' ORDER BY id;
SELECT count(*) FROM ls_t WHERE note LIKE '%';
SELECT count(*) FROM ls_t WHERE note LIKE '%%';
SELECT count(*) FROM ls_t WHERE note LIKE '';
SELECT id FROM ls_t WHERE note LIKE 'c4ca4238a0b923820dcc509a6f75849b';
-- '_' wildcards (one character, also a multi-byte one)
SELECT count(*) FROM ls_t WHERE note LIKE '%a_b%';
SELECT id, note FROM ls_t WHERE note LIKE 'caf__1%' ORDER BY id;
SELECT id, note FROM ls_t WHERE note LIKE 'caf_\_1%' ORDER BY id;
SELECT count(*) FROM ls_t WHERE note LIKE '________________________________';
-- escapes: a literal '%' and '_', and ESCAPE
SELECT id, note FROM ls_t WHERE note LIKE 'AB\%1%' ORDER BY id LIMIT 5;
SELECT id, note FROM ls_t WHERE note LIKE '%\%2_' ORDER BY id;
SELECT id, note FROM ls_t WHERE note LIKE 'AB#%3%' ESCAPE '#' ORDER BY id;
SELECT count(*) FROM ls_t WHERE note LIKE '%é\_%';
-- multi-byte literals
SELECT id, note FROM ls_t WHERE note LIKE '%é_26%' ORDER BY id;
SELECT count(*) FROM ls_t WHERE note LIKE 'café%';
SELECT count(*) FROM ls_t WHERE note LIKE '%é%';
-- ILIKE and the negations
SELECT count(*) FROM ls_t WHERE note ILIKE '%ab%';
SELECT count(*) FROM ls_t WHERE note ILIKE 'CAFÉ%';
SELECT count(*) FROM ls_t WHERE note NOT LIKE '%ab%';
SELECT count(*) FROM ls_t WHERE note NOT ILIKE 'ab%';
SELECT count(*) FROM ls_t WHERE note !~~ '%1';
-- NULL pattern, NULL text
SELECT count(*) FROM ls_t WHERE note LIKE NULL;
SELECT count(*) FROM ls_t WHERE (note LIKE '%a%') IS NULL;
SELECT count(*) FROM ls_t WHERE note LIKE CASE WHEN id > 0 THEN NULL ELSE '%' END;
-- a pattern that changes from row to row (and is NULL in some)
SELECT pat, count(*), count(note LIKE pat), sum(CASE WHEN note LIKE pat THEN 1 ELSE 0 END)
	FROM ls_t GROUP BY pat ORDER BY pat;
SELECT count(*) FROM ls_t WHERE note LIKE pat;
SELECT count(*) FROM ls_t WHERE note LIKE k || '%' OR note LIKE '%' || u;
SELECT count(*) FROM ls_t WHERE 'abc' LIKE '%' || k;
-- a prepared pattern, executed with several shapes
PREPARE ls_p(text) AS SELECT count(*), max(amount) FROM ls_t WHERE note LIKE $1;
EXECUTE ls_p('%ab%');
EXECUTE ls_p('a%');
EXECUTE ls_p('%_1');
EXECUTE ls_p(NULL);
DEALLOCATE ls_p;
-- bytea
SELECT count(*) FROM ls_t WHERE convert_to(note, 'UTF8') LIKE '%\303%'::bytea;
SELECT count(*) FROM ls_t WHERE convert_to(note, 'UTF8') LIKE 'caf__\\_%'::bytea;
-- a pattern ending with the escape character is an error when reached
SELECT count(*) FROM ls_t WHERE note LIKE 'AB\';
SELECT count(*) FROM ls_t WHERE note LIKE '%ab\';
DROP TABLE ls_t;
