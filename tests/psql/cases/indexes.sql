-- Secondary indexes and unique constraints in \d, \di, \d <index> and pg_indexes.
CREATE TABLE ix (id integer PRIMARY KEY, name text NOT NULL, code varchar(8) UNIQUE, score integer);
CREATE INDEX ix_name_idx ON ix (name);
CREATE UNIQUE INDEX ix_score_desc ON ix (score DESC NULLS LAST) WHERE score > 0;
CREATE INDEX ix_multi ON ix (name, score) INCLUDE (code);
CREATE INDEX ix_lower ON ix (lower(name));
\d ix
\di
\d ix_name_idx
\d ix_score_desc
\d ix_multi
\d ix_lower
\d ix_code_key
SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 'ix' ORDER BY indexname;
SELECT c.relname, i.indnatts, i.indnkeyatts, i.indisunique, i.indkey, i.indoption, pg_get_expr(i.indpred, i.indrelid)
  FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid WHERE i.indrelid = 'ix'::regclass ORDER BY 1;
DROP TABLE ix;
