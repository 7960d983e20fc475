-- Listings of schemas, databases, roles, functions, types, and the
-- size-bearing listings (printed unaligned: sizes are masked).
CREATE SCHEMA s1;
CREATE TABLE s1.a (x integer PRIMARY KEY);
CREATE TABLE pub (y text);
COMMENT ON TABLE pub IS 'a public table';
COMMENT ON SCHEMA s1 IS 'schema one';
\dn
\dn+
\l
\du
\df
\dT
\dt s1.*
\d s1.a
\dt *.a
SET search_path = s1, public;
\dt
\d a
RESET search_path;
\pset format unaligned
\dt+
\di+
\dt+ s1.*
\pset format aligned
DROP TABLE s1.a;
DROP SCHEMA s1;
DROP TABLE pub;
