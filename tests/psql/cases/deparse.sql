-- How stored expressions print: pg_get_constraintdef, pg_get_expr (plain and
-- pretty) and pg_get_viewdef for CHECK constraints, column defaults and views.
CREATE TABLE e (
    id integer PRIMARY KEY,
    r real,
    f double precision,
    n numeric(12,3),
    i2 smallint,
    i8 bigint,
    s text,
    vc varchar(20),
    b boolean,
    d date,
    ts timestamp,
    tz timestamptz,
    arr integer[],
    CONSTRAINT c_r CHECK (r >= 0 AND r < 100),
    CONSTRAINT c_f CHECK (f > 1.5 OR f IS NULL),
    CONSTRAINT c_n CHECK (n <> -1 AND n BETWEEN 0 AND 1e6),
    CONSTRAINT c_i2 CHECK (i2 IN (1, 2, 3)),
    CONSTRAINT c_i8 CHECK (i8 * 2 + 1 > id - (i2 + 1)),
    CONSTRAINT c_s CHECK (s LIKE 'a%' OR s ~ '^b' OR length(s) = 0),
    CONSTRAINT c_vc CHECK (vc <> '' AND upper(vc) IS NOT NULL),
    CONSTRAINT c_b CHECK (b OR NOT b),
    CONSTRAINT c_d CHECK (d > '2000-01-01' AND d < CURRENT_DATE + 365),
    CONSTRAINT c_case CHECK (CASE WHEN id > 10 THEN s IS NOT NULL WHEN id < 0 THEN false ELSE true END),
    CONSTRAINT c_coalesce CHECK (coalesce(i8, 0) >= 0 AND nullif(s, 'x') IS DISTINCT FROM 'y'),
    CONSTRAINT c_arr CHECK (array_length(arr, 1) < 5 AND arr[1] > 0),
    CONSTRAINT c_cast CHECK (id::text <> 'x' AND CAST(r AS integer) < 1000 AND 0::float8 <= f)
);
CREATE TABLE defs (
    a integer DEFAULT 42,
    b integer DEFAULT -1,
    c bigint DEFAULT 7,
    d numeric DEFAULT 1.25,
    e numeric(5,2) DEFAULT 3,
    f real DEFAULT 2.5,
    g double precision DEFAULT -0.5,
    h text DEFAULT 'it''s',
    i varchar(5) DEFAULT 'v',
    j char(2) DEFAULT 'c',
    k boolean DEFAULT false,
    l date DEFAULT CURRENT_DATE,
    m timestamp DEFAULT LOCALTIMESTAMP,
    n timestamptz DEFAULT now(),
    o text DEFAULT upper('x' || 'y'),
    p integer DEFAULT 1 + 2 * 3,
    q text[] DEFAULT '{}',
    r integer DEFAULT NULL,
    s serial
);
SELECT conname, pg_get_constraintdef(oid) FROM pg_constraint WHERE conrelid = 'e'::regclass ORDER BY conname;
SELECT conname, pg_get_constraintdef(oid, true) FROM pg_constraint WHERE conrelid = 'e'::regclass ORDER BY conname;
SELECT conname, pg_get_expr(conbin, conrelid, true) FROM pg_constraint WHERE conrelid = 'e'::regclass AND contype = 'c' ORDER BY conname;
SELECT a.attname, pg_get_expr(d.adbin, d.adrelid), pg_get_expr(d.adbin, d.adrelid, true)
  FROM pg_attrdef d JOIN pg_attribute a ON a.attrelid = d.adrelid AND a.attnum = d.adnum
  WHERE d.adrelid = 'defs'::regclass ORDER BY d.adnum;
SELECT column_name, column_default FROM information_schema.columns WHERE table_name = 'defs' ORDER BY ordinal_position;
CREATE VIEW w1 AS SELECT id, s AS name, r * 2 AS double_r FROM e WHERE id > 0 AND s IS NOT NULL ORDER BY id DESC LIMIT 10;
CREATE VIEW w2 AS SELECT e.id, count(*) AS n, max(defs.a) AS top FROM e LEFT JOIN defs ON defs.a = e.id GROUP BY e.id HAVING count(*) > 1;
CREATE VIEW w3 AS SELECT DISTINCT s FROM e UNION SELECT h FROM defs;
CREATE VIEW w4 AS SELECT id, (SELECT max(a) FROM defs) AS m FROM e WHERE EXISTS (SELECT 1 FROM defs WHERE defs.a = e.id);
CREATE VIEW w5 (x, y) AS SELECT id, s FROM e;
SELECT pg_get_viewdef('w1'::regclass, true);
SELECT pg_get_viewdef('w1'::regclass);
SELECT pg_get_viewdef('w2'::regclass, true);
SELECT pg_get_viewdef('w2'::regclass);
SELECT pg_get_viewdef('w3'::regclass, true);
SELECT pg_get_viewdef('w4'::regclass, true);
SELECT pg_get_viewdef('w5'::regclass, true);
SELECT viewname, definition FROM pg_views WHERE schemaname = 'public' ORDER BY viewname;
DROP VIEW w1;
DROP VIEW w2;
DROP VIEW w3;
DROP VIEW w4;
DROP VIEW w5;
DROP TABLE e;
DROP TABLE defs;
