-- Role membership shown by \du (Member of) and pg_auth_members.
CREATE ROLE grp NOLOGIN;
CREATE ROLE usr LOGIN IN ROLE grp;
\du usr
SELECT r.rolname, m.rolname AS member FROM pg_auth_members a JOIN pg_roles r ON r.oid = a.roleid JOIN pg_roles m ON m.oid = a.member WHERE m.rolname = 'usr';
DROP ROLE usr;
DROP ROLE grp;
