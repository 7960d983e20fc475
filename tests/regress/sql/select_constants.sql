--
-- select_constants: the foundation's first slice. SELECT of constants without a
-- FROM clause, result column names and types, and the errors every later test
-- relies on: undefined column (42703) and syntax error (42601) with a cursor
-- position, division by zero (22012).
--
SELECT 1;
SELECT 'a' AS x, 2.5;
SELECT 1 + 1;
SELECT 1 AS one, 'two' AS two, 3.0 AS three;
SELECT -7, 'it''s', '';
SELECT NULL;
select 1 as "Mixed Case", 2 as lower_case;
-- errors
select nope;
SELECT 1, nope, 3;
selec 1;
SELECT 1 +;
select 1/0;
-- the session is still usable after an error
SELECT 'still here' AS status;
