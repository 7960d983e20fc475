--
-- select_basic: SELECT target lists, WHERE, ORDER BY (ASC/DESC, NULLS FIRST/LAST,
-- ordinals, aliases, expressions), LIMIT/OFFSET/FETCH FIRST, DISTINCT and
-- DISTINCT ON, and the errors around them.
--
CREATE TABLE emp (id int PRIMARY KEY, name text NOT NULL, dept text, salary numeric(10,2), boss int, hired date);
INSERT INTO emp VALUES
  (1, 'alice', 'eng', 120000, NULL, '2015-03-01'),
  (2, 'bob', 'eng', 95000, 1, '2017-06-15'),
  (3, 'carol', 'sales', 70000, 1, '2016-01-10'),
  (4, 'dave', 'sales', 70000, 3, '2019-11-30'),
  (5, 'eve', NULL, 50000, 1, '2020-02-29'),
  (6, 'frank', 'ops', NULL, 2, NULL),
  (7, 'grace', 'eng', 105000, 1, '2018-08-08');
-- target lists
SELECT * FROM emp ORDER BY id;
SELECT id, name FROM emp WHERE id < 3 ORDER BY id;
SELECT emp.* FROM emp WHERE id = 1;
SELECT e.name, e.salary * 2 AS double, e.salary / 12 monthly FROM emp e WHERE id IN (1, 2) ORDER BY 1;
SELECT id + 1, upper(name), length(name) FROM emp ORDER BY id LIMIT 2;
SELECT name AS "Name", dept "Dept" FROM emp ORDER BY "Name" LIMIT 3;
SELECT 1 AS a, 2 AS a;
SELECT count(*) FROM emp;
-- WHERE
SELECT name FROM emp WHERE dept = 'eng' AND salary > 100000 ORDER BY name;
SELECT name FROM emp WHERE dept = 'eng' OR dept IS NULL ORDER BY name;
SELECT name FROM emp WHERE NOT (dept = 'eng') ORDER BY name;
SELECT name FROM emp WHERE salary BETWEEN 60000 AND 100000 ORDER BY name;
SELECT name FROM emp WHERE salary NOT BETWEEN 60000 AND 100000 ORDER BY name;
SELECT name FROM emp WHERE salary BETWEEN SYMMETRIC 100000 AND 60000 ORDER BY name;
SELECT name FROM emp WHERE name LIKE '%a%' ORDER BY name;
SELECT name FROM emp WHERE name ILIKE 'A%' ORDER BY name;
SELECT name FROM emp WHERE name NOT LIKE '_a%' ORDER BY name;
SELECT name FROM emp WHERE hired > '2017-01-01' ORDER BY hired;
SELECT name FROM emp WHERE dept IN ('ops', 'sales') ORDER BY name;
SELECT name FROM emp WHERE dept NOT IN ('ops', 'sales') ORDER BY name;
SELECT name FROM emp WHERE boss IS NULL;
SELECT name FROM emp WHERE salary IS NOT NULL AND hired IS NULL;
SELECT name FROM emp WHERE true ORDER BY id LIMIT 1;
SELECT name FROM emp WHERE false;
SELECT name FROM emp WHERE NULL;
-- ORDER BY
SELECT name, salary FROM emp ORDER BY salary;
SELECT name, salary FROM emp ORDER BY salary DESC, id;
SELECT name, salary FROM emp ORDER BY salary NULLS FIRST, name;
SELECT name, salary FROM emp ORDER BY salary DESC NULLS LAST, name DESC;
SELECT name, salary FROM emp ORDER BY salary DESC, name;
SELECT name, salary FROM emp ORDER BY 2 DESC, 1;
SELECT name, salary AS s FROM emp ORDER BY s, name;
SELECT name FROM emp ORDER BY length(name) DESC, name;
SELECT name FROM emp ORDER BY salary, id;
SELECT name, dept FROM emp ORDER BY dept NULLS FIRST, name;
SELECT name, dept FROM emp ORDER BY dept USING >, name;
SELECT name, salary FROM emp ORDER BY -salary, name;
SELECT name AS n FROM emp ORDER BY n || 'x' LIMIT 2;
SELECT id AS name, name AS id FROM emp ORDER BY name LIMIT 2;
-- LIMIT / OFFSET / FETCH
SELECT id FROM emp ORDER BY id LIMIT 3;
SELECT id FROM emp ORDER BY id LIMIT 3 OFFSET 2;
SELECT id FROM emp ORDER BY id OFFSET 5;
SELECT id FROM emp ORDER BY id LIMIT 0;
SELECT id FROM emp ORDER BY id LIMIT ALL;
SELECT id FROM emp ORDER BY id LIMIT NULL;
SELECT id FROM emp ORDER BY id FETCH FIRST 2 ROWS ONLY;
SELECT id FROM emp ORDER BY id FETCH NEXT ROW ONLY;
SELECT id FROM emp ORDER BY id OFFSET 1 ROW FETCH FIRST 2 ROWS ONLY;
SELECT salary FROM emp ORDER BY salary FETCH FIRST 3 ROWS WITH TIES;
SELECT id FROM emp ORDER BY id LIMIT 2 + 1;
SELECT id FROM emp ORDER BY id LIMIT -1;
SELECT id FROM emp ORDER BY id OFFSET -1;
SELECT id FROM emp LIMIT (SELECT 2) OFFSET (SELECT 1) ;
-- DISTINCT
SELECT DISTINCT dept FROM emp ORDER BY dept;
SELECT DISTINCT salary FROM emp ORDER BY salary DESC NULLS LAST;
SELECT DISTINCT dept, salary > 80000 AS rich FROM emp ORDER BY 1, 2;
SELECT count(DISTINCT dept) FROM emp;
SELECT DISTINCT ON (dept) dept, name, salary FROM emp ORDER BY dept, salary DESC, name;
SELECT DISTINCT ON (dept) dept, name FROM emp ORDER BY dept, name;
SELECT DISTINCT ON (1) dept, name FROM emp ORDER BY 1, 2 DESC;
SELECT DISTINCT ON (salary > 80000) name FROM emp ORDER BY salary > 80000, name;
SELECT DISTINCT ALL dept FROM emp ORDER BY 1;
-- expressions over no table
SELECT 1 WHERE false;
SELECT 'x' WHERE 1 = 1;
SELECT 1 ORDER BY 1;
-- errors
SELECT nosuch FROM emp;
SELECT emp.nosuch FROM emp;
SELECT x.id FROM emp;
SELECT * FROM nosuch;
SELECT id FROM emp ORDER BY 5;
SELECT id FROM emp ORDER BY 0;
SELECT DISTINCT id FROM emp ORDER BY name;
SELECT DISTINCT ON (dept) name FROM emp ORDER BY name;
SELECT id FROM emp LIMIT 'a';
SELECT id FROM emp WHERE id;
SELECT id FROM emp WHERE 1;
SELECT id FROM emp e, emp e;
SELECT id FROM emp a, emp b;
SELECT * FROM emp WHERE name = 1;
SELECT id FROM emp ORDER BY id LIMIT 1 FETCH FIRST 2 ROWS ONLY;
SELECT id FROM emp FETCH FIRST 2 ROWS WITH TIES;
SELECT FROM emp WHERE id = 1;
SELECT;
-- misspelt columns: PostgreSQL's closest-name hints
SELECT nme FROM emp;
SELECT e.salery FROM emp e;
SELECT x.name FROM emp e;
SELECT idd FROM emp, emp e2;
SELECT naem FROM (SELECT 1 AS name) a, (SELECT 2 AS name) b, (SELECT 3 AS name) c;
SELECT id FROM emp WHERE id IN (SELECT id FROM emp e2 WHERE e2.bos = 1);
SELECT nosuchcolumn FROM emp;
SELECT * FROM (SELECT id, name AS n FROM emp) s WHERE name = 'x';
DROP TABLE emp;
-- row values kept across batches (sorts, DISTINCT ON, windows, CTEs, outer joins)
SELECT g, ROW(g, 'x' || g) FROM generate_series(1, 1000) g ORDER BY g LIMIT 3;
SELECT DISTINCT ON (g % 4) g % 4, ROW(g, 'a' || g) FROM generate_series(1, 900) g ORDER BY g % 4, g DESC;
SELECT x FROM (SELECT ROW(g, 'a') x, g FROM generate_series(1, 700) g) s ORDER BY g DESC LIMIT 2;
SELECT r, lag(r) OVER (ORDER BY g) FROM (SELECT ROW(g) r, g FROM generate_series(1, 600) g) s ORDER BY g DESC LIMIT 2;
WITH w AS (SELECT ROW(g, g * 2) r, g FROM generate_series(1, 600) g) SELECT r FROM w ORDER BY g DESC LIMIT 2;
SELECT k, ROW(k) FROM (VALUES (10), (20), (NULL)) a(k) FULL JOIN (VALUES (10), (30)) b(k) USING (k) ORDER BY 1;
