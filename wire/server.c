/* server.c — the listener: binds TCP addresses and the optional Unix socket, accepts connections
 * and starts a thread for each (which hands the session to the worker pool once authenticated,
 * pool.c), keeps the hba rules current, and shuts down cleanly. */
#include "pgw_int.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

/* Threads beyond max_connections serve startup packets, cancel requests and
 * the 53300 reply; past this many extra the listener refuses at once. */
#define MAX_THREADS(maxc) (2 * (maxc) + 16)
#define THREAD_STACK      (32u << 20) /* deeply nested statements fail with 54001 well before its end (sql/stack.c) */

void pgw_opts_default(pgw_opts *o)
{
	memset(o, 0, sizeof *o);
	o->listen_addr = "127.0.0.1";
	o->port = 5433;
	o->max_connections = 200;
	o->max_message_bytes = (1u << 30) - 1;
	o->auth_timeout_ms = 60000;
	o->auth_failure_delay_ms = 200;
}

static char *dup_or_null(const char *s)
{
	return s ? util_xstrdup(s) : NULL;
}

static void free_opts(pgw_opts *o)
{
	free((char *)o->listen_addr);
	free((char *)o->hba_file);
	free((char *)o->tls_cert_file);
	free((char *)o->tls_key_file);
	free((char *)o->tls_ca_file);
	free((char *)o->unix_socket_dir);
}

static int64_t file_mtime_ns(const char *path)
{
	struct stat st;
	if (stat(path, &st) < 0)
		return -1;
	return (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
}

/* Binds one TCP address; returns the socket or -1 (and logs). */
static int bind_one(const struct addrinfo *ai, util_err *err)
{
	int fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, ai->ai_protocol);
	if (fd < 0) {
		util_err_set(err, UTIL_E_IO_ERROR, "could not create socket: %s", strerror(errno));
		return -1;
	}
	int one = 1;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
	if (ai->ai_family == AF_INET6)
		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof one);
	if (bind(fd, ai->ai_addr, ai->ai_addrlen) < 0 || listen(fd, 1024) < 0) {
		util_err_set(err, UTIL_E_IO_ERROR, "could not bind socket: %s", strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

static int listen_tcp(pgw_server *s, util_err *err)
{
	char *list = util_xstrdup(s->opts.listen_addr);
	char *save = NULL;
	int port = s->opts.port;
	util_err last;
	util_err_clear(&last);
	for (char *tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		while (*tok == ' ')
			tok++;
		char *end = tok + strlen(tok);
		while (end > tok && end[-1] == ' ')
			*--end = '\0';
		if (!*tok)
			continue;
		struct addrinfo hints = {.ai_family = AF_UNSPEC,
					 .ai_socktype = SOCK_STREAM,
					 .ai_flags = AI_PASSIVE | AI_NUMERICSERV};
		struct addrinfo *res = NULL;
		char portstr[16];
		snprintf(portstr, sizeof portstr, "%d", port);
		int gai = getaddrinfo(strcmp(tok, "*") == 0 ? NULL : tok, portstr, &hints, &res);
		if (gai != 0) {
			util_err_set(&last, UTIL_E_CONFIG_FILE_ERROR,
				     "could not resolve listen address \"%s\": %s", tok, gai_strerror(gai));
			util_warn("%s", last.message);
			continue;
		}
		for (struct addrinfo *ai = res; ai; ai = ai->ai_next) {
			if (s->nlfd >= PGW_MAX_LISTEN)
				break;
			if (port == 0) {
				/* The first bind picks the port; the others reuse it. */
				if (ai->ai_family == AF_INET)
					((struct sockaddr_in *)ai->ai_addr)->sin_port = 0;
			} else if (ai->ai_family == AF_INET) {
				((struct sockaddr_in *)ai->ai_addr)->sin_port = htons((uint16_t)port);
			} else if (ai->ai_family == AF_INET6) {
				((struct sockaddr_in6 *)ai->ai_addr)->sin6_port = htons((uint16_t)port);
			}
			int fd = bind_one(ai, &last);
			if (fd < 0) {
				util_warn("listen on %s port %d: %s", tok, port, last.message);
				continue;
			}
			s->lfd[s->nlfd++] = fd;
			if (port == 0) {
				struct sockaddr_storage ss;
				socklen_t len = sizeof ss;
				getsockname(fd, (struct sockaddr *)&ss, &len);
				port =
				    ntohs(ss.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)&ss)->sin6_port
								   : ((struct sockaddr_in *)&ss)->sin_port);
			}
		}
		freeaddrinfo(res);
	}
	free(list);
	if (s->nlfd == 0) {
		if (util_err_isset(&last))
			*err = last;
		else
			util_err_set(err, UTIL_E_CONFIG_FILE_ERROR, "no listen address in \"%s\"",
				     s->opts.listen_addr);
		return -1;
	}
	s->port = port;
	return 0;
}

static int listen_unix(pgw_server *s, util_err *err)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	int n =
	    snprintf(s->unix_path, sizeof s->unix_path, "%s/.s.PGSQL.%d", s->opts.unix_socket_dir, s->port);
	if (n < 0 || (size_t)n >= sizeof sa.sun_path)
		return util_err_set(err, UTIL_E_CONFIG_FILE_ERROR,
				    "Unix-domain socket path \"%s\" is too long", s->unix_path);
	memcpy(sa.sun_path, s->unix_path, (size_t)n + 1);
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return util_err_set(err, UTIL_E_IO_ERROR, "could not create Unix socket: %s",
				    strerror(errno));
	unlink(s->unix_path); /* a stale socket from a previous run */
	if (bind(fd, (struct sockaddr *)&sa, sizeof sa) < 0 || listen(fd, 1024) < 0) {
		util_err_set(err, UTIL_E_IO_ERROR, "could not bind Unix socket \"%s\": %s", s->unix_path,
			     strerror(errno));
		close(fd);
		s->unix_path[0] = '\0';
		return -1;
	}
	chmod(s->unix_path, 0777);
	s->unix_fd = fd;
	return 0;
}

int pgw_server_start(const pgw_opts *o, sql_engine *e, pgw_server **out, util_err *err)
{
	*out = NULL;
	pgw_server *s = util_xcalloc(1, sizeof *s);
	s->opts = *o;
	s->opts.listen_addr = util_xstrdup(o->listen_addr ? o->listen_addr : "127.0.0.1");
	s->opts.hba_file = dup_or_null(o->hba_file);
	s->opts.tls_cert_file = dup_or_null(o->tls_cert_file);
	s->opts.tls_key_file = dup_or_null(o->tls_key_file);
	s->opts.tls_ca_file = dup_or_null(o->tls_ca_file);
	s->opts.unix_socket_dir = dup_or_null(o->unix_socket_dir);
	if (s->opts.max_connections <= 0)
		s->opts.max_connections = 200;
	if (s->opts.max_message_bytes < 1024)
		s->opts.max_message_bytes = (1u << 30) - 1;
	if (s->opts.auth_timeout_ms <= 0)
		s->opts.auth_timeout_ms = 60000;
	s->engine = e;
	s->unix_fd = -1;
	s->stop_pipe[0] = s->stop_pipe[1] = -1;
	s->reap_pipe[0] = s->reap_pipe[1] = -1;
	pthread_mutex_init(&s->mu, NULL);
	pthread_cond_init(&s->cv, NULL);
	atomic_init(&s->stopping, false);

	if (s->opts.hba_file) {
		s->hba_mtime_ns = file_mtime_ns(s->opts.hba_file);
		if (pgw_hba_load(s->opts.hba_file, &s->hba, err) < 0)
			goto fail;
	} else {
		s->hba = pgw_hba_default();
	}
	if (!s->opts.tls_cert_file != !s->opts.tls_key_file) {
		util_err_set(err, UTIL_E_CONFIG_FILE_ERROR, "TLS needs both a certificate and a key file");
		goto fail;
	}
	if (s->opts.tls_cert_file &&
	    pgw_tls_context(s->opts.tls_cert_file, s->opts.tls_key_file, s->opts.tls_ca_file, &s->tls,
			    s->cb_hash, &s->cb_len, err) < 0)
		goto fail;
	if (pipe2(s->stop_pipe, O_CLOEXEC | O_NONBLOCK) < 0 ||
	    pipe2(s->reap_pipe, O_CLOEXEC | O_NONBLOCK) < 0) {
		util_err_set(err, UTIL_E_IO_ERROR, "could not create pipe: %s", strerror(errno));
		goto fail;
	}
	if (listen_tcp(s, err) < 0)
		goto fail;
	if (s->opts.unix_socket_dir && listen_unix(s, err) < 0)
		goto fail;
	if (s->opts.worker_threads >= 0) {
		long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
		int n = s->opts.worker_threads ? s->opts.worker_threads : (int)(ncpu > 0 ? ncpu : 2);
		if (pgw_pool_start(s, n, err) < 0)
			goto fail;
	}
	/* A peer closing a TLS connection must not kill the process. */
	signal(SIGPIPE, SIG_IGN);
	util_info("listening on %s port %d%s%s", s->opts.listen_addr, s->port,
		  s->unix_path[0] ? ", socket " : "", s->unix_path);
	*out = s;
	return 0;
fail:
	pgw_server_free(s);
	return -1;
}

int pgw_server_port(const pgw_server *s)
{
	return s->port;
}

pgw_auth_method pgw_server_hba_match(pgw_server *s, const pgw_hba_client *c, int *line)
{
	pthread_mutex_lock(&s->mu);
	if (s->opts.hba_file) {
		/* Edits to the file apply to new connections; a broken edit
		 * keeps the old rules (like a reload of pg_hba.conf). */
		int64_t m = file_mtime_ns(s->opts.hba_file);
		if (m != s->hba_mtime_ns) {
			pgw_hba *h;
			util_err err;
			s->hba_mtime_ns = m;
			if (pgw_hba_load(s->opts.hba_file, &h, &err) == 0) {
				pgw_hba_free(s->hba);
				s->hba = h;
				util_info("reloaded hba file \"%s\"", s->opts.hba_file);
			} else {
				util_warn("hba file not reloaded: %s", err.message);
			}
		}
	}
	pgw_auth_method m = pgw_hba_match(s->hba, c, line);
	pthread_mutex_unlock(&s->mu);
	return m;
}

void pgw_server_cancel_all(pgw_server *s)
{
	pthread_mutex_lock(&s->mu);
	for (pgw_conn *c = s->conns; c; c = c->next) {
		if (c->has_key)
			sql_cancel(s->engine, c->pid, c->secret);
		pgw_io_unpark(&c->io);
	}
	pthread_mutex_unlock(&s->mu);
}

static void refuse(int fd)
{
	/* No thread to spare: answer without reading the startup packet. */
	util_buf b = UTIL_BUF_INIT;
	util_err e;
	util_err_set(&e, UTIL_E_TOO_MANY_CONNECTIONS, "sorry, too many clients already");
	e.severity = UTIL_SEV_FATAL;
	pgw_wr_error(&b, &e, false);
	ssize_t w = send(fd, b.data, b.len, MSG_NOSIGNAL | MSG_DONTWAIT);
	(void)w;
	util_buf_free(&b);
	close(fd);
}

static void accept_on(pgw_server *s, int lfd, bool is_unix)
{
	for (;;) {
		struct sockaddr_storage ss;
		socklen_t len = sizeof ss;
		/* Blocking: the idle read waits in recv() (io.c). */
		int fd = accept4(lfd, (struct sockaddr *)&ss, &len, SOCK_CLOEXEC);
		if (fd < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
				/* Out of descriptors: back off instead of spinning
				 * on a listener that stays readable. */
				util_warn("accept failed: %s", strerror(errno));
				util_sleep_us(100 * 1000);
			} else if (errno != EAGAIN && errno != EWOULDBLOCK && errno != ECONNABORTED) {
				util_warn("accept failed: %s", strerror(errno));
			}
			return;
		}
		if (!is_unix) {
			int one = 1;
			setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
			setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof one);
		}
		pthread_mutex_lock(&s->mu);
		bool room = s->nconns < MAX_THREADS(s->opts.max_connections);
		pgw_conn *c = NULL;
		if (room) {
			c = pgw_conn_new(s, fd, (struct sockaddr *)&ss, len, is_unix);
			c->next = s->conns;
			if (s->conns)
				s->conns->prev = c;
			s->conns = c;
			s->nconns++;
			s->nthreads++;
		}
		pthread_mutex_unlock(&s->mu);
		if (!room) {
			refuse(fd);
			continue;
		}
		pthread_attr_t attr;
		pthread_attr_init(&attr);
		pthread_attr_setstacksize(&attr, THREAD_STACK);
		pthread_t th;
		int rc = pthread_create(&th, &attr, pgw_conn_main, c);
		pthread_attr_destroy(&attr);
		if (rc != 0) {
			util_warn("could not start a connection thread: %s", strerror(rc));
			pthread_mutex_lock(&s->mu);
			if (c->prev)
				c->prev->next = c->next;
			else
				s->conns = c->next;
			if (c->next)
				c->next->prev = c->prev;
			s->nconns--;
			s->nthreads--;
			pthread_mutex_unlock(&s->mu);
			pgw_io_free(&c->io);
			util_buf_free(&c->cur);
			free(c);
			refuse(fd);
		}
	}
}

void pgw_server_thread_done(pgw_server *s)
{
	if (s->nfinished == s->capfinished) {
		s->capfinished = s->capfinished ? s->capfinished * 2 : 64;
		s->finished = util_xrealloc(s->finished, sizeof *s->finished * (size_t)s->capfinished);
	}
	s->finished[s->nfinished++] = pthread_self();
	s->nthreads--;
	pthread_cond_broadcast(&s->cv);
	ssize_t w = write(s->reap_pipe[1], "x", 1); /* a full pipe already says it */
	(void)w;
}

/* Joins the connection threads that have finished. */
static void reap(pgw_server *s)
{
	char buf[256];
	while (read(s->reap_pipe[0], buf, sizeof buf) > 0)
		;
	for (;;) {
		pthread_mutex_lock(&s->mu);
		pthread_t t;
		bool any = s->nfinished > 0;
		if (any)
			t = s->finished[--s->nfinished];
		pthread_mutex_unlock(&s->mu);
		if (!any)
			return;
		pthread_join(t, NULL);
	}
}

int pgw_server_run(pgw_server *s)
{
	struct pollfd p[PGW_MAX_LISTEN + 3];
	int n = 0;
	for (int i = 0; i < s->nlfd; i++)
		p[n++] = (struct pollfd){.fd = s->lfd[i], .events = POLLIN};
	if (s->unix_fd >= 0)
		p[n++] = (struct pollfd){.fd = s->unix_fd, .events = POLLIN};
	int nlisten = n;
	p[n++] = (struct pollfd){.fd = s->reap_pipe[0], .events = POLLIN};
	p[n++] = (struct pollfd){.fd = s->stop_pipe[0], .events = POLLIN};
	while (!atomic_load(&s->stopping)) {
		int rc = poll(p, (nfds_t)n, -1);
		if (rc < 0) {
			if (errno == EINTR)
				continue;
			util_warn("poll failed: %s", strerror(errno));
			util_sleep_us(10000);
			continue;
		}
		if (p[n - 1].revents)
			break;
		if (p[n - 2].revents)
			reap(s);
		for (int i = 0; i < nlisten; i++)
			if (p[i].revents & POLLIN)
				accept_on(s, p[i].fd, p[i].fd == s->unix_fd);
	}
	pthread_mutex_lock(&s->mu); /* connection threads change nconns under it */
	int nconn = s->nconns;
	pthread_mutex_unlock(&s->mu);
	util_info("shutting down: ending %d connection(s)", nconn);
	for (int i = 0; i < s->nlfd; i++) {
		close(s->lfd[i]);
		s->lfd[i] = -1;
	}
	s->nlfd = 0;
	if (s->unix_fd >= 0) {
		close(s->unix_fd);
		s->unix_fd = -1;
		unlink(s->unix_path);
		s->unix_path[0] = '\0';
	}
	/* Sessions waiting for input see the stop pipe; running statements
	 * are cancelled (again every second, in case one was between
	 * statements when asked). */
	pthread_mutex_lock(&s->mu);
	while (s->nconns > 0 || s->nthreads > 0) {
		pthread_mutex_unlock(&s->mu);
		pgw_server_cancel_all(s);
		pthread_mutex_lock(&s->mu);
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_sec += 1;
		pthread_cond_timedwait(&s->cv, &s->mu, &ts);
	}
	pthread_mutex_unlock(&s->mu);
	reap(s);
	pgw_pool_stop(s->pool);
	s->pool = NULL;
	return 0;
}

void pgw_server_shutdown(pgw_server *s)
{
	atomic_store(&s->stopping, true);
	if (s->stop_pipe[1] >= 0) {
		ssize_t w = write(s->stop_pipe[1], "x", 1);
		(void)w;
	}
}

void pgw_server_free(pgw_server *s)
{
	if (!s)
		return;
	pgw_pool_stop(s->pool);
	for (int i = 0; i < s->nlfd; i++)
		close(s->lfd[i]);
	if (s->unix_fd >= 0) {
		close(s->unix_fd);
		unlink(s->unix_path);
	}
	if (s->stop_pipe[0] >= 0)
		close(s->stop_pipe[0]);
	if (s->stop_pipe[1] >= 0)
		close(s->stop_pipe[1]);
	if (s->reap_pipe[0] >= 0)
		close(s->reap_pipe[0]);
	if (s->reap_pipe[1] >= 0)
		close(s->reap_pipe[1]);
	free(s->finished);
	if (s->tls)
		pgw_tls_free(s->tls);
	pgw_hba_free(s->hba);
	free_opts(&s->opts);
	pthread_mutex_destroy(&s->mu);
	pthread_cond_destroy(&s->cv);
	free(s);
}
