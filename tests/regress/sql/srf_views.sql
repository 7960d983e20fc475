--
-- srf_views: set-returning functions in FROM (with ordinality, column aliases,
-- ROWS FROM) and in select lists (several SRFs in lockstep), and views (simple,
-- with joins, aggregates, views on views, column aliases, CREATE OR REPLACE).
--
SELECT * FROM generate_series(1, 5);
SELECT * FROM generate_series(5, 1, -2);
SELECT * FROM generate_series(1, 0);
SELECT * FROM generate_series(0.5, 2.0, 0.5);
SELECT * FROM generate_series('2024-01-01'::timestamp, '2024-01-02', '6 hours');
SELECT * FROM generate_series('2024-01-01'::date, '2024-01-03'::date, '1 day'::interval);
SELECT g FROM generate_series(1, 3) AS g;
SELECT g.x FROM generate_series(1, 3) AS g(x);
SELECT * FROM generate_series(1, 3) WITH ORDINALITY;
SELECT * FROM generate_series(10, 12) WITH ORDINALITY AS t(v, n);
SELECT * FROM unnest(ARRAY[1, 2, 3]);
SELECT * FROM unnest(ARRAY['a', 'b']) WITH ORDINALITY AS u(x, i);
SELECT * FROM unnest(ARRAY[1, 2], ARRAY['a', 'b', 'c']);
SELECT * FROM ROWS FROM (generate_series(1, 2), generate_series(1, 3)) AS r(a, b);
SELECT * FROM generate_subscripts(ARRAY[5, 6, 7], 1);
SELECT * FROM regexp_split_to_table('a,b,,c', ',');
SELECT * FROM json_each('{"a": 1, "b": [2]}');
SELECT * FROM jsonb_array_elements('[1, "x", null]');
SELECT * FROM string_to_table('x-y-z', '-');
SELECT count(*), sum(g) FROM generate_series(1, 1000) g;
SELECT * FROM generate_series(1, 3) a, generate_series(1, 2) b ORDER BY 1, 2;
-- in the select list
SELECT generate_series(1, 3);
SELECT generate_series(1, 3) AS a, generate_series(1, 2) AS b;
SELECT 10 + generate_series(1, 2), 'x';
SELECT unnest(ARRAY[1, 2]), unnest(ARRAY['a', 'b', 'c']);
SELECT id, generate_series(1, id) FROM (VALUES (1), (2)) v(id) ORDER BY 1, 2;
SELECT generate_series(1, generate_series(1, 3));
SELECT count(*) FROM (SELECT generate_series(1, 10)) s;
SELECT regexp_matches('a1b2c3', '[0-9]', 'g');
SELECT jsonb_object_keys('{"a": 1, "b": 2}');
-- views
CREATE TABLE base (id int PRIMARY KEY, cat text, amount int);
INSERT INTO base VALUES (1, 'x', 10), (2, 'x', 20), (3, 'y', 5), (4, NULL, 7);
CREATE VIEW v1 AS SELECT id, amount * 2 AS dbl FROM base WHERE amount > 6;
SELECT * FROM v1 ORDER BY id;
CREATE VIEW v2 (category, total) AS SELECT cat, sum(amount) FROM base GROUP BY cat;
SELECT * FROM v2 ORDER BY category;
CREATE VIEW v3 AS SELECT v1.id, v1.dbl, b.cat FROM v1 JOIN base b USING (id);
SELECT * FROM v3 WHERE cat = 'x' ORDER BY id;
SELECT count(*) FROM v1, v2;
CREATE OR REPLACE VIEW v1 AS SELECT id, amount * 2 AS dbl, cat FROM base WHERE amount > 6;
SELECT * FROM v1 ORDER BY id;
CREATE VIEW v4 AS SELECT * FROM base;
INSERT INTO base VALUES (5, 'z', 1);
SELECT * FROM v4 ORDER BY id;
SELECT * FROM v2 WHERE total > 10 ORDER BY 1;
CREATE VIEW v5 AS SELECT 1 AS one UNION ALL SELECT 2;
SELECT * FROM v5 ORDER BY 1;
CREATE VIEW v6 AS WITH w AS (SELECT id FROM base WHERE id < 3) SELECT * FROM w;
SELECT * FROM v6 ORDER BY 1;
-- errors
CREATE VIEW v1 AS SELECT 1;
SELECT nosuch FROM v1;
CREATE VIEW v7 AS SELECT nosuch FROM base;
SELECT * FROM generate_series(1, 3, 0);
SELECT * FROM generate_series(1);
DROP VIEW v3, v1, v2, v4, v5, v6;
DROP TABLE base;
