/* pool.c — the worker pool: after authentication a plain-socket connection costs no thread while
 * it waits for its next message. The pool has one group per core; a connection joins one group
 * (round robin) and its socket waits in that group's epoll set (EPOLLONESHOT), and the group's
 * worker, kept on its core, takes the readable connections one after another without sleeping.
 * A reply then wakes the client's thread on the same core (a wake-up on another core costs an
 * interrupt, and several microseconds on a virtual machine), and with 64 clients on 2 cores two
 * threads do the work of 64.
 *
 * A worker must not hold its group while it sleeps or works for long, or the connections behind
 * it would starve:
 *   - a blocking wait (util_wait_begin: a commit's fsync, a lock, pg_sleep, a slow client, COPY
 *     reading from its client) takes the worker out of its group's count of running workers, and
 *     if no worker of the group is left to poll, a parked one is woken or a new one started;
 *   - a step (one connection's messages) that runs longer than STALL_US is counted out the same
 *     way by the monitor thread (long queries; waits without the hook: disk reads, etcd).
 * So each group keeps about one worker running, and every connection is served as long as the
 * process can start threads. Extra workers park, and leave after IDLE_US. (MySQL's thread pool
 * works the same way: thread groups, a stall limit, wait callbacks.) */
#include "pgw_int.h"

#include <errno.h>
#include <liburing.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#define STALL_US     (4 * 1000)        /* a step longer than this no longer counts as running */
#define MONITOR_US   (2 * 1000)        /* how often the monitor looks */
#define IDLE_US      (2 * 1000 * 1000) /* a parked extra worker leaves after this */
#define WORKER_STACK (32u << 20)       /* as a connection thread (server.c) */
#define BATCH        32                /* connections taken from epoll at once */
#define HOLD_MIN     4                 /* replies are held only for a batch of this many */

typedef struct group group;

typedef struct pgw_worker pgw_worker;
struct pgw_worker {
	group *g;
	pthread_t th;
	pgw_worker *next; /* g->workers or g->gone, under g->mu */
	int depth;        /* util_wait_begin nesting (own thread only) */
	bool in_step;     /* under g->mu from here */
	bool counted_out; /* in a wait or stalled: not in nrunning */
	bool waiting;     /* counted out by a wait (else by the monitor) */
	bool unpinned;    /* a long step may run on any core (the monitor) */
	int64_t step_start;
	/* Sessions whose replies wait to be sent together (serve), under
	 * g->mu: taken and out of every epoll set until sent. The monitor
	 * sends them if the worker is stuck in a long step. */
	int npending;
	pgw_conn *pending[BATCH];
	struct io_uring ring; /* sends a batch of replies in one system call */
	bool ring_ok;
};

struct group {
	pgw_pool *pool;
	int cpu; /* the workers' core, or -1 */
	int epfd;
	int max_workers;

	pthread_mutex_t mu; /* guards everything below */
	pthread_cond_t park_cv;
	bool stopping;
	int nworkers; /* alive */
	int nrunning; /* in a step and neither waiting nor stalled */
	int npolling; /* in epoll_wait */
	int nparked;
	int nwoken;                 /* parked workers signalled that have not run yet */
	int nconns;                 /* sessions in this group's set or in a step */
	int nstep;                  /* workers in a step (waiting or stalled included) */
	pgw_worker *workers, *gone; /* alive; finished and waiting to be joined */
	/* Connections one epoll_wait returned and no worker took yet (each is
	 * disarmed, EPOLLONESHOT, so it is in one place only): a worker that
	 * blocks leaves the rest of its batch to the next. */
	pgw_conn **ready;
	int rhead, rcount, rcap;
};

struct pgw_pool {
	int stop_fd; /* an eventfd in every group's set, readable once stopping */
	int ngroups;
	group *groups;
	atomic_uint next; /* round robin */
	pthread_mutex_t mu;
	pthread_cond_t cv; /* wakes the monitor early at stop */
	bool stopping;
	cpu_set_t cpus; /* the process's cores: where a long step may run */
	pthread_t monitor;
	bool monitor_started;
};

static _Thread_local pgw_worker *self;

static void *worker_main(void *arg);
static void flush_pending(group *g, pgw_worker *w);

/* Starts a worker; under g->mu. */
static void spawn(group *g)
{
	if (g->nworkers >= g->max_workers)
		return;
	pgw_worker *w = util_xcalloc(1, sizeof *w);
	w->g = g;
	pthread_attr_t attr;
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, WORKER_STACK);
	int rc = pthread_create(&w->th, &attr, worker_main, w);
	pthread_attr_destroy(&attr);
	if (rc != 0) {
		util_warn("could not start a pool worker: %s", strerror(rc));
		free(w);
		return;
	}
	w->next = g->workers;
	g->workers = w;
	g->nworkers++;
}

static void push_ready(group *g, pgw_conn *c)
{
	if (g->rcount == g->rcap) {
		int cap = g->rcap ? 2 * g->rcap : 64;
		pgw_conn **r = util_xmalloc(sizeof *r * (size_t)cap);
		for (int i = 0; i < g->rcount; i++)
			r[i] = g->ready[(g->rhead + i) % g->rcap];
		free(g->ready);
		g->ready = r;
		g->rhead = 0;
		g->rcap = cap;
	}
	g->ready[(g->rhead + g->rcount) % g->rcap] = c;
	g->rcount++;
}

/* Makes sure a worker takes the next connection while none runs; under g->mu. */
static void ensure_poller(group *g)
{
	if (g->stopping || g->nrunning > 0 || g->nwoken > 0 || (g->npolling > 0 && g->rcount == 0))
		return;
	/* Every session of the group is in a step (a lone COPY waiting for
	 * its data): nobody to serve until one joins (join_group). */
	if (g->nconns <= g->nstep)
		return;
	if (g->nparked > g->nwoken) {
		g->nwoken++;
		pthread_cond_signal(&g->park_cv);
	} else {
		spawn(g);
	}
}

static void count_out(group *g, pgw_worker *w, bool waiting)
{
	w->counted_out = true;
	w->waiting = waiting;
	g->nrunning--;
	ensure_poller(g);
}

/* util_wait_begin/end: only a worker inside a step counts. */
static void wait_hook(bool begin)
{
	pgw_worker *w = self;
	if (!w)
		return;
	if (begin ? w->depth++ > 0 : --w->depth > 0)
		return;
	group *g = w->g;
	pthread_mutex_lock(&g->mu);
	if (w->in_step) {
		if (begin && !w->counted_out) {
			count_out(g, w, true);
		} else if (!begin && w->counted_out && w->waiting) {
			/* Running again; the monitor measures from here. */
			w->counted_out = false;
			g->nrunning++;
			w->step_start = util_mono_us();
		}
	}
	/* The replies held for a batch do not wait for this wait. */
	if (begin && w->npending)
		flush_pending(g, w);
	pthread_mutex_unlock(&g->mu);
}

/* The group on the core that handled the client's last packets (on loopback
 * the client's own core): its worker's reply then wakes the client there. */
static group *home_group(group *g, pgw_conn *c)
{
	pgw_pool *p = g->pool;
	int cpu = -1;
	socklen_t len = sizeof cpu;
	if (g->cpu < 0 || getsockopt(c->fd, SOL_SOCKET, SO_INCOMING_CPU, &cpu, &len) < 0 || cpu < 0 ||
	    cpu == g->cpu)
		return g;
	for (int i = 0; i < p->ngroups; i++)
		if (p->groups[i].cpu == cpu)
			return &p->groups[i];
	return g;
}

/* A session enters (+1) or leaves (-1) g's set. */
static void join_group(group *g, int delta)
{
	pthread_mutex_lock(&g->mu);
	g->nconns += delta;
	if (delta > 0)
		ensure_poller(g);
	pthread_mutex_unlock(&g->mu);
}

/* Ownership of a connection passes through its epoll set; the previous
 * owner may still be returning from epoll_ctl when the next one is woken. */
static void take(pgw_conn *c)
{
	while (atomic_exchange_explicit(&c->pool_busy, true, memory_order_acquire))
		sched_yield();
}

static void give(pgw_conn *c)
{
	atomic_store_explicit(&c->pool_busy, false, memory_order_release);
}

static void end_conn(group *g, pgw_conn *c)
{
	epoll_ctl(g->epfd, EPOLL_CTL_DEL, c->fd, NULL);
	join_group(g, -1);
	pgw_conn_end(c);
}

/* Puts a session that waits for input (and, with EPOLLOUT, has output
 * left) back in an epoll set: its home group's. On failure returns the
 * group that counts it, which no longer watches it. */
static group *rearm(group *g, pgw_conn *c, uint32_t events)
{
	/* c may be woken on another worker as soon as it is re-armed. */
	struct epoll_event ev = {.events = events | EPOLLONESHOT, .data.ptr = c};
	group *h = home_group(g, c);
	if (h == g) {
		if (epoll_ctl(g->epfd, EPOLL_CTL_MOD, c->fd, &ev) == 0) {
			give(c);
			return NULL;
		}
	} else if (epoll_ctl(g->epfd, EPOLL_CTL_DEL, c->fd, NULL) == 0) {
		join_group(g, -1);
		join_group(h, 1);
		if (epoll_ctl(h->epfd, EPOLL_CTL_ADD, c->fd, &ev) == 0) {
			give(c);
			return NULL;
		}
		g = h;
	}
	util_warn("could not wait for a connection: %s", strerror(errno));
	return g;
}

/* Ends c in a step of its own, on a worker of g (the caller may be in
 * another session's step, or the monitor). */
static void doom(group *g, pgw_conn *c)
{
	c->pool_doomed = true;
	give(c);
	pthread_mutex_lock(&g->mu);
	push_ready(g, c);
	ensure_poller(g);
	pthread_mutex_unlock(&g->mu);
}

/* Sends the held replies of sessions cs[0..n) of g and re-arms them; w is
 * the calling worker, whose ring is used, or NULL (plain sends). One
 * io_uring submission for the lot is the point: the clients woken by the
 * replies then run one after another while the worker finishes, instead of
 * each preempting it as its reply goes out, and the worker finds their next
 * requests together in one epoll_wait. A send that would block leaves the
 * rest in the buffer: the session waits for writability too, and its next
 * step flushes it first. */
static void send_replies(group *g, pgw_conn **cs, int n, pgw_worker *w)
{
	int res[BATCH];
	int got = 0;
	struct io_uring *ring = w && w->ring_ok ? &w->ring : NULL;
	if (ring && n > 1 && io_uring_sq_space_left(ring) >= (unsigned)n) {
		for (int i = 0; i < n; i++) {
			struct io_uring_sqe *sqe = io_uring_get_sqe(ring);
			io_uring_prep_send(sqe, cs[i]->fd, cs[i]->io.out.data, cs[i]->io.out.len,
					   MSG_NOSIGNAL | MSG_DONTWAIT);
			io_uring_sqe_set_data64(sqe, (uint64_t)i);
		}
		int rc;
		do
			rc = io_uring_submit_and_wait(ring, (unsigned)n);
		while (rc == -EINTR);
		while (rc == n && got < n) {
			struct io_uring_cqe *cqe;
			int wrc = io_uring_wait_cqe(ring, &cqe);
			if (wrc == -EINTR)
				continue;
			if (wrc < 0) {
				rc = wrc;
				break;
			}
			res[cqe->user_data] = cqe->res;
			io_uring_cqe_seen(ring, cqe);
			got++;
		}
		if (got < n) {
			/* Never seen: which replies went out is unknown, so
			 * those sessions end (as after a network failure), and
			 * the ring, which may still complete some, is closed. */
			util_warn("io_uring send failed: %s", strerror(rc < 0 ? -rc : EIO));
			io_uring_queue_exit(ring);
			w->ring_ok = false;
			for (int i = 0; i < n; i++)
				res[i] = -EIO;
			got = n;
		}
	}
	for (int i = got; i < n; i++) {
		ssize_t r;
		do
			r = send(cs[i]->fd, cs[i]->io.out.data, cs[i]->io.out.len,
				 MSG_NOSIGNAL | MSG_DONTWAIT);
		while (r < 0 && errno == EINTR);
		res[i] = r < 0 ? -errno : (int)r;
	}
	for (int i = 0; i < n; i++) {
		pgw_conn *c = cs[i];
		int r = res[i];
		if (r > 0) {
			pgw_io_sent(&c->io, (size_t)r);
		} else if (r < 0 && r != -EAGAIN && r != -EWOULDBLOCK) {
			c->io.broken = true;
			c->io.out.len = 0;
			doom(g, c);
			continue;
		}
		group *f = rearm(g, c, c->io.out.len ? EPOLLIN | EPOLLOUT : EPOLLIN);
		if (f)
			doom(f, c);
	}
}

/* Moves w's held replies to cs (at least BATCH long); under g->mu. */
static int take_pending(pgw_worker *w, pgw_conn **cs)
{
	int n = w->npending;
	memcpy(cs, w->pending, sizeof *cs * (size_t)n);
	w->npending = 0;
	return n;
}

/* Sends the calling worker's held replies; under g->mu (released meanwhile). */
static void flush_pending(group *g, pgw_worker *w)
{
	pgw_conn *cs[BATCH];
	int n = take_pending(w, cs);
	pthread_mutex_unlock(&g->mu);
	send_replies(g, cs, n, w);
	pthread_mutex_lock(&g->mu);
}

/* Runs one readable connection until it waits again or ends; true when it
 * waits with its reply held (if hold: the caller queues it). */
static bool serve(group *g, pgw_conn *c, bool hold)
{
	take(c);
	if (c->pool_doomed) {
		end_conn(g, c);
		return false;
	}
	atomic_store(&c->io.parked, false);
	/* Output left from a send that would have blocked goes out first. */
	c->io.defer = hold && c->io.out.len == 0;
	bool ended = pgw_proto_run(c);
	c->io.defer = false;
	if (ended) {
		end_conn(g, c);
		return false;
	}
	if (c->io.out.len)
		return true;
	group *f = rearm(g, c, EPOLLIN);
	if (f)
		end_conn(f, c);
	return false;
}

/* Keeps the calling worker on its group's core (best effort: a core taken
 * away just leaves it free). */
static void pin(group *g)
{
	if (g->cpu < 0)
		return;
	cpu_set_t set;
	CPU_ZERO(&set);
	CPU_SET(g->cpu, &set);
	pthread_setaffinity_np(pthread_self(), sizeof set, &set);
}

static void *worker_main(void *arg)
{
	pgw_worker *w = arg;
	group *g = w->g;
	self = w;
	pin(g);
	w->ring_ok = io_uring_queue_init(BATCH, &w->ring, 0) == 0;
	pthread_mutex_lock(&g->mu);
	for (;;) {
		/* Held replies go out before the worker polls, parks or
		 * leaves, and by the batch. */
		if (w->npending &&
		    (w->npending == BATCH || g->stopping || g->rcount == 0 || g->nrunning > 0)) {
			flush_pending(g, w);
			continue;
		}
		if (g->stopping)
			break;
		/* Someone else runs, or polls while nothing is ready: park. */
		if (g->nrunning > 0 || (g->npolling > 0 && g->rcount == 0)) {
			g->nparked++;
			struct timespec ts = util_deadline_us(IDLE_US);
			int rc = pthread_cond_timedwait(&g->park_cv, &g->mu, &ts);
			g->nparked--;
			/* Whoever wakes takes a pending signal (and, like the
			 * signalled one, looks again at the top). */
			bool signalled = g->nwoken > 0;
			if (signalled)
				g->nwoken--;
			else if (rc != 0 && g->nworkers > 1)
				break; /* idle long enough: leave */
			continue;
		}
		if (g->rcount == 0) {
			g->npolling++;
			pthread_mutex_unlock(&g->mu);
			struct epoll_event ev[BATCH];
			int n = epoll_wait(g->epfd, ev, BATCH, -1);
			pthread_mutex_lock(&g->mu);
			g->npolling--;
			for (int i = 0; i < n; i++)
				if (ev[i].data.ptr) /* NULL: the stop event (checked above) */
					push_ready(g, ev[i].data.ptr);
			continue;
		}
		pgw_conn *c = g->ready[g->rhead];
		g->rhead = (g->rhead + 1) % g->rcap;
		g->rcount--;
		/* Its reply is held for a batch when there is one. */
		bool hold = g->rcount + w->npending + 1 >= HOLD_MIN;
		g->nrunning++;
		g->nstep++;
		w->in_step = true;
		w->step_start = util_mono_us();
		pthread_mutex_unlock(&g->mu);

		bool held = serve(g, c, hold);

		pthread_mutex_lock(&g->mu);
		if (held)
			w->pending[w->npending++] = c;
		if (!w->counted_out)
			g->nrunning--;
		g->nstep--;
		w->in_step = w->counted_out = w->waiting = false;
		if (w->unpinned) {
			w->unpinned = false;
			pin(g);
		}
	}
	/* Leave: onto the list joined by the monitor or at stop. */
	for (pgw_worker **pp = &g->workers; *pp; pp = &(*pp)->next)
		if (*pp == w) {
			*pp = w->next;
			break;
		}
	w->next = g->gone;
	g->gone = w;
	g->nworkers--;
	pthread_mutex_unlock(&g->mu);
	if (w->ring_ok)
		io_uring_queue_exit(&w->ring);
	self = NULL;
	return NULL;
}

/* Joins the workers that left; under g->mu (released meanwhile). */
static void join_gone(group *g)
{
	while (g->gone) {
		pgw_worker *w = g->gone;
		g->gone = w->next;
		pthread_mutex_unlock(&g->mu);
		pthread_join(w->th, NULL);
		free(w);
		pthread_mutex_lock(&g->mu);
	}
}

/* Counts out workers stuck in one step, so that others serve meanwhile. */
static void *monitor_main(void *arg)
{
	pgw_pool *p = arg;
	pgw_conn **stolen = NULL;
	int nstolen = 0;
	pthread_mutex_lock(&p->mu);
	while (!p->stopping) {
		struct timespec ts = util_deadline_us(MONITOR_US);
		pthread_cond_timedwait(&p->cv, &p->mu, &ts);
		int64_t now = util_mono_us();
		for (int i = 0; i < p->ngroups; i++) {
			group *g = &p->groups[i];
			pthread_mutex_lock(&g->mu);
			for (pgw_worker *w = g->workers; w; w = w->next)
				if (w->in_step && !w->counted_out && now - w->step_start > STALL_US) {
					count_out(g, w, false);
					/* The replies it held go out now. */
					if (w->npending) {
						stolen = util_xrealloc(stolen, sizeof *stolen *
										   (size_t)(nstolen + BATCH));
						nstolen += take_pending(w, stolen + nstolen);
					}
					/* A long statement (a load, an index build)
					 * and its helper threads share every core. */
					if (g->cpu >= 0 && !w->unpinned &&
					    pthread_setaffinity_np(w->th, sizeof p->cpus, &p->cpus) == 0)
						w->unpinned = true;
				}
			join_gone(g);
			pthread_mutex_unlock(&g->mu);
			for (int j = 0; j < nstolen; j += BATCH)
				send_replies(g, stolen + j, UTIL_MIN(BATCH, nstolen - j), NULL);
			nstolen = 0;
		}
	}
	pthread_mutex_unlock(&p->mu);
	free(stolen);
	return NULL;
}

static int group_init(pgw_pool *p, group *g, int cpu, int max_workers)
{
	g->pool = p;
	g->cpu = cpu;
	g->max_workers = max_workers;
	pthread_mutex_init(&g->mu, NULL);
	pthread_cond_init(&g->park_cv, NULL);
	g->epfd = epoll_create1(EPOLL_CLOEXEC);
	struct epoll_event ev = {.events = EPOLLIN, .data.ptr = NULL};
	if (g->epfd < 0 || epoll_ctl(g->epfd, EPOLL_CTL_ADD, p->stop_fd, &ev) < 0)
		return -1;
	pthread_mutex_lock(&g->mu);
	spawn(g);
	int n = g->nworkers;
	pthread_mutex_unlock(&g->mu);
	return n > 0 ? 0 : -1;
}

int pgw_pool_start(pgw_server *s, int groups, util_err *err)
{
	pgw_pool *p = util_xcalloc(1, sizeof *p);
	s->pool = p;
	pthread_mutex_init(&p->mu, NULL);
	pthread_cond_init(&p->cv, NULL);
	p->stop_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (p->stop_fd < 0)
		return util_err_set(err, UTIL_E_IO_ERROR, "could not create the worker pool: %s",
				    strerror(errno));
	util_wait_set_hook(wait_hook);
	/* The cores this process may run on, one group each (pinned only when
	 * there is one group per allowed core). */
	int cpus[CPU_SETSIZE], ncpu = 0;
	if (sched_getaffinity(0, sizeof p->cpus, &p->cpus) == 0)
		for (int i = 0; i < CPU_SETSIZE; i++)
			if (CPU_ISSET(i, &p->cpus))
				cpus[ncpu++] = i;
	p->groups = util_xcalloc((size_t)groups, sizeof *p->groups);
	/* A worker per session at most, and every session may be in one group. */
	int per_group = s->opts.max_connections + 2;
	for (int i = 0; i < groups; i++) {
		p->ngroups++;
		if (group_init(p, &p->groups[i], ncpu == groups ? cpus[i] : -1, per_group) < 0)
			return util_err_set(err, UTIL_E_IO_ERROR, "could not start the worker pool: %s",
					    strerror(errno));
	}
	int rc = pthread_create(&p->monitor, NULL, monitor_main, p);
	if (rc != 0)
		return util_err_set(err, UTIL_E_IO_ERROR, "could not start the pool monitor: %s",
				    strerror(rc));
	p->monitor_started = true;
	return 0;
}

void pgw_pool_add(pgw_pool *p, pgw_conn *c)
{
	group *g = &p->groups[atomic_fetch_add(&p->next, 1) % (unsigned)p->ngroups];
	struct epoll_event ev = {.events = EPOLLIN | EPOLLONESHOT, .data.ptr = c};
	atomic_store_explicit(&c->pool_busy, true, memory_order_relaxed);
	join_group(g, 1);
	if (epoll_ctl(g->epfd, EPOLL_CTL_ADD, c->fd, &ev) < 0) {
		util_warn("could not add a connection to the worker pool: %s", strerror(errno));
		join_group(g, -1);
		pgw_conn_end(c);
		return;
	}
	give(c);
}

void pgw_pool_stop(pgw_pool *p)
{
	if (!p)
		return;
	pthread_mutex_lock(&p->mu);
	p->stopping = true;
	pthread_cond_broadcast(&p->cv);
	pthread_mutex_unlock(&p->mu);
	if (p->monitor_started)
		pthread_join(p->monitor, NULL);
	if (p->stop_fd >= 0) {
		uint64_t one = 1;
		ssize_t wr = write(p->stop_fd, &one, sizeof one); /* wakes every poller, and stays readable */
		(void)wr;
	}
	for (int i = 0; i < p->ngroups; i++) {
		group *g = &p->groups[i];
		pthread_mutex_lock(&g->mu);
		g->stopping = true;
		pthread_cond_broadcast(&g->park_cv);
		while (g->workers) {
			pthread_mutex_unlock(&g->mu);
			util_sleep_us(1000); /* each moves itself to gone as it ends */
			pthread_mutex_lock(&g->mu);
		}
		join_gone(g);
		pthread_mutex_unlock(&g->mu);
		if (g->epfd >= 0)
			close(g->epfd);
		pthread_mutex_destroy(&g->mu);
		pthread_cond_destroy(&g->park_cv);
		free(g->ready);
	}
	if (p->stop_fd >= 0)
		close(p->stop_fd);
	pthread_mutex_destroy(&p->mu);
	pthread_cond_destroy(&p->cv);
	free(p->groups);
	free(p);
}
