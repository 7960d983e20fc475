/*
 * admin.h — the administration subcommands of the `strata` binary:
 * `strata backup`, `strata restore`, `strata backup-info`, `strata verify`.
 */
#ifndef STRATA_SERVER_ADMIN_H
#define STRATA_SERVER_ADMIN_H

#include <stdbool.h>

/* True if argv[1] names a subcommand. */
bool srv_admin_is_command(const char *arg);
/* Runs the subcommand in argv[1]; returns the process exit status
 * (0 ok, 1 failed, 2 usage). */
int srv_admin_main(int argc, char **argv);
/* Lines for --help. */
void srv_admin_print_help(void);

#endif
