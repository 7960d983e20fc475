/*
 * slt_report.c — per-directory pass counts of a sqllogictest run: grouping
 * files into directories, the per-directory minimum pass rates (thresholds
 * file), and the text and JSON summaries.
 */
#include <stdlib.h>
#include <string.h>

#include "slt.h"

void slt_group_of(const char *relpath, char *out, size_t outlen)
{
	snprintf(out, outlen, "%s", relpath);
	char *slash = strrchr(out, '/');
	if (!slash) {
		snprintf(out, outlen, ".");
		return;
	}
	*slash = '\0';
	/* Drop trailing all-digit components: index/between/1 -> index/between. */
	for (;;) {
		char *last = strrchr(out, '/');
		char *comp = last ? last + 1 : out;
		bool digits = *comp != '\0';
		for (char *c = comp; *c; c++)
			if (*c < '0' || *c > '9')
				digits = false;
		if (!digits || !last)
			break;
		*last = '\0';
	}
}

slt_dir_stats *slt_report_dir(slt_report *rep, const char *group)
{
	for (int i = 0; i < rep->n_dirs; i++)
		if (strcmp(rep->dirs[i].name, group) == 0)
			return &rep->dirs[i];
	if (rep->n_dirs == rep->cap_dirs) {
		rep->cap_dirs = rep->cap_dirs ? rep->cap_dirs * 2 : 16;
		rep->dirs = realloc(rep->dirs, (size_t)rep->cap_dirs * sizeof(slt_dir_stats));
		if (!rep->dirs) {
			fprintf(stderr, "slt: out of memory\n");
			exit(2);
		}
	}
	slt_dir_stats *d = &rep->dirs[rep->n_dirs++];
	memset(d, 0, sizeof *d);
	snprintf(d->name, sizeof d->name, "%s", group);
	d->threshold = slt_threshold_for(rep, group);
	return d;
}

int slt_report_load_thresholds(slt_report *rep, const char *path, char *err, size_t errlen)
{
	FILE *f = fopen(path, "r");
	if (!f) {
		snprintf(err, errlen, "%s: cannot open", path);
		return -1;
	}
	char line[512];
	int lineno = 0;
	while (fgets(line, sizeof line, f)) {
		lineno++;
		char *hash = strchr(line, '#');
		if (hash)
			*hash = '\0';
		char name[256];
		double rate;
		char extra[8];
		int n = sscanf(line, "%255s %lf %7s", name, &rate, extra);
		if (n <= 0)
			continue;
		if (n != 2 || rate < 0 || rate > 100) {
			snprintf(err, errlen, "%s:%d: expected '<directory> <min pass rate in %%>'", path,
				 lineno);
			fclose(f);
			return -1;
		}
		if (rep->n_thresholds == (int)(sizeof rep->thresholds / sizeof rep->thresholds[0])) {
			snprintf(err, errlen, "%s: too many entries", path);
			fclose(f);
			return -1;
		}
		snprintf(rep->thresholds[rep->n_thresholds].dir, sizeof rep->thresholds[0].dir, "%s", name);
		rep->thresholds[rep->n_thresholds].rate = rate;
		rep->n_thresholds++;
	}
	fclose(f);
	return 0;
}

double slt_threshold_for(const slt_report *rep, const char *group)
{
	double def = 0;
	for (int i = 0; i < rep->n_thresholds; i++) {
		if (strcmp(rep->thresholds[i].dir, group) == 0)
			return rep->thresholds[i].rate;
		if (strcmp(rep->thresholds[i].dir, "*") == 0)
			def = rep->thresholds[i].rate;
	}
	return def;
}

double slt_rate(long passed, long failed)
{
	long n = passed + failed;
	return n ? 100.0 * (double)passed / (double)n : 100.0;
}

/* Rates are floored to two decimals for display so 99.999% never shows as 100%. */
static double shown(double rate)
{
	return (double)(long)(rate * 100.0) / 100.0;
}

static int cmp_dir(const void *a, const void *b)
{
	return strcmp(((const slt_dir_stats *)a)->name, ((const slt_dir_stats *)b)->name);
}

/* "  97.50%", or "    n/a" when nothing ran. */
static const char *rate_str(long passed, long failed, char *buf, size_t len)
{
	if (passed + failed == 0)
		snprintf(buf, len, "%7s", "n/a");
	else
		snprintf(buf, len, "%6.2f%%", shown(slt_rate(passed, failed)));
	return buf;
}

bool slt_dir_ok(const slt_dir_stats *d)
{
	if (d->threshold <= 0)
		return true;
	if (d->passed + d->failed == 0)
		return false; /* a required directory that did not run is not passing */
	return slt_rate(d->passed, d->failed) + 1e-9 >= d->threshold;
}

/* Prints the counts of one line (a directory or the total). */
static void print_counts(FILE *out, const char *name, const slt_dir_stats *d)
{
	char rb[32];
	fprintf(out, "# slt %-16s %s  %ld passed, %ld failed, ", name,
		rate_str(d->passed, d->failed, rb, sizeof rb), d->passed, d->failed);
	if (d->known || d->fixed)
		fprintf(out, "%ld known, %ld fixed, ", d->known, d->fixed);
	fprintf(out, "%ld skipped, %ld not run; %d files, %.1f s", d->skipped, d->not_run, d->files,
		d->seconds);
}

int slt_report_print(slt_report *rep, FILE *out)
{
	qsort(rep->dirs, (size_t)rep->n_dirs, sizeof(slt_dir_stats), cmp_dir);
	slt_dir_stats tot;
	memset(&tot, 0, sizeof tot);
	int below = 0;
	for (int i = 0; i < rep->n_dirs; i++) {
		slt_dir_stats *d = &rep->dirs[i];
		bool ok = slt_dir_ok(d);
		if (!ok)
			below++;
		print_counts(out, d->name, d);
		if (d->threshold > 0)
			fprintf(out, "; min %.2f%% %s", d->threshold, ok ? "ok" : "BELOW");
		fputc('\n', out);
		tot.passed += d->passed;
		tot.failed += d->failed;
		tot.known += d->known;
		tot.fixed += d->fixed;
		tot.skipped += d->skipped;
		tot.not_run += d->not_run;
		tot.files += d->files;
		tot.seconds += d->seconds;
	}
	print_counts(out, "total", &tot);
	fputc('\n', out);
	if (tot.fixed)
		fprintf(
		    out,
		    "# slt %ld listed known failures pass (FIXED in the failures file): where PostgreSQL "
		    "fails them too, Strata differs from PostgreSQL; otherwise remove them from the list\n",
		    tot.fixed);
	if (rep->disconnects)
		fprintf(out, "# slt lost the server connection %d times (first at %s)\n", rep->disconnects,
			rep->first_disconnect);
	fprintf(out, "directories: %d passed, %d failed\n", rep->n_dirs - below, below);
	return below;
}

static void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\')
			fprintf(f, "\\%c", *p);
		else if (*p < 0x20)
			fprintf(f, "\\u%04x", *p);
		else
			fputc(*p, f);
	}
	fputc('"', f);
}

static void json_counts(FILE *f, const slt_dir_stats *d)
{
	fprintf(f,
		"\"passed\": %ld, \"failed\": %ld, \"known\": %ld, \"fixed\": %ld, \"skipped\": %ld, "
		"\"not_run\": %ld, \"rate\": %.4f, \"files\": %d, \"seconds\": %.3f",
		d->passed, d->failed, d->known, d->fixed, d->skipped, d->not_run,
		slt_rate(d->passed, d->failed), d->files, d->seconds);
}

int slt_report_json(const slt_report *rep, const char *path, double seconds)
{
	FILE *f = fopen(path, "w");
	if (!f)
		return -1;
	fprintf(f, "{\n  \"engine\": ");
	json_str(f, rep->engine);
	fprintf(f, ",\n  \"seconds\": %.3f,\n  \"disconnects\": %d,\n  \"directories\": [\n", seconds,
		rep->disconnects);
	slt_dir_stats tot;
	memset(&tot, 0, sizeof tot);
	for (int i = 0; i < rep->n_dirs; i++) {
		const slt_dir_stats *d = &rep->dirs[i];
		fprintf(f, "    {\"dir\": ");
		json_str(f, d->name);
		fprintf(f, ", ");
		json_counts(f, d);
		fprintf(f, ", \"threshold\": %.2f, \"ok\": %s}%s\n", d->threshold,
			slt_dir_ok(d) ? "true" : "false", i + 1 < rep->n_dirs ? "," : "");
		tot.passed += d->passed;
		tot.failed += d->failed;
		tot.known += d->known;
		tot.fixed += d->fixed;
		tot.skipped += d->skipped;
		tot.not_run += d->not_run;
		tot.files += d->files;
		tot.seconds += d->seconds;
	}
	fprintf(f, "  ],\n  \"total\": {");
	json_counts(f, &tot);
	fprintf(f, "}\n}\n");
	return fclose(f) == 0 ? 0 : -1;
}

void slt_report_free(slt_report *rep)
{
	free(rep->dirs);
	rep->dirs = NULL;
	rep->n_dirs = rep->cap_dirs = 0;
}
