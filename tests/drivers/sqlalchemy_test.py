#!/usr/bin/python3
"""sqlalchemy_test.py — SQLAlchemy 1.4 (Debian python3-sqlalchemy, psycopg2
dialect) against strata: dialect initialisation, Core (DDL, insert, select,
joins, update, delete, transactions), the ORM (declarative models,
create_all with foreign keys, sessions, relationships, eager loading) and
inspector reflection of tables, columns, primary and foreign keys, indexes,
unique and check constraints, views and sequences."""
import datetime
import decimal

import sqlalchemy as sa
from sqlalchemy import orm

import drvtest
from drvtest import check, eq, test


def engine(ctx):
    return sa.create_engine(f"postgresql+psycopg2://postgres@{ctx.host}:{ctx.port}/postgres", future=True)


@test
def dialect_initialises(ctx):
    eng = engine(ctx)
    with eng.connect() as conn:
        eq(conn.dialect.server_version_info[0], 15, "server version")
        eq(conn.execute(sa.text("SELECT 1")).scalar(), 1, "SELECT 1")
        check(conn.dialect.default_schema_name == "public", f"default schema {conn.dialect.default_schema_name}")
    eng.dispose()


@test
def core_crud(ctx):
    eng = engine(ctx)
    md = sa.MetaData()
    items = sa.Table("sa_items", md,
                     sa.Column("id", sa.Integer, primary_key=True),
                     sa.Column("name", sa.String(50), nullable=False),
                     sa.Column("price", sa.Numeric(10, 2)),
                     sa.Column("added", sa.DateTime, server_default=sa.func.now()),
                     sa.Column("tags", sa.ARRAY(sa.Text)),
                     sa.Column("active", sa.Boolean, default=True))
    md.create_all(eng)
    try:
        with eng.begin() as conn:
            res = conn.execute(items.insert().returning(items.c.id),
                               [{"name": "a", "price": decimal.Decimal("1.50"), "tags": ["x"]},
                                {"name": "b", "price": decimal.Decimal("2.25"), "tags": []},
                                {"name": "c", "price": None, "tags": None}])
            ids = sorted(r[0] for r in res)
            eq(ids, [1, 2, 3], "serial ids")
        with eng.connect() as conn:
            rows = conn.execute(sa.select(items.c.name, items.c.price).where(items.c.price > 1).order_by(items.c.name)).all()
            eq([tuple(r) for r in rows], [("a", decimal.Decimal("1.50")), ("b", decimal.Decimal("2.25"))], "select")
            added = conn.execute(sa.select(items.c.added).where(items.c.id == 1)).scalar()
            check(isinstance(added, datetime.datetime), f"server default now(): {added!r}")
            eq(conn.execute(sa.select(sa.func.count()).select_from(items)).scalar(), 3, "count")
            eq(conn.execute(sa.select(items.c.tags).where(items.c.id == 1)).scalar(), ["x"], "array column")
        with eng.begin() as conn:
            r = conn.execute(items.update().where(items.c.name == "c").values(price=decimal.Decimal("9.99")))
            eq(r.rowcount, 1, "update rowcount")
            r = conn.execute(items.delete().where(items.c.price < 2))
            eq(r.rowcount, 1, "delete rowcount")
        # A failed transaction rolls back.
        try:
            with eng.begin() as conn:
                conn.execute(items.insert(), {"id": 10, "name": "x"})
                conn.execute(items.insert(), {"id": 10, "name": "y"})
        except sa.exc.IntegrityError as e:
            eq(e.orig.pgcode, "23505", "duplicate key")
        with eng.connect() as conn:
            eq(conn.execute(sa.select(sa.func.count()).select_from(items).where(items.c.id == 10)).scalar(), 0,
               "rolled back")
    finally:
        md.drop_all(eng)
        eng.dispose()


Base = orm.declarative_base()


class Author(Base):
    __tablename__ = "sa_author"
    id = sa.Column(sa.Integer, primary_key=True)
    name = sa.Column(sa.String(100), nullable=False)
    books = orm.relationship("Book", back_populates="author", cascade="all, delete-orphan", order_by="Book.id")


class Book(Base):
    __tablename__ = "sa_book"
    id = sa.Column(sa.Integer, primary_key=True)
    title = sa.Column(sa.String(200), nullable=False)
    year = sa.Column(sa.Integer, sa.CheckConstraint("year > 1400", name="sa_book_year_check"))
    author_id = sa.Column(sa.Integer, sa.ForeignKey("sa_author.id", ondelete="CASCADE"), nullable=False)
    author = orm.relationship("Author", back_populates="books")


@test
def orm_session_relationships(ctx):
    eng = engine(ctx)
    Base.metadata.create_all(eng)
    try:
        with orm.Session(eng) as s:
            a = Author(name="Ursula", books=[Book(title="A Wizard of Earthsea", year=1968),
                                             Book(title="The Dispossessed", year=1974)])
            b = Author(name="Stanislaw", books=[Book(title="Solaris", year=1961)])
            s.add_all([a, b])
            s.commit()
            eq(a.id is not None and a.books[0].author_id == a.id, True, "keys assigned")
        with orm.Session(eng) as s:
            got = s.execute(sa.select(Author).options(orm.selectinload(Author.books)).order_by(Author.name)).scalars().all()
            eq([(x.name, [bk.title for bk in x.books]) for x in got],
               [("Stanislaw", ["Solaris"]), ("Ursula", ["A Wizard of Earthsea", "The Dispossessed"])], "selectinload")
            bk = s.execute(sa.select(Book).join(Book.author).where(Author.name == "Stanislaw")).scalar_one()
            eq(bk.author.name, "Stanislaw", "lazy many-to-one")
            bk.year = 1962
            s.commit()
            eq(s.get(Book, bk.id).year, 1962, "update through the session")
            q = s.execute(sa.select(Author.name, sa.func.count(Book.id)).join(Book).group_by(Author.name)
                          .order_by(Author.name)).all()
            eq([tuple(r) for r in q], [("Stanislaw", 1), ("Ursula", 2)], "join + group by")
            u = s.execute(sa.select(Author).where(Author.name == "Ursula")).scalar_one()
            s.delete(u)
            s.commit()
            eq(s.execute(sa.select(sa.func.count()).select_from(Book)).scalar(), 1, "cascade delete-orphan")
            try:
                s.add(Book(title="too old", year=1000, author_id=bk.author_id))
                s.commit()
                raise drvtest.Failure("CHECK constraint not enforced")
            except sa.exc.IntegrityError as e:
                eq(e.orig.pgcode, "23514", "check violation")
                s.rollback()
    finally:
        Base.metadata.drop_all(eng)
        eng.dispose()


@test
def inspector_reflection(ctx):
    eng = engine(ctx)
    with eng.begin() as conn:
        conn.execute(sa.text(
            "CREATE TABLE sa_parent (id integer PRIMARY KEY, code varchar(10) NOT NULL DEFAULT 'x', "
            "amount numeric(12, 3), created timestamptz DEFAULT now())"))
        conn.execute(sa.text(
            "CREATE TABLE sa_child (a integer, b integer, parent_id integer REFERENCES sa_parent(id) ON DELETE SET NULL, "
            "note text, CONSTRAINT sa_child_pk PRIMARY KEY (a, b), CONSTRAINT sa_child_ck CHECK (a > 0))"))
        conn.execute(sa.text("CREATE VIEW sa_view AS SELECT id, code FROM sa_parent WHERE id > 10"))
        conn.execute(sa.text("CREATE SEQUENCE sa_seq"))
    try:
        insp = sa.inspect(eng)
        check("public" in insp.get_schema_names(), "schemas")
        tables = insp.get_table_names()
        check({"sa_parent", "sa_child"} <= set(tables), f"tables {tables}")
        check("sa_view" in insp.get_view_names(), "views")
        check("sa_parent" in insp.get_view_definition("sa_view"), "view definition")
        check("sa_seq" in insp.get_sequence_names(), "sequences")
        check(insp.has_table("sa_child") and not insp.has_table("sa_nope"), "has_table")
        cols = {c["name"]: c for c in insp.get_columns("sa_parent")}
        eq(list(cols), ["id", "code", "amount", "created"], "column order")
        check(isinstance(cols["id"]["type"], sa.Integer) and not cols["id"]["nullable"], "id column")
        eq(cols["code"]["type"].length, 10, "varchar length")
        eq(cols["code"]["default"], "'x'::character varying", "varchar default")
        eq((cols["amount"]["type"].precision, cols["amount"]["type"].scale), (12, 3), "numeric(12,3)")
        check(isinstance(cols["created"]["type"], sa.DateTime) and cols["created"]["type"].timezone, "timestamptz")
        eq(cols["created"]["default"], "now()", "now() default")
        eq(insp.get_pk_constraint("sa_child"), {"constrained_columns": ["a", "b"], "name": "sa_child_pk"}, "pk")
        fks = insp.get_foreign_keys("sa_child")
        eq(len(fks), 1, "one foreign key")
        fk = fks[0]
        eq((fk["constrained_columns"], fk["referred_table"], fk["referred_columns"], fk["options"].get("ondelete")),
           (["parent_id"], "sa_parent", ["id"], "SET NULL"), "foreign key")
        eq(insp.get_check_constraints("sa_child"), [{"name": "sa_child_ck", "sqltext": "a > 0"}], "check constraints")
        eq(insp.get_indexes("sa_child"), [], "no secondary indexes")
        eq(insp.get_unique_constraints("sa_child"), [], "no unique constraints")
        # Reflect a Table object from the catalog and use it.
        md = sa.MetaData()
        child = sa.Table("sa_child", md, autoload_with=eng)
        eq([c.name for c in child.primary_key], ["a", "b"], "reflected primary key")
        eq([fk.target_fullname for fk in child.foreign_keys], ["sa_parent.id"], "reflected foreign key")
    finally:
        with eng.begin() as conn:
            conn.execute(sa.text("DROP VIEW sa_view"))
            conn.execute(sa.text("DROP TABLE sa_child"))
            conn.execute(sa.text("DROP TABLE sa_parent"))
            conn.execute(sa.text("DROP SEQUENCE sa_seq"))
        eng.dispose()


@test
def inspector_indexes_and_unique(ctx):
    eng = engine(ctx)
    with eng.begin() as conn:
        conn.execute(sa.text("CREATE TABLE sa_ix (id integer PRIMARY KEY, email text UNIQUE, name text, n int)"))
        conn.execute(sa.text("CREATE INDEX sa_ix_name ON sa_ix (name, n DESC)"))
    try:
        insp = sa.inspect(eng)
        eq(insp.get_unique_constraints("sa_ix"), [{"column_names": ["email"], "name": "sa_ix_email_key"}], "unique")
        idx = [i for i in insp.get_indexes("sa_ix") if i["name"] == "sa_ix_name"]
        eq(len(idx), 1, "index reflected")
        eq(idx[0]["column_names"], ["name", "n"], "index columns")
    finally:
        with eng.begin() as conn:
            conn.execute(sa.text("DROP TABLE sa_ix"))
        eng.dispose()


if __name__ == "__main__":
    raise SystemExit(drvtest.main("sqlalchemy"))
