/*
 * iso_spec.h — isolation test specs (PostgreSQL isolation tester format):
 * the parsed form and the parser. A spec is
 *
 *   setup { SQL }                       (zero or more; run before every permutation)
 *   teardown { SQL }                    (optional; run after every permutation)
 *   session NAME                        (one or more)
 *     [setup { SQL }]
 *     step NAME { SQL }                 (one or more; names unique in the spec)
 *     [teardown { SQL }]
 *   permutation STEP STEP ...           (zero or more; none = every interleaving)
 *
 * A session's body may also be wrapped in braces: `session s1 { setup {..}
 * step s1a {..} }`. NAMEs are identifiers or double-quoted strings ("" is a
 * quote). `#` starts a comment outside SQL. An SQL block runs from `{` to the
 * first `}` (no nesting, as in PostgreSQL), leading and trailing white space
 * removed. PostgreSQL's blocker annotations (`s1a(s2a)`, `s1a(*)`) are not
 * supported and are rejected.
 */
#ifndef ISO_SPEC_H
#define ISO_SPEC_H

#include <stddef.h>

typedef struct iso_step {
	char *name;
	char *sql;
	int session; /* index into iso_spec.sessions */
} iso_step;

typedef struct iso_session {
	char *name;
	char *setup;    /* NULL if none */
	char *teardown; /* NULL if none */
	iso_step **steps;
	int nsteps;
} iso_session;

typedef struct iso_perm {
	iso_step **steps; /* borrowed from the sessions */
	int nsteps;
} iso_perm;

typedef struct iso_spec {
	char **setups;
	int nsetups;
	char *teardown; /* NULL if none */
	iso_session **sessions;
	int nsessions;
	iso_perm **perms; /* empty: run every interleaving */
	int nperms;
} iso_spec;

/* Parses TEXT. Returns the spec (caller frees with iso_spec_free), or NULL
 * with a message "line N: ..." written to ERR (ERRLEN bytes). */
iso_spec *iso_spec_parse(const char *text, char *err, size_t errlen);

/* Frees a spec from iso_spec_parse; NULL is fine. */
void iso_spec_free(iso_spec *spec);

/* Reads and parses the file PATH, as iso_spec_parse (the message names the file). */
iso_spec *iso_spec_load(const char *path, char *err, size_t errlen);

#endif
