-- Comments on tables, columns, views and schemas in \d+ and listings.
CREATE TABLE doc (id integer PRIMARY KEY, body text, n numeric);
CREATE VIEW doc_v AS SELECT id, body FROM doc;
COMMENT ON TABLE doc IS 'documents';
COMMENT ON COLUMN doc.body IS 'the text';
COMMENT ON COLUMN doc.n IS 'a number';
COMMENT ON VIEW doc_v IS 'document view';
\d+ doc
\d+ doc_v
\pset format unaligned
\dt+ doc
\dv+
\pset format aligned
SELECT obj_description('doc'::regclass, 'pg_class'), col_description('doc'::regclass, 2), col_description('doc'::regclass, 9);
COMMENT ON TABLE doc IS NULL;
SELECT obj_description('doc'::regclass);
DROP VIEW doc_v;
DROP TABLE doc;
