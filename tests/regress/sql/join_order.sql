--
-- join_order: inner joins run in the order of least estimated cost once
-- ANALYZE has statistics (plan_join.c): the small, filtered table first,
-- key or index lookups into the big ones; outer joins keep their sides;
-- join_collapse_limit = 1 keeps the written order. Results never change.
-- Strata's plans differ from PostgreSQL's (expected/join_order_strata.out).
--
CREATE TABLE jo_region (id int PRIMARY KEY, name text);
CREATE TABLE jo_cust (id int PRIMARY KEY, region_id int, name text);
CREATE TABLE jo_prod (id int PRIMARY KEY, cat text, price int);
CREATE TABLE jo_ord (id int PRIMARY KEY, cust_id int, prod_id int, qty int);
CREATE INDEX jo_ord_cust ON jo_ord (cust_id);
INSERT INTO jo_region SELECT i, (ARRAY['north', 'south', 'east', 'west', 'mid'])[1 + i % 5] || (i / 5)
  FROM generate_series(0, 9) i;
INSERT INTO jo_cust SELECT i, i % 10, 'c' || i FROM generate_series(1, 300) i;
INSERT INTO jo_prod SELECT i, 'k' || (i % 4), 10 + i FROM generate_series(1, 50) i;
INSERT INTO jo_ord SELECT i, 1 + (i * 7) % 300, 1 + i % 50, 1 + i % 6 FROM generate_series(1, 900) i;
-- Before ANALYZE every table looks alike: the written order.
EXPLAIN (COSTS OFF)
SELECT r.name, p.cat, sum(o.qty) FROM jo_ord o JOIN jo_prod p ON p.id = o.prod_id
  JOIN jo_cust c ON c.id = o.cust_id JOIN jo_region r ON r.id = c.region_id
  WHERE r.name = 'north0' GROUP BY 1, 2 ORDER BY 1, 2;
ANALYZE jo_region;
ANALYZE jo_cust;
ANALYZE jo_prod;
ANALYZE jo_ord;
-- The region first, then its customers, their orders by the index on
-- cust_id, the products last.
EXPLAIN (COSTS OFF)
SELECT r.name, p.cat, sum(o.qty) FROM jo_ord o JOIN jo_prod p ON p.id = o.prod_id
  JOIN jo_cust c ON c.id = o.cust_id JOIN jo_region r ON r.id = c.region_id
  WHERE r.name = 'north0' GROUP BY 1, 2 ORDER BY 1, 2;
SELECT r.name, p.cat, sum(o.qty) FROM jo_ord o JOIN jo_prod p ON p.id = o.prod_id
  JOIN jo_cust c ON c.id = o.cust_id JOIN jo_region r ON r.id = c.region_id
  WHERE r.name = 'north0' GROUP BY 1, 2 ORDER BY 1, 2;
-- The same as a comma list.
EXPLAIN (COSTS OFF)
SELECT count(*), sum(o.qty * p.price) FROM jo_ord o, jo_prod p, jo_cust c
  WHERE p.id = o.prod_id AND c.id = o.cust_id AND c.name = 'c14';
SELECT count(*), sum(o.qty * p.price) FROM jo_ord o, jo_prod p, jo_cust c
  WHERE p.id = o.prod_id AND c.id = o.cust_id AND c.name = 'c14';
-- An inner join on the preserved side of a LEFT JOIN is reordered inside;
-- the LEFT JOIN's nullable side stays where it is.
EXPLAIN (COSTS OFF)
SELECT count(*), count(p.id) FROM jo_ord o JOIN jo_cust c ON c.id = o.cust_id
  LEFT JOIN jo_prod p ON p.id = o.prod_id AND p.cat = 'k1' WHERE c.name = 'c20';
SELECT count(*), count(p.id) FROM jo_ord o JOIN jo_cust c ON c.id = o.cust_id
  LEFT JOIN jo_prod p ON p.id = o.prod_id AND p.cat = 'k1' WHERE c.name = 'c20';
EXPLAIN (COSTS OFF)
SELECT count(*), count(o.id) FROM jo_cust c LEFT JOIN jo_ord o ON o.cust_id = c.id WHERE c.region_id = 3;
SELECT count(*), count(o.id) FROM jo_cust c LEFT JOIN jo_ord o ON o.cust_id = c.id WHERE c.region_id = 3;
-- join_collapse_limit = 1: as written.
SET join_collapse_limit = 1;
EXPLAIN (COSTS OFF)
SELECT count(*), sum(o.qty * p.price) FROM jo_ord o, jo_prod p, jo_cust c
  WHERE p.id = o.prod_id AND c.id = o.cust_id AND c.name = 'c14';
SELECT count(*), sum(o.qty * p.price) FROM jo_ord o, jo_prod p, jo_cust c
  WHERE p.id = o.prod_id AND c.id = o.cust_id AND c.name = 'c14';
RESET join_collapse_limit;
-- Every row of a 4-way join, reordered and as written, is the same.
SELECT o.id, c.name, p.cat, r.name FROM jo_ord o JOIN jo_prod p ON p.id = o.prod_id
  JOIN jo_cust c ON c.id = o.cust_id JOIN jo_region r ON r.id = c.region_id
  WHERE r.name LIKE 'south%' AND p.price < 14 ORDER BY o.id;
SET join_collapse_limit = 1;
SELECT o.id, c.name, p.cat, r.name FROM jo_ord o JOIN jo_prod p ON p.id = o.prod_id
  JOIN jo_cust c ON c.id = o.cust_id JOIN jo_region r ON r.id = c.region_id
  WHERE r.name LIKE 'south%' AND p.price < 14 ORDER BY o.id;
RESET join_collapse_limit;
-- A lookup join over a hash join whose left rows match more rows than one
-- batch holds (the hash join resumed such a row with key values of an
-- earlier call's stack frame, losing matches).
CREATE TABLE jo_f2 (id int PRIMARY KEY, a int, b int);
CREATE TABLE jo_f3 (id int PRIMARY KEY, a int, b int);
CREATE TABLE jo_f5 (k1 int, k2 int, a int, PRIMARY KEY (k1, k2));
CREATE INDEX jo_f2_a ON jo_f2 (a);
INSERT INTO jo_f2 SELECT i, i % 50, i % 13 FROM generate_series(1, 900) i;
INSERT INTO jo_f3 SELECT i, i % 5, i % 11 FROM generate_series(1, 300) i;
INSERT INTO jo_f5 SELECT i % 30, i, i % 9 FROM generate_series(1, 500) i;
ANALYZE jo_f2;
ANALYZE jo_f3;
ANALYZE jo_f5;
EXPLAIN (COSTS OFF)
SELECT count(*), sum(t0.id), sum(t2.a) FROM jo_f3 t0 JOIN jo_f5 t1 ON t1.a = t0.id AND t1.k2 > 3
  LEFT JOIN jo_f2 t2 ON t2.a = t0.a;
SELECT count(*), sum(t0.id), sum(t2.a) FROM jo_f3 t0 JOIN jo_f5 t1 ON t1.a = t0.id AND t1.k2 > 3
  LEFT JOIN jo_f2 t2 ON t2.a = t0.a;
SELECT count(*), sum(t2.id) FROM jo_f3 t0 JOIN jo_f5 t1 ON t1.a = t0.id AND t1.k2 > 3
  JOIN jo_f2 t2 ON t2.a = t0.a WHERE t0.id <= 100;
DROP TABLE jo_f2, jo_f3, jo_f5;
-- Hashing the inner table would pass the hash join's memory (2 x work_mem):
-- each outer row is looked up instead, also past a quarter of the table's rows.
CREATE TABLE jo_lk_u (id int PRIMARY KEY, name text, country text);
CREATE TABLE jo_lk_e (t int, id int, user_id int, amount int, PRIMARY KEY (t, id));
INSERT INTO jo_lk_u SELECT i, 'user ' || i, 'c' || (i % 7) FROM generate_series(1, 3000) i;
INSERT INTO jo_lk_e SELECT i % 10, i, (i * 7) % 3000 + 1, i % 100 FROM generate_series(1, 20000) i;
ANALYZE jo_lk_u;
ANALYZE jo_lk_e;
EXPLAIN (COSTS OFF)
SELECT u.country, count(*), sum(e.amount) FROM jo_lk_e e JOIN jo_lk_u u ON u.id = e.user_id
  WHERE e.t = 3 GROUP BY 1 ORDER BY 1;
SET work_mem = '64kB';
EXPLAIN (COSTS OFF)
SELECT u.country, count(*), sum(e.amount) FROM jo_lk_e e JOIN jo_lk_u u ON u.id = e.user_id
  WHERE e.t = 3 GROUP BY 1 ORDER BY 1;
SELECT u.country, count(*), sum(e.amount) FROM jo_lk_e e JOIN jo_lk_u u ON u.id = e.user_id
  WHERE e.t = 3 GROUP BY 1 ORDER BY 1;
RESET work_mem;
SELECT u.country, count(*), sum(e.amount) FROM jo_lk_e e JOIN jo_lk_u u ON u.id = e.user_id
  WHERE e.t = 3 GROUP BY 1 ORDER BY 1;
DROP TABLE jo_lk_u, jo_lk_e;
DROP TABLE jo_ord, jo_prod, jo_cust, jo_region;
