-- pg_dump 15 of a schema with tables, defaults, constraints, a serial column,
-- a sequence, a view, comments and data (through psql's \!; sizes of nothing
-- are involved, server version and restrict keys are masked).
CREATE TABLE d_parent (id integer PRIMARY KEY, name text NOT NULL DEFAULT 'x', amount numeric(10,2) DEFAULT 0,
    created timestamptz DEFAULT now());
CREATE TABLE d_child (a integer CONSTRAINT d_child_a_check CHECK (a > 0), parent_id integer REFERENCES d_parent(id) ON DELETE CASCADE,
    s serial, note varchar(20));
CREATE SEQUENCE d_seq START 5 INCREMENT 2;
CREATE VIEW d_view AS SELECT p.id, p.name, count(c.a) AS children FROM d_parent p LEFT JOIN d_child c ON c.parent_id = p.id GROUP BY p.id, p.name;
COMMENT ON TABLE d_parent IS 'parents';
COMMENT ON COLUMN d_child.note IS 'a note';
INSERT INTO d_parent VALUES (1, 'one', 1.5, '2024-01-02 03:04:05+00'), (2, 'two', NULL, NULL);
INSERT INTO d_child (a, parent_id, note) VALUES (1, 1, 'first'), (2, 1, NULL), (3, 2, 'tab	and ''quote''');
SELECT nextval('d_seq');
\! pg_dump --no-owner
DROP VIEW d_view;
DROP TABLE d_child;
DROP TABLE d_parent;
DROP SEQUENCE d_seq;
