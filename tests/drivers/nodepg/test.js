// test.js — node-postgres (npm pg + pg-cursor) against strata: simple and
// parameterized queries, named (prepared) statements, type parsing, row modes,
// transactions, errors with SQLSTATEs, pg-cursor reads, the connection pool and
// COPY-free bulk inserts. Run by run.sh with PGHOST/PGPORT/PGUSER/PGDATABASE set
// for a fresh server; prints one line per test and "N passed, N failed, N skipped".
'use strict';
const fs = require('fs');
const path = require('path');
const { Client, Pool } = require('pg');
const Cursor = require('pg-cursor');
const assert = require('assert');

const tests = [];
const test = (name, fn) => tests.push({ name, fn });

function xfails() {
  const out = {};
  const file = path.join(__dirname, '..', 'xfail.list');
  if (!fs.existsSync(file)) return out;
  for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
    const t = line.trim();
    if (!t || t.startsWith('#')) continue;
    const sp = t.indexOf(' ');
    const name = sp < 0 ? t : t.slice(0, sp);
    if (name.startsWith('nodepg.')) out[name.slice(7)] = t.slice(sp + 1).trim();
  }
  return out;
}

async function withClient(fn) {
  const c = new Client();
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

async function expectError(p, sqlstate) {
  try {
    await p;
  } catch (e) {
    assert.strictEqual(e.code, sqlstate, `SQLSTATE of "${e.message}"`);
    return e;
  }
  throw new Error(`expected an error with SQLSTATE ${sqlstate}`);
}

test('simple_query', () => withClient(async (c) => {
  const r = await c.query('SELECT 1 AS one, \'two\' AS two, NULL::int AS nothing');
  assert.deepStrictEqual(r.rows, [{ one: 1, two: 'two', nothing: null }]);
  assert.deepStrictEqual(r.fields.map((f) => f.dataTypeID), [23, 25, 23]);
  assert.strictEqual(r.command, 'SELECT');
  assert.strictEqual(r.rowCount, 1);
  const v = await c.query('SHOW server_version_num');
  assert.ok(Number(v.rows[0].server_version_num) >= 150000);
}));

test('parameterized_query', () => withClient(async (c) => {
  const d = new Date(Date.UTC(2024, 1, 29, 12, 30, 45, 123));
  const r = await c.query(
    'SELECT $1::int AS i, $2::text AS t, $3::numeric AS n, $4::bool AS b, $5::timestamptz AS ts, ' +
    '$6::int[] AS arr, $7::jsonb AS j, $8::bytea AS by, $9::bigint AS big, $10::float8 AS f',
    [42, 'héllo', '12.345', true, d, [1, 2, 3], { a: [1, null] }, Buffer.from([0, 1, 255]), '9007199254740993', 1.5]);
  const row = r.rows[0];
  assert.strictEqual(row.i, 42);
  assert.strictEqual(row.t, 'héllo');
  assert.strictEqual(row.n, '12.345');
  assert.strictEqual(row.b, true);
  assert.strictEqual(row.ts.getTime(), d.getTime());
  assert.deepStrictEqual(row.arr, [1, 2, 3]);
  assert.deepStrictEqual(row.j, { a: [1, null] });
  assert.deepStrictEqual([...row.by], [0, 1, 255]);
  assert.strictEqual(row.big, '9007199254740993');
  assert.strictEqual(row.f, 1.5);
  const nul = await c.query('SELECT $1::text IS NULL AS isnull', [null]);
  assert.strictEqual(nul.rows[0].isnull, true);
}));

test('named_statements', () => withClient(async (c) => {
  await c.query('CREATE TABLE np_named (id int PRIMARY KEY, v text)');
  const ins = { name: 'np-insert', text: 'INSERT INTO np_named VALUES ($1, $2)' };
  for (let i = 0; i < 20; i++) await c.query({ ...ins, values: [i, `v${i}`] });
  const sel = { name: 'np-select', text: 'SELECT v FROM np_named WHERE id = $1' };
  for (let i = 0; i < 20; i++) {
    const r = await c.query({ ...sel, values: [i] });
    assert.strictEqual(r.rows[0].v, `v${i}`);
  }
  const ps = await c.query("SELECT name FROM pg_prepared_statements WHERE name LIKE 'np-%' ORDER BY name");
  assert.deepStrictEqual(ps.rows.map((r) => r.name), ['np-insert', 'np-select']);
  await c.query('DROP TABLE np_named');
}));

test('row_mode_array_and_types', () => withClient(async (c) => {
  const r = await c.query({ text: "SELECT 1::int2, 2::int8, 3.5::numeric, '2024-01-02'::date, '{a,b}'::text[]", rowMode: 'array' });
  assert.strictEqual(r.rows[0][0], 1);
  assert.strictEqual(r.rows[0][1], '2');
  assert.strictEqual(r.rows[0][2], '3.5');
  assert.ok(r.rows[0][3] instanceof Date);
  assert.deepStrictEqual(r.rows[0][4], ['a', 'b']);
}));

test('transactions', () => withClient(async (c) => {
  await c.query('CREATE TABLE np_tx (id int PRIMARY KEY)');
  await c.query('BEGIN');
  await c.query('INSERT INTO np_tx VALUES (1)');
  await c.query('ROLLBACK');
  assert.strictEqual((await c.query('SELECT count(*)::int AS n FROM np_tx')).rows[0].n, 0);
  await c.query('BEGIN');
  await c.query('INSERT INTO np_tx VALUES (1)');
  await expectError(c.query('INSERT INTO np_tx VALUES (1)'), '23505');
  await expectError(c.query('SELECT 1'), '25P02');
  await c.query('ROLLBACK');
  await c.query('BEGIN ISOLATION LEVEL REPEATABLE READ');
  assert.strictEqual((await c.query('SHOW transaction_isolation')).rows[0].transaction_isolation, 'repeatable read');
  await c.query('INSERT INTO np_tx VALUES (2)');
  await c.query('COMMIT');
  assert.strictEqual((await c.query('SELECT count(*)::int AS n FROM np_tx')).rows[0].n, 1);
  await c.query('DROP TABLE np_tx');
}));

test('errors', () => withClient(async (c) => {
  const e = await expectError(c.query('SELECT * FROM np_missing'), '42P01');
  assert.strictEqual(e.message, 'relation "np_missing" does not exist');
  assert.strictEqual(e.position, '15');
  await expectError(c.query('SELECT $1::int', ['abc']), '22P02');
  await expectError(c.query('SELECT 1/0'), '22012');
  // The connection stays usable.
  assert.strictEqual((await c.query('SELECT 2 AS x')).rows[0].x, 2);
}));

test('cursor', () => withClient(async (c) => {
  await c.query('CREATE TABLE np_cur (id int PRIMARY KEY, v text)');
  await c.query("INSERT INTO np_cur SELECT g, 'r' || g FROM generate_series(1, 250) g");
  const cur = c.query(new Cursor('SELECT id, v FROM np_cur WHERE id > $1 ORDER BY id', [10]));
  const first = await cur.read(100);
  assert.strictEqual(first.length, 100);
  assert.deepStrictEqual(first[0], { id: 11, v: 'r11' });
  const second = await cur.read(100);
  assert.strictEqual(second[99].id, 210);
  const last = await cur.read(100);
  assert.strictEqual(last.length, 40);
  assert.strictEqual((await cur.read(100)).length, 0);
  await cur.close();
  await c.query('DROP TABLE np_cur');
}));

test('pool', async () => {
  const pool = new Pool({ max: 4 });
  try {
    const rs = await Promise.all(Array.from({ length: 16 }, (_, i) => pool.query('SELECT $1::int * 2 AS d', [i])));
    assert.deepStrictEqual(rs.map((r) => r.rows[0].d), Array.from({ length: 16 }, (_, i) => i * 2));
  } finally {
    await pool.end();
  }
});

test('bulk_insert_returning', () => withClient(async (c) => {
  await c.query('CREATE TABLE np_bulk (id serial PRIMARY KEY, name text, n int)');
  const values = [];
  const params = [];
  for (let i = 0; i < 100; i++) {
    values.push(`($${2 * i + 1}, $${2 * i + 2})`);
    params.push(`n${i}`, i);
  }
  const r = await c.query(`INSERT INTO np_bulk (name, n) VALUES ${values.join(', ')} RETURNING id`, params);
  assert.strictEqual(r.rowCount, 100);
  assert.strictEqual(r.command, 'INSERT');
  const s = await c.query('SELECT sum(n)::int AS s FROM np_bulk');
  assert.strictEqual(s.rows[0].s, 4950);
  await c.query('DROP TABLE np_bulk');
}));

(async () => {
  const xf = xfails();
  const only = process.argv.slice(2);
  let passed = 0;
  let failed = 0;
  let skipped = 0;
  for (const t of tests) {
    if (only.length && !only.includes(t.name)) continue;
    const t0 = Date.now();
    let err = null;
    try {
      await t.fn();
    } catch (e) {
      err = e;
    }
    const secs = ((Date.now() - t0) / 1000).toFixed(2);
    if (xf[t.name] !== undefined) {
      if (err) {
        skipped++;
        console.log(`# xfail ${t.name}: ${xf[t.name]} (${String(err.message).split('\n')[0]})`);
      } else {
        failed++;
        console.log(`# XPASS ${t.name}: listed in xfail.list (${xf[t.name]}) but passes: remove the entry`);
      }
    } else if (err) {
      failed++;
      console.log(`# FAIL ${t.name}: ${String(err.message).split('\n')[0]}`);
      for (const l of String(err.stack || '').split('\n').slice(1, 5)) console.log(`       ${l}`);
    } else {
      passed++;
      console.log(`ok     ${t.name} (${secs} s)`);
    }
  }
  console.log(`${passed} passed, ${failed} failed, ${skipped} skipped`);
  process.exit(failed ? 1 : 0);
})();
