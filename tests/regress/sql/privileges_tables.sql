--
-- privileges_tables: GRANT/REVOKE on tables, views, sequences and schemas
-- enforced (42501) for SELECT/INSERT/UPDATE/DELETE/TRUNCATE and COPY, grant
-- options and REVOKE ... CASCADE, role membership and NOINHERIT, SET ROLE
-- and SET SESSION AUTHORIZATION, ALTER ... OWNER TO, views reading with their
-- owner's rights, nextval needing USAGE, has_*_privilege and pg_has_role.
--
CREATE ROLE regress_alice LOGIN;
CREATE ROLE regress_bob LOGIN;
CREATE ROLE regress_staff;
CREATE ROLE regress_noinh NOINHERIT;
CREATE TABLE pt (id serial PRIMARY KEY, a int, b text);
INSERT INTO pt (a, b) VALUES (1, 'x');
CREATE VIEW pv AS SELECT a FROM pt;
SELECT has_table_privilege('regress_alice', 'pt', 'SELECT'), has_table_privilege('postgres', 'pt', 'SELECT, INSERT');
SET ROLE regress_alice;
SELECT current_user, session_user;
SELECT * FROM pt;
INSERT INTO pt (a, b) VALUES (2, 'y');
UPDATE pt SET a = 3;
DELETE FROM pt;
TRUNCATE pt;
SELECT * FROM pv;
COPY pt TO stdout;
COPY pt (a, b) FROM stdin;
5	five
\.
CREATE TABLE at (x int);
ALTER TABLE pt ADD COLUMN c int;
DROP TABLE pt;
GRANT SELECT ON pt TO regress_bob;
RESET ROLE;
GRANT SELECT ON pt TO regress_alice;
GRANT INSERT, UPDATE ON TABLE pt TO regress_staff;
GRANT regress_staff TO regress_alice;
GRANT regress_staff TO regress_alice;
GRANT SELECT ON pv TO regress_bob;
SELECT has_table_privilege('regress_alice', 'pt', 'INSERT'), has_table_privilege('regress_alice', 'pt', 'DELETE');
SELECT pg_has_role('regress_alice', 'regress_staff', 'MEMBER'), pg_has_role('regress_bob', 'regress_staff', 'USAGE');
SET ROLE regress_alice;
SELECT a, b FROM pt;
INSERT INTO pt (a, b) VALUES (2, 'y');
UPDATE pt SET a = 3 WHERE a = 2;
DELETE FROM pt;
COPY pt (a, b) FROM stdin;
5	five
\.
COPY pt (a, b) TO stdout;
GRANT SELECT ON pt TO regress_bob;
SET ROLE regress_bob;
SELECT * FROM pv ORDER BY a;
SELECT * FROM pt;
SET ROLE regress_alice;
RESET ROLE;
REVOKE SELECT ON pt FROM regress_alice;
SET ROLE regress_alice;
SELECT * FROM pt;
UPDATE pt SET a = 4;
UPDATE pt SET a = 5 WHERE a = 3;
RESET ROLE;
REVOKE regress_staff FROM regress_alice;
REVOKE regress_staff FROM regress_alice;
GRANT USAGE ON pt TO regress_alice;
GRANT SELECT ON nosuch TO regress_alice;
GRANT SELECT ON pt TO nosuch;
GRANT ALL ON pt TO regress_alice WITH GRANT OPTION;
SET ROLE regress_alice;
GRANT SELECT ON pt TO regress_bob;
RESET ROLE;
REVOKE GRANT OPTION FOR SELECT ON pt FROM regress_alice;
REVOKE GRANT OPTION FOR SELECT ON pt FROM regress_alice CASCADE;
SELECT has_table_privilege('regress_bob', 'pt', 'SELECT'), has_table_privilege('regress_alice', 'pt', 'SELECT WITH GRANT OPTION');
SELECT has_table_privilege('regress_alice', 'pt', 'INSERT WITH GRANT OPTION');
SELECT has_table_privilege('regress_alice', 'pt', 'FLY');
-- NOINHERIT roles use a granted role's rights only after SET ROLE
GRANT regress_staff TO regress_noinh;
SELECT has_table_privilege('regress_noinh', 'pt', 'INSERT'), pg_has_role('regress_noinh', 'regress_staff', 'MEMBER');
SET ROLE regress_bob;
SET ROLE regress_staff;
RESET ROLE;
-- sequences need USAGE for nextval
SET ROLE regress_staff;
INSERT INTO pt (a, b) VALUES (7, 'z');
RESET ROLE;
GRANT USAGE ON SEQUENCE pt_id_seq TO regress_staff;
SET ROLE regress_staff;
INSERT INTO pt (a, b) VALUES (7, 'z');
SELECT nextval('pt_id_seq') > 0;
SELECT currval('pt_id_seq') > 0;
SELECT setval('pt_id_seq', 100);
RESET ROLE;
-- schemas
CREATE SCHEMA ps;
CREATE TABLE ps.t (a int);
GRANT SELECT ON ALL TABLES IN SCHEMA ps TO regress_alice;
SET ROLE regress_alice;
SELECT * FROM ps.t;
CREATE TABLE ps.u (a int);
RESET ROLE;
GRANT USAGE ON SCHEMA ps TO regress_alice;
SELECT has_schema_privilege('regress_alice', 'ps', 'USAGE'), has_schema_privilege('regress_alice', 'ps', 'CREATE');
SET ROLE regress_alice;
SELECT * FROM ps.t;
RESET ROLE;
GRANT CREATE ON SCHEMA ps TO regress_alice;
SET ROLE regress_alice;
CREATE TABLE ps.u (a int);
DROP TABLE ps.t;
DROP TABLE ps.u;
ALTER TABLE pt ADD COLUMN c int;
RESET ROLE;
-- ownership
ALTER TABLE pt OWNER TO regress_bob;
SELECT has_table_privilege('regress_bob', 'pt', 'DELETE');
SET ROLE regress_bob;
ALTER TABLE pt OWNER TO regress_alice;
ALTER TABLE pt ADD COLUMN c int;
RESET ROLE;
ALTER TABLE pt OWNER TO postgres;
ALTER SCHEMA ps OWNER TO regress_alice;
SET ROLE regress_alice;
DROP TABLE ps.t;
RESET ROLE;
-- views read their tables with the view owner's rights
CREATE TABLE secret (s text);
INSERT INTO secret VALUES ('hidden');
SET ROLE regress_alice;
CREATE VIEW public.peek AS SELECT * FROM secret;
RESET ROLE;
GRANT CREATE ON SCHEMA public TO regress_alice;
SET ROLE regress_alice;
CREATE VIEW peek AS SELECT * FROM secret;
SELECT * FROM peek;
RESET ROLE;
SELECT * FROM peek;
GRANT SELECT ON secret TO regress_alice;
GRANT SELECT ON peek TO regress_bob;
SET ROLE regress_bob;
SELECT * FROM peek;
SELECT * FROM secret;
RESET ROLE;
-- session authorization
SET SESSION AUTHORIZATION regress_alice;
SELECT current_user, session_user;
SET ROLE regress_bob;
SET SESSION AUTHORIZATION postgres;
RESET SESSION AUTHORIZATION;
SELECT current_user, session_user;
SET ROLE nosuch;
DROP VIEW peek;
DROP TABLE secret;
REVOKE CREATE ON SCHEMA public FROM regress_alice;
DROP SCHEMA ps CASCADE;
DROP VIEW pv;
DROP TABLE pt;
DROP ROLE regress_alice, regress_bob, regress_staff, regress_noinh;
