/*
 * sysview_pgrel.c — pg_catalog relations describing the parts of tables:
 * pg_index, pg_constraint, pg_attrdef, pg_description, pg_shdescription,
 * pg_depend, pg_sequence, pg_rewrite. Expressions (defaults, CHECKs,
 * index expressions and predicates) are kept as pg_node_tree values holding
 * their SQL text as PostgreSQL would print it; pg_get_expr() reads them.
 */
#include <stdio.h>
#include <string.h>

#include "sysview.h"

#define T  TY_TEXT
#define N  TY_NAME
#define O  TY_OID
#define B  TY_BOOL
#define I2 TY_INT2
#define I4 TY_INT4
#define I8 TY_INT8
#define C  TY_CHAR
#define NT TY_PG_NODE_TREE

typedef struct gen_ctx {
	sql_session *s;
	cat_snap *cs;
	sql_sysrows *out;
} gen_ctx;

/* ---- pg_index ---- */

static const sql_syscol index_cols[] = {
    {"indexrelid", O},
    {"indrelid", O},
    {"indnatts", I2},
    {"indnkeyatts", I2},
    {"indisunique", B},
    {"indnullsnotdistinct", B},
    {"indisprimary", B},
    {"indisexclusion", B},
    {"indimmediate", B},
    {"indisclustered", B},
    {"indisvalid", B},
    {"indcheckxmin", B},
    {"indisready", B},
    {"indislive", B},
    {"indisreplident", B},
    {"indkey", TY_INT2VECTOR},
    {"indcollation", TY_OIDVECTOR},
    {"indclass", TY_OIDVECTOR},
    {"indoption", TY_INT2VECTOR},
    {"indexprs", NT},
    {"indpred", NT},
};

static void index_row(gen_ctx *g, const sql_index_desc *d)
{
	const cat_index_info *ix = &d->info;
	int n = ix->nkeys + ix->ninclude;
	int16_t *keys = ty_alloc(sizeof(int16_t) * (size_t)(n ? n : 1));
	int16_t *opts = ty_alloc(sizeof(int16_t) * (size_t)(ix->nkeys ? ix->nkeys : 1));
	ty_oid *colls = ty_alloc(sizeof(ty_oid) * (size_t)(ix->nkeys ? ix->nkeys : 1));
	ty_oid *classes = ty_alloc(sizeof(ty_oid) * (size_t)(ix->nkeys ? ix->nkeys : 1));
	util_buf exprs = UTIL_BUF_INIT;
	for (int i = 0; i < n; i++)
		keys[i] = i < ix->nkeys ? ix->keys[i].attnum : ix->include[i - ix->nkeys];
	for (int i = 0; i < ix->nkeys; i++) {
		const cat_index_col *k = &ix->keys[i];
		ty_oid type = TY_TEXT;
		if (k->attnum && d->table) {
			const cat_column *c = cat_column_by_attnum(&d->table->rel, k->attnum);
			type = c ? c->type : TY_TEXT;
		} else if (k->expr_sql && d->table) {
			int32_t tm;
			type = sql_index_expr_type(g->s, g->cs, d->table, k->expr_sql, &tm);
			if (exprs.len)
				util_buf_puts(&exprs, ", ");
			util_buf_puts(&exprs,
				      sql_deparse_expr_text(g->s, g->cs, d->table, k->expr_sql, false));
		}
		/* indoption bits: 1 = DESC, 2 = NULLS FIRST (PostgreSQL's default for DESC). */
		opts[i] = (int16_t)((k->desc ? 1 : 0) | (k->nulls_first ? 2 : 0));
		colls[i] = sql_type_collation(type);
		classes[i] = sql_default_opclass(type);
	}
	bool deferrable = d->con && d->con->deferrable;
	ty_datum v[21];
	int k = 0;
	v[k++] = sql_d_oid(d->oid);
	v[k++] = sql_d_oid(d->info.table);
	v[k++] = sql_d_int(n);
	v[k++] = sql_d_int(ix->nkeys);
	v[k++] = sql_d_bool(ix->unique);
	v[k++] = sql_d_bool(ix->nulls_not_distinct);
	v[k++] = sql_d_bool(ix->primary);
	v[k++] = sql_d_bool(false);
	v[k++] = sql_d_bool(!deferrable);
	v[k++] = sql_d_bool(false);
	v[k++] = sql_d_bool(ix->state == CAT_INDEX_PUBLIC);
	v[k++] = sql_d_bool(false);
	v[k++] = sql_d_bool(true);
	v[k++] = sql_d_bool(true);
	v[k++] = sql_d_bool(false);
	v[k++] = ty_int2vector_from(n, keys);
	v[k++] = ty_oidvector_from(ix->nkeys, colls);
	v[k++] = ty_oidvector_from(ix->nkeys, classes);
	v[k++] = ty_int2vector_from(ix->nkeys, opts);
	v[k++] = exprs.len ? ty_textn(exprs.data, exprs.len) : ty_null();
	v[k++] = ix->predicate_sql ? sql_d_text(sql_node_text(ix->predicate_sql)) : ty_null();
	util_buf_free(&exprs);
	sql_sysrows_add(g->out, v);
}

static int index_rows(void *arg, const cat_obj *o)
{
	gen_ctx *g = arg;
	if (o->rel.relkind != CAT_RELKIND_TABLE)
		return 0;
	int n;
	sql_index_desc *d = sql_table_indexes(g->cs, o, &n);
	for (int i = 0; i < n; i++)
		index_row(g, &d[i]);
	return 0;
}

static void gen_index(sql_session *s, cat_snap *cs, sql_sysrows *out)
{
	gen_ctx g = {s, cs, out};
	cat_foreach(cs, CAT_REL, s->db_oid, index_rows, &g);
}

/* ---- pg_constraint ---- */

static const sql_syscol con_cols[] = {
    {"oid", O},
    {"conname", N},
    {"connamespace", O},
    {"contype", C},
    {"condeferrable", B},
    {"condeferred", B},
    {"convalidated", B},
    {"conrelid", O},
    {"contypid", O},
    {"conindid", O},
    {"conparentid", O},
    {"confrelid", O},
    {"confupdtype", C},
    {"confdeltype", C},
    {"confmatchtype", C},
    {"conislocal", B},
    {"coninhcount", I4},
    {"connoinherit", B},
    {"conkey", TY_INT2_ARRAY},
    {"confkey", TY_INT2_ARRAY},
    {"conpfeqop", TY_OID_ARRAY},
    {"conppeqop", TY_OID_ARRAY},
    {"conffeqop", TY_OID_ARRAY},
    {"confdelsetcols", TY_INT2_ARRAY},
    {"conexclop", TY_OID_ARRAY},
    {"conbin", NT},
};

/* The oid of the "=" operator between two types (0 if none). */
static cat_oid eq_operator(ty_oid l, ty_oid r)
{
	int cur = 0;
	const ty_operator *op;
	while ((op = ty_operator_lookup("=", &cur)))
		if (op->left == l && op->right == r)
			return op->oid;
	return 0;
}

static ty_oid col_type(const cat_obj *t, int attnum)
{
	const cat_column *c = t ? cat_column_by_attnum(&t->rel, attnum) : NULL;
	return c ? c->type : 0;
}

/* The unique index of the referenced table that a foreign key uses: the
 * primary key or unique constraint (or unique index) on exactly its
 * referenced columns. */
cat_oid sql_fk_index_oid(cat_snap *cs, const cat_constraint *fk)
{
	const cat_obj *ref = cat_get(cs, fk->ref_table);
	if (!ref || ref->kind != CAT_REL)
		return 0;
	int n;
	sql_index_desc *d = sql_table_indexes(cs, ref, &n);
	for (int i = 0; i < n; i++) {
		if (!d[i].info.unique || d[i].info.nkeys != fk->ncols || d[i].info.predicate_sql)
			continue;
		bool all = true;
		for (int k = 0; k < fk->ncols && all; k++) {
			bool found = false;
			for (int j = 0; j < d[i].info.nkeys; j++)
				found |= d[i].info.keys[j].attnum == fk->ref_cols[k];
			all = found;
		}
		if (all)
			return d[i].oid;
	}
	return 0;
}

static int con_rows(void *arg, const cat_obj *o)
{
	gen_ctx *g = arg;
	const cat_rel *r = &o->rel;
	if (r->relkind != CAT_RELKIND_TABLE)
		return 0;
	for (int i = 0; i < r->ncons; i++) {
		const cat_constraint *c = &r->cons[i];
		if (c->type == 'n')
			continue;
		bool fk = c->type == 'f';
		const cat_obj *ref = fk ? cat_get(g->cs, c->ref_table) : NULL;
		ty_datum v[26];
		for (int k = 0; k < 26; k++)
			v[k] = ty_null();
		v[0] = sql_d_oid(c->oid);
		v[1] = sql_d_name(c->name);
		v[2] = sql_d_oid(r->schema);
		v[3] = sql_d_char(c->type);
		v[4] = sql_d_bool(c->deferrable);
		v[5] = sql_d_bool(c->deferred);
		v[6] = sql_d_bool(c->type == 'c' || fk ? c->validated || !c->validated ? c->validated : true
						       : true);
		v[7] = sql_d_oid(o->oid);
		v[8] = sql_d_oid(0);
		v[9] = sql_d_oid(fk ? sql_fk_index_oid(g->cs, c) : sql_constraint_index_oid(o, i));
		v[10] = sql_d_oid(0);
		v[11] = sql_d_oid(fk ? c->ref_table : 0);
		v[12] = sql_d_char(fk ? c->on_update : ' ');
		v[13] = sql_d_char(fk ? c->on_delete : ' ');
		v[14] = sql_d_char(fk ? c->match : ' ');
		v[15] = sql_d_bool(true);
		v[16] = sql_d_int(0);
		v[17] = sql_d_bool(c->no_inherit);
		if (c->type == 'c') {
			int16_t *cols;
			int nc = sql_check_columns(g->s, g->cs, o, c->check_sql, &cols);
			v[18] = sql_d_int2_array(nc, cols);
			v[25] = sql_d_text(sql_node_text(c->check_sql));
		} else {
			v[18] = sql_d_int2_array(c->ncols, c->cols);
		}
		if (fk) {
			cat_oid *pf = ty_alloc(sizeof(cat_oid) * (size_t)(c->ncols ? c->ncols : 1));
			cat_oid *pp = ty_alloc(sizeof(cat_oid) * (size_t)(c->ncols ? c->ncols : 1));
			cat_oid *ff = ty_alloc(sizeof(cat_oid) * (size_t)(c->ncols ? c->ncols : 1));
			for (int k = 0; k < c->ncols; k++) {
				ty_oid ft = col_type(o, c->cols[k]), pt = col_type(ref, c->ref_cols[k]);
				pf[k] = eq_operator(pt, ft);
				pp[k] = eq_operator(pt, pt);
				ff[k] = eq_operator(ft, ft);
			}
			v[19] = sql_d_int2_array(c->ncols, c->ref_cols);
			v[20] = sql_d_oid_array(c->ncols, pf);
			v[21] = sql_d_oid_array(c->ncols, pp);
			v[22] = sql_d_oid_array(c->ncols, ff);
		}
		sql_sysrows_add(g->out, v);
	}
	return 0;
}

static void gen_constraint(sql_session *s, cat_snap *cs, sql_sysrows *out)
{
	gen_ctx g = {s, cs, out};
	cat_foreach(cs, CAT_REL, s->db_oid, con_rows, &g);
}

/* ---- pg_attrdef ---- */

static const sql_syscol attrdef_cols[] = {{"oid", O}, {"adrelid", O}, {"adnum", I2}, {"adbin", NT}};

static int attrdef_rows(void *arg, const cat_obj *o)
{
	gen_ctx *g = arg;
	const cat_rel *r = &o->rel;
	if (r->relkind != CAT_RELKIND_TABLE)
		return 0;
	for (int i = 0; i < r->ncols; i++) {
		const cat_column *c = &r->cols[i];
		if (!sql_column_has_default(c))
			continue;
		char head[48];
		snprintf(head, sizeof head, "{DEFAULT %d} ", c->attnum);
		util_buf b = UTIL_BUF_INIT;
		util_buf_puts(&b, head);
		util_buf_puts(&b, sql_node_text(c->default_sql));
		ty_datum v[4] = {sql_d_oid(sql_derived_oid(o->oid, SQL_DOID_ATTRDEF + c->attnum)),
				 sql_d_oid(o->oid), sql_d_int(c->attnum), ty_textn(b.data, b.len)};
		util_buf_free(&b);
		sql_sysrows_add(g->out, v);
	}
	return 0;
}

static void gen_attrdef(sql_session *s, cat_snap *cs, sql_sysrows *out)
{
	gen_ctx g = {s, cs, out};
	cat_foreach(cs, CAT_REL, s->db_oid, attrdef_rows, &g);
}

/* ---- pg_description, pg_shdescription ---- */

static const sql_syscol desc_cols[] = {{"objoid", O}, {"classoid", O}, {"objsubid", I4}, {"description", T}};
static const sql_syscol shdesc_cols[] = {{"objoid", O}, {"classoid", O}, {"description", T}};

static void desc_add(gen_ctx *g, cat_oid obj, cat_oid cls, int sub, const char *text)
{
	if (!text)
		return;
	ty_datum v[4] = {sql_d_oid(obj), sql_d_oid(cls), sql_d_int(sub), sql_d_text(text)};
	sql_sysrows_add(g->out, v);
}

static int desc_rel(void *arg, const cat_obj *o)
{
	gen_ctx *g = arg;
	const cat_rel *r = &o->rel;
	desc_add(g, o->oid, CAT_OID_PG_CLASS, 0, r->comment);
	for (int i = 0; i < r->ncols; i++)
		if (!r->cols[i].dropped)
			desc_add(g, o->oid, CAT_OID_PG_CLASS, r->cols[i].attnum, r->cols[i].comment);
	for (int i = 0; i < r->ncons; i++)
		desc_add(g, r->cons[i].oid, CAT_OID_PG_CONSTRAINT, 0, r->cons[i].comment);
	return 0;
}

static int desc_schema(void *arg, const cat_obj *o)
{
	desc_add(arg, o->oid, CAT_OID_PG_NAMESPACE, 0, o->schema.comment);
	return 0;
}

static void gen_description(sql_session *s, cat_snap *cs, sql_sysrows *out)
{
	gen_ctx g = {s, cs, out};
	cat_foreach(cs, CAT_SCHEMA, s->db_oid, desc_schema, &g);
	cat_foreach(cs, CAT_REL, s->db_oid, desc_rel, &g);
}

static int shdesc_row(void *arg, const cat_obj *o)
{
	gen_ctx *g = arg;
	const char *text = o->kind == CAT_DATABASE ? o->db.comment : o->role.comment;
	if (!text)
		return 0;
	ty_datum v[3] = {sql_d_oid(o->oid),
			 sql_d_oid(o->kind == CAT_DATABASE ? CAT_OID_PG_DATABASE : CAT_OID_PG_AUTHID),
			 sql_d_text(text)};
	sql_sysrows_add(g->out, v);
	return 0;
}

static void gen_shdescription(sql_session *s, cat_snap *cs, sql_sysrows *out)
{
	gen_ctx g = {s, cs, out};
	cat_foreach(cs, CAT_DATABASE, 0, shdesc_row, &g);
	cat_foreach(cs, CAT_ROLE, 0, shdesc_row, &g);
}

/* ---- pg_depend ---- */

static const sql_syscol depend_cols[] = {{"classid", O},    {"objid", O},    {"objsubid", I4},
					 {"refclassid", O}, {"refobjid", O}, {"refobjsubid", I4},
					 {"deptype", C}};

#define PG_ATTRDEF 2604
#define PG_REWRITE 2618

static void dep_add(gen_ctx *g, cat_oid cls, cat_oid obj, int sub, cat_oid refcls, cat_oid ref, int refsub,
		    char type)
{
	ty_datum v[7] = {sql_d_oid(cls), sql_d_oid(obj),    sql_d_int(sub),  sql_d_oid(refcls),
			 sql_d_oid(ref), sql_d_int(refsub), sql_d_char(type)};
	sql_sysrows_add(g->out, v);
}

static int depend_rows(void *arg, const cat_obj *o)
{
	gen_ctx *g = arg;
	const cat_rel *r = &o->rel;
	switch (r->relkind) {
	case CAT_RELKIND_SEQUENCE:
		if (r->seq && r->seq->owned_by_table) {
			const cat_obj *t = cat_get(g->cs, r->seq->owned_by_table);
			const cat_column *c = t ? cat_column_by_attnum(&t->rel, r->seq->owned_by_col) : NULL;
			dep_add(g, CAT_OID_PG_CLASS, o->oid, 0, CAT_OID_PG_CLASS, r->seq->owned_by_table,
				r->seq->owned_by_col, c && c->identity ? 'i' : 'a');
		}
		return 0;
	case CAT_RELKIND_VIEW: {
		cat_oid rule = sql_derived_oid(o->oid, SQL_DOID_RULE);
		dep_add(g, PG_REWRITE, rule, 0, CAT_OID_PG_CLASS, o->oid, 0, 'i');
		cat_oid *rels;
		int n = sql_view_referenced_rels(g->s, g->cs, o, &rels);
		for (int i = 0; i < n; i++)
			if (rels[i] != o->oid)
				dep_add(g, PG_REWRITE, rule, 0, CAT_OID_PG_CLASS, rels[i], 0, 'n');
		return 0;
	}
	case CAT_RELKIND_TABLE:
		break;
	default:
		return 0;
	}
	/* Indexes depend on their table's columns, or on their constraint. */
	int nidx;
	sql_index_desc *idx = sql_table_indexes(g->cs, o, &nidx);
	for (int i = 0; i < nidx; i++) {
		if (idx[i].con) {
			dep_add(g, CAT_OID_PG_CLASS, idx[i].oid, 0, CAT_OID_PG_CONSTRAINT, idx[i].con->oid, 0,
				'i');
			continue;
		}
		for (int k = 0; k < idx[i].info.nkeys; k++)
			dep_add(g, CAT_OID_PG_CLASS, idx[i].oid, 0, CAT_OID_PG_CLASS, o->oid,
				idx[i].info.keys[k].attnum, 'a');
	}
	for (int i = 0; i < r->ncons; i++) {
		const cat_constraint *c = &r->cons[i];
		if (c->type == 'n')
			continue;
		if (c->type == 'c') {
			int16_t *cols;
			int nc = sql_check_columns(g->s, g->cs, o, c->check_sql, &cols);
			for (int k = 0; k < nc; k++)
				dep_add(g, CAT_OID_PG_CONSTRAINT, c->oid, 0, CAT_OID_PG_CLASS, o->oid,
					cols[k], 'a');
			if (!nc)
				dep_add(g, CAT_OID_PG_CONSTRAINT, c->oid, 0, CAT_OID_PG_CLASS, o->oid, 0,
					'a');
			continue;
		}
		for (int k = 0; k < c->ncols; k++)
			dep_add(g, CAT_OID_PG_CONSTRAINT, c->oid, 0, CAT_OID_PG_CLASS, o->oid, c->cols[k],
				'a');
		if (c->type == 'f') {
			cat_oid ix = sql_fk_index_oid(g->cs, c);
			if (ix)
				dep_add(g, CAT_OID_PG_CONSTRAINT, c->oid, 0, CAT_OID_PG_CLASS, ix, 0, 'n');
			for (int k = 0; k < c->ncols; k++)
				dep_add(g, CAT_OID_PG_CONSTRAINT, c->oid, 0, CAT_OID_PG_CLASS, c->ref_table,
					c->ref_cols[k], 'n');
		}
	}
	for (int i = 0; i < r->ncols; i++) {
		const cat_column *c = &r->cols[i];
		if (!sql_column_has_default(c))
			continue;
		cat_oid def = sql_derived_oid(o->oid, SQL_DOID_ATTRDEF + c->attnum);
		dep_add(g, PG_ATTRDEF, def, 0, CAT_OID_PG_CLASS, o->oid, c->attnum, 'a');
		cat_oid *seqs;
		int ns = sql_default_sequences(g->s, g->cs, o, i, &seqs);
		for (int k = 0; k < ns; k++)
			dep_add(g, PG_ATTRDEF, def, 0, CAT_OID_PG_CLASS, seqs[k], 0, 'n');
	}
	return 0;
}

static void gen_depend(sql_session *s, cat_snap *cs, sql_sysrows *out)
{
	gen_ctx g = {s, cs, out};
	cat_foreach(cs, CAT_REL, s->db_oid, depend_rows, &g);
}

/* ---- pg_sequence ---- */

static const sql_syscol sequence_cols[] = {{"seqrelid", O},      {"seqtypid", O}, {"seqstart", I8},
					   {"seqincrement", I8}, {"seqmax", I8},  {"seqmin", I8},
					   {"seqcache", I8},     {"seqcycle", B}};

static int sequence_row(void *arg, const cat_obj *o)
{
	gen_ctx *g = arg;
	const cat_sequence_info *q = o->rel.seq;
	if (o->rel.relkind != CAT_RELKIND_SEQUENCE || !q)
		return 0;
	ty_datum v[8] = {sql_d_oid(o->oid), sql_d_oid(q->type), sql_d_int(q->start), sql_d_int(q->increment),
			 sql_d_int(q->max), sql_d_int(q->min),  sql_d_int(q->cache), sql_d_bool(q->cycle)};
	sql_sysrows_add(g->out, v);
	return 0;
}

static void gen_sequence(sql_session *s, cat_snap *cs, sql_sysrows *out)
{
	gen_ctx g = {s, cs, out};
	cat_foreach(cs, CAT_REL, s->db_oid, sequence_row, &g);
}

/* ---- pg_rewrite: every view's _RETURN rule ---- */

static const sql_syscol rewrite_cols[] = {{"oid", O},      {"rulename", N},   {"ev_class", O},
					  {"ev_type", C},  {"ev_enabled", C}, {"is_instead", B},
					  {"ev_qual", NT}, {"ev_action", NT}};

static int rewrite_row(void *arg, const cat_obj *o)
{
	gen_ctx *g = arg;
	if (o->rel.relkind != CAT_RELKIND_VIEW)
		return 0;
	ty_datum v[8] = {sql_d_oid(sql_derived_oid(o->oid, SQL_DOID_RULE)),
			 sql_d_name("_RETURN"),
			 sql_d_oid(o->oid),
			 sql_d_char('1'),
			 sql_d_char('O'),
			 sql_d_bool(true),
			 sql_d_text("<>"),
			 sql_d_text(o->rel.view_sql)};
	sql_sysrows_add(g->out, v);
	return 0;
}

static void gen_rewrite(sql_session *s, cat_snap *cs, sql_sysrows *out)
{
	gen_ctx g = {s, cs, out};
	cat_foreach(cs, CAT_REL, s->db_oid, rewrite_row, &g);
}

static const sql_sysview rel_views[] = {
    SQL_SYSVIEW("pg_catalog", "pg_index", 2610, 'r', index_cols, gen_index),
    SQL_SYSVIEW("pg_catalog", "pg_constraint", 2606, 'r', con_cols, gen_constraint),
    SQL_SYSVIEW("pg_catalog", "pg_attrdef", 2604, 'r', attrdef_cols, gen_attrdef),
    SQL_SYSVIEW("pg_catalog", "pg_description", 2609, 'r', desc_cols, gen_description),
    SQL_SYSVIEW("pg_catalog", "pg_shdescription", 2396, 'r', shdesc_cols, gen_shdescription),
    SQL_SYSVIEW("pg_catalog", "pg_depend", 2608, 'r', depend_cols, gen_depend),
    SQL_SYSVIEW("pg_catalog", "pg_sequence", 2224, 'r', sequence_cols, gen_sequence),
    SQL_SYSVIEW("pg_catalog", "pg_rewrite", 2618, 'r', rewrite_cols, gen_rewrite),
};

void sql_sysviews_rel_init(void)
{
	sql_sysview_register(rel_views, (int)UTIL_ARRAY_LEN(rel_views));
}
