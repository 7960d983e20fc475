-- ALTER TABLE that changes the row key (ADD / DROP PRIMARY KEY, a key
-- column's type) of a table with secondary indexes: the indexes are rebuilt
-- for the new keys (pg_dump adds UNIQUE constraints and primary keys after
-- loading the data, in name order).
CREATE TABLE rki (id int NOT NULL, label text, grp int, note text);
INSERT INTO rki SELECT g, 'L' || g, g % 7, CASE WHEN g % 3 = 0 THEN 'n' || g END FROM generate_series(1, 500) g;
ALTER TABLE ONLY rki ADD CONSTRAINT rki_label_key UNIQUE (label);
CREATE INDEX rki_grp_idx ON rki (grp, id DESC);
CREATE INDEX rki_lower_idx ON rki (lower(label));
CREATE INDEX rki_part_idx ON rki (grp) WHERE note IS NOT NULL;
ALTER TABLE ONLY rki ADD CONSTRAINT rki_pkey PRIMARY KEY (id);
SET enable_seqscan = off;
SELECT id, label FROM rki WHERE label = 'L42';
SELECT count(*) FROM rki WHERE grp = 3;
SELECT id FROM rki WHERE lower(label) = 'l7';
SELECT count(*) FROM rki WHERE grp = 3 AND note IS NOT NULL;
INSERT INTO rki VALUES (1000, 'L42', 1, NULL);
INSERT INTO rki VALUES (42, 'other', 1, NULL);
UPDATE rki SET label = 'L43' WHERE id = 42;
UPDATE rki SET label = 'L42b' WHERE id = 42;
SELECT id, label FROM rki WHERE label IN ('L42', 'L42b');
DELETE FROM rki WHERE id = 43;
INSERT INTO rki VALUES (1001, 'L43', 2, 'x');
SELECT id FROM rki WHERE label = 'L43';
-- in a transaction that wrote the table first
BEGIN;
INSERT INTO rki VALUES (2000, 'T1', 5, 'y');
DELETE FROM rki WHERE id = 1;
ALTER TABLE rki DROP CONSTRAINT rki_pkey;
SELECT id FROM rki WHERE label IN ('T1', 'L1', 'L2') ORDER BY id;
ALTER TABLE rki ADD PRIMARY KEY (id, grp);
SELECT id FROM rki WHERE label IN ('T1', 'L1', 'L2') ORDER BY id;
COMMIT;
SELECT id FROM rki WHERE label IN ('T1', 'L1', 'L2') ORDER BY id;
SELECT count(*) FROM rki WHERE grp = 5;
INSERT INTO rki VALUES (3000, 'T1', 6, NULL);
-- rolled back: the old indexes stay usable
BEGIN;
ALTER TABLE rki DROP CONSTRAINT rki_pkey;
ROLLBACK;
SELECT id FROM rki WHERE label = 'L100';
SELECT id FROM rki WHERE lower(label) = 't1';
RESET enable_seqscan;
DROP TABLE rki;
