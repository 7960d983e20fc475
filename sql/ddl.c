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

#include "ddl_int.h"

void sql_notice(sql_session *s, util_errcode code, const char *fmt, ...) UTIL_PRINTF(3, 4);

static const char *str_of(pnode *n)
{
	return n && n->node_case == PG_QUERY__NODE__NODE_STRING ? n->string->sval : NULL;
}

/* ---------------------------------------------------------------- helpers */

/* The SQL text of one raw statement; `what` names it in the error ("could
 * not store <what>"). Returns a copy in the current arena. */
static char *deparse_one(pnode *stmt, const char *what)
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
		ty_error(UTIL_E_FEATURE_NOT_SUPPORTED, "could not store %s: %s", what, msg);
	}
	char *s = ty_strdup(dr.query);
	pg_query_free_deparse_result(dr);
	return s;
}

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
	return deparse_one(&seln, "expression");
}

/* Deparses a whole statement (views). */
char *sql_deparse_stmt(pnode *stmt)
{
	return deparse_one(stmt, "statement");
}

cat_oid sql_ddl_new_oid(sql_session *s)
{
	cat_oid o;
	util_err err;
	if (cat_new_oid(s->e->cat, &o, &err) != 0)
		ty_throw(&err);
	return o;
}

static cat_oid new_oid(sql_session *s)
{
	return sql_ddl_new_oid(s);
}

cat_oid sql_ddl_creation_schema(sql_session *s, cat_snap *cs, PgQuery__RangeVar *rv, const char *text)
{
	bool temp = rv->relpersistence && rv->relpersistence[0] == 't';
	if (rv->schemaname && !strcmp(rv->schemaname, "pg_temp"))
		temp = true;
	if (temp) {
		if (rv->schemaname && *rv->schemaname && strcmp(rv->schemaname, "pg_temp")) {
			const cat_obj *sch = sql_lookup_schema(s, cs, rv->schemaname);
			if (!sch || sch->oid != sql_temp_schema_oid(s, cs)) {
				util_err *e =
				    ty_errstart(UTIL_E_INVALID_TABLE_DEFINITION,
						"cannot create temporary relation in non-temporary schema");
				if (text && rv->location >= 0)
					e->position = sql_errposition(text, rv->location);
				ty_errthrow();
			}
		}
		return sql_temp_schema(s);
	}
	cat_oid schema = sql_creation_schema(s, cs, rv->schemaname, rv->location);
	TY_TRY(tc)
	{
		sql_priv_check_schema_create(s, cs, schema);
	}
	TY_CATCH(tc)
	{
		TY_END(tc);
		if (text && rv->location >= 0)
			ty_err()->position = sql_errposition(text, rv->location);
		ty_errthrow();
	}
	TY_END(tc);
	return schema;
}

/* PostgreSQL's ChooseRelationName: table_col_suffix truncated to fit in
 * 63 bytes, made unique with a number. */
void sql_ddl_choose_name(cat_snap *cs, cat_oid schema, const char *t, const char *col, const char *suffix,
			 char *out, const cat_rel *in_rel)
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

int64_t sql_def_int(pnode *arg, bool *ok)
{
	return def_int(arg, ok);
}

/* ---------------------------------------------------------------- sequences */

void sql_seq_options(sql_session *s, cat_sequence_info *sq, PgQuery__Node **opts, size_t n, bool creating);
void sql_seq_init_value(sql_session *s, cat_oid seq, const cat_sequence_info *info);

cat_obj *sql_ddl_make_sequence(sql_session *s, cat_oid schema, const char *name, ty_oid type,
			       PgQuery__Node **opts, size_t nopts)
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

static cat_constraint *add_constraint(sql_tbl_build *tb, char type, const char *name)
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
		if (cat_constraint_by_name(r, name) &&
		    strcmp(cat_constraint_by_name(r, name)->name, name) == 0 &&
		    cat_constraint_by_name(r, name) != c)
			ty_error(UTIL_E_DUPLICATE_OBJECT,
				 "constraint \"%s\" for relation \"%s\" already exists", name, r->name);
		snprintf(c->name, sizeof c->name, "%s", name);
	}
	return c;
}

static int16_t col_attnum(sql_tbl_build *tb, const char *name, int location)
{
	const cat_column *c = cat_column_by_name(tb->r, name);
	if (!c) {
		util_err *e =
		    ty_errstart(UTIL_E_UNDEFINED_COLUMN, "column \"%s\" named in key does not exist", name);
		e->position = sql_errposition(tb->text, location);
		ty_errthrow();
	}
	return c->attnum;
}

static void set_keys(sql_tbl_build *tb, cat_constraint *c, PgQuery__Node **keys, size_t n, int location)
{
	c->ncols = (int)n;
	c->cols = cat_obj_alloc(tb->o, sizeof(int16_t) * (n ? n : 1));
	for (size_t i = 0; i < n; i++) {
		c->cols[i] = col_attnum(tb, str_of(keys[i]), location);
		for (size_t k = 0; k < i; k++)
			if (c->cols[k] == c->cols[i])
				ty_error(UTIL_E_DUPLICATE_COLUMN,
					 "column \"%s\" appears twice in %s constraint", str_of(keys[i]),
					 c->type == 'p' ? "primary key" : "unique");
	}
}

static char fk_action(const char *a)
{
	if (!a || !*a)
		return CAT_FK_NO_ACTION;
	switch (a[0]) {
	case 'r':
		return CAT_FK_RESTRICT;
	case 'c':
		return CAT_FK_CASCADE;
	case 'n':
		return CAT_FK_SET_NULL;
	case 'd':
		return CAT_FK_SET_DEFAULT;
	default:
		return CAT_FK_NO_ACTION;
	}
}

cat_constraint *sql_ddl_apply_constraint(sql_tbl_build *tb, PgQuery__Constraint *con, cat_column *col)
{
	cat_rel *r = tb->r;
	switch (con->contype) {
	case PG_QUERY__CONSTR_TYPE__CONSTR_NULL:
		if (col)
			col->notnull = false;
		return NULL;
	case PG_QUERY__CONSTR_TYPE__CONSTR_NOTNULL:
		if (col)
			col->notnull = true;
		return NULL;
	case PG_QUERY__CONSTR_TYPE__CONSTR_DEFAULT:
		if (col->identity)
			ty_error(UTIL_E_SYNTAX_ERROR,
				 "both default and identity specified for column \"%s\" of table \"%s\"",
				 col->name, r->name);
		col->default_sql = cat_obj_strdup(tb->o, sql_deparse_select_expr(con->raw_expr));
		if (col->attnum - 1 >= tb->ndefaults) {
			int n = col->attnum;
			PgQuery__Node **d = ty_alloc0(sizeof *d * (size_t)n);
			if (tb->ndefaults)
				memcpy(d, tb->defaults, sizeof *d * (size_t)tb->ndefaults);
			tb->defaults = d;
			tb->ndefaults = n;
		}
		tb->defaults[col->attnum - 1] = con->raw_expr;
		return NULL;
	case PG_QUERY__CONSTR_TYPE__CONSTR_IDENTITY: {
		if (col->default_sql)
			ty_error(UTIL_E_SYNTAX_ERROR,
				 "both default and identity specified for column \"%s\" of table \"%s\"",
				 col->name, r->name);
		if (col->type != TY_INT2 && col->type != TY_INT4 && col->type != TY_INT8)
			ty_error(UTIL_E_INVALID_PARAMETER_VALUE,
				 "identity column type must be smallint, integer, or bigint");
		col->identity = con->generated_when && con->generated_when[0] == 'a' ? 'a' : 'd';
		col->notnull = true;
		char sname[CAT_NAME_MAX];
		sql_ddl_choose_name(tb->cs, r->schema, r->name, col->name, "seq", sname, NULL);
		cat_obj *sq =
		    sql_ddl_make_sequence(tb->s, r->schema, sname, col->type, con->options, con->n_options);
		sq->rel.seq->owned_by_table = tb->o->oid;
		sq->rel.seq->owned_by_col = col->attnum;
		tb->extra = ty_realloc_list(tb->extra, tb->nextra, sizeof(cat_obj *));
		tb->extra[tb->nextra++] = sq;
		col->default_sql = cat_obj_strdup(tb->o, sql_ddl_nextval_default(tb->cs, r->schema, sname));
		return NULL;
	}
	case PG_QUERY__CONSTR_TYPE__CONSTR_GENERATED:
		ty_error(UTIL_E_FEATURE_NOT_SUPPORTED, "generated columns are not supported");
	case PG_QUERY__CONSTR_TYPE__CONSTR_CHECK: {
		cat_constraint *c = add_constraint(tb, 'c', con->conname);
		c->check_sql = cat_obj_strdup(tb->o, sql_deparse_select_expr(con->raw_expr));
		tb->checks = ty_realloc_list(tb->checks, tb->nchecks, sizeof(PgQuery__Node *));
		tb->checks[tb->nchecks++] = con->raw_expr;
		c->no_inherit = con->is_no_inherit;
		c->validated = !tb->altering || !con->skip_validation; /* CREATE TABLE: always valid */
		if (!c->name[0]) {
			/* PostgreSQL names it after the column when the expression uses exactly one. */
			char nm[CAT_NAME_MAX];
			const char *refs[2];
			int nrefs = sql_text_column_refs(con->raw_expr, refs, 2);
			const char *cname = nrefs == 1 && cat_column_by_name(r, refs[0]) ? refs[0] : NULL;
			sql_ddl_choose_name(tb->cs, r->schema, r->name, cname, "check", nm, r);
			snprintf(c->name, sizeof c->name, "%s", nm);
		}
		return c;
	}
	case PG_QUERY__CONSTR_TYPE__CONSTR_PRIMARY: {
		for (int i = 0; i < r->ncons; i++)
			if (r->cons[i].type == 'p')
				ty_error(UTIL_E_INVALID_TABLE_DEFINITION,
					 "multiple primary keys for table \"%s\" are not allowed", r->name);
		cat_constraint *c = add_constraint(tb, 'p', con->conname);
		c->deferrable = con->deferrable; /* table constraints; a column's come after it */
		c->deferred = con->initdeferred;
		if (col) {
			c->ncols = 1;
			c->cols = cat_obj_alloc(tb->o, sizeof(int16_t));
			c->cols[0] = col->attnum;
		} else {
			set_keys(tb, c, con->keys, con->n_keys, con->location);
		}
		if (!c->name[0]) {
			char nm[CAT_NAME_MAX];
			sql_ddl_choose_name(tb->cs, r->schema, r->name, NULL, "pkey", nm, r);
			snprintf(c->name, sizeof c->name, "%s", nm);
		}
		return c;
	}
	case PG_QUERY__CONSTR_TYPE__CONSTR_UNIQUE: {
		cat_constraint *c = add_constraint(tb, 'u', con->conname);
		c->deferrable = con->deferrable;
		c->deferred = con->initdeferred;
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
			sql_ddl_choose_name(tb->cs, r->schema, r->name, cols.data, "key", nm, r);
			util_buf_free(&cols);
			snprintf(c->name, sizeof c->name, "%s", nm);
		}
		return c;
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
		if (con->n_fk_del_set_cols)
			ty_error(UTIL_E_FEATURE_NOT_SUPPORTED,
				 "ON DELETE SET NULL/SET DEFAULT with a column list is not supported");
		if (!c->name[0]) {
			char nm[CAT_NAME_MAX];
			util_buf cols = UTIL_BUF_INIT;
			for (int i = 0; i < c->ncols; i++) {
				if (i)
					util_buf_putc(&cols, '_');
				util_buf_puts(&cols, cat_column_by_attnum(r, c->cols[i])->name);
			}
			sql_ddl_choose_name(tb->cs, r->schema, r->name, cols.data, "fkey", nm, r);
			util_buf_free(&cols);
			snprintf(c->name, sizeof c->name, "%s", nm);
		}
		c->validated = !tb->altering || !con->skip_validation; /* CREATE TABLE: always valid */
		sql_fk_resolve(tb->s, tb->cs, r, tb->o->oid, c, con, tb->o);
		return c;
	}
	case PG_QUERY__CONSTR_TYPE__CONSTR_ATTR_DEFERRABLE:
	case PG_QUERY__CONSTR_TYPE__CONSTR_ATTR_NOT_DEFERRABLE:
	case PG_QUERY__CONSTR_TYPE__CONSTR_ATTR_DEFERRED:
	case PG_QUERY__CONSTR_TYPE__CONSTR_ATTR_IMMEDIATE:
		return NULL;
	default:
		ty_error(UTIL_E_FEATURE_NOT_SUPPORTED, "constraint type is not supported");
	}
}

static bool system_column_name(const char *n)
{
	static const char *const sys[] = {"tableoid", "cmax", "xmax", "cmin", "xmin", "ctid"};
	for (size_t i = 0; i < UTIL_ARRAY_LEN(sys); i++)
		if (!strcmp(n, sys[i]))
			return true;
	return false;
}

/* Appends a column slot named name (checks as for CREATE TABLE). */
static cat_column *new_column(sql_tbl_build *tb, const char *name)
{
	cat_rel *r = tb->r;
	if (cat_column_by_name(r, name)) {
		if (tb->altering)
			ty_error(UTIL_E_DUPLICATE_COLUMN, "column \"%s\" of relation \"%s\" already exists",
				 name, r->name);
		ty_error(UTIL_E_DUPLICATE_COLUMN, "column \"%s\" specified more than once", name);
	}
	if (system_column_name(name))
		ty_error(UTIL_E_DUPLICATE_COLUMN, "column name \"%s\" conflicts with a system column name",
			 name);
	if (strlen(name) >= CAT_NAME_MAX)
		ty_error(UTIL_E_NAME_TOO_LONG, "identifier too long");
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
	snprintf(c->name, sizeof c->name, "%s", name);
	c->attnum = (int16_t)r->ncols;
	c->col_id = r->next_col_id++;
	return c;
}

static cat_column *like_add_column(sql_tbl_build *tb, const cat_column *sc)
{
	cat_column *c = new_column(tb, sc->name);
	c->type = sc->type;
	c->typmod = sc->typmod;
	return c;
}

cat_column *sql_ddl_add_column(sql_tbl_build *tb, PgQuery__ColumnDef *cd)
{
	cat_rel *r = tb->r;
	cat_column *c = new_column(tb, cd->colname);
	sql_actx ax = {tb->s, tb->cs, NULL, &(sql_pstate){.text = tb->text}};
	sql_typename(&ax, cd->type_name, &c->type, &c->typmod);
	const char *tn = sql_last_name(cd->type_name->names, cd->type_name->n_names);
	const ty_type *t = ty_type_get(c->type);
	if (t && t->typtype == 'p')
		ty_error(UTIL_E_INVALID_TABLE_DEFINITION, "column \"%s\" has pseudo-type %s", c->name,
			 t->name);
	c->notnull = cd->is_not_null;
	if ((!strcmp(tn, "serial") || !strcmp(tn, "serial4") || !strcmp(tn, "bigserial") ||
	     !strcmp(tn, "serial8") || !strcmp(tn, "smallserial") || !strcmp(tn, "serial2")) &&
	    cd->type_name->n_names <= 2) {
		char sname[CAT_NAME_MAX];
		sql_ddl_choose_name(tb->cs, r->schema, r->name, c->name, "seq", sname, NULL);
		cat_obj *sq = sql_ddl_make_sequence(tb->s, r->schema, sname, c->type, NULL, 0);
		sq->rel.seq->owned_by_table = tb->o->oid;
		sq->rel.seq->owned_by_col = c->attnum;
		tb->extra = ty_realloc_list(tb->extra, tb->nextra, sizeof(cat_obj *));
		tb->extra[tb->nextra++] = sq;
		c->default_sql = cat_obj_strdup(tb->o, sql_ddl_nextval_default(tb->cs, r->schema, sname));
		c->notnull = true;
	}
	if (cd->raw_default)
		c->default_sql = cat_obj_strdup(tb->o, sql_deparse_select_expr(cd->raw_default));
	/* DEFERRABLE / INITIALLY DEFERRED follow the constraint they modify. */
	cat_constraint *last = NULL;
	for (size_t i = 0; i < cd->n_constraints; i++) {
		PgQuery__Constraint *con = cd->constraints[i]->constraint;
		switch (con->contype) {
		case PG_QUERY__CONSTR_TYPE__CONSTR_ATTR_DEFERRABLE:
		case PG_QUERY__CONSTR_TYPE__CONSTR_ATTR_NOT_DEFERRABLE:
		case PG_QUERY__CONSTR_TYPE__CONSTR_ATTR_DEFERRED:
		case PG_QUERY__CONSTR_TYPE__CONSTR_ATTR_IMMEDIATE:
			if (!last || (last->type != 'f' && last->type != 'u' && last->type != 'p'))
				ty_error(UTIL_E_SYNTAX_ERROR, "misplaced %s clause",
					 con->contype == PG_QUERY__CONSTR_TYPE__CONSTR_ATTR_DEFERRABLE
					     ? "DEFERRABLE"
					 : con->contype == PG_QUERY__CONSTR_TYPE__CONSTR_ATTR_NOT_DEFERRABLE
					     ? "NOT DEFERRABLE"
					 : con->contype == PG_QUERY__CONSTR_TYPE__CONSTR_ATTR_DEFERRED
					     ? "INITIALLY DEFERRED"
					     : "INITIALLY IMMEDIATE");
			if (con->contype == PG_QUERY__CONSTR_TYPE__CONSTR_ATTR_DEFERRABLE)
				last->deferrable = true;
			else if (con->contype == PG_QUERY__CONSTR_TYPE__CONSTR_ATTR_NOT_DEFERRABLE)
				last->deferrable = false;
			else if (con->contype == PG_QUERY__CONSTR_TYPE__CONSTR_ATTR_DEFERRED)
				last->deferrable = last->deferred = true;
			else
				last->deferred = false;
			break;
		default: {
			cat_constraint *k = sql_ddl_apply_constraint(tb, con, c);
			if (k)
				last = k;
		}
		}
	}
	return c;
}

/* ---------------------------------------------------------------- LIKE */

/* PostgreSQL's CREATE_TABLE_LIKE_* option bits. */
enum {
	LIKE_COMMENTS = 1 << 0,
	LIKE_CONSTRAINTS = 1 << 2,
	LIKE_DEFAULTS = 1 << 3,
	LIKE_IDENTITY = 1 << 5,
	LIKE_INDEXES = 1 << 6
};

typedef struct owned_seq_find {
	cat_oid table;
	int16_t attnum;
	const cat_obj *found;
} owned_seq_find;

static int find_owned_seq(void *arg, const cat_obj *o)
{
	owned_seq_find *f = arg;
	if (o->rel.relkind == CAT_RELKIND_SEQUENCE && o->rel.seq && o->rel.seq->owned_by_table == f->table &&
	    o->rel.seq->owned_by_col == f->attnum) {
		f->found = o;
		return 1;
	}
	return 0;
}

/* LIKE source: its columns (NOT NULL always; defaults, identity, CHECK
 * constraints, the primary key and comments as the options say). */
static void like_clause(sql_tbl_build *tb, PgQuery__TableLikeClause *lc)
{
	sql_session *s = tb->s;
	const cat_obj *src;
	TY_TRY(tc)
	{
		src = sql_lookup_rel(s, tb->cs, lc->relation, false);
	}
	TY_CATCH(tc)
	{
		TY_END(tc);
		if (ty_err()->position < 0)
			ty_err()->position = sql_errposition(tb->text, -1 - ty_err()->position);
		ty_errthrow();
	}
	TY_END(tc);
	if (src->rel.relkind != CAT_RELKIND_TABLE && src->rel.relkind != CAT_RELKIND_VIEW)
		ty_error(UTIL_E_WRONG_OBJECT_TYPE, "relation \"%s\" is invalid in LIKE clause",
			 src->rel.name);
	sql_priv_check_rel(s, tb->cs, src, CAT_PRIV_SELECT);
	const cat_rel *sr = &src->rel;
	cat_rel *r = tb->r;
	uint32_t opt = lc->options;
	int16_t *map = ty_alloc0(sizeof(int16_t) * (size_t)(sr->ncols + 1)); /* source attnum -> new */
	for (int i = 0; i < sr->ncols; i++) {
		const cat_column *sc = &sr->cols[i];
		if (sc->dropped)
			continue;
		cat_column *c = like_add_column(tb, sc);
		map[sc->attnum] = c->attnum;
		c->notnull = sc->notnull;
		if ((opt & LIKE_DEFAULTS) && sc->default_sql && !sc->identity)
			c->default_sql = cat_obj_strdup(tb->o, sc->default_sql);
		if ((opt & LIKE_COMMENTS) && sc->comment)
			c->comment = cat_obj_strdup(tb->o, sc->comment);
		if ((opt & LIKE_IDENTITY) && sc->identity) {
			owned_seq_find f = {src->oid, sc->attnum, NULL};
			cat_foreach(tb->cs, CAT_REL, s->db_oid, find_owned_seq, &f);
			char sname[CAT_NAME_MAX];
			sql_ddl_choose_name(tb->cs, r->schema, r->name, c->name, "seq", sname, NULL);
			cat_obj *sq = sql_ddl_make_sequence(s, r->schema, sname, c->type, NULL, 0);
			if (f.found) {
				*sq->rel.seq = *f.found->rel.seq;
			}
			sq->rel.seq->owned_by_table = tb->o->oid;
			sq->rel.seq->owned_by_col = c->attnum;
			tb->extra = ty_realloc_list(tb->extra, tb->nextra, sizeof(cat_obj *));
			tb->extra[tb->nextra++] = sq;
			c->identity = sc->identity;
			c->default_sql =
			    cat_obj_strdup(tb->o, sql_ddl_nextval_default(tb->cs, r->schema, sname));
		}
	}
	for (int i = 0; i < sr->ncons; i++) {
		const cat_constraint *k = &sr->cons[i];
		cat_constraint *nk = NULL;
		if (k->type == 'c' && (opt & LIKE_CONSTRAINTS)) {
			nk = add_constraint(tb, 'c', k->name);
			nk->check_sql = cat_obj_strdup(tb->o, k->check_sql);
			nk->no_inherit = k->no_inherit;
			nk->validated = k->validated;
		} else if ((k->type == 'p' || k->type == 'u') && (opt & LIKE_INDEXES)) {
			if (k->type == 'p')
				for (int x = 0; x < r->ncons; x++)
					if (r->cons[x].type == 'p')
						ty_error(
						    UTIL_E_INVALID_TABLE_DEFINITION,
						    "multiple primary keys for table \"%s\" are not allowed",
						    r->name);
			nk = add_constraint(tb, k->type, NULL);
			nk->ncols = k->ncols;
			nk->cols = cat_obj_alloc(tb->o, sizeof(int16_t) * (size_t)(k->ncols ? k->ncols : 1));
			util_buf cols = UTIL_BUF_INIT;
			for (int a = 0; a < k->ncols; a++) {
				nk->cols[a] = map[k->cols[a]];
				if (a)
					util_buf_putc(&cols, '_');
				util_buf_puts(&cols, cat_column_by_attnum(r, nk->cols[a])->name);
			}
			char nm[CAT_NAME_MAX];
			sql_ddl_choose_name(tb->cs, r->schema, r->name, k->type == 'p' ? NULL : cols.data,
					    k->type == 'p' ? "pkey" : "key", nm, r);
			util_buf_free(&cols);
			snprintf(nk->name, sizeof nk->name, "%s", nm);
		}
		if (nk && (opt & LIKE_COMMENTS) && k->comment)
			nk->comment = cat_obj_strdup(tb->o, k->comment);
	}
	if ((opt & LIKE_INDEXES) && sr->nindexes) {
		tb->likes = ty_realloc_list(tb->likes, tb->nlikes, sizeof(sql_like_src));
		tb->likes[tb->nlikes++] = (sql_like_src){src->oid, map, (opt & LIKE_COMMENTS) != 0};
	}
}

/* Validates default and CHECK expressions by analyzing them once. */
static void validate_exprs(sql_tbl_build *tb)
{
	cat_rel *r = tb->r;
	util_arena *a = ty_get_arena();
	sql_pstate ps = {.text = "", .no_params = true};
	sql_actx ax = {tb->s, tb->cs, a, &ps};
	for (int i = 0; i < r->ncols; i++)
		if (r->cols[i].default_sql && !r->cols[i].identity) {
			/* nextval on a sequence created here: skip (it is not visible yet). */
			if (strstr(r->cols[i].default_sql, "nextval(") && tb->nextra)
				continue;
			int d = r->cols[i].attnum - 1;
			if (d >= 0 && d < tb->ndefaults && tb->defaults[d] && tb->text) {
				/* As written: errors point into the statement. */
				sql_pstate wps = {.text = tb->text, .no_params = true};
				sql_actx wax = {tb->s, tb->cs, a, &wps};
				sql_query *q = sql_new_query(&wax, SQL_CMD_SELECT, NULL);
				sql_expr *e = sql_transform_expr(&wax, q, tb->defaults[d], SQL_EXPR_DEFAULT);
				ty_oid t = r->cols[i].type;
				if (e->type == TY_UNKNOWN && e->kind == SQL_E_CONST) {
					/* A literal's text must be valid input for the column. */
					sql_coerce(&wax, e, t, -1, SQL_COERCE_ASSIGNMENT,
						   sql_raw_location(tb->defaults[d]));
				} else if (e->type != t && e->type != TY_UNKNOWN &&
					   !sql_can_coerce(e->type, t, SQL_COERCE_ASSIGNMENT)) {
					util_buf want = UTIL_BUF_INIT, got = UTIL_BUF_INIT;
					ty_format_type(t, r->cols[i].typmod, &want);
					ty_format_type(e->type, -1, &got);
					util_err *er = ty_errstart(UTIL_E_DATATYPE_MISMATCH,
								   "column \"%s\" is of type %s but default "
								   "expression is of type %s",
								   r->cols[i].name, want.data, got.data);
					util_err_hint(er, "You will need to rewrite or cast the expression.");
					util_buf_free(&want);
					util_buf_free(&got);
					ty_errthrow();
				}
				/* Values are computed (and may fail) when rows are inserted,
				 * as in PostgreSQL. */
				continue;
			}
			TY_TRY(tc)
			{
				sql_column_default(&ax, r, i);
			}
			TY_CATCH(tc)
			{
				TY_END(tc);
				ty_err()->position = 0; /* it would point into the stored text */
				ty_errthrow();
			}
			TY_END(tc);
		}
	/* CHECK expressions as written, so errors point into the statement
	 * (42703 for a misspelled column, 22P02 for a bad constant, 42804). */
	ps.text = tb->text ? tb->text : "";
	for (int i = 0; i < tb->nchecks; i++) {
		bool cannot = false;
		sql_expr *e = sql_rewrite_row_expr(tb->s, tb->o, tb->checks[i], ps.text, SQL_EXPR_CHECK, &ps,
						   0, -1, &cannot);
		sql_coerce_bool(&ax, e, "CHECK");
	}
}

static void storage_name(cat_obj *o, char prefix)
{
	snprintf(o->rel.storage, sizeof o->rel.storage, "%c%u.1", prefix, o->oid);
}

char *sql_ddl_nextval_default(cat_snap *cs, cat_oid schema, const char *seqname)
{
	util_buf q = UTIL_BUF_INIT, b = UTIL_BUF_INIT;
	if (schema != CAT_OID_PUBLIC) {
		sql_quote_ident(sql_schema_name(cs, schema), &q);
		util_buf_putc(&q, '.');
	}
	sql_quote_ident(seqname, &q);
	util_buf_puts(&b, "SELECT nextval('");
	for (size_t i = 0; i < q.len; i++) {
		if (q.data[i] == '\'')
			util_buf_putc(&b, '\'');
		util_buf_putc(&b, q.data[i]);
	}
	util_buf_puts(&b, "'::regclass)");
	char *r = ty_strdup(b.data);
	util_buf_free(&q);
	util_buf_free(&b);
	return r;
}

const char *sql_ddl_kind_word(char relkind)
{
	switch (relkind) {
	case CAT_RELKIND_TABLE:
		return "table";
	case CAT_RELKIND_VIEW:
		return "view";
	case CAT_RELKIND_SEQUENCE:
		return "sequence";
	case CAT_RELKIND_INDEX:
		return "index";
	default:
		return "relation";
	}
}

void sql_tbl_build_from(sql_tbl_build *tb, sql_session *s, cat_txn *ct, const cat_obj *rel, const char *text)
{
	memset(tb, 0, sizeof *tb);
	tb->s = s;
	tb->ct = ct;
	tb->cs = cat_txn_snap(ct);
	tb->text = text;
	tb->o = cat_obj_copy(rel);
	tb->r = &tb->o->rel;
	tb->cols_cap = tb->r->ncols;
	tb->cons_cap = tb->r->ncons;
	tb->altering = true;
}

void sql_ddl_set_storage_key(sql_tbl_build *tb)
{
	cat_rel *r = tb->r;
	const char *ko = cat_rel_option(r, "key_order");
	bool desc = ko && !util_strcasecmp(ko, "desc");
	r->npk = 0;
	r->pk = NULL;
	r->pk_desc = NULL;
	for (int i = 0; i < r->ncons; i++) {
		cat_constraint *c = &r->cons[i];
		if (c->type != 'p')
			continue;
		r->npk = c->ncols;
		r->pk = cat_obj_alloc(tb->o, sizeof(int16_t) * (size_t)c->ncols);
		r->pk_desc = cat_obj_alloc(tb->o, sizeof(bool) * (size_t)c->ncols);
		for (int k = 0; k < c->ncols; k++) {
			r->pk[k] = c->cols[k];
			r->pk_desc[k] = desc;
			cat_column *col = &r->cols[c->cols[k] - 1];
			col->notnull = true;
			const ty_type *ty = ty_type_get(col->type);
			if (!ty || !ty->keyenc) {
				util_buf tn = UTIL_BUF_INIT;
				ty_format_type(col->type, -1, &tn);
				util_err *e = ty_errstart(
				    UTIL_E_UNDEFINED_OBJECT,
				    "data type %s has no default operator class for access method \"btree\"",
				    tn.data ? tn.data : "?");
				util_buf_free(&tn);
				util_err_hint(e, "You must specify an operator class for the index or define "
						 "a default operator class for the data type.");
				ty_errthrow();
			}
		}
	}
}

/* Creates kv table name, dropped if t aborts: KV_OK, or KV_EXISTS (then
 * nothing is done); other failures throw. */
static kv_status create_fams(sql_session *s, sql_txn *t, const char *name, const kv_family_opts *fams, int n)
{
	kv_family_opts def;
	if (!fams) {
		kv_family_opts_default(&def, SQL_FAMILY);
		fams = &def;
		n = 1;
	}
	kv_status st = kv_table_create(s->e->kv, name, fams, n);
	if (st != KV_OK && st != KV_EXISTS)
		sql_kv_error(st, "creating a table");
	if (st == KV_OK)
		sql_txn_drop_storage_on_abort(t, name);
	return st;
}

void sql_create_storage(sql_session *s, sql_txn *t, const char *name)
{
	/* The name holds the new relation's oid, unique among servers: one
	 * that exists is a crashed transaction's leftover. */
	if (create_fams(s, t, name, NULL, 0) == KV_EXISTS)
		sql_txn_drop_storage_on_abort(t, name);
}

/* Generations tried past an existing one before giving up: each taken one
 * is a concurrent rewrite on another server or a crashed transaction's
 * leftover. */
#define NEXT_STORAGE_TRIES 64

void sql_ddl_create_next_storage(sql_session *s, sql_txn *t, const cat_rel *r, char prefix, cat_oid oid,
				 const kv_family_opts *fams, int nfams, char *out, size_t n)
{
	const char *dot = strrchr(r->storage, '.');
	int gen = dot ? atoi(dot + 1) : 1;
	for (int i = 1; i <= NEXT_STORAGE_TRIES; i++) {
		snprintf(out, n, "%c%u.%d", prefix, oid, gen + i);
		if (create_fams(s, t, out, fams, nfams) == KV_OK)
			return;
	}
	ty_error(UTIL_E_T_R_SERIALIZATION_FAILURE,
		 "could not serialize access: %d storage generations after \"%s\" are taken by concurrent "
		 "transactions",
		 NEXT_STORAGE_TRIES, r->storage);
}

/* The old storage carries the table's policy (applied when it was set):
 * the policy's pass after the commit then finds nothing to change, where a
 * storage of default options cost a manifest edit and its fsync each. */
void sql_ddl_create_next_storage_like(sql_session *s, sql_txn *t, const cat_rel *r, char prefix, cat_oid oid,
				      char *out, size_t n)
{
	kv_family_opts fams[16];
	int nf = 0;
	bool like = kv_table_families(s->e->kv, r->storage, fams, 16, &nf) == KV_OK && nf >= 1 && nf <= 16;
	sql_ddl_create_next_storage(s, t, r, prefix, oid, like ? fams : NULL, like ? nf : 0, out, n);
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
	cat_oid schema = sql_ddl_creation_schema(s, cs, rv, text);
	cs = cat_txn_snap(ct);
	if (st->oncommit != PG_QUERY__ON_COMMIT_ACTION__ONCOMMIT_NOOP &&
	    st->oncommit != PG_QUERY__ON_COMMIT_ACTION__ON_COMMIT_ACTION_UNDEFINED &&
	    !sql_temp_schema_is_temp(cs, schema))
		ty_error(UTIL_E_INVALID_TABLE_DEFINITION, "ON COMMIT can only be used on temporary tables");
	if (schema == CAT_OID_PG_CATALOG || schema == CAT_OID_INFORMATION_SCHEMA)
		ty_error(UTIL_E_INSUFFICIENT_PRIVILEGE, "permission denied to create \"%s.%s\"",
			 sql_schema_name(cs, schema), rv->relname);
	if (strlen(rv->relname) >= CAT_NAME_MAX)
		ty_error(UTIL_E_NAME_TOO_LONG, "identifier too long");
	const cat_obj *existing = cat_rel_by_name(cs, schema, rv->relname);
	if (existing) {
		if (st->if_not_exists) {
			sql_notice(s, UTIL_E_DUPLICATE_TABLE, "relation \"%s\" already exists, skipping",
				   rv->relname);
			return;
		}
		ty_error(UTIL_E_DUPLICATE_TABLE, "relation \"%s\" already exists", rv->relname);
	}
	sql_tbl_build tb;
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
				sql_ddl_add_column(&tb, el->column_def);
			else if (el->node_case == PG_QUERY__NODE__NODE_TABLE_LIKE_CLAUSE)
				like_clause(&tb, el->table_like_clause);
		}
		for (size_t i = 0; i < st->n_table_elts; i++) {
			pnode *el = st->table_elts[i];
			if (el->node_case == PG_QUERY__NODE__NODE_CONSTRAINT)
				sql_ddl_apply_constraint(&tb, el->constraint, NULL);
		}
		for (size_t i = 0; i < st->n_constraints; i++)
			sql_ddl_apply_constraint(&tb, st->constraints[i]->constraint, NULL);
		sql_apply_reloptions(s, tb.o, st->options, st->n_options);
		sql_default_salt(s, tb.o);
		sql_default_row_format(s, tb.o);
		/* Primary key: its columns are NOT NULL and form the row key. */
		sql_ddl_set_storage_key(&tb);
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
	/* Objects not yet handed to the change set are freed if this fails
	 * (e.g. the store refuses writes after a failed fsync). */
	volatile int nput = 0;
	TY_TRY(tc2)
	{
		if (!interleaved)
			sql_create_storage(s, t, r->storage);
		for (int i = 0; i < tb.nextra; i++) {
			if (cat_rel_by_name(cs, schema, tb.extra[i]->rel.name))
				ty_error(UTIL_E_DUPLICATE_TABLE, "relation \"%s\" already exists",
					 tb.extra[i]->rel.name);
			sql_priv_apply_default_acl(s, cs, tb.extra[i]);
			cat_txn_put(ct, tb.extra[i]);
			nput = i + 1;
			sql_seq_init_value(s, tb.extra[i]->oid, tb.extra[i]->rel.seq);
		}
	}
	TY_CATCH(tc2)
	{
		TY_END(tc2);
		cat_obj_free(tb.o);
		for (int i = nput; i < tb.nextra; i++)
			cat_obj_free(tb.extra[i]);
		ty_errthrow();
	}
	TY_END(tc2);
	cat_oid table_oid = tb.o->oid;
	sql_priv_apply_default_acl(s, cs, tb.o);
	cat_txn_put(ct, tb.o);
	sql_temp_on_commit(s, table_oid, st->oncommit);
	/* Unique constraints get their index (index module). */
	sql_create_constraint_indexes(s, table_oid);
	/* LIKE ... INCLUDING INDEXES: the source's other indexes. */
	for (int i = 0; i < tb.nlikes; i++)
		sql_create_like_indexes(s, table_oid, tb.likes[i].src, tb.likes[i].map, tb.likes[i].comments);
}

/* ---------------------------------------------------------------- CREATE SEQUENCE */

static void create_sequence(sql_session *s, PgQuery__CreateSeqStmt *st, const char *text)
{
	cat_txn *ct = sql_txn_ddl(s->txn);
	cat_snap *cs = cat_txn_snap(ct);
	PgQuery__RangeVar *rv = st->sequence;
	cat_oid schema = sql_ddl_creation_schema(s, cs, rv, text);
	cs = cat_txn_snap(ct);
	if (cat_rel_by_name(cs, schema, rv->relname)) {
		if (st->if_not_exists) {
			sql_notice(s, UTIL_E_DUPLICATE_TABLE, "relation \"%s\" already exists, skipping",
				   rv->relname);
			return;
		}
		ty_error(UTIL_E_DUPLICATE_TABLE, "relation \"%s\" already exists", rv->relname);
	}
	cat_obj *o = sql_ddl_make_sequence(s, schema, rv->relname, TY_INT8, st->options, st->n_options);
	TY_TRY(tc)
	{
		sql_seq_owned_by(s, cs, NULL, o->rel.seq, schema, o->rel.owner, st->options, st->n_options);
	}
	TY_CATCH(tc)
	{
		TY_END(tc);
		cat_obj_free(o);
		ty_errthrow();
	}
	TY_END(tc);
	sql_priv_apply_default_acl(s, cs, o);
	cat_txn_put(ct, o);
	sql_seq_init_value(s, o->oid, o->rel.seq);
}

/* ---------------------------------------------------------------- dispatch */

void sql_ddl_alter_table(sql_session *s, PgQuery__AlterTableStmt *st, const char *text);
void sql_ddl_rename(sql_session *s, PgQuery__RenameStmt *st);
void sql_ddl_create_view(sql_session *s, PgQuery__ViewStmt *st, const char *text);
void sql_ddl_create_table_as(sql_session *s, PgQuery__CreateTableAsStmt *st, const char *text,
			     sql_complete *c);
void sql_ddl_truncate(sql_session *s, PgQuery__TruncateStmt *st);
void sql_ddl_comment(sql_session *s, PgQuery__CommentStmt *st);
void sql_ddl_alter_sequence(sql_session *s, PgQuery__AlterSeqStmt *st);
void sql_ddl_index(sql_session *s, PgQuery__IndexStmt *st, const char *text);
void sql_ddl_reindex(sql_session *s, PgQuery__ReindexStmt *st);
void sql_ddl_role(sql_session *s, pnode *stmt);
void sql_ddl_database(sql_session *s, pnode *stmt);
void sql_ddl_grant(sql_session *s, pnode *stmt);
void sql_ddl_set_schema(sql_session *s, PgQuery__AlterObjectSchemaStmt *st);
void sql_ddl_create_schema(sql_session *s, PgQuery__CreateSchemaStmt *st, const char *text, sql_complete *c);

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
	case PG_QUERY__NODE__NODE_ALTER_DEFAULT_PRIVILEGES_STMT:
	case PG_QUERY__NODE__NODE_ALTER_OBJECT_SCHEMA_STMT:
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
		ty_error(UTIL_E_READ_ONLY_SQL_TRANSACTION, "cannot execute %s in a read-only transaction",
			 sql_command_tag(n));
	switch (n->node_case) {
	case PG_QUERY__NODE__NODE_CREATE_STMT:
		sql_ddl_create_table(s, n->create_stmt, text);
		break;
	case PG_QUERY__NODE__NODE_DROP_STMT:
		sql_ddl_drop(s, n->drop_stmt, text);
		break;
	case PG_QUERY__NODE__NODE_CREATE_SCHEMA_STMT:
		sql_ddl_create_schema(s, n->create_schema_stmt, text, c);
		break;
	case PG_QUERY__NODE__NODE_CREATE_SEQ_STMT:
		create_sequence(s, n->create_seq_stmt, text);
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
		sql_ddl_index(s, n->index_stmt, text);
		break;
	case PG_QUERY__NODE__NODE_REINDEX_STMT:
		sql_ddl_reindex(s, n->reindex_stmt);
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
	case PG_QUERY__NODE__NODE_ALTER_DEFAULT_PRIVILEGES_STMT:
		sql_ddl_grant(s, n);
		break;
	case PG_QUERY__NODE__NODE_ALTER_OBJECT_SCHEMA_STMT:
		sql_ddl_set_schema(s, n->alter_object_schema_stmt);
		break;
	case PG_QUERY__NODE__NODE_CREATE_EXTENSION_STMT:
		ty_error(UTIL_E_FEATURE_NOT_SUPPORTED, "extensions are not supported");
	default:
		ty_error(UTIL_E_FEATURE_NOT_SUPPORTED, "%s is not supported", sql_command_tag(n));
	}
}
