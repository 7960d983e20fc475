-- Queries drivers and tools send to the catalog, on a small schema.
CREATE TABLE parent (id integer PRIMARY KEY, name varchar(40) NOT NULL);
CREATE TABLE child (
    id bigserial PRIMARY KEY,
    parent_id integer NOT NULL REFERENCES parent(id) ON DELETE CASCADE,
    qty numeric(8,2) DEFAULT 0 CHECK (qty >= 0),
    note text
);
SELECT c.relname, c.relkind, c.relnatts, c.relhasindex, c.relchecks, c.relpersistence
  FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
  WHERE n.nspname = 'public' ORDER BY c.relname;
SELECT a.attname, format_type(a.atttypid, a.atttypmod), a.attnotnull, a.atthasdef, a.attnum, a.attlen, a.attstorage, a.attidentity
  FROM pg_attribute a WHERE a.attrelid = 'child'::regclass AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum;
SELECT conname, contype, conkey, confkey, confrelid::regclass, confdeltype, confupdtype, confmatchtype, convalidated
  FROM pg_constraint WHERE conrelid = 'child'::regclass ORDER BY conname;
SELECT ic.relname AS index, i.indisprimary, i.indisunique, i.indnatts, i.indkey, i.indkey::int2[] AS keys, i.indoption, i.indclass::oid[]::regclass[] IS NOT NULL AS has_class,
       pg_get_indexdef(i.indexrelid), pg_get_indexdef(i.indexrelid, 1, true)
  FROM pg_index i JOIN pg_class ic ON ic.oid = i.indexrelid
  WHERE i.indrelid IN ('parent'::regclass, 'child'::regclass) ORDER BY 1;
SELECT pg_get_serial_sequence('child', 'id'), pg_get_serial_sequence('parent', 'id');
SELECT s.relname, d.deptype, d.refobjid::regclass, d.refobjsubid
  FROM pg_depend d JOIN pg_class s ON s.oid = d.objid
  WHERE d.classid = 'pg_class'::regclass AND s.relkind = 'S' AND d.refobjid = 'child'::regclass;
SELECT schemaname, tablename, indexname, indexdef FROM pg_indexes WHERE schemaname = 'public' ORDER BY indexname;
SELECT schemaname, tablename, tableowner, hasindexes FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename;
SELECT sequencename, data_type, start_value, min_value, max_value, increment_by, cycle, cache_size, last_value
  FROM pg_sequences WHERE schemaname = 'public';
SELECT table_name, column_name, ordinal_position, column_default, is_nullable, data_type, character_maximum_length,
       numeric_precision, numeric_precision_radix, numeric_scale, udt_name, is_identity, is_generated, is_updatable
  FROM information_schema.columns WHERE table_schema = 'public' ORDER BY table_name, ordinal_position;
SELECT table_name, table_type, is_insertable_into FROM information_schema.tables WHERE table_schema = 'public' ORDER BY 1;
SELECT constraint_name, table_name, constraint_type, is_deferrable, initially_deferred
  FROM information_schema.table_constraints WHERE table_schema = 'public' AND constraint_type <> 'CHECK' ORDER BY 1;
SELECT count(*) FROM information_schema.table_constraints WHERE table_schema = 'public' AND constraint_type = 'CHECK';
SELECT constraint_name, table_name, column_name, ordinal_position, position_in_unique_constraint
  FROM information_schema.key_column_usage WHERE table_schema = 'public' ORDER BY 1, 4;
SELECT constraint_name, unique_constraint_name, match_option, update_rule, delete_rule
  FROM information_schema.referential_constraints WHERE constraint_schema = 'public';
SELECT table_name, column_name, constraint_name FROM information_schema.constraint_column_usage
  WHERE table_schema = 'public' AND constraint_name NOT LIKE '%not_null' ORDER BY 3, 2;
SELECT constraint_name, check_clause FROM information_schema.check_constraints
  WHERE constraint_schema = 'public' AND constraint_name NOT LIKE '%not_null' ORDER BY 1;
SELECT sequence_name, data_type, numeric_precision, start_value, minimum_value, maximum_value, increment, cycle_option
  FROM information_schema.sequences WHERE sequence_schema = 'public';
SELECT schema_name, schema_owner FROM information_schema.schemata ORDER BY 1;
SELECT has_table_privilege('child', 'SELECT'), has_table_privilege('postgres', 'child', 'INSERT, UPDATE'),
       has_schema_privilege('public', 'USAGE'), has_database_privilege('postgres', 'CONNECT'),
       has_column_privilege('child', 'qty', 'SELECT'), pg_has_role('postgres', 'USAGE');
SELECT has_table_privilege('child', 'FLY');
SELECT 'child'::regclass, 'public.child'::regclass::oid = 'child'::regclass::oid, 'int4'::regtype, 'varchar'::regtype,
       'public'::regnamespace, 'postgres'::regrole, to_regclass('nosuch'), to_regtype('nosuch');
SELECT 'nosuch'::regclass;
SELECT typname, typlen, typbyval, typtype, typcategory, typelem::regtype, typarray::regtype, typinput, typoutput, typreceive, typsend
  FROM pg_type WHERE oid IN (16, 20, 23, 25, 1043, 1700, 1007, 22, 30, 2950) ORDER BY oid;
SELECT typinput = 'pg_catalog.array_in'::regproc AS is_array FROM pg_type WHERE oid IN (23, 1007) ORDER BY oid;
SELECT oprname, oprleft::regtype, oprright::regtype, oprresult::regtype, oprcode, oprcom, oprnegate
  FROM pg_operator WHERE oid IN (96, 97, 98, 521, 664) ORDER BY oid;
SELECT proname, pronargs, proargtypes, prorettype::regtype, proretset, provolatile, proisstrict, prokind
  FROM pg_proc WHERE oid IN (1574, 89, 1299, 2079, 1081) ORDER BY oid;
SELECT castsource::regtype, casttarget::regtype, castcontext, castmethod FROM pg_cast
  WHERE (castsource, casttarget) IN (('int4'::regtype, 'int8'::regtype), ('int8'::regtype, 'int4'::regtype), ('varchar'::regtype, 'text'::regtype))
  ORDER BY 1, 2;
SELECT amname, amtype FROM pg_am WHERE amname IN ('heap', 'btree') ORDER BY 1;
SELECT nspname, nspowner::regrole FROM pg_namespace WHERE nspname IN ('public', 'pg_catalog', 'information_schema') ORDER BY 1;
SELECT datname, datdba::regrole, encoding, datcollate, datctype, datistemplate, datallowconn FROM pg_database ORDER BY 1;
SELECT rolname, rolsuper, rolcanlogin FROM pg_roles WHERE rolname = 'postgres' OR rolname = 'pg_database_owner' ORDER BY 1;
SELECT name, setting, vartype, context FROM pg_settings WHERE name IN ('server_version_num', 'integer_datetimes', 'DateStyle') ORDER BY 1;
SELECT pg_size_pretty(10239::bigint), pg_size_pretty(10240::bigint), pg_size_pretty(123456789::bigint),
       pg_size_pretty(-5000000::bigint), pg_size_pretty(1125899906842624::bigint), pg_size_pretty(2.5e9::numeric);
SELECT pg_encoding_to_char(6), pg_char_to_encoding('UTF8'), pg_get_userbyid(10), pg_get_userbyid(999999);
SELECT pg_table_is_visible('child'::regclass), pg_table_is_visible('pg_class'::regclass), pg_type_is_visible(23),
       pg_function_is_visible('now'::regproc);
SELECT pg_get_function_result('generate_series(int4,int4)'::regprocedure), pg_get_function_arguments('generate_series(int4,int4)'::regprocedure);
SELECT array_to_string(ARRAY(SELECT unnest(indkey) FROM pg_index WHERE indrelid = 'child'::regclass), ',');
SELECT count(*) > 0 FROM pg_stat_activity WHERE pid = pg_backend_pid() AND state = 'active' AND datname = 'postgres';
SELECT relname, n_live_tup >= 0 FROM pg_stat_user_tables WHERE schemaname = 'public' ORDER BY relname;
SELECT locktype, mode, granted FROM pg_locks WHERE pid = pg_backend_pid() AND locktype = 'virtualxid';
DROP TABLE child;
DROP TABLE parent;
