/*
 * ddl.c — CREATE/DROP for tables, schemas and sequences, with PostgreSQL's
 * constraint naming, serial and identity columns, defaults and CHECK
 * expressions kept as SQL text, IF [NOT] EXISTS notices and dependency
 * checks. Catalog changes go into the transaction's catalog change set;
 * storage is created at once and dropped on abort (or after commit for
 * DROP), so a crash leaves the old or the new schema, never a mix.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sql_int.h"

void sql_notice(sql_session *s, util_errcode code, const char *fmt, ...) UTIL_PRINTF(3, 4);

static const char *str_of(pnode *n) { return n && n->node_case == PG_QUERY__NODE__NODE_STRING ? n->string->sval : NULL; }

/* ---------------------------------------------------------------- helpers */

/* "SELECT <expr>" deparsed from a raw expression (how defaults, CHECKs,
 * views and index expressions are stored). */
char *sql_deparse_select_expr(pnode *expr)
{
	PgQuery__ResTarget rt = PG_QUERY__RES_TARGET__INIT;
	rt.val = expr;
	rt.location = -1;
	PgQuery__Node rtn = PG_QUERY__NODE__INIT;
	rtn.node_case = PG_QUERY__NODE__NODE_RES_TARGET;
	rtn.res_target = &rt;
	PgQuery__Node *tl[1] = {&rtn};
	PgQuery__SelectStmt sel = PG_QUERY__SELECT_STMT__INIT;
	sel.n_target_list = 1;
	sel.target_list = tl;
	sel.limit_option = PG_QUERY__LIMIT_OPTION__LIMIT_OPTION_DEFAULT;
	sel.op = PG_QUERY__SET_OPERATION__SETOP_NONE;
	PgQuery__Node seln = PG_QUERY__NODE__INIT;
	seln.node_case = PG_QUERY__NODE__NODE_SELECT_STMT;
	seln.select_stmt = &sel;
	PgQuery__RawStmt raw = PG_QUERY__RAW_STMT__INIT;
	raw.stmt = &seln;
	PgQuery__RawStmt *stmts[1] = {&raw};
	PgQuery__ParseResult pr = PG_QUERY__PARSE_RESULT__INIT;
	pr.version = PG_VERSION_NUM;
	pr.n_stmts = 1;
	pr.stmts = stmts;
	size_t len = pg_query__parse_result__get_packed_size(&pr);
	uint8_t *buf = util_xmalloc(len ? len : 1);
	pg_query__parse_result__pack(&pr, buf);
	PgQueryProtobuf pb = {len, (char *)buf};
	PgQueryDeparseResult dr = pg_query_deparse_protobuf(pb);
	free(buf);
	if (dr.error) {
		char msg[256];
		snprintf(msg, sizeof msg, "%s", dr.error->message);
		pg_query_free_deparse_result(dr);
		ty_error(UTIL_E_FEATURE_NOT_SUPPORTED, "could not store expression: %s", msg);
	}
	char *s = ty_strdup(dr.query);
	pg_query_free_deparse_result(dr);
	return s;
}

/* Deparses a whole statement (views). */
char *sql_deparse_stmt(pnode *stmt)
{
	PgQuery__RawStmt raw = PG_QUERY__RAW_STMT__INIT;
	raw.stmt = stmt;
	PgQuery__RawStmt *stmts[1] = {&raw};
	PgQuery__ParseResult pr = PG_QUERY__PARSE_RESULT__INIT;
	pr.version = PG_VERSION_NUM;
	pr.n_stmts = 1;
	pr.stmts = stmts;
	size_t len = pg_query__parse_result__get_packed_size(&pr);
	uint8_t *buf = util_xmalloc(len ? len : 1);
	pg_query__parse_result__pack(&pr, buf);
	PgQueryProtobuf pb = {len, (char *)buf};
	PgQueryDeparseResult dr = pg_query_deparse_protobuf(pb);
	free(buf);
	if (dr.error) {
		char msg[256];
		snprintf(msg, sizeof msg, "%s", dr.error->message);
		pg_query_free_deparse_result(dr);
		ty_error(UTIL_E_FEATURE_NOT_SUPPORTED, "could not store statement: %s", msg);
	}
	char *s = ty_strdup(dr.query);
	pg_query_free_deparse_result(dr);
	return s;
}

static cat_oid new_oid(sql_session *s)
{
	cat_oid o;
	util_err err;
	if (cat_new_oid(s->e->cat, &o, &err) != 0)
		ty_throw(&err);
	return o;
}

/* PostgreSQL's ChooseRelationName: table_col_suffix truncated to fit in
 * 63 bytes, made unique with a number. */
static void choose_name(cat_snap *cs, cat_oid schema, const char *t, const char *col, const char *suffix, char *out,
			const cat_rel *in_rel)
{
	for (int pass = 0; pass < 1000; pass++) {
		char sfx[32];
		if (pass)
			snprintf(sfx, sizeof sfx, "%s%d", suffix, pass);
		else
			snprintf(sfx, sizeof sfx, "%s", suffix);
		size_t room = CAT_NAME_MAX - 1 - strlen(sfx) - 1 - (col ? 1 : 0);
		size_t tl = strlen(t), cl = col ? strlen(col) : 0;
		/* Truncate the longer part first, as PostgreSQL does. */
		while (tl + cl > room) {
			if (tl > cl)
				tl--;
			else
				cl--;
		}
		if (col)
			snprintf(out, CAT_NAME_MAX, "%.*s_%.*s_%s", (int)tl, t, (int)cl, col, sfx);
		else
			snprintf(out, CAT_NAME_MAX, "%.*s_%s", (int)tl, t, sfx);
		bool taken = cat_rel_by_name(cs, schema, out) != NULL;
		if (in_rel && cat_constraint_by_name(in_rel, out))
			taken = true;
		if (!taken)
			return;
	}
}

/* Grows an arena-allocated pointer list by one slot. */
static void *ty_realloc_list(void *list, int n, size_t elem)
{
	void *nl = ty_alloc(elem * (size_t)(n + 1));
	if (n)
		memcpy(nl, list, elem * (size_t)n);
	return nl;
}

int64_t sql_def_int(pnode *arg, bool *ok);
static int64_t def_int(pnode *arg, bool *ok)
{
	*ok = true;
	if (arg && arg->node_case == PG_QUERY__NODE__NODE_INTEGER)
		return arg->integer->ival;
	if (arg && arg->node_case == PG_QUERY__NODE__NODE_FLOAT)
		return strtoll(arg->float_->fval, NULL, 10);
	if (arg && arg->node_case == PG_QUERY__NODE__NODE_A_CONST) {
		if (arg->a_const->val_case == PG_QUERY__A__CONST__VAL_IVAL)
			return arg->a_const->ival->ival;
		if (arg->a_const->val_case == PG_QUERY__A__CONST__VAL_FVAL)
			return strtoll(arg->a_const->fval->fval, NULL, 10);
	}
	*ok = false;
	return 0;
}

int64_t sql_def_int(pnode *arg, bool *ok) { return def_int(arg, ok); }

/* ---------------------------------------------------------------- sequences */

void sql_seq_options(sql_session *s, cat_sequence_info *sq, PgQuery__Node **opts, size_t n, bool creating);
void sql_seq_init_value(sql_session *s, cat_oid seq, const cat_sequence_info *info);

static cat_obj *make_sequence(sql_session *s, cat_oid schema, const char *name, ty_oid type, PgQuery__Node **opts,
			      size_t nopts)
{
	cat_obj *o = cat_obj_new(CAT_REL, new_oid(s), s->db_oid);
	cat_rel *r = &o->rel;
	r->relkind = CAT_RELKIND_SEQUENCE;
	r->schema = schema;
	r->owner = s->user_oid;
	snprintf(r->name, sizeof r->name, "%s", name);
	r->seq = cat_obj_alloc(o, sizeof *r->seq);
	r->seq->type = type;
	r->seq->increment = 1;
	r->seq->cache = 1;
	sql_seq_options(s, r->seq, opts, nopts, true);
	/* Columns as PostgreSQL shows a sequence relation. */
	static const char *names[] = {"last_value", "log_cnt", "is_called"};
	ty_oid types[] = {TY_INT8, TY_INT8, TY_BOOL};
	r->ncols = 3;
	r->cols = cat_obj_alloc(o, sizeof(cat_column) * 3);
	for (int i = 0; i < 3; i++) {
		snprintf(r->cols[i].name, CAT_NAME_MAX, "%s", names[i]);
		r->cols[i].attnum = (int16_t)(i + 1);
		r->cols[i].col_id = (uint16_t)(i + 1);
		r->cols[i].type = types[i];
		r->cols[i].typmod = -1;
		r->cols[i].notnull = true;
	}
	r->next_col_id = 4;
	return o;
}

/* ---------------------------------------------------------------- CREATE TABLE */

typedef struct tbl_build {
	sql_session *s;
	cat_snap *cs;
	cat_txn *ct;
	cat_obj *o;
	cat_rel *r;
	int cols_cap, cons_cap;
	cat_obj **extra; /* sequences created for serial/identity columns */
	int nextra;
	const char *text;
} tbl_build;

static cat_constraint *add_constraint(tbl_build *tb, char type, const char *name)
{
	cat_rel *r = tb->r;
	if (r->ncons == tb->cons_cap) {
		tb->cons_cap = tb->cons_cap ? tb->cons_cap * 2 : 4;
		cat_constraint *n = cat_obj_alloc(tb->o, sizeof(cat_constraint) * (size_t)tb->cons_cap);
		if (r->ncons)
			memcpy(n, r->cons, sizeof(cat_constraint) * (size_t)r->ncons);
		r->cons = n;
	}
	cat_constraint *c = &r->cons[r->ncons++];
	memset(c, 0, sizeof *c);
	c->oid = new_oid(tb->s);
	c->type = type;
	c->validated = true;
	if (name && *name) {
		if (cat_constraint_by_name(r, name) && strcmp(cat_constraint_by_name(r, name)->name, name) == 0 &&
		    cat_constraint_by_name(r, name) != c)
			ty_error(UTIL_E_DUPLICATE_OBJECT, "constraint \"%s\" for relation \"%s\" already exists", name, r->name);
		snprintf(c->name, sizeof c->name, "%s", name);
	}
	return c;
}

static int16_t col_attnum(tbl_build *tb, const char *name, int location)
{
	const cat_column *c = cat_column_by_name(tb->r, name);
	if (!c) {
		util_err *e = ty_errstart(UTIL_E_UNDEFINED_COLUMN, "column \"%s\" named in key does not exist", name);
		e->position = sql_errposition(tb->text, location);
		ty_errthrow();
	}
	return c->attnum;
}

static void set_keys(tbl_build *tb, cat_constraint *c, PgQuery__Node **keys, size_t n, int location)
{
	c->ncols = (int)n;
	c->cols = cat_obj_alloc(tb->o, sizeof(int16_t) * (n ? n : 1));
	for (size_t i = 0; i < n; i++) {
		c->cols[i] = col_attnum(tb, str_of(keys[i]), location);
		for (size_t k = 0; k < i; k++)
			if (c->cols[k] == c->cols[i])
				ty_error(UTIL_E_DUPLICATE_COLUMN, "column \"%s\" appears twice in %s constraint", str_of(keys[i]),
					 c->type == 'p' ? "primary key" : "unique");
	}
}

static char fk_action(const char *a)
{
	if (!a || !*a)
		return CAT_FK_NO_ACTION;
	switch (a[0]) {
	case 'r': return CAT_FK_RESTRICT;
	case 'c': return CAT_FK_CASCADE;
	case 'n': return CAT_FK_SET_NULL;
	case 'd': return CAT_FK_SET_DEFAULT;
	default: return CAT_FK_NO_ACTION;
	}
}

void sql_fk_resolve(sql_session *s, cat_snap *cs, const cat_rel *r, cat_oid self_oid, cat_constraint *c,
		    PgQuery__Constraint *con, cat_obj *owner);

static void apply_constraint(tbl_build *tb, PgQuery__Constraint *con, cat_column *col)
{
	cat_rel *r = tb->r;
	switch (con->contype) {
	case PG_QUERY__CONSTR_TYPE__CONSTR_NULL:
		if (col)
			col->notnull = false;
		return;
	case PG_QUERY__CONSTR_TYPE__CONSTR_NOTNULL:
		if (col)
			col->notnull = true;
		return;
	case PG_QUERY__CONSTR_TYPE__CONSTR_DEFAULT:
		if (col->identity)
			ty_error(UTIL_E_SYNTAX_ERROR, "both default and identity specified for column \"%s\" of table \"%s\"",
				 col->name, r->name);
		col->default_sql = cat_obj_strdup(tb->o, sql_deparse_select_expr(con->raw_expr));
		return;
	case PG_QUERY__CONSTR_TYPE__CONSTR_IDENTITY: {
		if (col->default_sql)
			ty_error(UTIL_E_SYNTAX_ERROR, "both default and identity specified for column \"%s\" of table \"%s\"",
				 col->name, r->name);
		if (col->type != TY_INT2 && col->type != TY_INT4 && col->type != TY_INT8)
			ty_error(UTIL_E_INVALID_PARAMETER_VALUE, "identity column type must be smallint, integer, or bigint");
		col->identity = con->generated_when && con->generated_when[0] == 'a' ? 'a' : 'd';
		col->notnull = true;
		char sname[CAT_NAME_MAX];
		choose_name(tb->cs, r->schema, r->name, col->name, "seq", sname, NULL);
		cat_obj *sq = make_sequence(tb->s, r->schema, sname, col->type, con->options, con->n_options);
		sq->rel.seq->owned_by_table = tb->o->oid;
		sq->rel.seq->owned_by_col = col->attnum;
		tb->extra = ty_realloc_list(tb->extra, tb->nextra, sizeof(cat_obj *));
		tb->extra[tb->nextra++] = sq;
		char *def = ty_alloc(strlen(sname) + 64);
		sprintf(def, "SELECT nextval('%s'::regclass)", sname);
		col->default_sql = cat_obj_strdup(tb->o, def);
		return;
	}
	case PG_QUERY__CONSTR_TYPE__CONSTR_GENERATED:
		ty_error(UTIL_E_FEATURE_NOT_SUPPORTED, "generated columns are not supported");
	case PG_QUERY__CONSTR_TYPE__CONSTR_CHECK: {
		cat_constraint *c = add_constraint(tb, 'c', con->conname);
		c->check_sql = cat_obj_strdup(tb->o, sql_deparse_select_expr(con->raw_expr));
		c->no_inherit = con->is_no_inherit;
		c->validated = !con->skip_validation;
		if (!c->name[0]) {
			char nm[CAT_NAME_MAX];
			choose_name(tb->cs, r->schema, r->name, col ? col->name : NULL, "check", nm, r);
			snprintf(c->name, sizeof c->name, "%s", nm);
		}
		return;
	}
	case PG_QUERY__CONSTR_TYPE__CONSTR_PRIMARY: {
		for (int i = 0; i < r->ncons; i++)
			if (r->cons[i].type == 'p')
				ty_error(UTIL_E_INVALID_TABLE_DEFINITION, "multiple primary keys for table \"%s\" are not allowed",
					 r->name);
		cat_constraint *c = add_constraint(tb, 'p', con->conname);
		if (col) {
			c->ncols = 1;
			c->cols = cat_obj_alloc(tb->o, sizeof(int16_t));
			c->cols[0] = col->attnum;
		} else {
			set_keys(tb, c, con->keys, con->n_keys, con->location);
		}
		if (!c->name[0]) {
			char nm[CAT_NAME_MAX];
			choose_name(tb->cs, r->schema, r->name, NULL, "pkey", nm, r);
			snprintf(c->name, sizeof c->name, "%s", nm);
		}
		return;
	}
	case PG_QUERY__CONSTR_TYPE__CONSTR_UNIQUE: {
		cat_constraint *c = add_constraint(tb, 'u', con->conname);
		if (col) {
			c->ncols = 1;
			c->cols = cat_obj_alloc(tb->o, sizeof(int16_t));
			c->cols[0] = col->attnum;
		} else {
			set_keys(tb, c, con->keys, con->n_keys, con->location);
		}
		if (!c->name[0]) {
			char nm[CAT_NAME_MAX];
			util_buf cols = UTIL_BUF_INIT;
			for (int i = 0; i < c->ncols; i++) {
				if (i)
					util_buf_putc(&cols, '_');
				util_buf_puts(&cols, cat_column_by_attnum(r, c->cols[i])->name);
			}
			choose_name(tb->cs, r->schema, r->name, cols.data, "key", nm, r);
			util_buf_free(&cols);
			snprintf(c->name, sizeof c->name, "%s", nm);
		}
		return;
	}
	case PG_QUERY__CONSTR_TYPE__CONSTR_FOREIGN: {
		cat_constraint *c = add_constraint(tb, 'f', con->conname);
		if (col) {
			c->ncols = 1;
			c->cols = cat_obj_alloc(tb->o, sizeof(int16_t));
			c->cols[0] = col->attnum;
		} else {
			set_keys(tb, c, con->fk_attrs, con->n_fk_attrs, con->location);
		}
		c->on_delete = fk_action(con->fk_del_action);
		c->on_update = fk_action(con->fk_upd_action);
		c->match = con->fk_matchtype && con->fk_matchtype[0] == 'f' ? 'f' : 's';
		c->deferrable = con->deferrable;
		c->deferred = con->initdeferred;
		sql_fk_resolve(tb->s, tb->cs, r, tb->o->oid, c, con, tb->o);
		if (!c->name[0]) {
			char nm[CAT_NAME_MAX];
			util_buf cols = UTIL_BUF_INIT;
			for (int i = 0; i < c->ncols; i++) {
				if (i)
					util_buf_putc(&cols, '_');
				util_buf_puts(&cols, cat_column_by_attnum(r, c->cols[i])->name);
			}
			choose_name(tb->cs, r->schema, r->name, cols.data, "fkey", nm, r);
			util_buf_free(&cols);
			snprintf(c->name, sizeof c->name, "%s", nm);
		}
		return;
	}
	case PG_QUERY__CONSTR_TYPE__CONSTR_ATTR_DEFERRABLE:
	case PG_QUERY__CONSTR_TYPE__CONSTR_ATTR_NOT_DEFERRABLE:
	case PG_QUERY__CONSTR_TYPE__CONSTR_ATTR_DEFERRED:
	case PG_QUERY__CONSTR_TYPE__CONSTR_ATTR_IMMEDIATE:
		return;
	default:
		ty_error(UTIL_E_FEATURE_NOT_SUPPORTED, "constraint type is not supported");
	}
}

static cat_column *add_column(tbl_build *tb, PgQuery__ColumnDef *cd)
{
	cat_rel *r = tb->r;
	for (int i = 0; i < r->ncols; i++)
		if (!strcmp(r->cols[i].name, cd->colname)) {
			util_err *e = ty_errstart(UTIL_E_DUPLICATE_COLUMN, "column \"%s\" specified more than once", cd->colname);
			(void)e;
			ty_errthrow();
		}
	if (r->ncols >= 1600)
		ty_error(UTIL_E_TOO_MANY_COLUMNS, "tables can have at most 1600 columns");
	if (r->ncols == tb->cols_cap) {
		tb->cols_cap = tb->cols_cap ? tb->cols_cap * 2 : 8;
		cat_column *n = cat_obj_alloc(tb->o, sizeof(cat_column) * (size_t)tb->cols_cap);
		if (r->ncols)
			memcpy(n, r->cols, sizeof(cat_column) * (size_t)r->ncols);
		r->cols = n;
	}
	cat_column *c = &r->cols[r->ncols++];
	memset(c, 0, sizeof *c);
	snprintf(c->name, sizeof c->name, "%s", cd->colname);
	c->attnum = (int16_t)r->ncols;
	c->col_id = r->next_col_id++;
	sql_actx ax = {tb->s, tb->cs, NULL, &(sql_pstate){.text = tb->text}};
	sql_typename(&ax, cd->type_name, &c->type, &c->typmod);
	const char *tn = sql_last_name(cd->type_name->names, cd->type_name->n_names);
	const ty_type *t = ty_type_get(c->type);
	if (t && t->typtype == 'p')
		ty_error(UTIL_E_INVALID_TABLE_DEFINITION, "column \"%s\" has pseudo-type %s", c->name, t->name);
	c->notnull = cd->is_not_null;
	if ((!strcmp(tn, "serial") || !strcmp(tn, "serial4") || !strcmp(tn, "bigserial") || !strcmp(tn, "serial8") ||
	     !strcmp(tn, "smallserial") || !strcmp(tn, "serial2")) &&
	    cd->type_name->n_names <= 2) {
		char sname[CAT_NAME_MAX];
		choose_name(tb->cs, r->schema, r->name, c->name, "seq", sname, NULL);
		cat_obj *sq = make_sequence(tb->s, r->schema, sname, c->type, NULL, 0);
		sq->rel.seq->owned_by_table = tb->o->oid;
		sq->rel.seq->owned_by_col = c->attnum;
		tb->extra = ty_realloc_list(tb->extra, tb->nextra, sizeof(cat_obj *));
		tb->extra[tb->nextra++] = sq;
		char *def = ty_alloc(strlen(sname) + 64);
		sprintf(def, "SELECT nextval('%s'::regclass)", sname);
		c->default_sql = cat_obj_strdup(tb->o, def);
		c->notnull = true;
	}
	if (cd->raw_default)
		c->default_sql = cat_obj_strdup(tb->o, sql_deparse_select_expr(cd->raw_default));
	for (size_t i = 0; i < cd->n_constraints; i++)
		apply_constraint(tb, cd->constraints[i]->constraint, c);
	return c;
}

/* Validates default and CHECK expressions by analyzing them once. */
static void validate_exprs(tbl_build *tb)
{
	cat_rel *r = tb->r;
	util_arena *a = ty_get_arena();
	sql_pstate ps = {.text = ""};
	sql_actx ax = {tb->s, tb->cs, a, &ps};
	for (int i = 0; i < r->ncols; i++)
		if (r->cols[i].default_sql && !r->cols[i].identity) {
			/* nextval on a sequence created here: skip (it is not visible yet). */
			if (strstr(r->cols[i].default_sql, "nextval(") && tb->nextra)
				continue;
			sql_column_default(&ax, r, i);
		}
}

static void storage_name(cat_obj *o, char prefix)
{
	snprintf(o->rel.storage, sizeof o->rel.storage, "%c%u.1", prefix, o->oid);
}

void sql_create_storage(sql_session *s, sql_txn *t, const char *name)
{
	kv_family_opts fam;
	kv_family_opts_default(&fam, SQL_FAMILY);
	kv_status st = kv_table_create(s->e->kv, name, &fam, 1);
	if (st != KV_OK && st != KV_EXISTS)
		sql_kv_error(st, "creating a table");
	sql_txn_drop_storage_on_abort(t, name);
}

void sql_apply_reloptions(sql_session *s, cat_obj *o, PgQuery__Node **opts, size_t n);

void sql_ddl_create_table(sql_session *s, PgQuery__CreateStmt *st, const char *text)
{
	sql_txn *t = s->txn;
	cat_txn *ct = sql_txn_ddl(t);
	cat_snap *cs = cat_txn_snap(ct);
	PgQuery__RangeVar *rv = st->relation;
	if (rv->relpersistence && rv->relpersistence[0] == 't') {
		/* TEMP tables behave as ordinary tables of the session here. */
	}
	if (st->n_inh_relations)
		ty_error(UTIL_E_FEATURE_NOT_SUPPORTED, "table inheritance is not supported");
	if (st->partspec)
		ty_error(UTIL_E_FEATURE_NOT_SUPPORTED, "partitioned tables are not supported");
	if (st->of_typename)
		ty_error(UTIL_E_FEATURE_NOT_SUPPORTED, "typed tables are not supported");
	cat_oid schema = sql_creation_schema(s, cs, rv->schemaname, rv->location);
	if (schema == CAT_OID_PG_CATALOG || schema == CAT_OID_INFORMATION_SCHEMA)
		ty_error(UTIL_E_INSUFFICIENT_PRIVILEGE, "permission denied to create \"%s.%s\"", sql_schema_name(cs, schema),
			 rv->relname);
	if (strlen(rv->relname) >= CAT_NAME_MAX)
		ty_error(UTIL_E_NAME_TOO_LONG, "identifier too long");
	const cat_obj *existing = cat_rel_by_name(cs, schema, rv->relname);
	if (existing) {
		if (st->if_not_exists) {
			sql_notice(s, UTIL_E_DUPLICATE_TABLE, "relation \"%s\" already exists, skipping", rv->relname);
			return;
		}
		ty_error(UTIL_E_DUPLICATE_TABLE, "relation \"%s\" already exists", rv->relname);
	}
	tbl_build tb;
	memset(&tb, 0, sizeof tb);
	tb.s = s;
	tb.cs = cs;
	tb.ct = ct;
	tb.text = text;
	tb.o = cat_obj_new(CAT_REL, new_oid(s), s->db_oid);
	tb.r = &tb.o->rel;
	cat_rel *r = tb.r;
	r->relkind = CAT_RELKIND_TABLE;
	r->schema = schema;
	r->owner = s->user_oid;
	r->next_col_id = 1;
	snprintf(r->name, sizeof r->name, "%s", rv->relname);
	bool interleaved = false;
	TY_TRY(tc)
	{
		for (size_t i = 0; i < st->n_table_elts; i++) {
			pnode *el = st->table_elts[i];
			if (el->node_case == PG_QUERY__NODE__NODE_COLUMN_DEF)
				add_column(&tb, el->column_def);
			else if (el->node_case == PG_QUERY__NODE__NODE_TABLE_LIKE_CLAUSE)
				ty_error(UTIL_E_FEATURE_NOT_SUPPORTED, "CREATE TABLE ... LIKE is not supported");
		}
		for (size_t i = 0; i < st->n_table_elts; i++) {
			pnode *el = st->table_elts[i];
			if (el->node_case == PG_QUERY__NODE__NODE_CONSTRAINT)
				apply_constraint(&tb, el->constraint, NULL);
		}
		for (size_t i = 0; i < st->n_constraints; i++)
			apply_constraint(&tb, st->constraints[i]->constraint, NULL);
		/* Primary key: its columns are NOT NULL and form the row key. */
		for (int i = 0; i < r->ncons; i++) {
			cat_constraint *c = &r->cons[i];
			if (c->type != 'p')
				continue;
			r->npk = c->ncols;
			r->pk = cat_obj_alloc(tb.o, sizeof(int16_t) * (size_t)c->ncols);
			r->pk_desc = cat_obj_alloc(tb.o, sizeof(bool) * (size_t)c->ncols);
			for (int k = 0; k < c->ncols; k++) {
				r->pk[k] = c->cols[k];
				r->cols[c->cols[k] - 1].notnull = true;
				const ty_type *ty = ty_type_get(r->cols[c->cols[k] - 1].type);
				if (!ty || !ty->keyenc)
					ty_error(UTIL_E_UNDEFINED_OBJECT, "data type %s has no default operator class for access method \"btree\"",
						 ty ? ty->name : "?");
			}
		}
		sql_apply_reloptions(s, tb.o, st->options, st->n_options);
		validate_exprs(&tb);
		storage_name(tb.o, 'r');
		interleaved = sql_ilv_create(s, ct, tb.o); /* then it lives in its root's storage */
	}
	TY_CATCH(tc)
	{
		TY_END(tc);
		cat_obj_free(tb.o);
		for (int i = 0; i < tb.nextra; i++)
			cat_obj_free(tb.extra[i]);
		ty_errthrow();
	}
	TY_END(tc);
	if (!interleaved)
		sql_create_storage(s, t, r->storage);
	for (int i = 0; i < tb.nextra; i++) {
		if (cat_rel_by_name(cs, schema, tb.extra[i]->rel.name))
			ty_error(UTIL_E_DUPLICATE_TABLE, "relation \"%s\" already exists", tb.extra[i]->rel.name);
		cat_txn_put(ct, tb.extra[i]);
		sql_seq_init_value(s, tb.extra[i]->oid, tb.extra[i]->rel.seq);
	}
	cat_txn_put(ct, tb.o);
	/* Unique constraints get their index (index module). */
	sql_create_constraint_indexes(s, tb.o->oid);
}

/* ---------------------------------------------------------------- schemas */

static void create_schema(sql_session *s, PgQuery__CreateSchemaStmt *st)
{
	cat_txn *ct = sql_txn_ddl(s->txn);
	cat_snap *cs = cat_txn_snap(ct);
	const char *name = st->schemaname && *st->schemaname ? st->schemaname
			   : st->authrole ? st->authrole->rolename
					  : NULL;
	if (!name)
		ty_error(UTIL_E_SYNTAX_ERROR, "schema name required");
	if (!strncmp(name, "pg_", 3)) {
		util_err *e = ty_errstart(UTIL_E_RESERVED_NAME, "unacceptable schema name \"%s\"", name);
		util_err_detail(e, "The prefix \"pg_\" is reserved for system schemas.");
		ty_errthrow();
	}
	if (sql_lookup_schema(s, cs, name)) {
		if (st->if_not_exists) {
			sql_notice(s, UTIL_E_DUPLICATE_SCHEMA, "schema \"%s\" already exists, skipping", name);
			return;
		}
		ty_error(UTIL_E_DUPLICATE_SCHEMA, "schema \"%s\" already exists", name);
	}
	cat_obj *o = cat_obj_new(CAT_SCHEMA, new_oid(s), s->db_oid);
	snprintf(o->schema.name, sizeof o->schema.name, "%s", name);
	o->schema.owner = s->user_oid;
	cat_txn_put(ct, o);
	if (st->n_schema_elts)
		ty_error(UTIL_E_FEATURE_NOT_SUPPORTED, "CREATE SCHEMA with schema elements is not supported");
}

/* ---------------------------------------------------------------- DROP */

typedef struct drop_ctx {
	sql_session *s;
	cat_txn *ct;
	bool cascade;
	util_map dropped;
} drop_ctx;

static void drop_rel(drop_ctx *dc, const cat_obj *o);

typedef struct dep_scan {
	drop_ctx *dc;
	const cat_obj *target;
	const cat_obj *found;
	char what[CAT_NAME_MAX + 16];
	const cat_obj *found_from;
} dep_scan;

/* Objects that depend on a relation: views naming it, foreign keys
 * referencing it, sequences owned by it (dropped with it silently). */
static int find_deps(void *arg, const cat_obj *o)
{
	dep_scan *ds = arg;
	if (util_map_get_u64(&ds->dc->dropped, o->oid) || o == ds->target)
		return 0;
	const cat_rel *r = &o->rel;
	if (r->relkind == CAT_RELKIND_VIEW && r->view_sql && sql_view_depends_on(ds->dc->s, o, ds->target->oid)) {
		ds->found = o;
		snprintf(ds->what, sizeof ds->what, "view");
		return 1;
	}
	for (int i = 0; i < r->ncons; i++)
		if (r->cons[i].type == 'f' && r->cons[i].ref_table == ds->target->oid && o->oid != ds->target->oid) {
			ds->found = o;
			ds->found_from = o;
			snprintf(ds->what, sizeof ds->what, "constraint %s", r->cons[i].name);
			return 1;
		}
	return 0;
}

static void drop_fk_constraints_to(drop_ctx *dc, const cat_obj *target)
{
	/* CASCADE: drop the referencing constraints, not the referencing tables. */
	cat_snap *cs = cat_txn_snap(dc->ct);
	typedef struct { const cat_obj **list; int n, cap; } lst;
	lst l = {0};
	for (;;) {
		dep_scan ds = {dc, target, NULL, "", NULL};
		cat_foreach(cs, CAT_REL, dc->s->db_oid, find_deps, &ds);
		if (!ds.found)
			break;
		const cat_obj *o = ds.found;
		if (o->rel.relkind == CAT_RELKIND_VIEW) {
			sql_notice(dc->s, UTIL_E_SUCCESSFUL_COMPLETION, "drop cascades to view %s", o->rel.name);
			drop_rel(dc, o);
		} else {
			cat_obj *c = cat_obj_copy(o);
			int k = 0;
			for (int i = 0; i < c->rel.ncons; i++) {
				if (c->rel.cons[i].type == 'f' && c->rel.cons[i].ref_table == target->oid) {
					sql_notice(dc->s, UTIL_E_SUCCESSFUL_COMPLETION, "drop cascades to constraint %s on table %s",
						   c->rel.cons[i].name, c->rel.name);
					continue;
				}
				c->rel.cons[k++] = c->rel.cons[i];
			}
			c->rel.ncons = k;
			cat_txn_put(dc->ct, c);
		}
		cs = cat_txn_snap(dc->ct);
		(void)l;
	}
}

static int owned_seq(void *arg, const cat_obj *o)
{
	void **a = arg;
	drop_ctx *dc = a[0];
	const cat_obj *t = a[1];
	if (o->rel.relkind == CAT_RELKIND_SEQUENCE && o->rel.seq && o->rel.seq->owned_by_table == t->oid &&
	    !util_map_get_u64(&dc->dropped, o->oid)) {
		util_map_put_u64(&dc->dropped, o->oid, (void *)1);
		cat_txn_delete(dc->ct, o->oid);
	}
	return 0;
}

static void drop_rel(drop_ctx *dc, const cat_obj *o)
{
	if (util_map_get_u64(&dc->dropped, o->oid))
		return;
	cat_snap *cs = cat_txn_snap(dc->ct);
	dep_scan ds = {dc, o, NULL, "", NULL};
	cat_foreach(cs, CAT_REL, dc->s->db_oid, find_deps, &ds);
	if (ds.found && !dc->cascade) {
		const char *kind = o->rel.relkind == CAT_RELKIND_VIEW ? "view" : o->rel.relkind == CAT_RELKIND_SEQUENCE ? "sequence" : "table";
		util_err *e = ty_errstart(UTIL_E_DEPENDENT_OBJECTS_STILL_EXIST, "cannot drop %s %s because other objects depend on it",
					  kind, o->rel.name);
		if (ds.found->rel.relkind == CAT_RELKIND_VIEW)
			util_err_detail(e, "view %s depends on %s %s", ds.found->rel.name, kind, o->rel.name);
		else
			util_err_detail(e, "%s on table %s depends on %s %s", ds.what, ds.found->rel.name, kind, o->rel.name);
		util_err_hint(e, "Use DROP ... CASCADE to drop the dependent objects too.");
		ty_errthrow();
	}
	util_map_put_u64(&dc->dropped, o->oid, (void *)1);
	if (ds.found)
		drop_fk_constraints_to(dc, o);
	/* Indexes, owned sequences. */
	for (int i = 0; i < o->rel.nindexes; i++) {
		const cat_obj *ix = cat_get(cat_txn_snap(dc->ct), o->rel.indexes[i]);
		if (ix) {
			util_map_put_u64(&dc->dropped, ix->oid, (void *)1);
			if (ix->rel.storage[0])
				sql_txn_drop_storage_after_commit(dc->s->txn, ix->rel.storage);
			cat_txn_delete(dc->ct, ix->oid);
		}
	}
	void *a[2] = {dc, (void *)o};
	cat_foreach(cat_txn_snap(dc->ct), CAT_REL, dc->s->db_oid, owned_seq, a);
	if (o->rel.storage[0])
		sql_txn_drop_storage_after_commit(dc->s->txn, o->rel.storage);
	if (o->rel.relkind == CAT_RELKIND_SEQUENCE)
		sql_seq_forget(dc->s, o->oid);
	cat_txn_delete(dc->ct, o->oid);
}

static const char *kind_word(char relkind)
{
	switch (relkind) {
	case CAT_RELKIND_TABLE: return "table";
	case CAT_RELKIND_VIEW: return "view";
	case CAT_RELKIND_SEQUENCE: return "sequence";
	case CAT_RELKIND_INDEX: return "index";
	default: return "relation";
	}
}

typedef struct schema_count {
	cat_oid schema;
	const cat_obj *first; /* first table, view or free-standing sequence */
	size_t n;
} schema_count;

static int count_in_schema(void *arg, const cat_obj *o)
{
	schema_count *c = arg;
	if (o->rel.schema != c->schema || o->rel.relkind == CAT_RELKIND_INDEX)
		return 0;
	if (o->rel.relkind == CAT_RELKIND_SEQUENCE && o->rel.seq && o->rel.seq->owned_by_table)
		return 0;
	if (!c->first)
		c->first = o;
	c->n++;
	return 0;
}

static void drop_stmt(sql_session *s, PgQuery__DropStmt *st)
{
	cat_txn *ct = sql_txn_ddl(s->txn);
	drop_ctx dc = {s, ct, st->behavior == PG_QUERY__DROP_BEHAVIOR__DROP_CASCADE, UTIL_MAP_INIT};
	char want = 0;
	switch (st->remove_type) {
	case PG_QUERY__OBJECT_TYPE__OBJECT_TABLE: want = CAT_RELKIND_TABLE; break;
	case PG_QUERY__OBJECT_TYPE__OBJECT_VIEW: want = CAT_RELKIND_VIEW; break;
	case PG_QUERY__OBJECT_TYPE__OBJECT_SEQUENCE: want = CAT_RELKIND_SEQUENCE; break;
	case PG_QUERY__OBJECT_TYPE__OBJECT_INDEX: want = CAT_RELKIND_INDEX; break;
	case PG_QUERY__OBJECT_TYPE__OBJECT_SCHEMA: {
		for (size_t i = 0; i < st->n_objects; i++) {
			const char *name = str_of(st->objects[i]);
			const cat_obj *sch = sql_lookup_schema(s, cat_txn_snap(ct), name);
			if (!sch) {
				if (st->missing_ok) {
					sql_notice(s, UTIL_E_SUCCESSFUL_COMPLETION, "schema \"%s\" does not exist, skipping", name);
					continue;
				}
				ty_error(UTIL_E_INVALID_SCHEMA_NAME, "schema \"%s\" does not exist", name);
			}
			if (sch->database == 0)
				ty_error(UTIL_E_DEPENDENT_OBJECTS_STILL_EXIST, "cannot drop schema %s because it is required by the database system", name);
			/* Contents: error unless CASCADE. */
			schema_count cc = {sch->oid, NULL, 0};
			cat_foreach(cat_txn_snap(ct), CAT_REL, s->db_oid, count_in_schema, &cc);
			size_t cnt = cc.n;
			const cat_obj *first = cc.first;
			if (cnt && !dc.cascade) {
				util_err *e = ty_errstart(UTIL_E_DEPENDENT_OBJECTS_STILL_EXIST,
							  "cannot drop schema %s because other objects depend on it", name);
				util_err_detail(e, "%s %s depends on schema %s", kind_word(first->rel.relkind), first->rel.name, name);
				util_err_hint(e, "Use DROP ... CASCADE to drop the dependent objects too.");
				ty_errthrow();
			}
			if (cnt) {
				/* Drop tables and views (indexes and sequences go with them). */
				for (;;) {
					schema_count c2 = {sch->oid, NULL, 0};
					cat_foreach(cat_txn_snap(ct), CAT_REL, s->db_oid, count_in_schema, &c2);
					if (!c2.first)
						break;
					sql_notice(s, UTIL_E_SUCCESSFUL_COMPLETION, "drop cascades to %s %s",
						   kind_word(c2.first->rel.relkind), c2.first->rel.name);
					drop_rel(&dc, c2.first);
				}
			}
			cat_txn_delete(ct, sch->oid);
		}
		util_map_free(&dc.dropped);
		return;
	}
	default:
		ty_error(UTIL_E_FEATURE_NOT_SUPPORTED, "this kind of DROP is not supported");
	}
	for (size_t i = 0; i < st->n_objects; i++) {
		PgQuery__List *l = st->objects[i]->list;
		const char *schema = l->n_items > 1 ? str_of(l->items[l->n_items - 2]) : NULL;
		const char *name = str_of(l->items[l->n_items - 1]);
		cat_snap *cs = cat_txn_snap(ct);
		if (schema && !sql_lookup_schema(s, cs, schema)) {
			if (st->missing_ok) {
				sql_notice(s, UTIL_E_SUCCESSFUL_COMPLETION, "schema \"%s\" does not exist, skipping", schema);
				continue;
			}
			ty_error(UTIL_E_INVALID_SCHEMA_NAME, "schema \"%s\" does not exist", schema);
		}
		const cat_obj *o = sql_lookup_rel_name(s, cs, schema, name);
		if (!o) {
			if (st->missing_ok) {
				sql_notice(s, UTIL_E_SUCCESSFUL_COMPLETION, "%s \"%s\" does not exist, skipping", kind_word(want), name);
				continue;
			}
			if (schema)
				ty_error(want == CAT_RELKIND_INDEX || want == CAT_RELKIND_SEQUENCE || want == CAT_RELKIND_VIEW || want == CAT_RELKIND_TABLE ? UTIL_E_UNDEFINED_TABLE : UTIL_E_UNDEFINED_OBJECT,
					 "%s \"%s.%s\" does not exist", kind_word(want), schema, name);
			ty_error(UTIL_E_UNDEFINED_TABLE, "%s \"%s\" does not exist", kind_word(want), name);
		}
		if (o->rel.relkind != want) {
			util_err *e = ty_errstart(UTIL_E_WRONG_OBJECT_TYPE, "\"%s\" is not a%s %s", name,
						  want == CAT_RELKIND_INDEX ? "n" : "", kind_word(want));
			util_err_hint(e, "Use DROP %s to remove a%s %s.",
				      o->rel.relkind == CAT_RELKIND_VIEW ? "VIEW" : o->rel.relkind == CAT_RELKIND_TABLE ? "TABLE" : o->rel.relkind == CAT_RELKIND_INDEX ? "INDEX" : "SEQUENCE",
				      o->rel.relkind == CAT_RELKIND_INDEX ? "n" : "", kind_word(o->rel.relkind));
			ty_errthrow();
		}
		if (o->rel.schema == CAT_OID_PG_CATALOG || o->rel.schema == CAT_OID_INFORMATION_SCHEMA)
			ty_error(UTIL_E_INSUFFICIENT_PRIVILEGE, "permission denied: \"%s\" is a system catalog", name);
		if (want == CAT_RELKIND_INDEX) {
			sql_drop_index(s, ct, o, dc.cascade);
			continue;
		}
		drop_rel(&dc, o);
	}
	util_map_free(&dc.dropped);
}

/* ---------------------------------------------------------------- CREATE SEQUENCE */

static void create_sequence(sql_session *s, PgQuery__CreateSeqStmt *st)
{
	cat_txn *ct = sql_txn_ddl(s->txn);
	cat_snap *cs = cat_txn_snap(ct);
	PgQuery__RangeVar *rv = st->sequence;
	cat_oid schema = sql_creation_schema(s, cs, rv->schemaname, rv->location);
	if (cat_rel_by_name(cs, schema, rv->relname)) {
		if (st->if_not_exists) {
			sql_notice(s, UTIL_E_DUPLICATE_TABLE, "relation \"%s\" already exists, skipping", rv->relname);
			return;
		}
		ty_error(UTIL_E_DUPLICATE_TABLE, "relation \"%s\" already exists", rv->relname);
	}
	cat_obj *o = make_sequence(s, schema, rv->relname, TY_INT8, st->options, st->n_options);
	cat_txn_put(ct, o);
	sql_seq_init_value(s, o->oid, o->rel.seq);
}

/* ---------------------------------------------------------------- dispatch */

void sql_ddl_alter_table(sql_session *s, PgQuery__AlterTableStmt *st, const char *text);
void sql_ddl_rename(sql_session *s, PgQuery__RenameStmt *st);
void sql_ddl_create_view(sql_session *s, PgQuery__ViewStmt *st, const char *text);
void sql_ddl_create_table_as(sql_session *s, PgQuery__CreateTableAsStmt *st, const char *text, sql_complete *c);
void sql_ddl_truncate(sql_session *s, PgQuery__TruncateStmt *st);
void sql_ddl_comment(sql_session *s, PgQuery__CommentStmt *st);
void sql_ddl_alter_sequence(sql_session *s, PgQuery__AlterSeqStmt *st);
void sql_ddl_index(sql_session *s, PgQuery__IndexStmt *st, const char *text);
void sql_ddl_role(sql_session *s, pnode *stmt);
void sql_ddl_database(sql_session *s, pnode *stmt);
void sql_ddl_grant(sql_session *s, pnode *stmt);

bool sql_is_ddl(pnode *n)
{
	switch (n->node_case) {
	case PG_QUERY__NODE__NODE_CREATE_STMT:
	case PG_QUERY__NODE__NODE_DROP_STMT:
	case PG_QUERY__NODE__NODE_CREATE_SCHEMA_STMT:
	case PG_QUERY__NODE__NODE_CREATE_SEQ_STMT:
	case PG_QUERY__NODE__NODE_ALTER_SEQ_STMT:
	case PG_QUERY__NODE__NODE_ALTER_TABLE_STMT:
	case PG_QUERY__NODE__NODE_RENAME_STMT:
	case PG_QUERY__NODE__NODE_VIEW_STMT:
	case PG_QUERY__NODE__NODE_CREATE_TABLE_AS_STMT:
	case PG_QUERY__NODE__NODE_TRUNCATE_STMT:
	case PG_QUERY__NODE__NODE_COMMENT_STMT:
	case PG_QUERY__NODE__NODE_INDEX_STMT:
	case PG_QUERY__NODE__NODE_CREATE_ROLE_STMT:
	case PG_QUERY__NODE__NODE_ALTER_ROLE_STMT:
	case PG_QUERY__NODE__NODE_DROP_ROLE_STMT:
	case PG_QUERY__NODE__NODE_CREATEDB_STMT:
	case PG_QUERY__NODE__NODE_DROPDB_STMT:
	case PG_QUERY__NODE__NODE_GRANT_STMT:
	case PG_QUERY__NODE__NODE_GRANT_ROLE_STMT:
	case PG_QUERY__NODE__NODE_ALTER_OWNER_STMT:
	case PG_QUERY__NODE__NODE_CREATE_EXTENSION_STMT:
	case PG_QUERY__NODE__NODE_REINDEX_STMT:
		return true;
	default:
		return false;
	}
}

void sql_exec_ddl(sql_session *s, pnode *n, const char *text, sql_complete *c)
{
	if (s->txn->read_only)
		ty_error(UTIL_E_READ_ONLY_SQL_TRANSACTION, "cannot execute %s in a read-only transaction", sql_command_tag(n));
	switch (n->node_case) {
	case PG_QUERY__NODE__NODE_CREATE_STMT:
		sql_ddl_create_table(s, n->create_stmt, text);
		break;
	case PG_QUERY__NODE__NODE_DROP_STMT:
		drop_stmt(s, n->drop_stmt);
		break;
	case PG_QUERY__NODE__NODE_CREATE_SCHEMA_STMT:
		create_schema(s, n->create_schema_stmt);
		break;
	case PG_QUERY__NODE__NODE_CREATE_SEQ_STMT:
		create_sequence(s, n->create_seq_stmt);
		break;
	case PG_QUERY__NODE__NODE_ALTER_SEQ_STMT:
		sql_ddl_alter_sequence(s, n->alter_seq_stmt);
		break;
	case PG_QUERY__NODE__NODE_ALTER_TABLE_STMT:
		sql_ddl_alter_table(s, n->alter_table_stmt, text);
		break;
	case PG_QUERY__NODE__NODE_RENAME_STMT:
		sql_ddl_rename(s, n->rename_stmt);
		break;
	case PG_QUERY__NODE__NODE_VIEW_STMT:
		sql_ddl_create_view(s, n->view_stmt, text);
		break;
	case PG_QUERY__NODE__NODE_CREATE_TABLE_AS_STMT:
		sql_ddl_create_table_as(s, n->create_table_as_stmt, text, c);
		break;
	case PG_QUERY__NODE__NODE_TRUNCATE_STMT:
		sql_ddl_truncate(s, n->truncate_stmt);
		break;
	case PG_QUERY__NODE__NODE_COMMENT_STMT:
		sql_ddl_comment(s, n->comment_stmt);
		break;
	case PG_QUERY__NODE__NODE_INDEX_STMT:
	case PG_QUERY__NODE__NODE_REINDEX_STMT:
		sql_ddl_index(s, n->index_stmt, text);
		break;
	case PG_QUERY__NODE__NODE_CREATE_ROLE_STMT:
	case PG_QUERY__NODE__NODE_ALTER_ROLE_STMT:
	case PG_QUERY__NODE__NODE_DROP_ROLE_STMT:
		sql_ddl_role(s, n);
		break;
	case PG_QUERY__NODE__NODE_CREATEDB_STMT:
	case PG_QUERY__NODE__NODE_DROPDB_STMT:
		sql_ddl_database(s, n);
		break;
	case PG_QUERY__NODE__NODE_GRANT_STMT:
	case PG_QUERY__NODE__NODE_GRANT_ROLE_STMT:
	case PG_QUERY__NODE__NODE_ALTER_OWNER_STMT:
		sql_ddl_grant(s, n);
		break;
	case PG_QUERY__NODE__NODE_CREATE_EXTENSION_STMT:
		ty_error(UTIL_E_FEATURE_NOT_SUPPORTED, "extensions are not supported");
	default:
		ty_error(UTIL_E_FEATURE_NOT_SUPPORTED, "%s is not supported", sql_command_tag(n));
	}
}
