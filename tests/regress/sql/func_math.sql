--
-- func_math: numeric functions of issue 6 over integer, numeric and float
-- arguments, with PostgreSQL's result types, rounding and errors.
--
SELECT abs(-5), abs(-5.5), abs(-2.5::float8), abs(-3::int2), pg_typeof(abs(-5::bigint));
SELECT round(2.5), round(-2.5), round(2.5::float8), round(3.14159, 2), round(1234.5, -2), round(-0.5), pg_typeof(round(1.5::float8));
SELECT trunc(2.7), trunc(-2.7), trunc(3.14159, 3), trunc(1234.5, -2), trunc(2.7::float8);
SELECT floor(2.7), floor(-2.7), ceil(2.1), ceil(-2.1), ceiling(2.0), floor(-0.5::float8), pg_typeof(floor(1)), pg_typeof(ceil(1.5));
SELECT mod(7, 3), mod(-7, 3), mod(7.5, 2), mod(7::bigint, 3::int2), 7 % -3;
SELECT power(2, 10), power(2.0, 0.5), power(-8, 1.0/3) IS NULL, pow(2, -1), power(2::numeric, 3), pg_typeof(power(2, 3));
SELECT sqrt(16), sqrt(2.0), sqrt(2::float8), cbrt(27), exp(1), exp(1.0), ln(10), ln(10.0), log(100), log(2, 8), log10(1000);
SELECT sign(-3), sign(0), sign(2.5), sign(-0.1::float8), pi(), degrees(pi()), radians(180);
SELECT sin(0), cos(0), tan(0), asin(1), acos(1), atan(1), atan2(1, 1), sind(30), cosd(60);
SELECT width_bucket(5.35, 0.024, 10.06, 5), width_bucket(0, 1, 10, 3), width_bucket(20, 1, 10, 3), width_bucket(5, ARRAY[1, 3, 7]);
SELECT gcd(12, 18), lcm(4, 6), factorial(5), div(9, 4), div(-9, 4), scale(1.230), min_scale(1.230), trim_scale(1.2300);
SELECT random() >= 0 AND random() < 1, setseed(0.5) IS NULL;
SELECT 0.1 + 0.2, 0.1::float8 + 0.2::float8, 1e300 * 10, 1.0 / 3, 2.0 / 3 * 3, 10::numeric / 4;
SELECT 'NaN'::float8, 'Infinity'::float8 > 1e308, '-inf'::float8, 'nan'::numeric, 'NaN'::float8 = 'NaN'::float8;
SELECT 9223372036854775807::bigint, -9223372036854775808::bigint, 32767::int2, 1.5::int, 2.5::int, (-2.5)::int, 0.5::int2, '12'::int + 1;
SELECT 123456789012345678901234567890.123 * 2, 1::numeric(10, 3), 1.23456::numeric(5, 2), 12345.678::numeric(10, 1);
SELECT 3.0::float4 / 7, 1/7::float4, 100000000::float4, 1e-10::float8, 123456789.123::float8;
SELECT numeric '1.5' + 1, float8 '2' * 3, int '7' / int '2';
-- errors
SELECT sqrt(-1);
SELECT ln(0);
SELECT ln(-1.0);
SELECT log(0);
SELECT mod(1, 0);
SELECT 2 ^ 100000;
SELECT power(0, -1);
SELECT exp(10000.0);
SELECT 99999::numeric(4, 1);
SELECT 32768::int2;
SELECT 9223372036854775807::bigint + 1;
SELECT (-2147483648)::int / -1;
SELECT abs(-2147483648::int);
SELECT width_bucket(1, 1, 1, 3);
SELECT factorial(-1);
SELECT 'abc'::int;
SELECT ''::numeric;
SELECT '1e500'::float8;
-- a power whose result overflows numeric fails at once (22003)
SELECT '2.5'::numeric ^ 368547;
SELECT 10::numeric ^ 131072;
SELECT length((10::numeric ^ 131071)::text);
