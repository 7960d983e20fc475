--
-- quote_ident_keywords: identifiers are quoted when they are keywords that
-- are not unreserved (reserved, column-name and type/function-name
-- keywords alike: between, user, int, left ...), by quote_ident(), format()
-- %I, regclass output and the catalog functions that print names.
--
SELECT quote_ident('between'), quote_ident('user'), quote_ident('int'), quote_ident('left'),
       quote_ident('select'), quote_ident('abort'), quote_ident('name'), quote_ident('Mixed');
SELECT format('%I.%I', 'coalesce', 'overlaps'), format('%I', 'xmlelement');
SELECT word, quote_ident(word) = word AS bare FROM unnest(ARRAY['all', 'authorization', 'bigint',
       'binary', 'boolean', 'char', 'collation', 'concurrently', 'cross', 'current_schema', 'exists',
       'freeze', 'grouping', 'ilike', 'inner', 'join', 'national', 'none', 'normalize', 'notnull',
       'nullif', 'outer', 'precision', 'row', 'setof', 'similar', 'tablesample', 'treat',
       'values', 'verbose', 'absolute', 'data', 'key', 'text', 'zone']) AS t(word) ORDER BY word;
CREATE TABLE "between" (id int PRIMARY KEY, "user" int, "left" text);
CREATE INDEX "int" ON "between" ("user");
SELECT '"between"'::regclass, '"int"'::regclass;
SELECT relname::regclass FROM pg_class WHERE relname IN ('between', 'int') ORDER BY 1;
SELECT pg_get_indexdef('"int"'::regclass);
SELECT conname, pg_get_constraintdef(oid) FROM pg_constraint WHERE conrelid = '"between"'::regclass;
CREATE VIEW "natural" AS SELECT "user", "left" FROM "between";
SELECT pg_get_viewdef('"natural"'::regclass);
DROP VIEW "natural";
DROP TABLE "between";
