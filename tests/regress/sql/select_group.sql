--
-- select_group: GROUP BY (columns, expressions, ordinals, aliases), GROUPING SETS,
-- ROLLUP, CUBE, GROUPING(), HAVING, and grouping errors (42803).
--
CREATE TABLE sales (region text, city text, product text, qty int, price numeric(8,2), day date);
INSERT INTO sales VALUES
  ('north', 'oslo', 'apple', 10, 1.50, '2024-01-01'),
  ('north', 'oslo', 'pear', 5, 2.00, '2024-01-01'),
  ('north', 'bergen', 'apple', 7, 1.40, '2024-01-02'),
  ('south', 'rome', 'apple', 3, 1.80, '2024-01-02'),
  ('south', 'rome', 'fig', 12, 3.10, '2024-01-03'),
  ('south', 'naples', 'fig', 8, 2.90, '2024-01-03'),
  ('south', NULL, 'pear', 4, 2.20, '2024-01-04'),
  (NULL, NULL, 'apple', 1, 1.00, NULL);
SELECT region, sum(qty) FROM sales GROUP BY region ORDER BY region;
SELECT region, city, count(*) FROM sales GROUP BY region, city ORDER BY 1, 2;
SELECT region, count(*) FROM sales GROUP BY 1 ORDER BY 1 NULLS FIRST;
SELECT upper(region) AS r, sum(qty) FROM sales GROUP BY r ORDER BY r;
SELECT upper(region), sum(qty) FROM sales GROUP BY upper(region) ORDER BY 1;
SELECT qty > 5 AS big, count(*) FROM sales GROUP BY qty > 5 ORDER BY 1;
SELECT extract(day FROM day) AS d, sum(qty * price) FROM sales GROUP BY 1 ORDER BY 1;
SELECT count(*) FROM sales GROUP BY region HAVING count(*) > 2 ORDER BY 1;
SELECT region FROM sales GROUP BY region HAVING sum(qty) > 20 ORDER BY 1;
SELECT region, sum(qty) FROM sales GROUP BY region HAVING region IS NOT NULL ORDER BY 1;
SELECT sum(qty) FROM sales HAVING sum(qty) > 10;
SELECT sum(qty) FROM sales HAVING sum(qty) > 1000;
SELECT 1 FROM sales HAVING true;
SELECT region FROM sales GROUP BY region, region ORDER BY 1;
SELECT region, city FROM sales GROUP BY (region, city) ORDER BY 1, 2;
SELECT region, max(price) FROM sales WHERE qty > 3 GROUP BY region ORDER BY 2 DESC;
SELECT count(*) FROM sales WHERE false;
SELECT region, count(*) FROM sales WHERE false GROUP BY region;
SELECT product, sum(qty) FROM sales GROUP BY product ORDER BY sum(qty) DESC, product;
-- grouping sets
SELECT region, city, sum(qty) FROM sales GROUP BY GROUPING SETS ((region), (city), ()) ORDER BY 1, 2, 3;
SELECT region, city, sum(qty), grouping(region, city) FROM sales GROUP BY ROLLUP (region, city) ORDER BY 1, 2, 3, 4;
SELECT region, product, sum(qty), grouping(region), grouping(product) FROM sales GROUP BY CUBE (region, product) ORDER BY 1, 2, 3;
SELECT region, city, product, count(*) FROM sales GROUP BY region, ROLLUP (city, product) ORDER BY 1, 2, 3, 4;
SELECT region, count(*) FROM sales GROUP BY GROUPING SETS ((), (region)) ORDER BY 1 NULLS FIRST, 2;
SELECT region, count(*) FROM sales GROUP BY GROUPING SETS ((region), (region)) ORDER BY 1, 2;
SELECT region, city, count(*) FROM sales GROUP BY GROUPING SETS ((region, city), (product, region), ()) ORDER BY 1, 2, 3;
SELECT count(*) FROM sales GROUP BY GROUPING SETS (());
SELECT count(*) FROM sales WHERE false GROUP BY GROUPING SETS ((), ());
SELECT region, city, sum(qty) FROM sales GROUP BY ROLLUP ((region, city)) ORDER BY 1, 2, 3;
SELECT region, grouping(region) AS g FROM sales GROUP BY ROLLUP (region) HAVING grouping(region) = 1;
SELECT region, product, sum(qty) FROM sales GROUP BY GROUPING SETS (ROLLUP (region), CUBE (product)) ORDER BY 1, 2, 3;
SELECT region, sum(qty) FROM sales GROUP BY DISTINCT ROLLUP (region), ROLLUP (region) ORDER BY 1, 2;
SELECT region, sum(qty) FROM sales GROUP BY ROLLUP (region), ROLLUP (region) ORDER BY 1, 2;
SELECT region, city, sum(qty) FROM sales GROUP BY CUBE (region, city) HAVING sum(qty) > 10 ORDER BY 1, 2, 3;
SELECT CASE WHEN grouping(region) = 1 THEN 'all' ELSE region END AS r, sum(qty) FROM sales GROUP BY ROLLUP (region) ORDER BY 2;
-- errors
SELECT region, city FROM sales GROUP BY region;
SELECT region, sum(qty) FROM sales;
SELECT * FROM sales GROUP BY region;
SELECT region FROM sales GROUP BY 7;
SELECT region FROM sales GROUP BY sum(qty);
SELECT region FROM sales WHERE sum(qty) > 1 GROUP BY region;
SELECT region FROM sales GROUP BY region HAVING city = 'oslo';
SELECT sum(sum(qty)) FROM sales;
SELECT grouping(city) FROM sales GROUP BY region;
SELECT region, city FROM sales GROUP BY ROLLUP (region) ORDER BY city;
DROP TABLE sales;
