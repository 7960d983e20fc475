--
-- expressions: operator precedence and result types, CASE, COALESCE, NULLIF,
-- GREATEST/LEAST, IS [NOT] DISTINCT FROM, boolean tests, LIKE/ILIKE with ESCAPE,
-- SIMILAR TO, POSIX regular expressions, three-valued logic, and errors.
--
SELECT 2 + 3 * 4, (2 + 3) * 4, 2 ^ 3 ^ 2, -2 ^ 2, 10 - 2 - 3, 2 * 3 % 4;
SELECT 7 / 2, 7 % 3, -7 / 2, -7 % 3, 7.0 / 2, 7 / 2.0, 1 / 3::float8;
SELECT pg_typeof(1 + 1), pg_typeof(1 + 1::bigint), pg_typeof(1 + 1.5), pg_typeof(1 + 1.5::float4), pg_typeof(1::int2 + 1::int2), pg_typeof(2 ^ 2);
SELECT pg_typeof(1 / 2), pg_typeof(5::numeric / 2), pg_typeof('1'::text || 1), pg_typeof(true AND NULL);
SELECT 'a' || 'b' || NULL, 'x' || 1 || 2.5, 1 || 'x';
SELECT 1 < 2, 1 <= 1, 2 > 3, 'b' > 'a', 1 <> 1, 1 != 2, NULL = NULL, NULL <> 1;
SELECT NOT true, NOT NULL::bool, true AND NULL, false AND NULL, true OR NULL, false OR NULL;
SELECT 1 = 1 AND 2 = 2 OR false, NOT 1 = 2 AND true, 1 < 2 = true;
SELECT 5 & 3, 5 | 3, 5 # 3, ~5, 1 << 4, 256 >> 2;
SELECT @ -5, |/ 16, ||/ 27, 5 !;
-- CASE
SELECT CASE WHEN 1 > 2 THEN 'a' WHEN 2 > 1 THEN 'b' ELSE 'c' END;
SELECT CASE 3 WHEN 1 THEN 'one' WHEN 3 THEN 'three' END, CASE 4 WHEN 1 THEN 'one' END;
SELECT CASE WHEN NULL THEN 1 ELSE 2 END, CASE NULL WHEN NULL THEN 'eq' ELSE 'ne' END;
SELECT CASE WHEN true THEN 1 ELSE 2.5 END, pg_typeof(CASE WHEN true THEN 1 ELSE 2.5 END);
SELECT x, CASE WHEN x < 0 THEN 'neg' WHEN x = 0 THEN 'zero' ELSE 'pos' END FROM (VALUES (-1), (0), (1), (NULL)) v(x);
SELECT CASE WHEN false THEN 1/0 ELSE 1 END;
SELECT CASE 1 WHEN 1 THEN 'a' ELSE 1/0 || '' END;
-- COALESCE, NULLIF, GREATEST, LEAST
SELECT coalesce(NULL, NULL, 3, 4), coalesce(NULL::int), coalesce('a', 'b'), coalesce(1, 2.5);
SELECT coalesce(1, 1/0);
SELECT nullif(1, 1), nullif(1, 2), nullif('a', 'b'), nullif(NULL, 1);
SELECT greatest(1, 5, 3), least(1, 5, 3), greatest('a', 'c', 'b'), least(1, NULL, 3), greatest(NULL::int, NULL), greatest(1, 2.5);
SELECT pg_typeof(greatest(1, 2::bigint)), pg_typeof(coalesce(1::int2, 2));
-- IS DISTINCT / boolean tests
SELECT 1 IS DISTINCT FROM 1, 1 IS DISTINCT FROM NULL, NULL IS DISTINCT FROM NULL, NULL IS NOT DISTINCT FROM NULL, 1 IS NOT DISTINCT FROM 2;
SELECT true IS TRUE, NULL::bool IS TRUE, NULL::bool IS NOT TRUE, false IS FALSE, NULL::bool IS UNKNOWN, true IS NOT UNKNOWN, false IS NOT FALSE;
SELECT NULL IS NULL, 1 IS NULL, 1 IS NOT NULL, NULL::int ISNULL, 2 NOTNULL;
-- LIKE / ILIKE / SIMILAR / regex
SELECT 'abc' LIKE 'a%', 'abc' LIKE '_b_', 'abc' LIKE 'b%', 'ABC' ILIKE 'a%', 'abc' NOT ILIKE '%B%';
SELECT 'a%c' LIKE 'a\%c', 'abc' LIKE 'a\%c', 'a%c' LIKE 'a#%c' ESCAPE '#', 'a_c' LIKE 'a!_c' ESCAPE '!', 'abc' LIKE 'abc' ESCAPE '';
SELECT 'abc' ~~ 'a%', 'abc' !~~ 'a%', 'ABC' ~~* 'a%', 'ABC' !~~* 'a%';
SELECT NULL LIKE 'a', 'a' LIKE NULL;
SELECT 'abc' SIMILAR TO 'a(b|c)%', 'abc' SIMILAR TO 'b%', 'abd' NOT SIMILAR TO '%(c|d)';
SELECT 'abc' ~ '^a', 'abc' ~ 'B', 'abc' ~* 'B', 'abc' !~ 'z', 'abc' !~* 'A';
SELECT 'foo123bar' ~ '\d+', 'x' ~ '[[:alpha:]]', 'aaa' ~ '^a{2,3}$';
SELECT regexp_replace('hello world', 'o', '0'), regexp_replace('hello world', 'o', '0', 'g'), regexp_replace('Hello', 'h', 'J', 'i');
SELECT regexp_replace('abc', '(b)', '[\1]'), regexp_replace('2024-01-15', '(\d+)-(\d+)-(\d+)', '\3/\2/\1');
SELECT regexp_match('foobar123', '(\D+)(\d+)'), regexp_match('abc', 'z'), (regexp_match('x=1', '(\w)=(\d)'))[2];
SELECT regexp_split_to_array('a1b22c', '\d+'), regexp_count('banana', 'an'), regexp_instr('banana', 'n'), regexp_substr('banana', 'a.a');
SELECT 'ab' LIKE 'a' || '%', 'x' || 'y' LIKE 'xy';
-- IN lists
SELECT 1 IN (1, 2), 3 IN (1, 2), 3 NOT IN (1, 2), NULL IN (1, 2), 1 IN (NULL, 1), 3 IN (NULL, 1), 3 NOT IN (NULL, 1);
SELECT 'a' IN ('a', 'b'), 1.5 IN (1, 1.5), 2 IN (2.0, 3);
-- BETWEEN
SELECT 2 BETWEEN 1 AND 3, 2 BETWEEN 3 AND 1, 2 BETWEEN SYMMETRIC 3 AND 1, NULL BETWEEN 1 AND 2, 2 NOT BETWEEN 1 AND 3;
-- arrays and rows in expressions
SELECT ARRAY[1, 2] || 3, ARRAY[1, 2] = ARRAY[1, 2], ARRAY[1, 2] < ARRAY[1, 3], ARRAY[[1, 2], [3, 4]];
SELECT (ARRAY[10, 20, 30])[2], (ARRAY[10, 20, 30])[2:3], (ARRAY[10, 20, 30])[:2], (ARRAY[10, 20, 30])[5];
SELECT ROW(1, 2) = ROW(1, 2), (ROW(1, 'a')).f1;
-- errors
SELECT 1 / 0;
SELECT 1 % 0;
SELECT 1.5 / 0;
SELECT 1::float8 / 0;
SELECT 2147483647 + 1;
SELECT -32768::int2 - 1::int2;
SELECT 'a' + 1;
SELECT 1 + 'a';
SELECT true + 1;
SELECT NOT 1;
SELECT 1 AND true;
SELECT CASE WHEN 1 THEN 2 END;
SELECT CASE WHEN true THEN 1 ELSE 'x' END;
SELECT coalesce(1, 'x');
SELECT 'abc' ~ '(';
SELECT 'a' LIKE 'a' ESCAPE 'xx';
SELECT nullif(1, 'a');
SELECT greatest(1, 'a');
SELECT 1 IN ('a', 2);
SELECT nosuchfunc(1);
SELECT abs('x');
SELECT 1 +;
SELECT (1, 2) = (1, 2, 3);
