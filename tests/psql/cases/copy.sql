-- \copy in and out, text and CSV.
CREATE TABLE c (id integer PRIMARY KEY, name text, amount numeric(8,2), day date);
\copy c from 'copy_in.csv' with (format csv, header true)
\copy c from 'copy_in.txt'
SELECT * FROM c ORDER BY id;
\copy c to stdout
\copy c to stdout with (format csv, header true)
\copy (SELECT id, name FROM c WHERE id > 2 ORDER BY id) to stdout with csv
\copy c (id, name) from stdin
100	hundred
101	\N
\.
SELECT id, name FROM c WHERE id >= 100 ORDER BY id;
\copy c from 'no_such_file.csv' csv
DROP TABLE c;
