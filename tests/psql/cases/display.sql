-- Output settings: \x, \timing, \pset, \a, and \g forms.
CREATE TABLE d (id integer PRIMARY KEY, name text, note text);
INSERT INTO d VALUES (1, 'one', 'first'), (2, 'two', NULL), (3, 'three', 'a
multi-line value');
SELECT * FROM d ORDER BY id;
\x
SELECT * FROM d ORDER BY id;
\x auto
SELECT * FROM d ORDER BY id;
\x off
\timing on
SELECT count(*) FROM d;
\timing off
\pset null '(null)'
SELECT * FROM d ORDER BY id;
\pset null ''
\a
SELECT * FROM d ORDER BY id;
\a
\pset border 2
SELECT * FROM d ORDER BY id;
\pset border 1
SELECT name FROM d WHERE id = 1 \gx
SELECT id, name FROM d ORDER BY id \gset p_
\echo :p_id :p_name
\d d
\x
\d d
\x off
DROP TABLE d;
