--
-- views_check_order: which error a row breaking both a view's WITH CHECK
-- OPTION and a unique index gets. PostgreSQL checks the check option after
-- inserting the row's index entries (ExecWithCheckOptions after
-- ExecInsertIndexTuples): the unique violation (23505) wins, NOT NULL and
-- CHECK constraints (before the indexes) win over both, an ON CONFLICT row
-- is checked only as it is finally written (DO UPDATE: the updated row; DO
-- NOTHING: not at all), and in a multi-row statement the first failing row
-- decides.
--
CREATE TABLE wt (a int PRIMARY KEY, b int CHECK (b < 100), c int NOT NULL DEFAULT 0);
CREATE UNIQUE INDEX wt_c ON wt (c) WHERE c > 0;
CREATE VIEW wv AS SELECT * FROM wt WHERE b > 0 WITH CHECK OPTION;
INSERT INTO wv VALUES (1, 5, 0), (3, 3, 30);
-- the check option and the primary key: 23505
INSERT INTO wv VALUES (1, -5);
-- the check option alone, the key alone
INSERT INTO wv VALUES (2, -5);
INSERT INTO wv VALUES (1, 7);
-- the check option and a secondary unique index: 23505
INSERT INTO wv VALUES (4, -1, 30);
-- CHECK and NOT NULL come first
INSERT INTO wv VALUES (1, 500);
INSERT INTO wv VALUES (1, -5, NULL);
-- UPDATE: in place (the check option), onto another row's key (23505)
UPDATE wv SET b = -1 WHERE a = 1;
UPDATE wv SET a = 1, b = -1 WHERE a = 3;
UPDATE wv SET c = 30, b = -1 WHERE a = 1;
-- ON CONFLICT: DO NOTHING skips the row unchecked; DO UPDATE checks the updated row
INSERT INTO wv VALUES (1, -5) ON CONFLICT (a) DO NOTHING;
INSERT INTO wv VALUES (1, -5) ON CONFLICT (a) DO UPDATE SET b = 9 RETURNING *;
INSERT INTO wv VALUES (1, 5) ON CONFLICT (a) DO UPDATE SET b = -7;
INSERT INTO wv VALUES (1, 5) ON CONFLICT (a) DO UPDATE SET a = 3, b = -7;
INSERT INTO wv VALUES (1, 5) ON CONFLICT (a) DO UPDATE SET a = 8, b = -7;
-- many rows: the first row that fails decides
INSERT INTO wv SELECT g, CASE WHEN g = 2000 THEN -1 ELSE 1 END FROM generate_series(10, 2500) g
  UNION ALL SELECT 1, 1;
INSERT INTO wv SELECT g, CASE WHEN g = 2000 THEN -1 ELSE 1 END FROM generate_series(10, 2500) g
  UNION ALL SELECT 3, 1 UNION ALL SELECT 2100, 1;
INSERT INTO wv SELECT CASE WHEN g = 2000 THEN 1 ELSE g END, CASE WHEN g = 2200 THEN -1 ELSE 1 END
  FROM generate_series(10, 2500) g;
INSERT INTO wv SELECT g, CASE WHEN g = 2200 THEN -1 ELSE 1 END, CASE WHEN g = 2000 THEN 30 ELSE 0 END
  FROM generate_series(10, 2500) g;
SELECT * FROM wt ORDER BY a;
-- a cascaded check through a view over a view
CREATE VIEW wv2 AS SELECT * FROM wv WHERE b < 50;
INSERT INTO wv2 VALUES (1, -1);
INSERT INTO wv2 VALUES (5, 60);
INSERT INTO wv2 VALUES (5, -1);
INSERT INTO wv2 VALUES (6, -1);
DROP VIEW wv2, wv;
DROP TABLE wt;
