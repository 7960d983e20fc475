-- \du with roles of different attributes and memberships; \l with a new database.
CREATE ROLE reader NOLOGIN;
CREATE ROLE app LOGIN CREATEDB CONNECTION LIMIT 5;
CREATE ROLE admin SUPERUSER CREATEROLE VALID UNTIL '2030-01-01 00:00:00+00';
\du
\du app
\dg
CREATE DATABASE scratch;
\l
\c scratch
SELECT current_database(), current_user;
\c postgres
DROP DATABASE scratch;
DROP ROLE admin;
DROP ROLE app;
DROP ROLE reader;
