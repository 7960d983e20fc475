--
-- aggregates: every aggregate of issue 6 with PostgreSQL's result types, FILTER,
-- ORDER BY inside the call, DISTINCT, WITHIN GROUP, empty input and NULLs.
--
CREATE TABLE m (g int, i int, b bigint, s smallint, n numeric, f float8, r real, t text, ok bool);
INSERT INTO m VALUES
  (1, 1, 10, 1, 1.5, 1.25, 0.5, 'a', true),
  (1, 2, 20, 2, 2.5, 2.5, 1.5, 'b', true),
  (1, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
  (2, 3, 30, 3, 3.25, 3.75, 2.5, 'c', false),
  (2, 3, 30, 3, 3.25, 3.75, 2.5, 'c', true),
  (2, 5, 50, 5, 5.125, 5.5, 3.5, 'e', false),
  (3, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
-- result types
SELECT pg_typeof(sum(i)), pg_typeof(sum(b)), pg_typeof(sum(s)), pg_typeof(sum(n)), pg_typeof(sum(f)), pg_typeof(sum(r)) FROM m;
SELECT pg_typeof(avg(i)), pg_typeof(avg(b)), pg_typeof(avg(s)), pg_typeof(avg(n)), pg_typeof(avg(f)), pg_typeof(avg(r)) FROM m;
SELECT pg_typeof(count(*)), pg_typeof(min(i)), pg_typeof(max(t)), pg_typeof(stddev(i)), pg_typeof(variance(f)), pg_typeof(stddev(r)) FROM m;
-- values
SELECT count(*), count(i), count(DISTINCT i), sum(i), sum(DISTINCT i), avg(i), min(i), max(i) FROM m;
SELECT sum(b), avg(b), sum(s), avg(s), sum(n), avg(n), min(n), max(n) FROM m;
SELECT sum(f), avg(f), sum(r), avg(r), min(f), max(r) FROM m;
SELECT min(t), max(t), bool_and(ok), bool_or(ok), every(ok) FROM m;
SELECT g, count(*), count(i), sum(i), avg(i)::numeric(10,4), min(t), max(t) FROM m GROUP BY g ORDER BY g;
SELECT g, bool_and(ok), bool_or(ok) FROM m GROUP BY g ORDER BY g;
SELECT stddev(i), stddev_samp(i), stddev_pop(i), variance(i), var_samp(i), var_pop(i) FROM m;
SELECT stddev(f), stddev_pop(f), variance(f), var_pop(f) FROM m;
SELECT stddev(n), variance(n), stddev_pop(n), var_pop(n) FROM m;
SELECT g, stddev(i), variance(i) FROM m GROUP BY g ORDER BY g;
SELECT string_agg(t, ',') FROM m;
SELECT string_agg(t, ',' ORDER BY t DESC) FROM m;
SELECT string_agg(DISTINCT t, '-' ORDER BY t) FROM m;
SELECT g, string_agg(t, '' ORDER BY i, t) FROM m GROUP BY g ORDER BY g;
SELECT array_agg(i) FROM m WHERE g = 1;
SELECT array_agg(i ORDER BY i DESC NULLS LAST) FROM m;
SELECT array_agg(DISTINCT i) FROM m;
SELECT array_agg(t ORDER BY t NULLS FIRST) FROM m;
SELECT g, array_agg(n ORDER BY n) FROM m GROUP BY g ORDER BY g;
SELECT pg_typeof(array_agg(t)), pg_typeof(string_agg(t, ',')) FROM m;
-- FILTER
SELECT count(*) FILTER (WHERE i > 1), sum(i) FILTER (WHERE ok), avg(f) FILTER (WHERE g = 2) FROM m;
SELECT g, count(*) FILTER (WHERE ok IS NULL) FROM m GROUP BY g ORDER BY g;
SELECT array_agg(i ORDER BY i) FILTER (WHERE i IS NOT NULL) FROM m;
SELECT string_agg(t, ',') FILTER (WHERE false) FROM m;
-- empty input
SELECT count(*), count(i), sum(i), avg(i), min(i), max(i), bool_and(ok), string_agg(t, ','), array_agg(i), stddev(i) FROM m WHERE false;
SELECT g, count(*) FROM m WHERE false GROUP BY g;
SELECT stddev(i), variance(i), stddev_pop(i) FROM m WHERE i = 1;
-- ordered-set aggregates
SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY i) FROM m;
SELECT percentile_cont(0.25) WITHIN GROUP (ORDER BY f) FROM m;
SELECT percentile_disc(0.5) WITHIN GROUP (ORDER BY i) FROM m;
SELECT percentile_disc(0.5) WITHIN GROUP (ORDER BY t) FROM m;
SELECT percentile_cont(ARRAY[0, 0.25, 0.5, 1]) WITHIN GROUP (ORDER BY i) FROM m;
SELECT percentile_disc(ARRAY[0.1, 0.9]) WITHIN GROUP (ORDER BY n) FROM m;
SELECT g, percentile_cont(0.5) WITHIN GROUP (ORDER BY i DESC) FROM m GROUP BY g ORDER BY g;
SELECT mode() WITHIN GROUP (ORDER BY i) FROM m;
SELECT pg_typeof(percentile_cont(0.5) WITHIN GROUP (ORDER BY i)), pg_typeof(percentile_disc(0.5) WITHIN GROUP (ORDER BY n)) FROM m;
SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY i) FROM m WHERE false;
SELECT percentile_cont(1.5) WITHIN GROUP (ORDER BY i) FROM m;
-- overflow and big values
SELECT sum(x) FROM (VALUES (9223372036854775807::bigint), (1)) v(x);
SELECT avg(x) FROM (VALUES (2147483647), (2147483647)) v(x);
SELECT sum(x), pg_typeof(sum(x)) FROM (VALUES (2147483647), (2147483647)) v(x);
-- aggregates in expressions
SELECT sum(i) * 2 + count(*), max(i) - min(i), coalesce(sum(i), 0) FROM m;
SELECT sum(i) / count(i) FROM m;
SELECT count(*) FROM m HAVING count(*) > 1;
SELECT (SELECT max(i) FROM m) AS mx, count(*) FROM m;
SELECT g FROM m GROUP BY g HAVING max(i) = (SELECT max(i) FROM m);
SELECT count(1), count(NULL::int), count(DISTINCT g) FROM m;
-- errors
SELECT sum(t) FROM m;
SELECT avg(ok) FROM m;
SELECT count(*, i) FROM m;
SELECT percentile_cont(0.5) FROM m;
SELECT sum(i) WITHIN GROUP (ORDER BY i) FROM m;
SELECT count(i) FILTER (WHERE sum(i) > 1) FROM m;
SELECT i FROM m WHERE count(*) > 1;
SELECT nosuchagg(i) FROM m;
SELECT string_agg(i, ',') FROM m;
DROP TABLE m;
-- aggregates of row values
SELECT g % 3, (array_agg(ROW(g, g::text) ORDER BY g))[1:4] FROM generate_series(1, 600) g GROUP BY 1 ORDER BY 1;
SELECT (array_agg(ROW(g)))[1:3] FROM generate_series(1, 600) g;
SELECT (SELECT array_agg(ROW(g)) FROM generate_series(1, 300) g)[299:300];
SELECT ARRAY(SELECT ROW(g, 'z') FROM generate_series(1, 400) g ORDER BY g DESC)[1:2];
