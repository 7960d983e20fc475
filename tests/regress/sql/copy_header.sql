--
-- copy_header: HEADER in text format (PostgreSQL 15) as well as csv, out and in.
--
CREATE TABLE ch (a int, "b c" text, "t	ab" int);
INSERT INTO ch VALUES (1, 'x', 10), (2, NULL, NULL);
COPY ch TO STDOUT (HEADER);
COPY ch TO STDOUT (FORMAT text, HEADER true);
COPY ch TO STDOUT (FORMAT csv, HEADER);
COPY ch (a) TO STDOUT (HEADER);
COPY ch FROM STDIN (HEADER);
a	b c	t\tab
3	y	30
\.
COPY ch FROM STDIN (FORMAT csv, HEADER);
a,b c,t	ab
4,z,40
\.
SELECT * FROM ch ORDER BY a;
DROP TABLE ch;
