--
-- privileges_columns_defaults: column privileges (GRANT/REVOKE SELECT,
-- INSERT, UPDATE on columns, enforced per column used), has_column_privilege,
-- GRANT role WITH ADMIN OPTION, ALTER DEFAULT PRIVILEGES (FOR ROLE, IN
-- SCHEMA, tables/sequences/functions/types/schemas) applied to new objects,
-- and DROP ROLE refusing while default privileges involve the role.
--
CREATE ROLE regress_c1;
CREATE ROLE regress_c2;
CREATE ROLE regress_grp;
CREATE TABLE cp (a int, b int, c text);
INSERT INTO cp VALUES (1, 2, 'x');
GRANT SELECT (a, b), UPDATE (b) ON cp TO regress_c1;
GRANT INSERT (a, c) ON cp TO regress_c1;
SET ROLE regress_c1;
SELECT a, b FROM cp;
SELECT * FROM cp;
SELECT count(*) FROM cp;
SELECT a FROM cp WHERE c = 'x';
UPDATE cp SET b = b + 1 WHERE a = 1;
UPDATE cp SET a = 5;
INSERT INTO cp (a, c) VALUES (3, 'y');
INSERT INTO cp (a, b) VALUES (3, 4);
DELETE FROM cp;
RESET ROLE;
SELECT has_column_privilege('regress_c1', 'cp', 'a', 'SELECT'), has_column_privilege('regress_c1', 'cp', 'c', 'SELECT'), has_any_column_privilege('regress_c1', 'cp', 'UPDATE');
REVOKE SELECT (b) ON cp FROM regress_c1;
SET ROLE regress_c1;
SELECT a, b FROM cp;
RESET ROLE;
GRANT SELECT (nosuch) ON cp TO regress_c1;
-- admin option
GRANT regress_grp TO regress_c1 WITH ADMIN OPTION;
SET ROLE regress_c1;
GRANT regress_grp TO regress_c2;
RESET ROLE;
SELECT pg_has_role('regress_c2', 'regress_grp', 'MEMBER'), pg_has_role('regress_c1', 'regress_grp', 'MEMBER WITH ADMIN OPTION');
REVOKE ADMIN OPTION FOR regress_grp FROM regress_c1;
SET ROLE regress_c1;
GRANT regress_grp TO regress_c1;
REVOKE regress_grp FROM regress_c2;
RESET ROLE;
-- default privileges
ALTER DEFAULT PRIVILEGES GRANT SELECT ON TABLES TO regress_c2;
ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT INSERT ON TABLES TO regress_c2;
ALTER DEFAULT PRIVILEGES FOR ROLE regress_c1 GRANT USAGE ON SEQUENCES TO regress_c2;
CREATE TABLE dp (a serial);
SELECT has_table_privilege('regress_c2', 'dp', 'SELECT'), has_table_privilege('regress_c2', 'dp', 'INSERT'), has_table_privilege('regress_c2', 'dp', 'DELETE');
SELECT has_sequence_privilege('regress_c2', 'dp_a_seq', 'USAGE');
ALTER DEFAULT PRIVILEGES REVOKE SELECT ON TABLES FROM regress_c2;
ALTER DEFAULT PRIVILEGES IN SCHEMA public REVOKE INSERT ON TABLES FROM regress_c2;
ALTER DEFAULT PRIVILEGES REVOKE ALL ON TABLES FROM postgres;
CREATE TABLE dp2 (a int);
SELECT has_table_privilege('postgres', 'dp2', 'SELECT'), has_table_privilege('regress_c2', 'dp2', 'SELECT');
ALTER DEFAULT PRIVILEGES GRANT ALL ON TABLES TO postgres;
ALTER DEFAULT PRIVILEGES FOR ROLE regress_c1 REVOKE USAGE ON SEQUENCES FROM regress_c2;
ALTER DEFAULT PRIVILEGES FOR ROLE nosuch GRANT SELECT ON TABLES TO regress_c2;
ALTER DEFAULT PRIVILEGES IN SCHEMA nosuch GRANT SELECT ON TABLES TO regress_c2;
ALTER DEFAULT PRIVILEGES GRANT SELECT ON FUNCTIONS TO regress_c2;
ALTER DEFAULT PRIVILEGES GRANT EXECUTE ON FUNCTIONS TO regress_c2;
ALTER DEFAULT PRIVILEGES REVOKE EXECUTE ON FUNCTIONS FROM PUBLIC;
ALTER DEFAULT PRIVILEGES GRANT EXECUTE ON FUNCTIONS TO PUBLIC;
DROP TABLE dp, dp2, cp;
DROP ROLE regress_c1, regress_c2, regress_grp;
ALTER DEFAULT PRIVILEGES REVOKE EXECUTE ON FUNCTIONS FROM regress_c2;
DROP ROLE regress_c1, regress_c2, regress_grp;
CREATE ROLE regress_d1;
CREATE ROLE regress_d2;
ALTER DEFAULT PRIVILEGES FOR ROLE regress_d1 GRANT SELECT ON TABLES TO regress_d2;
ALTER DEFAULT PRIVILEGES FOR ROLE regress_d1 IN SCHEMA public GRANT UPDATE ON TABLES TO regress_d2;
DROP ROLE regress_d1;
DROP ROLE regress_d2;
ALTER DEFAULT PRIVILEGES FOR ROLE regress_d1 IN SCHEMA public REVOKE UPDATE ON TABLES FROM regress_d2;
ALTER DEFAULT PRIVILEGES FOR ROLE regress_d1 REVOKE SELECT ON TABLES FROM regress_d2;
ALTER DEFAULT PRIVILEGES FOR ROLE regress_d1 REVOKE ALL ON SEQUENCES FROM regress_d1;
DROP ROLE regress_d1;
ALTER DEFAULT PRIVILEGES FOR ROLE regress_d1 GRANT ALL ON SEQUENCES TO regress_d1;
ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT USAGE ON SCHEMAS TO regress_d2;
ALTER DEFAULT PRIVILEGES GRANT USAGE ON TYPES TO regress_d2;
ALTER DEFAULT PRIVILEGES REVOKE USAGE ON TYPES FROM regress_d2;
SET ROLE regress_d2;
ALTER DEFAULT PRIVILEGES FOR ROLE regress_d1 GRANT SELECT ON TABLES TO regress_d2;
RESET ROLE;
DROP ROLE regress_d1, regress_d2;
