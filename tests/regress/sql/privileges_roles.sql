--
-- privileges_roles: CREATE/ALTER/DROP ROLE and USER, memberships given at
-- creation (IN ROLE, ROLE), GRANT/REVOKE role with its errors (cycles,
-- PUBLIC, unknown roles), who may manage roles, RENAME, and DROP ROLE
-- refusing while the role owns objects or holds privileges.
--
CREATE ROLE regress_r1;
CREATE ROLE regress_r1;
CREATE USER regress_u1 PASSWORD 'secret' CREATEDB VALID UNTIL '2030-01-01';
CREATE ROLE pg_foo;
CREATE ROLE regress_r2 IN ROLE regress_r1;
CREATE ROLE regress_r3 ROLE regress_u1;
SELECT pg_has_role('regress_r2', 'regress_r1', 'MEMBER'), pg_has_role('regress_u1', 'regress_r3', 'MEMBER');
ALTER ROLE regress_r1 SUPERUSER;
SELECT rolname, rolsuper, rolcreatedb, rolcanlogin, rolinherit FROM pg_roles WHERE rolname LIKE 'regress_%' ORDER BY 1;
ALTER ROLE regress_r1 NOSUPERUSER NOINHERIT;
ALTER ROLE regress_nosuch LOGIN;
ALTER ROLE regress_r1 RENAME TO regress_r1b;
GRANT regress_r1b TO regress_r2;
GRANT regress_r2 TO regress_r1b;
GRANT regress_r2 TO regress_r2;
GRANT regress_r2 TO public;
GRANT nosuch TO regress_r2;
SET ROLE regress_u1;
CREATE ROLE regress_x;
GRANT regress_r2 TO regress_u1;
DROP ROLE regress_r2;
RESET ROLE;
CREATE TABLE owned_by_r2 (a int);
ALTER TABLE owned_by_r2 OWNER TO regress_r2;
GRANT SELECT ON owned_by_r2 TO regress_u1;
DROP ROLE regress_r2;
DROP ROLE regress_u1;
DROP TABLE owned_by_r2;
DROP ROLE regress_u1;
DROP ROLE IF EXISTS regress_nosuch;
DROP ROLE postgres;
DROP ROLE regress_r1b, regress_r2, regress_r3;
DROP USER regress_nosuch;
