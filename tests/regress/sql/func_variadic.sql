--
-- func_variadic: format('%%') without arguments, and VARIADIC calls of the
-- VARIADIC "any" functions (concat, concat_ws, format, num_nulls,
-- num_nonnulls, the json builders): the array's elements become the
-- arguments; a NULL array makes the result NULL (format: no arguments);
-- anything but an array, an unknown literal included, is 42804.
--
SELECT format('%%'), format('%%%%'), format('a%%b'), format('%%', VARIADIC ARRAY[]::text[]);
SELECT format('%%%s', 1), format('%s%%', 1), format('%s %s', VARIADIC ARRAY['a', 'b']);
SELECT format(NULL), format(NULL, 1), format('%s', NULL), format('%I', 'A b'), format('%L', NULL);
SELECT format('%*s|', 5, 'ab'), format('%-*s|', 5, 'ab'), format('%1$*2$s|', 'x', 4);
SELECT format('%1$s|%1$s', VARIADIC ARRAY['z']), format('%s %s', VARIADIC ARRAY[1, 2]), format('%s %s', VARIADIC '{1,2}'::int[]);
SELECT format('%s %s', VARIADIC ARRAY[[1, 2], [3, 4]]);
SELECT format('x', VARIADIC NULL::text[]);
SELECT format('%s', VARIADIC NULL::text[]);
SELECT format('%s', VARIADIC ARRAY[]::text[]);
SELECT format(VARIADIC ARRAY['%s-%s', 'a', 'b']);
SELECT format('%');
SELECT format('%s');
SELECT format('%3$s', 1, 2);
SELECT format('%0$s', 1);
SELECT format('%z', 1);
SELECT format();
SELECT concat(VARIADIC ARRAY[1, 2, 3]), concat_ws(',', VARIADIC ARRAY['a', 'b']), concat(VARIADIC ARRAY[[1, 2], [3, 4]]);
SELECT concat(VARIADIC NULL::text[]) IS NULL, concat_ws(',', VARIADIC NULL::int[]) IS NULL;
SELECT concat(VARIADIC ARRAY[]::text[]), concat_ws('-', VARIADIC ARRAY[]::int[]);
SELECT concat(VARIADIC '{a,b}');
SELECT format('%s', VARIADIC NULL);
SELECT concat(VARIADIC 'a');
SELECT concat(VARIADIC 1);
SELECT concat_ws(VARIADIC ARRAY['-', 'a', 'b']);
SELECT concat(), concat_ws(',');
SELECT num_nulls(VARIADIC ARRAY[1, NULL, 3]), num_nonnulls(VARIADIC ARRAY[1, NULL, 3]), num_nulls(VARIADIC NULL::int[]);
SELECT json_build_array(VARIADIC ARRAY[1, 2]), jsonb_build_object(VARIADIC ARRAY['a', 'b']);
SELECT json_build_array(VARIADIC NULL::int[]) IS NULL, jsonb_build_object(VARIADIC NULL::text[]) IS NULL;
