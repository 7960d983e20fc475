// JdbcTest.java — pgjdbc (Debian libpostgresql-jdbc-java) against strata:
// PreparedStatement with typed parameters, batches, setFetchSize cursors,
// binary transfer after the prepare threshold, generated keys, transactions and
// SQLStates, ResultSetMetaData, and DatabaseMetaData (getTables, getColumns,
// getPrimaryKeys, getIndexInfo, getImportedKeys, getSchemas). Connection
// settings come from PGHOST/PGPORT (tests/drivers/jdbc/run.sh). Prints one line
// per test and "N passed, N failed, N skipped".
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.*;
import java.util.*;

public class JdbcTest {
    interface Body { void run() throws Exception; }

    static final List<String> names = new ArrayList<>();
    static final List<Body> bodies = new ArrayList<>();
    static String url;

    static void test(String name, Body b) { names.add(name); bodies.add(b); }

    static Connection connect(String extra) throws SQLException {
        return DriverManager.getConnection(url + (extra.isEmpty() ? "" : "&" + extra), "postgres", "");
    }

    static void check(boolean cond, String msg) {
        if (!cond) throw new AssertionError(msg);
    }

    static void eq(Object actual, Object expected, String what) {
        if (!Objects.equals(actual, expected))
            throw new AssertionError(what + ": expected " + expected + ", got " + actual);
    }

    static void expectState(String state, Body b) throws Exception {
        try {
            b.run();
        } catch (SQLException e) {
            eq(e.getSQLState(), state, "SQLState of " + e.getMessage());
            return;
        }
        throw new AssertionError("expected SQLState " + state);
    }

    static List<String> column(ResultSet rs, String col) throws SQLException {
        List<String> out = new ArrayList<>();
        while (rs.next()) out.add(rs.getString(col));
        rs.close();
        return out;
    }

    public static void main(String[] args) throws Exception {
        String host = System.getenv().getOrDefault("PGHOST", "127.0.0.1");
        String port = System.getenv().getOrDefault("PGPORT", "5432");
        url = "jdbc:postgresql://" + host + ":" + port + "/postgres?ApplicationName=strata-jdbc";

        test("connect_and_metadata", () -> {
            try (Connection c = connect("")) {
                DatabaseMetaData md = c.getMetaData();
                eq(md.getDatabaseProductName(), "PostgreSQL", "product");
                eq(md.getDatabaseMajorVersion(), 15, "major version");
                try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT current_setting('application_name')")) {
                    rs.next();
                    eq(rs.getString(1), "strata-jdbc", "application_name");
                }
            }
        });

        test("prepared_statement_types", () -> {
            try (Connection c = connect("")) {
                try (Statement s = c.createStatement()) {
                    s.execute("CREATE TABLE jd_t (id int PRIMARY KEY, name text, amount numeric(10,2), created timestamptz, "
                        + "day date, flag boolean, big bigint, f double precision, data bytea, tags text[])");
                }
                try (PreparedStatement ps = c.prepareStatement("INSERT INTO jd_t VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")) {
                    ps.setInt(1, 1);
                    ps.setString(2, "héllo");
                    ps.setBigDecimal(3, new BigDecimal("12.34"));
                    ps.setTimestamp(4, Timestamp.valueOf("2024-01-02 03:04:05.678"));
                    ps.setDate(5, java.sql.Date.valueOf("2024-02-29"));
                    ps.setBoolean(6, true);
                    ps.setLong(7, 1L << 40);
                    ps.setDouble(8, 2.5);
                    ps.setBytes(9, new byte[] {0, 1, (byte) 255});
                    ps.setArray(10, c.createArrayOf("text", new String[] {"a", null, "c"}));
                    eq(ps.executeUpdate(), 1, "insert count");
                    ps.setInt(1, 2);
                    for (int i = 2; i <= 10; i++) ps.setNull(i, Types.NULL);
                    eq(ps.executeUpdate(), 1, "insert NULLs");
                }
                try (PreparedStatement ps = c.prepareStatement("SELECT * FROM jd_t WHERE id = ?")) {
                    ps.setInt(1, 1);
                    try (ResultSet rs = ps.executeQuery()) {
                        check(rs.next(), "row 1");
                        eq(rs.getString("name"), "héllo", "text");
                        eq(rs.getBigDecimal("amount"), new BigDecimal("12.34"), "numeric");
                        eq(rs.getTimestamp("created"), Timestamp.valueOf("2024-01-02 03:04:05.678"), "timestamptz");
                        eq(rs.getDate("day"), java.sql.Date.valueOf("2024-02-29"), "date");
                        eq(rs.getBoolean("flag"), true, "bool");
                        eq(rs.getLong("big"), 1L << 40, "bigint");
                        eq(rs.getDouble("f"), 2.5, "float8");
                        eq(Arrays.toString(rs.getBytes("data")), "[0, 1, -1]", "bytea");
                        eq(Arrays.asList((Object[]) rs.getArray("tags").getArray()), Arrays.asList("a", null, "c"), "text[]");
                        ResultSetMetaData m = rs.getMetaData();
                        eq(m.getColumnCount(), 10, "column count");
                        eq(m.getColumnTypeName(3), "numeric", "numeric type name");
                        eq(m.getPrecision(3), 10, "numeric precision");
                        eq(m.getScale(3), 2, "numeric scale");
                        eq(m.getColumnType(1), Types.INTEGER, "int4 type");
                        eq(m.getTableName(2), "jd_t", "table name");
                        eq(m.isNullable(1), ResultSetMetaData.columnNoNulls, "id not nullable");
                    }
                    ps.setInt(1, 2);
                    try (ResultSet rs = ps.executeQuery()) {
                        check(rs.next(), "row 2");
                        rs.getString("name");
                        check(rs.wasNull(), "NULL text");
                    }
                }
                try (Statement s = c.createStatement()) {
                    s.execute("DROP TABLE jd_t");
                }
            }
        });

        test("batches", () -> {
            for (String opt : new String[] {"", "reWriteBatchedInserts=true"}) {
                try (Connection c = connect(opt)) {
                    try (Statement s = c.createStatement()) {
                        s.execute("CREATE TABLE jd_b (id int PRIMARY KEY, v text)");
                    }
                    try (PreparedStatement ps = c.prepareStatement("INSERT INTO jd_b VALUES (?, ?)")) {
                        for (int i = 0; i < 500; i++) {
                            ps.setInt(1, i);
                            ps.setString(2, "v" + i);
                            ps.addBatch();
                        }
                        int[] counts = ps.executeBatch();
                        int total = 0;
                        for (int n : counts) total += n == Statement.SUCCESS_NO_INFO ? 1 : n;
                        eq(total, 500, "batch counts (" + opt + ")");
                    }
                    try (Statement s = c.createStatement()) {
                        s.addBatch("UPDATE jd_b SET v = 'x' WHERE id < 10");
                        s.addBatch("DELETE FROM jd_b WHERE id >= 490");
                        int[] counts = s.executeBatch();
                        eq(Arrays.toString(counts), "[10, 10]", "statement batch");
                        try (ResultSet rs = s.executeQuery("SELECT count(*) FROM jd_b")) {
                            rs.next();
                            eq(rs.getInt(1), 490, "rows after batch");
                        }
                        s.execute("DROP TABLE jd_b");
                    }
                }
            }
        });

        test("fetch_size_cursor", () -> {
            try (Connection c = connect("")) {
                c.setAutoCommit(false);
                try (Statement s = c.createStatement()) {
                    s.execute("CREATE TABLE jd_f (id int PRIMARY KEY, v text)");
                    s.execute("INSERT INTO jd_f SELECT g, 'r' || g FROM generate_series(1, 2000) g");
                }
                try (PreparedStatement ps = c.prepareStatement("SELECT id, v FROM jd_f WHERE id > ? ORDER BY id")) {
                    ps.setFetchSize(100);
                    ps.setInt(1, 0);
                    long sum = 0;
                    int n = 0;
                    try (ResultSet rs = ps.executeQuery()) {
                        while (rs.next()) {
                            sum += rs.getInt(1);
                            n++;
                        }
                    }
                    eq(n, 2000, "rows through the cursor");
                    eq(sum, 2000L * 2001 / 2, "sum");
                }
                try (Statement s = c.createStatement()) {
                    s.execute("DROP TABLE jd_f");
                }
                c.commit();
            }
        });

        test("binary_transfer", () -> {
            try (Connection c = connect("prepareThreshold=1&binaryTransfer=true")) {
                try (PreparedStatement ps = c.prepareStatement(
                        "SELECT ?::int4 + 1, ?::int8 * 2, ?::float8 / 2, ?::numeric, ?::timestamptz, ?::date, ?::bool, ?::text, ?::uuid")) {
                    for (int round = 0; round < 4; round++) {
                        ps.setInt(1, 41);
                        ps.setLong(2, 1L << 40);
                        ps.setDouble(3, 5.0);
                        ps.setBigDecimal(4, new BigDecimal("-123.4500"));
                        ps.setTimestamp(5, Timestamp.valueOf("2020-05-06 07:08:09.123456"));
                        ps.setDate(6, java.sql.Date.valueOf("1999-12-31"));
                        ps.setBoolean(7, false);
                        ps.setString(8, "text " + round);
                        ps.setObject(9, UUID.fromString("12345678-1234-5678-1234-567812345678"));
                        try (ResultSet rs = ps.executeQuery()) {
                            check(rs.next(), "row");
                            eq(rs.getInt(1), 42, "int4 (round " + round + ")");
                            eq(rs.getLong(2), 1L << 41, "int8");
                            eq(rs.getDouble(3), 2.5, "float8");
                            eq(rs.getBigDecimal(4), new BigDecimal("-123.4500"), "numeric");
                            eq(rs.getTimestamp(5), Timestamp.valueOf("2020-05-06 07:08:09.123456"), "timestamptz");
                            eq(rs.getDate(6), java.sql.Date.valueOf("1999-12-31"), "date");
                            eq(rs.getBoolean(7), false, "bool");
                            eq(rs.getString(8), "text " + round, "text");
                            eq(rs.getObject(9), UUID.fromString("12345678-1234-5678-1234-567812345678"), "uuid");
                        }
                    }
                }
            }
        });

        test("generated_keys_and_transactions", () -> {
            try (Connection c = connect("")) {
                try (Statement s = c.createStatement()) {
                    s.execute("CREATE TABLE jd_g (id serial PRIMARY KEY, v text NOT NULL)");
                }
                try (PreparedStatement ps = c.prepareStatement("INSERT INTO jd_g (v) VALUES (?)", Statement.RETURN_GENERATED_KEYS)) {
                    ps.setString(1, "a");
                    ps.executeUpdate();
                    try (ResultSet rs = ps.getGeneratedKeys()) {
                        check(rs.next(), "generated key row");
                        eq(rs.getInt("id"), 1, "generated id");
                    }
                }
                c.setAutoCommit(false);
                try (Statement s = c.createStatement()) {
                    s.execute("INSERT INTO jd_g (v) VALUES ('b')");
                    Savepoint sp = c.setSavepoint();
                    expectState("23502", () -> s.execute("INSERT INTO jd_g (v) VALUES (NULL)"));
                    c.rollback(sp);
                    s.execute("INSERT INTO jd_g (v) VALUES ('c')");
                    c.commit();
                    try (ResultSet rs = s.executeQuery("SELECT string_agg(v, ',' ORDER BY id) FROM jd_g")) {
                        rs.next();
                        eq(rs.getString(1), "a,b,c", "savepoint rollback kept the rest");
                    }
                    expectState("42703", () -> s.executeQuery("SELECT nope FROM jd_g"));
                    c.rollback();
                    c.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
                    try (ResultSet rs = s.executeQuery("SHOW transaction_isolation")) {
                        rs.next();
                        eq(rs.getString(1), "repeatable read", "isolation");
                    }
                    c.rollback();
                    c.setAutoCommit(true);
                    s.execute("DROP TABLE jd_g");
                }
            }
        });

        test("database_metadata", () -> {
            try (Connection c = connect("")) {
                try (Statement s = c.createStatement()) {
                    s.execute("CREATE TABLE jd_parent (id int PRIMARY KEY, code varchar(12) NOT NULL DEFAULT 'x', note text)");
                    s.execute("CREATE TABLE jd_child (a int, b int, parent_id int REFERENCES jd_parent(id) ON DELETE CASCADE, "
                        + "qty numeric(8,2), CONSTRAINT jd_child_pk PRIMARY KEY (a, b))");
                    s.execute("CREATE VIEW jd_view AS SELECT id FROM jd_parent");
                    s.execute("COMMENT ON TABLE jd_parent IS 'parents'");
                }
                DatabaseMetaData md = c.getMetaData();
                eq(column(md.getTables(null, "public", "jd_%", new String[] {"TABLE"}), "TABLE_NAME"),
                   Arrays.asList("jd_child", "jd_parent"), "getTables TABLE");
                eq(column(md.getTables(null, "public", "jd_%", new String[] {"VIEW"}), "TABLE_NAME"),
                   Arrays.asList("jd_view"), "getTables VIEW");
                eq(column(md.getTables(null, "public", "jd_parent", null), "REMARKS"), Arrays.asList("parents"), "remarks");
                try (ResultSet rs = md.getColumns(null, "public", "jd_parent", "%")) {
                    List<String> got = new ArrayList<>();
                    while (rs.next())
                        got.add(rs.getString("COLUMN_NAME") + ":" + rs.getString("TYPE_NAME") + ":" + rs.getInt("COLUMN_SIZE")
                            + ":" + rs.getString("IS_NULLABLE") + ":" + rs.getString("COLUMN_DEF") + ":" + rs.getInt("ORDINAL_POSITION")
                            + ":" + rs.getInt("DATA_TYPE"));
                    eq(got, Arrays.asList("id:int4:10:NO:null:1:4", "code:varchar:12:NO:'x'::character varying:2:12",
                        "note:text:2147483647:YES:null:3:12"), "getColumns");
                }
                try (ResultSet rs = md.getPrimaryKeys(null, "public", "jd_child")) {
                    List<String> got = new ArrayList<>();
                    while (rs.next()) got.add(rs.getString("COLUMN_NAME") + "/" + rs.getInt("KEY_SEQ") + "/" + rs.getString("PK_NAME"));
                    eq(got, Arrays.asList("a/1/jd_child_pk", "b/2/jd_child_pk"), "getPrimaryKeys");
                }
                try (ResultSet rs = md.getIndexInfo(null, "public", "jd_parent", false, false)) {
                    List<String> got = new ArrayList<>();
                    while (rs.next())
                        got.add(rs.getString("INDEX_NAME") + "/" + rs.getBoolean("NON_UNIQUE") + "/" + rs.getString("COLUMN_NAME")
                            + "/" + rs.getInt("ORDINAL_POSITION") + "/" + rs.getString("ASC_OR_DESC"));
                    eq(got, Arrays.asList("jd_parent_pkey/false/id/1/A"), "getIndexInfo");
                }
                try (ResultSet rs = md.getImportedKeys(null, "public", "jd_child")) {
                    List<String> got = new ArrayList<>();
                    while (rs.next())
                        got.add(rs.getString("PKTABLE_NAME") + "." + rs.getString("PKCOLUMN_NAME") + " <- " + rs.getString("FKCOLUMN_NAME")
                            + " " + rs.getString("FK_NAME") + " del=" + rs.getInt("DELETE_RULE") + " pk=" + rs.getString("PK_NAME"));
                    eq(got, Arrays.asList("jd_parent.id <- parent_id jd_child_parent_id_fkey del=0 pk=jd_parent_pkey"), "getImportedKeys");
                }
                check(column(md.getSchemas(), "TABLE_SCHEM").contains("public"), "getSchemas");
                try (ResultSet rs = md.getTypeInfo()) {
                    int n = 0;
                    while (rs.next()) n++;
                    check(n > 20, "getTypeInfo rows: " + n);
                }
                try (Statement s = c.createStatement()) {
                    s.execute("DROP VIEW jd_view");
                    s.execute("DROP TABLE jd_child");
                    s.execute("DROP TABLE jd_parent");
                }
            }
        });

        Map<String, String> xf = new HashMap<>();
        Path list = Path.of(System.getProperty("xfail.list", "xfail.list"));
        if (Files.exists(list))
            for (String line : Files.readAllLines(list)) {
                String t = line.trim();
                if (t.isEmpty() || t.startsWith("#") || !t.startsWith("jdbc.")) continue;
                int sp = t.indexOf(' ');
                xf.put(sp < 0 ? t.substring(5) : t.substring(5, sp), sp < 0 ? "" : t.substring(sp + 1).trim());
            }
        Set<String> only = new HashSet<>(Arrays.asList(args));
        int passed = 0, failed = 0, skipped = 0;
        for (int i = 0; i < names.size(); i++) {
            String name = names.get(i);
            if (!only.isEmpty() && !only.contains(name)) continue;
            long t0 = System.nanoTime();
            Throwable err = null;
            try {
                bodies.get(i).run();
            } catch (Throwable e) {
                err = e;
            }
            double secs = (System.nanoTime() - t0) / 1e9;
            String msg = err == null ? "" : (err.getClass().getSimpleName() + ": " + String.valueOf(err.getMessage()).split("\n")[0]);
            if (xf.containsKey(name)) {
                if (err == null) {
                    failed++;
                    System.out.println("# XPASS " + name + ": listed in xfail.list (" + xf.get(name) + ") but passes: remove the entry");
                } else {
                    skipped++;
                    System.out.println("# xfail " + name + ": " + xf.get(name) + " (" + msg + ")");
                }
            } else if (err == null) {
                passed++;
                System.out.printf("ok     %s (%.2f s)%n", name, secs);
            } else {
                failed++;
                System.out.println("# FAIL " + name + ": " + msg);
                StackTraceElement[] st = err.getStackTrace();
                for (int k = 0; k < Math.min(4, st.length); k++) System.out.println("       at " + st[k]);
            }
        }
        System.out.println(passed + " passed, " + failed + " failed, " + skipped + " skipped");
        System.exit(failed == 0 ? 0 : 1);
    }
}
