/*
 * flush.c — memstore flushes: freeze the active memstore, wait until every
 * commit in it is complete, write one sorted file per family, record the
 * files in the manifest, install the new file set, then drop log segments
 * no memstore needs any more.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kv_int.h"

typedef struct fam_out {
	kv_family_opts fo;
	sst_writer *w;
	uint64_t number;
	sst_props props;
	bool done;
} fam_out;

/* Moves the active memstore to the immutable list (if it has data). */
static void freeze(kv_table *t)
{
	pthread_mutex_lock(&t->apply_mu);
	pthread_mutex_lock(&t->mu);
	if (mem_count(t->mem) > 0) {
		kv_mem *nm = mem_new();
		if (nm) {
			/* Commits up to the last assigned timestamp belong to the
			 * frozen memstore, even those still in flight. */
			pthread_mutex_lock(&t->s->ts_mu);
			mem_set_cutoff(t->mem, t->s->last_ts);
			pthread_mutex_unlock(&t->s->ts_mu);
			t->imm = util_xrealloc(t->imm, (size_t)(t->nimm + 1) * sizeof(kv_mem *));
			memmove(t->imm + 1, t->imm, (size_t)t->nimm * sizeof(kv_mem *));
			t->imm[0] = t->mem;
			t->nimm++;
			t->mem = nm;
			table_install_sv(t);
		}
	}
	pthread_mutex_unlock(&t->mu);
	pthread_mutex_unlock(&t->apply_mu);
}

kv_sfile *sfile_new(kv_store *s, uint32_t tid, const char *fam, uint64_t number, const sst_props *p)
{
	kv_sfile *f = util_xcalloc(1, sizeof(*f));
	atomic_init(&f->refs, 1);
	f->s = s;
	pthread_mutex_init(&f->open_mu, NULL);
	f->m.table_id = tid;
	snprintf(f->m.family, sizeof(f->m.family), "%s", fam);
	f->m.number = number;
	f->m.size = p->file_size;
	f->m.entries = p->entries;
	f->m.deletes = p->deletes;
	f->m.min_ts = p->min_ts;
	f->m.max_ts = p->max_ts;
	f->m.smallest = util_xmalloc(p->slen);
	memcpy(f->m.smallest, p->smallest, p->slen);
	f->m.slen = p->slen;
	f->m.largest = util_xmalloc(p->llen);
	memcpy(f->m.largest, p->largest, p->llen);
	f->m.llen = p->llen;
	f->m.live = true;
	return f;
}

void sfile_merge_late(man_file *dst, const man_file *src)
{
	if (!src->late_cts)
		return;
	if (!dst->late_cts || src->late_min < dst->late_min)
		dst->late_min = src->late_min;
	if (src->late_cts > dst->late_cts)
		dst->late_cts = src->late_cts;
}

/* A copy of version v with changes: `add` files (one per family entry,
 * prepended as newest) and `del` files removed. REQUIRES: t->mu held. */
kv_version *version_edit(kv_version *v, kv_sfile **add, int nadd, kv_sfile **del, int ndel)
{
	kv_version *nv = util_xcalloc(1, sizeof(*nv));
	atomic_init(&nv->refs, 1);
	int cap = v->nfam + nadd;
	nv->fams = util_xcalloc((size_t)(cap ? cap : 1), sizeof(kv_fileset));
	for (int i = 0; i < v->nfam; i++) {
		kv_fileset *d = &nv->fams[nv->nfam++];
		memcpy(d->family, v->fams[i].family, sizeof(d->family));
	}
	for (int i = 0; i < nadd; i++) {
		if (!version_family(nv, add[i]->m.family, strlen(add[i]->m.family))) {
			kv_fileset *d = &nv->fams[nv->nfam++];
			memcpy(d->family, add[i]->m.family, sizeof(d->family));
		}
	}
	for (int i = 0; i < nv->nfam; i++) {
		kv_fileset *d = &nv->fams[i];
		kv_fileset *src = version_family(v, d->family, strlen(d->family));
		int n = src ? src->n : 0;
		d->files = util_xcalloc((size_t)(n + nadd + 1), sizeof(kv_sfile *));
		for (int j = 0; j < n; j++) {
			kv_sfile *f = src->files[j];
			bool gone = false;
			for (int k = 0; k < ndel && !gone; k++)
				gone = del[k] == f;
			if (gone)
				continue;
			d->files[d->n++] = f;
			sfile_ref(f);
		}
		/* Added files by age: a flush output is usually the newest; a file
		 * ingested by a large commit may be older than a flush installed
		 * after it. Among equal seqs the added file goes first. */
		for (int j = 0; j < nadd; j++) {
			if (strcmp(add[j]->m.family, d->family))
				continue;
			int pos = 0;
			while (pos < d->n && d->files[pos]->m.seq > add[j]->m.seq)
				pos++;
			memmove(d->files + pos + 1, d->files + pos,
				(size_t)(d->n - pos) * sizeof(kv_sfile *));
			d->files[pos] = add[j];
			d->n++;
			sfile_ref(add[j]);
		}
	}
	return nv;
}

static kv_status flush_one(kv_store *s, kv_table *t, kv_mem *m)
{
	/* Every commit in the memstore must be complete before it becomes a
	 * file (files carry no commit timestamps). */
	kv_ts cutoff = mem_cutoff(m);
	clock_wait_visible(s, cutoff);

	pthread_mutex_lock(&t->mu);
	int nf = t->nfam;
	fam_out *outs = util_xcalloc((size_t)(nf ? nf : 1), sizeof(fam_out));
	for (int i = 0; i < nf; i++)
		outs[i].fo = t->fams[i];
	pthread_mutex_unlock(&t->mu);

	kv_status st = KV_OK;
	kv_src *it = mem_iter_new(m, KV_TS_MAX);
	util_buf last = UTIL_BUF_INIT;
	char path[4096];
	int cur = -1;
	util_buf curfam = UTIL_BUF_INIT;
	if (!it)
		st = kv_fail(KV_NO_MEMORY, "out of memory flushing");
	for (src_seek(it, NULL, 0); !st && it->valid; src_next(it)) {
		/* Identical keys: the newest commit comes first and wins. */
		if (last.len == it->klen && !memcmp(last.data, it->key, it->klen))
			continue;
		util_buf_reset(&last);
		util_buf_append(&last, it->key, it->klen);
		ikey_parts p;
		ikey_split(it->key, it->klen, &p);
		if (cur < 0 || curfam.len != p.flen || memcmp(curfam.data, p.fam, p.flen)) {
			util_buf_reset(&curfam);
			util_buf_append(&curfam, p.fam, p.flen);
			cur = -1;
			for (int i = 0; i < nf; i++)
				if (strlen(outs[i].fo.name) == p.flen &&
				    !memcmp(outs[i].fo.name, p.fam, p.flen))
					cur = i;
			if (cur < 0) {
				cur = -2; /* family dropped: discard its cells */
				continue;
			}
		}
		if (cur == -2)
			continue;
		fam_out *o = &outs[cur];
		if (!o->w) {
			o->number = store_next_file(s);
			store_file_path(s, o->number, "sst", path, sizeof(path));
			if ((st = sst_writer_open(s->fs, path, &o->fo, t->id, &o->w)))
				break;
		}
		st = sst_writer_add(o->w, it->key, it->klen, it->val, it->vlen);
	}
	if (it && !st)
		st = it->status;
	src_close(it);
	util_buf_free(&last);
	util_buf_free(&curfam);
	kv_sfile **add = util_xcalloc((size_t)(nf ? nf : 1), sizeof(kv_sfile *));
	int nadd = 0;
	for (int i = 0; i < nf; i++) {
		if (!outs[i].w)
			continue;
		if (st) {
			sst_writer_abandon(outs[i].w);
		} else {
			st = sst_writer_finish(outs[i].w, &outs[i].props);
			outs[i].done = !st;
		}
		outs[i].w = NULL;
	}
	if (!st) {
		int e = s->fs->sync_dir(s->fs, s->path);
		if (e)
			st = kv_fail_errno(e, "fsync directory", s->path);
	}
	/* Once in the manifest the new files outlive the log. Without an fsync
	 * per commit the log records of these commits may not be durable yet, and
	 * a crash would keep this table's part of a batch and lose the other
	 * tables' (a transaction half there): make the log durable first. */
	if (!st && s->wal)
		st = wal_sync(s->wal);
	if (!st) {
		util_buf ed = UTIL_BUF_INIT;
		for (int i = 0; i < nf; i++) {
			if (!outs[i].done)
				continue;
			add[nadd] = sfile_new(s, t->id, outs[i].fo.name, outs[i].number, &outs[i].props);
			add[nadd]->m.seq = cutoff;
			mem_late(m, &add[nadd]->m.late_min, &add[nadd]->m.late_cts);
			me_add_file(&ed, &add[nadd]->m);
			nadd++;
		}
		me_table_flushed(&ed, t->id, cutoff);
		pthread_mutex_lock(&t->apply_mu);
		pthread_mutex_lock(&s->mu);
		me_u64(&ed, MAN_LAST_TS, (kv_ts)atomic_load(&s->read_point));
		st = atomic_load(&t->dropped) ? KV_OK : store_log_edit(s, &ed);
		if (!st) {
			pthread_mutex_lock(&t->mu);
			kv_version *nv = version_edit(t->v, add, nadd, NULL, 0);
			version_unref(t->v);
			t->v = nv;
			if (atomic_load(&t->dropped))
				version_mark_obsolete(nv);
			/* The flushed memstore is the oldest immutable one. */
			for (int i = 0; i < t->nimm; i++) {
				if (t->imm[i] == m) {
					memmove(t->imm + i, t->imm + i + 1,
						(size_t)(t->nimm - i - 1) * sizeof(kv_mem *));
					t->nimm--;
					break;
				}
			}
			t->flushed_ts = UTIL_MAX(t->flushed_ts, cutoff);
			table_install_sv(t);
			pthread_mutex_unlock(&t->mu);
			size_t mb = mem_bytes(m);
			atomic_fetch_sub(&s->mem_total, UTIL_MIN(mb, atomic_load(&s->mem_total)));
			mem_unref(m); /* the table's reference */
		}
		pthread_mutex_unlock(&s->mu);
		pthread_mutex_unlock(&t->apply_mu);
		util_buf_free(&ed);
	}
	if (st) {
		/* Nothing was installed: remove what was written. */
		for (int i = 0; i < nf; i++) {
			if (outs[i].number) {
				store_file_path(s, outs[i].number, "sst", path, sizeof(path));
				s->fs->unlink(s->fs, path);
			}
		}
	}
	for (int i = 0; i < nadd; i++) {
		if (st)
			atomic_store(&add[i]->obsolete, false);
		sfile_unref(add[i]);
	}
	for (int i = 0; i < nf; i++)
		sst_props_free(&outs[i].props);
	free(outs);
	free(add);
	if (!st)
		atomic_fetch_add(&t->n_flushes, 1);
	return st;
}

kv_status flush_table(kv_store *s, kv_table *t)
{
	kv_status st = store_writable(s);
	if (st)
		return st;
	pthread_mutex_lock(&t->flush_mu);
	freeze(t);
	for (;;) {
		pthread_mutex_lock(&t->mu);
		kv_mem *m = t->nimm ? t->imm[t->nimm - 1] : NULL;
		if (m)
			mem_ref(m);
		pthread_mutex_unlock(&t->mu);
		if (!m)
			break;
		st = flush_one(s, t, m);
		mem_unref(m);
		if (st)
			break;
	}
	pthread_mutex_unlock(&t->flush_mu);
	pthread_mutex_lock(&s->bg_mu);
	pthread_cond_broadcast(&s->done_cv);
	pthread_cond_broadcast(&s->compact_cv);
	pthread_mutex_unlock(&s->bg_mu);
	if (!st)
		store_update_wal_floor(s);
	else
		util_warn("kvstore: flush of %s failed: %s", t->name, kv_errmsg());
	return st;
}
