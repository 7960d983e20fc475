--
-- func_string: the string functions of issue 6 with NULLs, empty strings,
-- multibyte text and the errors they raise.
--
SELECT lower('ABC'), upper('abc'), initcap('hello wORLD foo-bar'), lower(NULL);
SELECT length('abc'), length(''), char_length('héllo'), octet_length('héllo'), bit_length('a'), length(NULL);
SELECT substring('hello' FROM 2 FOR 3), substring('hello' FROM 3), substring('hello' FOR 2), substr('hello', 2), substr('hello', 2, 2), substr('hello', 0, 2), substr('hello', -1, 3);
SELECT substring('foobar' FROM 'o+b'), substring('foobar' FROM '#"o_b#"%' FOR '#'), substring('abc' SIMILAR 'a#"b#"c' ESCAPE '#');
SELECT position('lo' IN 'hello'), position('z' IN 'hello'), strpos('hello', 'l'), position('' IN 'abc');
SELECT trim('  ab  '), ltrim('  ab  '), rtrim('  ab  '), trim(BOTH 'x' FROM 'xxabxx'), trim(LEADING 'x' FROM 'xxabxx'), trim(TRAILING 'x' FROM 'xxabxx'), btrim('xyabyx', 'xy'), ltrim('zzab', 'z'), rtrim('abqq', 'q');
SELECT '[' || trim(' a ') || ']', trim(BOTH FROM '  b  ');
SELECT replace('hello', 'l', 'L'), replace('aaa', 'a', ''), replace('abc', '', 'x'), translate('12345', '143', 'ax');
SELECT split_part('a,b,c', ',', 2), split_part('a,b,c', ',', 5), split_part('a,b,c', ',', -1), split_part('abc', '', 1);
SELECT concat('a', 1, NULL, 'b'), concat(), concat_ws(',', 'a', NULL, 'b', 2), concat_ws(NULL, 'a', 'b');
SELECT left('hello', 2), left('hello', -2), right('hello', 2), right('hello', -2), left('hi', 10);
SELECT lpad('7', 3, '0'), lpad('hello', 3), rpad('ab', 5, 'xy'), rpad('ab', 1), lpad('x', 4), lpad('a', 3, '');
SELECT repeat('ab', 3), repeat('x', 0), repeat('x', -1), reverse('abc'), reverse('');
SELECT md5('abc'), md5(''), sha256('abc'::bytea);
SELECT ascii('A'), chr(65), chr(233), to_hex(255), to_hex(-1), quote_ident('a b'), quote_literal('it''s'), quote_nullable(NULL);
SELECT starts_with('hello', 'he'), 'hello' ^@ 'x', string_to_array('a,b,,c', ','), string_to_array('a b', NULL), array_to_string(ARRAY[1, NULL, 3], '-', '*');
SELECT format('%s and %s', 'a', 'b'), format('%I', 'Some Name'), format('%L', 'x''y'), format('%L', NULL), format('%s', NULL), format('%2$s %1$s', 'a', 'b'), format('%-5s|', 'ab'), format('%5s|', 'ab'), format('%%');
SELECT to_char(1234.5, '9999.99'), to_char(1234.5, 'FM9,999.00'), to_char(-12, '999'), to_char(0.5, '0.99'), to_char(42, '000'), to_char(1234567, '9G999G999');
SELECT to_char(timestamp '2024-03-05 14:07:09', 'YYYY-MM-DD HH24:MI:SS'), to_char(date '2024-03-05', 'Day DD Month YYYY'), to_char(timestamp '2024-03-05 14:07:09', 'FMMonth FMDD, HH12 AM'), to_char(interval '1 day 02:03:04', 'DD HH24:MI');
SELECT 'abc' < 'abd', 'a' || repeat('b', 3), char_length(repeat('é', 4)), upper('é'), lower('É');
SELECT overlay('Txxxxas' PLACING 'hom' FROM 2 FOR 4), overlay('abc' PLACING 'X' FROM 2);
SELECT length('abc'::char(5)), 'ab'::char(4) || '|', 'abc'::varchar(2), pg_typeof('a'::varchar || 'b');
SELECT encode('abc'::bytea, 'hex'), encode('abc'::bytea, 'base64'), decode('616263', 'hex');
-- errors
SELECT repeat('x');
SELECT substr('abc', 1, -1);
SELECT chr(0);
SELECT lpad('a', 'b');
SELECT format('%s %s', 'a');
SELECT format('%z', 1);
SELECT to_char(1, 'x', 'y');
SELECT split_part('a,b', ',', 0);
SELECT 'abc'::char(2);
SELECT 'abc'::varchar(2)::text, CAST('abcdef' AS varchar(3));
