/* log.c — leveled, thread-safe logging to stderr or a file. */
#include "util.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>

static util_log_level log_level = UTIL_LOG_INFO;
static FILE *log_out;
static pthread_mutex_t log_mu = PTHREAD_MUTEX_INITIALIZER;

void util_log_set_level(util_log_level lvl) { log_level = lvl; }
util_log_level util_log_get_level(void) { return log_level; }

int util_log_parse_level(const char *s)
{
	static const char *names[] = {"debug", "info", "warning", "error", "fatal"};
	for (int i = 0; i < (int)UTIL_ARRAY_LEN(names); i++)
		if (util_strcasecmp(s, names[i]) == 0)
			return i;
	return -1;
}

int util_log_set_file(const char *path)
{
	FILE *f = NULL;
	if (path && !(f = fopen(path, "a")))
		return -1;
	pthread_mutex_lock(&log_mu);
	if (log_out)
		fclose(log_out);
	log_out = f;
	pthread_mutex_unlock(&log_mu);
	return 0;
}

void util_log(util_log_level lvl, const char *fmt, ...)
{
	static const char *tags[] = {"DEBUG", "INFO", "WARNING", "ERROR", "FATAL"};
	if (lvl < log_level)
		return;
	char msg[2048];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	struct timeval tv;
	gettimeofday(&tv, NULL);
	struct tm tm;
	gmtime_r(&tv.tv_sec, &tm);
	char ts[32];
	strftime(ts, sizeof ts, "%Y-%m-%d %H:%M:%S", &tm);
	pthread_mutex_lock(&log_mu);
	FILE *out = log_out ? log_out : stderr;
	fprintf(out, "%s.%03d UTC [%s] %s\n", ts, (int)(tv.tv_usec / 1000), tags[lvl], msg);
	fflush(out);
	pthread_mutex_unlock(&log_mu);
}
