-- COPY text format: fields with and without backslash escapes (a field
-- without one is taken as its raw bytes, one with one byte by byte).
CREATE TABLE cte (id int, a text, b text, c varchar(10), d char(6));
COPY cte FROM stdin;
1	plain	x\ty	abc	ab
2	\tlead	trail\n	mid\\dle	\x41\x4a
3	\101\60\7	a\qb	\N	N
4		\\N	\\	
5	tail\\	\\\\	\r	\v\f
6	é\x	ü\bend	\N	\N
\.
SELECT id, a, b, c, d, length(a) AS la, length(b) AS lb, octet_length(d) AS od FROM cte ORDER BY id;
COPY cte TO stdout;
-- a bad value after a field with escapes: the error names its column
COPY cte FROM stdin;
7	x\ty	z	abc	toolongvalue
\.
COPY cte (id, a) FROM stdin;
8\t9	a
\.
SELECT count(*) FROM cte;
DROP TABLE cte;
