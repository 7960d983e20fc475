--
-- func_json_array: json/jsonb operators and functions, array constructors,
-- operators, functions, subscripts and slices, and the casts between them.
--
SELECT '{"a": 1, "b": [1, 2, {"c": "x"}]}'::json -> 'b', '{"a": 1}'::json ->> 'a', '[1, 2, 3]'::json -> 2, '[1, 2, 3]'::json -> -1;
SELECT '{"a": {"b": {"c": 5}}}'::jsonb #> '{a,b}', '{"a": {"b": {"c": 5}}}'::jsonb #>> '{a,b,c}', '{"a": 1, "b": 2}'::jsonb @> '{"a": 1}', '{"a": 1}'::jsonb <@ '{"a": 1, "b": 2}';
SELECT '{"a": 1}'::jsonb ? 'a', '{"a": 1, "b": 2}'::jsonb ?| ARRAY['x', 'b'], '{"a": 1, "b": 2}'::jsonb ?& ARRAY['a', 'b'], '{"a": 1}'::jsonb || '{"b": 2}', '{"a": 1, "b": 2}'::jsonb - 'a', '[1, 2, 3]'::jsonb - 1;
SELECT jsonb_build_object('a', 1, 'b', 'two', 'c', NULL), json_build_array(1, 'x', true, NULL), jsonb_build_array(), json_build_object();
SELECT to_json('text'::text), to_jsonb(ARRAY[1, 2]), to_jsonb(1.5), row_to_json(ROW(1, 'a')), json_typeof('[1]'), jsonb_typeof('{"a": null}' -> 'a');
SELECT jsonb_array_length('[1, 2, 3]'), json_array_length('[]'), jsonb_pretty('{"a": [1, 2]}'), jsonb_strip_nulls('{"a": null, "b": 1}');
SELECT jsonb_set('{"a": 1}', '{b}', '2'), jsonb_set('{"a": [1, 2]}', '{a,0}', '"x"'), jsonb_insert('[1, 2]', '{1}', '9'), '{"a": {"b": 1}}'::jsonb #- '{a,b}';
SELECT jsonb_agg(x), json_agg(x ORDER BY x DESC), jsonb_object_agg(x::text, x * 2) FROM generate_series(1, 3) x;
SELECT key, value FROM jsonb_each('{"a": 1, "b": "x"}') ORDER BY key;
SELECT * FROM jsonb_each_text('{"a": 1, "b": "x"}') ORDER BY key;
SELECT '{"b": 1, "a": 2}'::jsonb, '{"b": 1, "a": 2}'::json, '{"a": 1, "a": 2}'::jsonb, '[1, 2.50, 1e3]'::jsonb;
SELECT ('{"a": 5}'::jsonb ->> 'a')::int + 1, ('{"a": "x"}'::jsonb -> 'a')::text, '{"a": 1}'::jsonb = '{"a": 1}'::jsonb;
-- arrays
SELECT ARRAY[1, 2, 3], ARRAY['a', 'b'], ARRAY[1.5, 2], ARRAY[]::int[], '{1,2,3}'::int[], '{{1,2},{3,4}}'::int[], ARRAY[NULL, 1];
SELECT array_length(ARRAY[1, 2, 3], 1), array_length('{}'::int[], 1), cardinality(ARRAY[[1, 2], [3, 4]]), array_ndims(ARRAY[[1], [2]]), array_dims(ARRAY[[1, 2], [3, 4]]), array_lower(ARRAY[1], 1), array_upper(ARRAY[1, 2], 1);
SELECT array_append(ARRAY[1, 2], 3), array_prepend(0, ARRAY[1]), array_cat(ARRAY[1], ARRAY[2, 3]), array_remove(ARRAY[1, 2, 1], 1), array_replace(ARRAY[1, 2, 1], 1, 9), array_position(ARRAY['a', 'b'], 'b'), array_positions(ARRAY[1, 2, 1], 1);
SELECT ARRAY[1, 2] || ARRAY[3], 0 || ARRAY[1], ARRAY[1, 2] @> ARRAY[2], ARRAY[1] <@ ARRAY[1, 2], ARRAY[1, 2] && ARRAY[2, 3], ARRAY[1, 2] = ARRAY[1, 2], ARRAY[1, 2] <> ARRAY[1], ARRAY[1, 2] > ARRAY[1];
SELECT array_to_string(ARRAY['a', 'b'], ','), string_to_array('1,2', ',')::int[], unnest(ARRAY[3, 4]) + 1, array_fill(7, ARRAY[3]), array_fill(0, ARRAY[2, 2]), trim_array(ARRAY[1, 2, 3], 1);
SELECT (ARRAY[1, 2, 3])[1], (ARRAY[1, 2, 3])[0], (ARRAY[1, 2, 3])[2:], (ARRAY[1, 2, 3])[:1], ('{{1,2},{3,4}}'::int[])[2][1], ('{{1,2},{3,4}}'::int[])[1:1][2], (ARRAY[1, 2, 3])[NULL];
SELECT pg_typeof(ARRAY[1, 2]), pg_typeof(ARRAY[1::bigint]), pg_typeof(ARRAY['x']), pg_typeof(ARRAY[1, 2.5]), ARRAY[1, 2]::text[], ARRAY['1', '2']::int[];
SELECT ARRAY(SELECT generate_series(1, 3)), array_agg(x ORDER BY x) FROM (VALUES (3), (1)) v(x);
CREATE TABLE arr (id int PRIMARY KEY, a int[], t text[]);
INSERT INTO arr VALUES (1, '{1,2,3}', '{x,y}'), (2, ARRAY[4, 5], ARRAY['z']), (3, NULL, '{}');
SELECT id, a[1], a[2:3], t[1], array_length(a, 1) FROM arr ORDER BY id;
UPDATE arr SET a[2] = 20 WHERE id = 1;
UPDATE arr SET a[5] = 50 WHERE id = 2;
UPDATE arr SET a[1:2] = ARRAY[7, 8] WHERE id = 1;
SELECT id, a FROM arr ORDER BY id;
SELECT id FROM arr WHERE 2 = ANY (a) OR 'z' = ANY (t) ORDER BY id;
SELECT id FROM arr WHERE a @> ARRAY[8] ORDER BY id;
DROP TABLE arr;
-- VARIADIC
SELECT concat_ws('-', VARIADIC ARRAY['a', 'b', 'c']), format('%s-%s', VARIADIC ARRAY['x', 'y']), json_build_array(VARIADIC ARRAY[1, 2]);
SELECT num_nonnulls(1, NULL, 2), num_nulls(1, NULL, NULL), num_nulls(VARIADIC ARRAY[NULL, 1]);
-- errors
SELECT '{"a": }'::json;
SELECT '{"a": 1}'::jsonb -> 1 -> 'x', '[1]'::jsonb ->> 'x';
SELECT jsonb_array_length('{"a": 1}');
SELECT ARRAY[1, 'x'];
SELECT ARRAY[[1, 2], [3]];
SELECT '{1,2'::int[];
SELECT ARRAY[1, 2] || 'x';
SELECT array_fill(1, ARRAY[-1]);
SELECT (ARRAY[1, 2])['a'];
