"""twoserver.py — small psycopg2 helpers shared by the two-server etcd tests
(rc_lock.py, fk_lock.py): connect to a server by port, fetch one value, and
commit reporting the SQLSTATE instead of raising."""
import psycopg2


def connect(port, autocommit):
    c = psycopg2.connect(host="127.0.0.1", port=port, user="postgres", dbname="postgres")
    c.autocommit = autocommit
    return c


def one(conn, sql, args=None):
    cur = conn.cursor()
    cur.execute(sql, args)
    return cur.fetchone()[0]


def commit_code(conn):
    """'committed', or the SQLSTATE the commit failed with (rolled back)."""
    try:
        conn.commit()
        return "committed"
    except psycopg2.Error as e:
        conn.rollback()
        return e.pgcode
