-- \conninfo and \watch (a query that fails on its third run ends \watch).
\conninfo
CREATE SEQUENCE w;
SELECT 10 / (3 - nextval('w')) AS v \watch 0.1
SELECT currval('w');
DROP SEQUENCE w;
\c postgres
\conninfo
