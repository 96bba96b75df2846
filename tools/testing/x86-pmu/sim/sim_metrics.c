// SPDX-License-Identifier: GPL-2.0
/*
 * perf's metrics in the scheduling simulator. A metric or metric group
 * name is expanded as perf 7.3's `perf stat -M` does it
 * (tools/perf/util/metricgroup.c, expr.y):
 *
 * - every metric of the group (or the metric of that name) is a root; the
 *   ids of its MetricThreshold (which contains the metric itself) or else
 *   of its MetricExpr are collected, with constant folding: "a if c else
 *   b" keeps one side when c is a constant (#SMT_on, #core_wide ...);
 * - ids that name other metrics are references: they are replaced by the
 *   ids of the referenced metric's MetricExpr, recursively;
 * - a metric's events form a weak group "{...}:W", unless its
 *   MetricConstraint says NO_GROUP_EVENTS (_NMI with the watchdog on,
 *   _SMT with SMT on) or the group was asked for by a name in its
 *   MetricgroupNoGroup; the events of all ungrouped metrics are merged
 *   into one list of single events;
 * - metrics are sorted by their number of events, largest first, and a
 *   metric whose events are a subset of an earlier one's shares its
 *   events; tool events (duration_time) go outside every group.
 *
 * Order is perf's throughout, as it decides which events the kernel
 * schedules first: perf's metrics table is sorted by name; the ids of an
 * expression are kept in a model of perf's hash map (the union of two
 * maps keeps the larger one's order, which the ids of the other follow),
 * and every event list is written in that map's order; a weak group the
 * kernel refuses is opened last, as single events.
 *
 * The expansion and the order the events are opened in are checked
 * against perf's own output and its perf_event_open() calls
 * (sim_metrics_perf.sh, sim_metrics_test.c).
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "counter_match.h"
#include "sim_metrics.h"

#define JSON_SUBDIR	"/tools/perf/pmu-events/arch/x86/"
#define COMMON_METRICS	"/tools/perf/pmu-events/arch/common/common/metrics.json"
#define MAX_DEPTH	64	/* metric references and parentheses */

/* perf's tool events (tool_pmu.c), in its enum order */
static const char *const tool_events[] = {
	"duration_time", "user_time", "system_time", "has_pmem", "num_cores",
	"num_cpus", "num_cpus_online", "num_dies", "num_packages", "slots",
	"smt_on", "system_tsc_freq", "core_wide", "target_cpu",
};

/* ---- the metric tables ---- */

enum {
	M_NAME, M_EXPR, M_GROUP, M_THRESHOLD, M_CONSTRAINT, M_NOGROUP,
	NR_MFIELDS
};

static const char *const mfield_keys[NR_MFIELDS] = {
	[M_NAME]	= "MetricName",
	[M_EXPR]	= "MetricExpr",
	[M_GROUP]	= "MetricGroup",
	[M_THRESHOLD]	= "MetricThreshold",
	[M_CONSTRAINT]	= "MetricConstraint",
	[M_NOGROUP]	= "MetricgroupNoGroup",
};

struct mdef {
	char *f[NR_MFIELDS];
	int tab;	/* 0: the model's table, 1: perf's common table */
};

struct mtable {
	char *dir;
	struct mdef *m;
	int nr, cap;
	int tab;	/* the table metrics being read go to */
};

static struct mtable mcache;

static void mtable_free(struct mtable *t)
{
	int i, k;

	for (i = 0; i < t->nr; i++)
		for (k = 0; k < NR_MFIELDS; k++)
			free(t->m[i].f[k]);
	free(t->m);
	free(t->dir);
	memset(t, 0, sizeof(*t));
}

static void __attribute__((destructor)) mcache_free(void)
{
	mtable_free(&mcache);
}

static int mtable_add_cb(char **f, void *arg)
{
	struct mtable *t = arg;
	struct mdef *nm;
	int k;

	if (!f[M_NAME] || !f[M_EXPR])
		return 0;
	/*
	 * jevents.py's add_events_table_entries(): a metric whose name the
	 * table already has is dropped, the first one read stays (perf 7.3's
	 * generated tables name some metrics twice: lpm_l2_code_misses)
	 */
	for (k = 0; k < t->nr; k++)
		if (t->m[k].tab == t->tab && !strcmp(t->m[k].f[M_NAME], f[M_NAME]))
			return 0;
	if (t->nr == t->cap) {
		t->cap = t->cap ? 2 * t->cap : 256;
		nm = realloc(t->m, t->cap * sizeof(*t->m));
		if (!nm)
			return -1;
		t->m = nm;
	}
	for (k = 0; k < NR_MFIELDS; k++) {
		t->m[t->nr].f[k] = f[k];
		f[k] = NULL;	/* taken over */
	}
	t->m[t->nr].tab = t->tab;
	t->nr++;
	return 0;
}

/*
 * perf's order of its compiled-in metrics (jevents.py's metric_cmp_key():
 * PMU, which these tables leave out, name, then expression), which is
 * the order a metric group's metrics are found in; the model's table
 * before the common one (metricgroup__for_each_metric()).
 */
static int mdef_cmp(const void *a, const void *b)
{
	const struct mdef *l = a, *r = b;
	int c = l->tab - r->tab;

	if (c)
		return c;
	c = strcmp(l->f[M_NAME], r->f[M_NAME]);
	return c ? c : strcmp(l->f[M_EXPR], r->f[M_EXPR]);
}

/*
 * The metrics perf's build generates for @model (perf 6.16 and later:
 * extra-metrics.json, written by the tree's pmu-events/intel_metrics.py
 * into perf's build directory, never into the tree): run that script of
 * @ksrc as perf's build does and read its output. A tree without the
 * script (6.12) has none. Returns 0, or -1 with @err set.
 */
static int mtable_read_generated(struct mtable *t, const char *ksrc,
				 const char *model, char *err, size_t errlen)
{
	char script[4200], cmd[9000], tmp[] = "/tmp/x86-pmu-sim-metrics-XXXXXX";
	int fd, rc;

	snprintf(script, sizeof(script), "%s/tools/perf/pmu-events/intel_metrics.py",
		 ksrc && *ksrc ? ksrc : ".");
	if (access(script, R_OK))
		return 0;
	fd = mkstemp(tmp);
	if (fd < 0) {
		sim_err(err, errlen, "cannot create %s: %s", tmp, strerror(errno));
		return -1;
	}
	close(fd);
	snprintf(cmd, sizeof(cmd), "python3 '%s' '%s' '%.*s/arch' > '%s'",
		 script, model, (int)(strlen(script) - strlen("/intel_metrics.py")),
		 script, tmp);
	rc = system(cmd);
	if (rc) {
		sim_err(err, errlen, "%s %s failed (%d): no generated metrics",
			script, model, rc);
		unlink(tmp);
		return -1;
	}
	rc = sim_json_read(tmp, mfield_keys, NR_MFIELDS, mtable_add_cb, t,
			   err, errlen);
	unlink(tmp);
	return rc;
}

/* The metric tables of @pmu in @ksrc, read once per directory. */
static const struct mtable *mtable_get(const struct sim_pmu *pmu,
				       const char *ksrc, char *err,
				       size_t errlen)
{
	char dir[4096], path[4600];
	struct dirent **files = NULL;
	int found = 0, nr_files, i;
	bool generated;

	if (!pmu->json_dir) {
		sim_err(err, errlen, "PMU model '%s' has no metric tables",
			pmu->name);
		return NULL;
	}
	snprintf(dir, sizeof(dir), "%s%s%s", ksrc && *ksrc ? ksrc : ".",
		 JSON_SUBDIR, pmu->json_dir);
	if (mcache.dir && !strcmp(mcache.dir, dir))
		return &mcache;
	mtable_free(&mcache);

	/*
	 * The files in jevents.py's order, by name: the generated
	 * extra-metrics.json (perf's build writes it into the model's
	 * directory) before <model>-metrics.json.
	 */
	nr_files = scandir(dir, &files, NULL, alphasort);
	if (nr_files < 0) {
		sim_err(err, errlen, "cannot read metric tables in %s: %s",
			dir, strerror(errno));
		return NULL;
	}
	for (i = 0, generated = false; i <= nr_files; i++) {
		const char *fn = i < nr_files ? files[i]->d_name : NULL;
		size_t len = fn ? strlen(fn) : 0;

		if (!generated && (!fn || strcmp(fn, "extra-metrics.json") > 0)) {
			generated = true;
			if (mtable_read_generated(&mcache, ksrc, pmu->json_dir,
						  err, errlen))
				goto fail;
		}
		if (!fn || len < 12 || strcmp(fn + len - 12, "metrics.json"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, fn);
		if (sim_json_read(path, mfield_keys, NR_MFIELDS, mtable_add_cb,
				  &mcache, err, errlen))
			goto fail;
		found++;
	}
	if (!found) {
		sim_err(err, errlen, "no metric tables (*metrics.json) in %s",
			dir);
		goto fail;
	}
	/* perf 6.16+: the common table (Default groups), every model's */
	snprintf(path, sizeof(path), "%s%s", ksrc && *ksrc ? ksrc : ".",
		 COMMON_METRICS);
	mcache.tab = 1;
	if (!access(path, R_OK) &&
	    sim_json_read(path, mfield_keys, NR_MFIELDS, mtable_add_cb,
			  &mcache, err, errlen))
		goto fail;
	qsort(mcache.m, mcache.nr, sizeof(*mcache.m), mdef_cmp);
	mcache.dir = strdup(dir);
	for (i = 0; i < nr_files; i++)
		free(files[i]);
	free(files);
	return mcache.dir ? &mcache : NULL;
fail:
	for (i = 0; files && i < nr_files; i++)
		free(files[i]);
	free(files);
	mtable_free(&mcache);
	return NULL;
}

/*
 * perf's match_metric(): is @sought one of the ';'-separated names in
 * @list (case-insensitive)? "all" matches everything.
 */
static bool match_metric(const char *list, const char *sought)
{
	size_t len = strlen(sought);

	if (!strcmp(sought, "all"))
		return true;
	if (!list)
		return !strcasecmp(sought, "No_group");
	for (;;) {
		const char *semi;

		if (!strncasecmp(list, sought, len) &&
		    (list[len] == '\0' || list[len] == ';'))
			return true;
		semi = strchr(list, ';');
		if (!semi)
			return false;
		list = semi + 1;
	}
}

/* A metric of table @tab (the table of the metric referring to it). */
static const struct mdef *find_metric(const struct mtable *t, int tab,
				      const char *name)
{
	int i;

	for (i = 0; i < t->nr; i++)
		if (t->m[i].tab == tab && match_metric(t->m[i].f[M_NAME], name))
			return &t->m[i];
	return NULL;
}

/* ---- lists of names (metric references, group names) ---- */

struct ids {
	int nr, cap;
	char **s;
};

/* Free the names of @ids, which is left empty. */
static void ids_clear(struct ids *ids)
{
	int i;

	for (i = 0; i < ids->nr; i++)
		free(ids->s[i]);
	free(ids->s);
	memset(ids, 0, sizeof(*ids));
}

static int ids_find(const struct ids *ids, const char *s)
{
	int i;

	for (i = 0; ids && i < ids->nr; i++)
		if (!strcmp(ids->s[i], s))
			return i;
	return -1;
}

/* Add a copy of @s to @ids unless there; returns -1 out of memory. */
static int ids_add(struct ids *ids, const char *s)
{
	char **ns;

	if (ids_find(ids, s) >= 0)
		return 0;
	if (ids->nr == ids->cap) {
		ids->cap = ids->cap ? 2 * ids->cap : 8;
		ns = realloc(ids->s, ids->cap * sizeof(*ids->s));
		if (!ns)
			return -1;
		ids->s = ns;
	}
	ids->s[ids->nr] = strdup(s);
	if (!ids->s[ids->nr])
		return -1;
	ids->nr++;
	return 0;
}

/*
 * ---- perf's sets of ids: its hash map (tools/perf/util/hashmap.[ch]) ----
 *
 * perf keeps the ids of an expression in a hash map and writes the event
 * list of a metric by walking that map, so the order of the events perf
 * opens is the map's order: buckets in index order, each bucket's chain
 * from its most recently inserted entry. What decides it, and is modelled
 * here: the hash of a key (expr.c's key_hash(): h = h * 31 + c over the
 * bytes), the bucket of a hash (hash_bits(): the top bits of the hash
 * times 2^64 / phi), the capacity (4 buckets at the first insertion,
 * doubled whenever one more entry would fill more than 3/4 of them;
 * never shrunk), the rehash on growth (old buckets in order, each entry
 * put at the head of its new chain), insertion at the head of a chain,
 * and a set of an id already there leaving it in place.
 */

struct hent {
	struct hent *next;
	char *key;
};

struct idmap {
	struct hent **bkt;
	size_t cap;		/* number of buckets: 0 or 1 << bits */
	int bits;
	size_t nr;
};

/* The entry after @e (NULL: the first) in the map's order; @b: its bucket. */
static struct hent *idmap_next(const struct idmap *m, struct hent *e,
			       size_t *b)
{
	if (e && e->next)
		return e->next;
	for (*b = e ? *b + 1 : 0; *b < m->cap; (*b)++)
		if (m->bkt[*b])
			return m->bkt[*b];
	return NULL;
}

/* hashmap__for_each_entry(): buckets in order, each chain from its head */
#define idmap_for_each(m, e, b)						\
	for ((e) = idmap_next((m), NULL, &(b)); (e);			\
	     (e) = idmap_next((m), (e), &(b)))

static size_t idmap_hash(const char *key)
{
	size_t h = 0;

	/* perf adds the (signed) chars; ids are ASCII */
	for (; *key; key++)
		h = h * 31 + (size_t)(long)*key;
	return h;
}

static size_t idmap_bucket(size_t h, int bits)
{
	if (!bits)
		return 0;
	return (size_t)((unsigned long long)h * 11400714819323198485ULL >>
			(64 - bits));
}

static struct idmap *idmap_new(void)
{
	return calloc(1, sizeof(struct idmap));
}

static void idmap_free(struct idmap *m)
{
	struct hent *e, *next;
	size_t b;

	if (!m)
		return;
	for (b = 0; b < m->cap; b++)
		for (e = m->bkt[b]; e; e = next) {
			next = e->next;
			free(e->key);
			free(e);
		}
	free(m->bkt);
	free(m);
}

static struct hent **idmap_slot(const struct idmap *m, const char *key)
{
	struct hent **pp;

	if (!m || !m->cap)
		return NULL;
	for (pp = &m->bkt[idmap_bucket(idmap_hash(key), m->bits)]; *pp;
	     pp = &(*pp)->next)
		if (!strcmp((*pp)->key, key))
			return pp;
	return NULL;
}

static bool idmap_has(const struct idmap *m, const char *key)
{
	return idmap_slot(m, key) != NULL;
}

/* hashmap_grow(): twice the buckets (at least 4), chains rebuilt. */
static int idmap_grow(struct idmap *m)
{
	int bits = m->bits + 1 < 2 ? 2 : m->bits + 1;
	size_t cap = (size_t)1 << bits, b;
	struct hent **nb, *e, *next;

	nb = calloc(cap, sizeof(*nb));
	if (!nb)
		return -1;
	for (b = 0; b < m->cap; b++)
		for (e = m->bkt[b]; e; e = next) {
			size_t h = idmap_bucket(idmap_hash(e->key), bits);

			next = e->next;
			e->next = nb[h];
			nb[h] = e;
		}
	free(m->bkt);
	m->bkt = nb;
	m->cap = cap;
	m->bits = bits;
	return 0;
}

/**
 * idmap_set() - hashmap__set() of a copy of @key, as ids__insert() does it
 * @m: the map
 * @key: the id
 *
 * An id already in @m stays where it is; a new one goes to the head of
 * its bucket's chain, after the map grew if it had to.
 *
 * Return: 0, or -1 out of memory.
 */
static int idmap_set(struct idmap *m, const char *key)
{
	struct hent *e;
	size_t h;

	if (idmap_has(m, key))
		return 0;
	if (!m->cap || (m->nr + 1) * 4 / 3 > m->cap)
		if (idmap_grow(m))
			return -1;
	e = malloc(sizeof(*e));
	if (!e)
		return -1;
	e->key = strdup(key);
	if (!e->key) {
		free(e);
		return -1;
	}
	h = idmap_bucket(idmap_hash(key), m->bits);
	e->next = m->bkt[h];
	m->bkt[h] = e;
	m->nr++;
	return 0;
}

/* hashmap__delete(): unlink @key; the buckets stay as they are. */
static void idmap_del(struct idmap *m, const char *key)
{
	struct hent **pp = idmap_slot(m, key), *e;

	if (!pp)
		return;
	e = *pp;
	*pp = e->next;
	free(e->key);
	free(e);
	m->nr--;
}

/**
 * idmap_union() - ids__union(): the union of two maps, into one of them
 * @a: a map or NULL
 * @b: a map or NULL
 * @nomem: set when out of memory
 *
 * The map with more entries (@a when they have as many) keeps its order
 * and receives the other's entries in the other's order; the other is
 * freed.
 *
 * Return: the map holding the union, NULL when both are NULL.
 */
static struct idmap *idmap_union(struct idmap *a, struct idmap *b,
				 bool *nomem)
{
	struct idmap *t;
	struct hent *e;
	size_t bkt;

	if (!a)
		return b;
	if (!b)
		return a;
	if (a->nr < b->nr) {
		t = a;
		a = b;
		b = t;
	}
	idmap_for_each(b, e, bkt)
		if (idmap_set(a, e->key))
			*nomem = true;
	idmap_free(b);
	return a;
}

static bool is_tool_event(const char *id)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(tool_events); i++)
		if (!strcmp(id, tool_events[i]))
			return true;
	return false;
}

/* ---- perf's expression language, computing ids (expr.y) ---- */

/* A value: a constant, or NAN ("bottom") with the ids it needs. */
struct xval {
	double val;
	struct idmap *ids;
};

struct xparse {
	const char *p;
	const struct sim_pmu *pmu;
	const char *ksrc;
	bool error, nomem;
	const char *what;	/* for messages: the expression */
};

enum tok { T_END, T_NUM, T_ID, T_LIT, T_IF, T_ELSE, T_MIN, T_MAX,
	   T_DRATIO, T_SOURCE_COUNT, T_HAS_EVENT, T_STRCMP_CPUID, T_CHAR };

struct token {
	enum tok t;
	double num;
	char *s;	/* T_ID (unescaped), T_LIT; malloc()ed */
	char c;		/* T_CHAR */
};

static bool sym_char(char c)
{
	return isalnum((unsigned char)c) || c == '_' || c == '.' || c == ':' ||
	       c == '@' || c == '?';
}

/* Length of the number at @s, flex's {number}, or 0. */
static size_t number_len(const char *s)
{
	const char *p = s, *d;

	while (isdigit((unsigned char)*p))
		p++;
	if (*p == '.') {
		p++;
		while (isdigit((unsigned char)*p))
			p++;
	}
	if (p == s || (p == s + 1 && *s == '.'))
		return 0;
	if (*p == 'e') {
		d = p + 1 + (p[1] == '-');
		if (isdigit((unsigned char)*d)) {
			while (isdigit((unsigned char)*d))
				d++;
			p = d;
		}
	}
	return p - s;
}

/* Length of the symbol at @s, flex's {symbol}: escapes \- \, \= allowed. */
static size_t symbol_len(const char *s)
{
	const char *p = s;

	for (;;) {
		if (sym_char(*p))
			p++;
		else if (p[0] == '\\' && p[1] && strchr("-,=", p[1]))
			p += 2;
		else
			return p - s;
	}
}

/* The value of literal @lit ("#SMT_on") for perf stat -C on one thread. */
static double literal_value(const struct sim_pmu *pmu, const char *lit)
{
	if (!strcasecmp(lit, "#smt_on"))
		return pmu->ht ? 1 : 0;
	/* -C on one sibling: not core-wide unless there is no sibling */
	if (!strcmp(lit, "#core_wide"))
		return pmu->ht ? 0 : 1;
	if (!strcmp(lit, "#num_cpus") || !strcmp(lit, "#num_cpus_online"))
		return pmu->ht ? 2 : 1;
	if (!strcmp(lit, "#num_packages") || !strcmp(lit, "#num_dies") ||
	    !strcmp(lit, "#num_cores"))
		return 1;
	if (!strcasecmp(lit, "#system_tsc_freq"))
		return 1e9;
	/* perf stat -C: a CPU list was asked for */
	if (!strcasecmp(lit, "#target_cpu"))
		return 1;
	return NAN;
}

static void next_token(struct xparse *xp, struct token *tk)
{
	static const struct {
		const char *kw;
		enum tok t;
	} kws[] = {
		{ "d_ratio", T_DRATIO }, { "max", T_MAX }, { "min", T_MIN },
		{ "if", T_IF }, { "else", T_ELSE },
		{ "source_count", T_SOURCE_COUNT }, { "has_event", T_HAS_EVENT },
		{ "strcmp_cpuid_str", T_STRCMP_CPUID },
	};
	size_t nl, sl, i, k;

	memset(tk, 0, sizeof(*tk));
	while (isspace((unsigned char)*xp->p))
		xp->p++;
	if (!*xp->p) {
		tk->t = T_END;
		return;
	}
	if (*xp->p == '#') {
		sl = 1;
		while (isalnum((unsigned char)xp->p[sl]) || xp->p[sl] == '_' ||
		       xp->p[sl] == '.' || xp->p[sl] == '-')
			sl++;
		tk->t = T_LIT;
		tk->s = strndup(xp->p, sl);
		xp->p += sl;
		if (!tk->s)
			xp->nomem = true;
		return;
	}
	nl = number_len(xp->p);
	sl = symbol_len(xp->p);
	if (!nl && !sl) {
		tk->t = T_CHAR;
		tk->c = *xp->p++;
		return;
	}
	for (i = 0; i < ARRAY_SIZE(kws); i++)
		if (strlen(kws[i].kw) == sl && !strncmp(xp->p, kws[i].kw, sl)) {
			tk->t = kws[i].t;
			xp->p += sl;
			return;
		}
	if (sl == 3 && !strncmp(xp->p, "NaN", 3)) {
		tk->t = T_NUM;
		tk->num = NAN;
		xp->p += 3;
		return;
	}
	if (nl >= sl) {
		tk->t = T_NUM;
		tk->num = strtod(xp->p, NULL);
		xp->p += nl;
		return;
	}
	/* An id: backslashes dropped, '?' is the runtime parameter 0. */
	tk->t = T_ID;
	tk->s = malloc(sl + 1);
	if (!tk->s) {
		xp->nomem = true;
		xp->p += sl;
		return;
	}
	for (i = 0, k = 0; i < sl; i++) {
		if (xp->p[i] == '\\')
			continue;
		tk->s[k++] = xp->p[i] == '?' ? '0' : xp->p[i];
	}
	tk->s[k] = '\0';
	xp->p += sl;
}

static void peek_token(struct xparse *xp, struct token *tk)
{
	const char *save = xp->p;

	next_token(xp, tk);
	free(tk->s);
	tk->s = NULL;
	xp->p = save;
}

static bool expect_char(struct xparse *xp, char c)
{
	struct token tk;

	next_token(xp, &tk);
	free(tk.s);
	if (tk.t != T_CHAR || tk.c != c) {
		xp->error = true;
		return false;
	}
	return true;
}

static struct xval x_const(double v)
{
	struct xval r = { v, NULL };

	return r;
}

static struct xval x_union(struct xparse *xp, struct xval a, struct xval b)
{
	struct xval r;

	r.val = NAN;
	r.ids = idmap_union(a.ids, b.ids, &xp->nomem);
	return r;
}

static bool is_const(double v)
{
	return isfinite(v);
}

static void x_drop(struct xval v)
{
	idmap_free(v.ids);
}

/*
 * The PMUs of the host perf runs on in sim_metrics_perf.sh (its fake
 * sysfs: an affected host, SMT on) other than the core PMU, with their
 * events; and the names of perf's legacy events.
 */
static const struct {
	const char *pmu, *events;
} host_pmus[] = {
	{ "msr", " tsc aperf mperf smi " },
	{ "cstate_core", " c3-residency c6-residency c7-residency " },
	{ "cstate_pkg", " c2-residency c3-residency c6-residency c7-residency " },
	{ "software", NULL },	/* every software event */
	/* RAPL as rapl.c has it for the client parts; DRAM on hsw below */
	{ "power", " energy-cores energy-pkg energy-gpu " },
	{ "uncore_arb", NULL }, { "uncore_clock", NULL },
	{ "uncore_cbox_0", NULL },
};

static const char *const legacy_events[] = {
	"cycles", "instructions", "cache-references", "cache-misses",
	"branches", "branch-misses", "bus-cycles", "stalled-cycles-frontend",
	"stalled-cycles-backend", "ref-cycles", "cpu-cycles",
	"branch-instructions",
};

static const char *const software_events[] = {
	"cpu-clock", "task-clock", "page-faults", "faults",
	"context-switches", "cs", "cpu-migrations", "migrations",
	"minor-faults", "major-faults", "alignment-faults",
	"emulation-faults", "dummy", "bpf-output", "cgroup-switches",
};

static bool in_list(const char *const *list, size_t n, const char *s,
		    size_t len)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strlen(list[i]) == len && !strncasecmp(list[i], s, len))
			return true;
	return false;
}

/* "PMU@EV@": the length of PMU if it names a PMU (not "EV@terms@"), or 0. */
static size_t pmu_prefix(const char *id)
{
	const char *at = strchr(id, '@');
	size_t i;

	if (!at)
		return 0;
	if (!strncmp(id, "cpu@", 4))
		return 3;
	for (i = 0; i < ARRAY_SIZE(host_pmus); i++)
		if (strlen(host_pmus[i].pmu) == (size_t)(at - id) &&
		    !strncmp(id, host_pmus[i].pmu, at - id))
			return at - id;
	/* another PMU (power, uncore_*): lower case, no '.' */
	for (i = 0; id + i < at; i++)
		if (isupper((unsigned char)id[i]) || id[i] == '.')
			return 0;
	return at - id;
}

/*
 * expr__has_event(): does the event @id parse on the host? The core PMU
 * has the model's events and perf's legacy ones, but no sysfs aliases
 * (cycles-t, el-start: TSX); the other PMUs are those of host_pmus.
 */
static double host_has_event(const struct sim_pmu *pmu, const char *ksrc,
			     const char *id)
{
	size_t p = pmu_prefix(id), i, len;
	const char *ev = p ? id + p + 1 : id;
	char name[256], err[256];
	struct sim_event sev;

	len = strcspn(ev, "@:,/");
	if (p && strncmp(id, "cpu@", 4)) {
		for (i = 0; i < ARRAY_SIZE(host_pmus); i++) {
			char word[256];

			if (strlen(host_pmus[i].pmu) != p ||
			    strncmp(id, host_pmus[i].pmu, p))
				continue;
			if (!host_pmus[i].events)
				return 1;
			snprintf(word, sizeof(word), " %.*s ", (int)len, ev);
			if (!strcmp(host_pmus[i].pmu, "power") &&
			    !strcmp(pmu->name, "hsw") &&
			    !strcmp(word, " energy-ram "))
				return 1;
			return strstr(host_pmus[i].events, word) ? 1 : 0;
		}
		return 0;
	}
	if (sim_hw_cache_config(ev, len) >= 0 ||
	    in_list(legacy_events, ARRAY_SIZE(legacy_events), ev, len) ||
	    in_list(software_events, ARRAY_SIZE(software_events), ev, len) ||
	    in_list(tool_events, ARRAY_SIZE(tool_events), ev, len))
		return 1;
	snprintf(name, sizeof(name), "%.*s", (int)len, ev);
	return sim_events_parse(pmu, ksrc, name, &sev, 1, err,
				sizeof(err)) == 1 ? 1 : 0;
}

static struct xval parse_if(struct xparse *xp, int depth);
static struct xval parse_binary(struct xparse *xp, int level, int depth);

/* expr.y's primary expressions: numbers, ids, literals, calls, (...). */
static struct xval parse_primary(struct xparse *xp, int depth)
{
	struct xval r = x_const(NAN), a, b;
	struct token tk;

	if (depth > MAX_DEPTH) {
		xp->error = true;
		return r;
	}
	next_token(xp, &tk);
	switch (tk.t) {
	case T_NUM:
		return x_const(tk.num);
	case T_LIT:
		r = x_const(literal_value(xp->pmu, tk.s));
		free(tk.s);
		return r;
	case T_ID:
		r.ids = idmap_new();
		if (!r.ids || idmap_set(r.ids, tk.s))
			xp->nomem = true;
		free(tk.s);
		return r;
	case T_SOURCE_COUNT:
		/* source_count(ID) needs the event ID */
		if (!expect_char(xp, '('))
			return r;
		next_token(xp, &tk);
		if (tk.t != T_ID) {
			free(tk.s);
			xp->error = true;
			return r;
		}
		expect_char(xp, ')');
		r.ids = idmap_new();
		if (!r.ids || idmap_set(r.ids, tk.s))
			xp->nomem = true;
		free(tk.s);
		return r;
	case T_HAS_EVENT:
		/* has_event(ID): does ID parse on the host? a constant */
		if (!expect_char(xp, '('))
			return r;
		next_token(xp, &tk);
		if (tk.t != T_ID) {
			free(tk.s);
			xp->error = true;
			return r;
		}
		expect_char(xp, ')');
		r = x_const(host_has_event(xp->pmu, xp->ksrc, tk.s));
		free(tk.s);
		return r;
	case T_STRCMP_CPUID:
		/* depends on the running perf: none of our tables uses it */
		xp->error = true;
		return r;
	case T_MIN:
	case T_MAX:
	case T_DRATIO:
		if (!expect_char(xp, '('))
			return r;
		a = parse_binary(xp, 0, depth + 1);
		if (!expect_char(xp, ',')) {
			x_drop(a);
			return r;
		}
		b = parse_binary(xp, 0, depth + 1);
		expect_char(xp, ')');
		if (tk.t == T_DRATIO) {
			if (b.val == 0) {	/* a constant zero: 0, no events */
				x_drop(a);
				x_drop(b);
				return x_const(0);
			}
			if (is_const(a.val) && is_const(b.val))
				return x_const(a.val / b.val);
		}
		/* min and max always need both sides when computing ids */
		return x_union(xp, a, b);
	case T_CHAR:
		if (tk.c == '-') {
			r = parse_binary(xp, 6, depth + 1);
			r.val = -r.val;
			return r;
		}
		if (tk.c == '(') {
			r = parse_if(xp, depth + 1);
			expect_char(xp, ')');
			return r;
		}
		/* fall through */
	default:
		free(tk.s);
		xp->error = true;
		return r;
	}
}

/* Binary operators by precedence level, lowest first (expr.y's %left). */
static const char *const levels[] = { "|", "^", "&", "<>", "+-", "*/%" };

static struct xval binary(struct xparse *xp, char op, struct xval a,
			  struct xval b)
{
	bool ca = is_const(a.val), cb = is_const(b.val);

	switch (op) {
	case '|':
	case '&': {
		bool or = op == '|';

		if (ca && cb)
			return x_const(or ? (a.val != 0 || b.val != 0) :
					    (a.val != 0 && b.val != 0));
		if (ca || cb) {
			struct xval c = ca ? a : b, o = ca ? b : a;

			/* 0 | x and 1 & x are x; 1 | x is 1, 0 & x is 0 */
			if ((c.val == 0) == or)
				return o;
			x_drop(o);
			return x_const(or ? 1 : 0);
		}
		return x_union(xp, a, b);
	}
	case '^':
		if (ca && cb)
			return x_const((a.val == 0) != (b.val == 0));
		return x_union(xp, a, b);
	case '/':
		if (b.val == 0) {
			x_drop(a);
			return x_const(NAN);
		}
		if (ca && cb)
			return x_const(a.val / b.val);
		return x_union(xp, a, b);
	case '%':
		if (b.val == 0) {
			xp->error = true;
			x_drop(a);
			return x_const(NAN);
		}
		if (ca && cb)
			return x_const((long)a.val % (long)b.val);
		return x_union(xp, a, b);
	default:
		if (ca && cb) {
			switch (op) {
			case '<': return x_const(a.val < b.val);
			case '>': return x_const(a.val > b.val);
			case '+': return x_const(a.val + b.val);
			case '-': return x_const(a.val - b.val);
			default: return x_const(a.val * b.val);
			}
		}
		return x_union(xp, a, b);
	}
}

/* Left-associative binary operators of @level and above. */
static struct xval parse_binary(struct xparse *xp, int level, int depth)
{
	struct xval a, b;
	struct token tk;

	if (level >= (int)(ARRAY_SIZE(levels)))
		return parse_primary(xp, depth);
	a = parse_binary(xp, level + 1, depth);
	for (;;) {
		peek_token(xp, &tk);
		if (xp->error || tk.t != T_CHAR || !strchr(levels[level], tk.c))
			return a;
		next_token(xp, &tk);
		b = parse_binary(xp, level + 1, depth);
		a = binary(xp, tk.c, a, b);
	}
}

/**
 * parse_if() - expr.y's if_expr: expr [if expr else if_expr]
 * @xp: the parser
 * @depth: nesting so far, bounded by MAX_DEPTH
 *
 * A constant condition keeps one side only (0: the else side), as perf
 * does when it collects ids; otherwise all three are needed.
 *
 * Return: the value, a constant or NAN with the ids it needs.
 */
static struct xval parse_if(struct xparse *xp, int depth)
{
	struct xval lhs, cond, rhs;
	struct token tk;

	lhs = parse_binary(xp, 0, depth);
	peek_token(xp, &tk);
	if (tk.t != T_IF)
		return lhs;
	next_token(xp, &tk);
	cond = parse_binary(xp, 0, depth);
	next_token(xp, &tk);
	free(tk.s);
	if (tk.t != T_ELSE) {
		xp->error = true;
		x_drop(cond);
		return lhs;
	}
	rhs = parse_if(xp, depth + 1);
	if (cond.val == 0) {
		x_drop(lhs);
		x_drop(cond);
		return rhs;
	}
	if (is_const(cond.val)) {
		x_drop(cond);
		x_drop(rhs);
		return lhs;
	}
	if (lhs.val == rhs.val) {	/* the same constant on both sides */
		x_drop(lhs);
		x_drop(cond);
		x_drop(rhs);
		return x_const(lhs.val);
	}
	return x_union(xp, lhs, x_union(xp, cond, rhs));
}

/**
 * find_ids() - expr__find_ids(): the ids an expression needs
 * @pmu: the model, for the literals (#SMT_on, #core_wide, ...)
 * @ksrc: the tree of the model's events, for has_event()
 * @expr: a MetricExpr or MetricThreshold
 * @ctx: the map the ids are added to (expr.y's start rule: the union of
 *       the expression's map and *@ctx, which may be either of the two)
 * @err: where a message goes
 * @errlen: its size
 *
 * Return: 0, or -1 with @err set if perf could not parse it either.
 */
static int find_ids(const struct sim_pmu *pmu, const char *ksrc,
		    const char *expr, struct idmap **ctx, char *err,
		    size_t errlen)
{
	struct xparse xp = { .p = expr, .pmu = pmu, .ksrc = ksrc };
	struct token tk;
	struct xval v;

	v = parse_if(&xp, 0);
	next_token(&xp, &tk);
	free(tk.s);
	if (tk.t != T_END)
		xp.error = true;
	if (xp.error || xp.nomem)
		x_drop(v);
	else
		*ctx = idmap_union(v.ids, *ctx, &xp.nomem);
	if (xp.error || xp.nomem) {
		sim_err(err, errlen, "%s in metric expression '%s'",
			xp.nomem ? "out of memory" : "syntax error", expr);
		return -1;
	}
	return 0;
}

/* ---- metrics into event lists (metricgroup.c) ---- */

struct metric {
	const struct mdef *pm;
	struct idmap *ids;	/* perf's pctx->ids, in its order */
	struct ids refs;	/* referenced metrics, by name */
	bool group_events;
	int list;		/* index of its own event list, -1: shared */
};

struct visited {
	const char *name;
	const struct visited *parent;
};

struct expand {
	const struct sim_pmu *pmu;
	const char *ksrc;
	const struct mtable *t;
	struct metric *m;
	int nr, cap;
	char *err;
	size_t errlen;
};

/* metric__group_events(): NMI watchdog off, SMT as the PMU says. */
static bool metric_group_events(const struct sim_pmu *pmu,
				const struct mdef *pm)
{
	const char *c = pm->f[M_CONSTRAINT];

	if (!c)
		return true;
	if (!strcmp(c, "NO_GROUP_EVENTS"))
		return false;
	if (!strcmp(c, "NO_GROUP_EVENTS_SMT"))
		return !pmu->ht;
	return true;	/* NO_GROUP_EVENTS_NMI: grouped, the watchdog is off */
}

static int add_metric(struct expand *ex, const struct mdef *pm,
		      bool no_group, struct metric *root,
		      const struct visited *visited);

/**
 * resolve_metric() - metric references of @root replaced by their ids
 * @ex: the expansion under way
 * @root: the root metric whose ids are searched
 * @visited: the chain of metrics being added, to find recursion
 *
 * The ids naming metrics are found in the map's order, all removed from
 * the map, then their metrics added in that order (each resolving the
 * root's whole map again), as perf's resolve_metric() does.
 *
 * Return: 0, or -1 with the expansion's error set.
 */
static int resolve_metric(struct expand *ex, struct metric *root,
			  const struct visited *visited)
{
	const struct mdef **pending;
	struct ids keys = { 0 };
	struct hent *e;
	size_t bkt;
	int n = 0, i, ret = 0;

	pending = calloc(root->ids->nr + 1, sizeof(*pending));
	if (!pending)
		goto nomem;
	idmap_for_each(root->ids, e, bkt) {
		const struct mdef *pm = find_metric(ex->t, root->pm->tab,
						    e->key);

		if (!pm)
			continue;
		pending[n++] = pm;
		if (ids_add(&keys, e->key))
			goto nomem;
	}
	for (i = 0; i < keys.nr; i++)
		idmap_del(root->ids, keys.s[i]);
	for (i = 0; i < n && !ret; i++)
		ret = add_metric(ex, pending[i], false, root, visited);
	ids_clear(&keys);
	free(pending);
	return ret;
nomem:
	ids_clear(&keys);
	free(pending);
	sim_err(ex->err, ex->errlen, "out of memory");
	return -1;
}

/**
 * add_metric() - perf's add_metric() and __add_metric()
 * @ex: the expansion under way
 * @pm: the metric
 * @no_group: the name asked for is in its MetricgroupNoGroup
 * @root: NULL for a root metric, which gets an entry of its own; else the
 *        root a referenced metric adds its ids to (once)
 * @visited: the chain of metrics being added, to find recursion
 *
 * A root metric's ids come from its MetricThreshold if it has one (the
 * threshold contains the metric itself), else from its MetricExpr.
 *
 * Return: 0, or -1 with the expansion's error set.
 */
static int add_metric(struct expand *ex, const struct mdef *pm,
		      bool no_group, struct metric *root,
		      const struct visited *visited)
{
	struct visited node = { pm->f[M_NAME], visited };
	const struct visited *v;
	const char *expr = pm->f[M_EXPR];
	struct metric *nm;
	int ret;

	for (v = visited; v; v = v->parent)
		if (!strcmp(pm->f[M_NAME], v->name)) {
			sim_err(ex->err, ex->errlen,
				"recursion in metric %s", pm->f[M_NAME]);
			return -1;
		}
	if (!root) {
		if (ex->nr == ex->cap) {
			ex->cap = ex->cap ? 2 * ex->cap : 32;
			nm = realloc(ex->m, ex->cap * sizeof(*ex->m));
			if (!nm)
				goto nomem;
			ex->m = nm;
		}
		root = &ex->m[ex->nr++];
		memset(root, 0, sizeof(*root));
		root->ids = idmap_new();	/* expr__ctx_new(): empty */
		if (!root->ids)
			goto nomem;
		root->pm = pm;
		root->list = -1;
		root->group_events = !no_group &&
				     metric_group_events(ex->pmu, pm);
		if (pm->f[M_THRESHOLD]) {
			expr = pm->f[M_THRESHOLD];
			node.name = "__threshold__";
		}
	} else {
		if (ids_find(&root->refs, pm->f[M_NAME]) >= 0)
			return 0;
		if (ids_add(&root->refs, pm->f[M_NAME]))
			goto nomem;
	}
	if (find_ids(ex->pmu, ex->ksrc, expr, &root->ids, ex->err,
		     ex->errlen))
		return -1;
	/* references never add roots: ex->m does not move under @root */
	ret = resolve_metric(ex, root, &node);
	return ret;
nomem:
	sim_err(ex->err, ex->errlen, "out of memory");
	return -1;
}

/* Number of ids of @m that are no tool events (metric_list_cmp()). */
static int metric_count(const struct metric *m)
{
	size_t t;
	int n = m->ids->nr;

	for (t = 0; t < ARRAY_SIZE(tool_events); t++)
		n -= idmap_has(m->ids, tool_events[t]);
	return n;
}

/* expr__subset_of_ids(): is every id of @small in @big? */
static bool ids_subset(const struct idmap *big, const struct idmap *small)
{
	struct hent *e;
	size_t bkt;

	idmap_for_each(small, e, bkt)
		if (!idmap_has(big, e->key))
			return false;
	return true;
}

/**
 * add_list() - parse_ids(): the event list perf parses for the map @ids
 * @x: the expansion the list is appended to
 * @ids: the ids; the tool events of @tools are added to it, as perf adds
 *       them to the map (which may grow and so change its order) before
 *       it walks it; with no id and no tool event, duration_time
 * @tools: the tool events some metric of the expansion uses
 * @grouped: the metric's events form a weak group
 *
 * The list is the ids in the map's order but the tool events, which
 * follow outside the group in perf's enum order
 * (metricgroup__build_event_string()).
 *
 * Return: 0, or -1 out of memory.
 */
static int add_list(struct sim_metric_expansion *x, struct idmap *ids,
		    const bool *tools, bool grouped)
{
	struct sim_metric_group *g, *ng;
	bool added = false;
	struct hent *e;
	size_t t, bkt;
	int i, k = 0;

	for (t = 0; t < ARRAY_SIZE(tool_events); t++) {
		if (!tools[t])
			continue;
		if (idmap_set(ids, tool_events[t]))
			return -1;
		added = true;
	}
	if (!added && !ids->nr && idmap_set(ids, tool_events[0]))
		return -1;

	ng = realloc(x->g, (x->nr + 1) * sizeof(*x->g));
	if (!ng)
		return -1;
	x->g = ng;
	g = &x->g[x->nr++];
	memset(g, 0, sizeof(*g));
	g->ids = calloc(ids->nr + 1, sizeof(*g->ids));
	if (!g->ids)
		return -1;
	idmap_for_each(ids, e, bkt)
		if (!is_tool_event(e->key))
			g->ids[k++] = strdup(e->key);
	/* the grouped events; none: no group, only tool events */
	g->grouped = grouped && k > 0;
	for (t = 0; t < ARRAY_SIZE(tool_events); t++)
		if (idmap_has(ids, tool_events[t]))
			g->ids[k++] = strdup(tool_events[t]);
	g->n = k;
	for (i = 0; i < k; i++)
		if (!g->ids[i])
			return -1;
	return 0;
}

void sim_metrics_free(struct sim_metric_expansion *x)
{
	int i, k;

	for (i = 0; i < x->nr; i++) {
		for (k = 0; k < x->g[i].n; k++)
			free(x->g[i].ids[k]);
		free(x->g[i].ids);
	}
	free(x->g);
	memset(x, 0, sizeof(*x));
}

static void expand_free(struct expand *ex)
{
	int i;

	for (i = 0; i < ex->nr; i++) {
		idmap_free(ex->m[i].ids);
		ids_clear(&ex->m[i].refs);
	}
	free(ex->m);
}

/**
 * add_name() - the root metrics of one name of the -M list
 * @ex: the expansion under way
 * @name: a metric or metric group name
 *
 * Every metric whose MetricGroup or MetricName matches, in the table's
 * order (perf's: by name), each put in front of the list (list_add() and
 * list_splice() in perf).
 *
 * Return: 0, or -1 with the expansion's error naming @name if nothing
 * matches.
 */
static int add_name(struct expand *ex, const char *name)
{
	int first = ex->nr, i, found = 0;
	struct metric tmp;

	for (i = 0; i < ex->t->nr; i++) {
		const struct mdef *pm = &ex->t->m[i];

		if (!match_metric(pm->f[M_GROUP], name) &&
		    !match_metric(pm->f[M_NAME], name))
			continue;
		found++;
		if (add_metric(ex, pm, match_metric(pm->f[M_NOGROUP], name),
			       NULL, NULL))
			return -1;
	}
	if (!found) {
		sim_err(ex->err, ex->errlen,
			"unknown metric or metric group '%s' for PMU %s (perf's %s tables)",
			name, ex->pmu->name, ex->pmu->json_dir);
		return -1;
	}
	/* The new roots go to the front, in reverse table order. */
	for (i = 0; i < (ex->nr - first) / 2; i++) {
		tmp = ex->m[first + i];
		ex->m[first + i] = ex->m[ex->nr - 1 - i];
		ex->m[ex->nr - 1 - i] = tmp;
	}
	for (i = first; i > 0; i--) {
		int k;

		for (k = 0; k < ex->nr - first; k++) {
			tmp = ex->m[i - 1 + k];
			ex->m[i - 1 + k] = ex->m[i + k];
			ex->m[i + k] = tmp;
		}
	}
	return 0;
}

/**
 * sim_metrics_expand() - the event lists perf stat -M @names opens
 * @pmu: the model (its tables, SMT on with HT on)
 * @ksrc: the kernel tree holding tools/perf/pmu-events
 * @names: comma-separated metric and metric group names
 * @x: the result: event lists in perf's order (the merged list of
 *     ungrouped metrics first, then one list per metric that shares with
 *     no larger one), the ids of each in the order of perf's hash map
 * @err: where a message goes
 * @errlen: its size
 *
 * Follows parse_groups() of tools/perf/util/metricgroup.c.
 *
 * Return: 0, or -1 with @err naming the unknown name or the broken
 * expression.
 */
int sim_metrics_expand(const struct sim_pmu *pmu, const char *ksrc,
		       const char *names, struct sim_metric_expansion *x,
		       char *err, size_t errlen)
{
	struct expand ex = { .pmu = pmu, .ksrc = ksrc, .err = err,
			     .errlen = errlen };
	bool tools[ARRAY_SIZE(tool_events)] = { false };
	struct idmap *combined = NULL;
	char *copy = NULL, *name, *save = NULL;
	struct hent *e;
	int i, j, ret = -1;
	size_t t, bkt;

	memset(x, 0, sizeof(*x));
	ex.t = mtable_get(pmu, ksrc, err, errlen);
	if (!ex.t)
		return -1;
	copy = strdup(names ? names : "");
	if (!copy)
		goto nomem;
	for (name = strtok_r(copy, ",", &save); name;
	     name = strtok_r(NULL, ",", &save)) {
		if (strchr(name, ':')) {
			sim_err(err, errlen,
				"metric '%s': modifiers are not simulated",
				name);
			goto out;
		}
		if (add_name(&ex, name))
			goto out;
	}
	if (!ex.nr) {
		sim_err(err, errlen, "empty metric list '%s'", names ? names : "");
		goto out;
	}

	/* list_sort(): stable, more events first */
	for (i = 1; i < ex.nr; i++) {
		struct metric m = ex.m[i];

		for (j = i; j > 0 && metric_count(&ex.m[j - 1]) <
				     metric_count(&m); j--)
			ex.m[j] = ex.m[j - 1];
		ex.m[j] = m;
	}

	/* find_tool_events(), build_combined_expr_ctx() */
	combined = idmap_new();
	if (!combined)
		goto nomem;
	for (i = 0; i < ex.nr; i++) {
		for (t = 0; t < ARRAY_SIZE(tool_events); t++)
			if (idmap_has(ex.m[i].ids, tool_events[t]))
				tools[t] = true;
		if (ex.m[i].group_events)
			continue;
		idmap_for_each(ex.m[i].ids, e, bkt)
			if (idmap_set(combined, e->key))
				goto nomem;
	}
	if (!combined->nr) {
		idmap_free(combined);
		combined = NULL;
	} else if (add_list(x, combined, tools, false)) {
		goto nomem;
	}

	/*
	 * Each metric not in the combined list: an earlier metric's own
	 * list holding all its ids (tool events included), or its own list.
	 */
	for (i = 0; i < ex.nr; i++) {
		struct metric *m = &ex.m[i];

		if (combined && !m->group_events)
			continue;
		for (j = 0; j < i; j++)
			if (ex.m[j].list >= 0 && ids_subset(ex.m[j].ids, m->ids))
				break;
		if (j < i)
			continue;
		m->list = x->nr;
		if (add_list(x, m->ids, tools, m->group_events))
			goto nomem;
	}
	ret = 0;
	goto out;
nomem:
	sim_err(err, errlen, "out of memory");
out:
	idmap_free(combined);
	expand_free(&ex);
	free(copy);
	if (ret)
		sim_metrics_free(x);
	return ret;
}

static int cmp_strp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void sim_metrics_print(FILE *f, const struct sim_metric_expansion *x)
{
	int i, k;

	for (i = 0; i < x->nr; i++) {
		fputs(x->g[i].grouped ? "group" : "nogroup", f);
		for (k = 0; k < x->g[i].n; k++)
			fprintf(f, " %s", x->g[i].ids[k]);
		fputc('\n', f);
	}
}

/*
 * The core event an id names, as sim_events_parse() reads it: "EV" and
 * "EV:mods" as they are, "cpu@EV,terms@" and "EV@terms@" as EV; and in
 * @shown the name the kernel's order shows it by (the id; for perf's
 * legacy events their canonical name, "cycles" for "cpu-cycles:u").
 * Returns false for tool and software events and other PMUs' events
 * (uncore, msr and TSC, cstate, power).
 */
static bool core_event_name(const char *id, char *buf, size_t len,
			    char *shown, size_t shown_len)
{
	size_t p = pmu_prefix(id), n;

	snprintf(shown, shown_len, "%s", id);
	if (is_tool_event(id))
		return false;
	if (p) {
		if (strncmp(id, "cpu@", 4))
			return false;
		n = strcspn(id + 4, ",@");
		snprintf(buf, len, "%.*s", (int)n, id + 4);
		return true;
	}
	n = strcspn(id, "@:");
	if (in_list(software_events, ARRAY_SIZE(software_events), id, n))
		return false;
	/* uncore events, and TSC: perf's name for msr/tsc/ */
	if (!strncasecmp(id, "UNC_", 4) || !strcmp(id, "TSC"))
		return false;
	if (id[n] == '@')	/* EV@terms@ */
		snprintf(buf, len, "%.*s", (int)n, id);
	else
		snprintf(buf, len, "%s", id);
	if (sim_hw_cache_config(id, n) >= 0) {	/* type 3, PERF_TYPE_HW_CACHE */
		snprintf(shown, shown_len, "3/%#lx/", sim_hw_cache_config(id, n));
		if (!sim_hw_cache_config(id, n))
			snprintf(shown, shown_len, "3/0x0/");
	} else if (in_list(legacy_events, ARRAY_SIZE(legacy_events), id, n)) {
		const char *c = !strncasecmp(id, "cpu-cycles", n) ? "cycles" :
			!strncasecmp(id, "branch-instructions", n) ? "branches" :
			NULL;

		if (c)
			snprintf(shown, shown_len, "%s", c);
		else
			snprintf(shown, shown_len, "%.*s", (int)n, id);
	}
	return true;
}

/**
 * sim_metrics_events() - @x's core events as the simulator runs them
 * @pmu: the model
 * @ksrc: the tree of the event tables
 * @x: an expansion of sim_metrics_expand()
 * @ev: out: the events, in the order perf stat opens them
 * @leader: out: true where a group starts
 * @max: room in @ev and @leader
 * @err: where a message goes
 * @errlen: its size
 *
 * The kernel keeps a CPU's events in the order they were opened, and
 * schedules and rotates them in that order. perf stat opens its evlist in
 * order (@x's order), but a weak group that the kernel refuses at
 * perf_event_open() (validate_group(): here, one the matcher cannot place
 * on an idle PMU with the events' static masks) is split by
 * evlist__reset_weak_group(): its members become single events in place
 * in the evlist (so perf stat prints them there), and __run_perf_stat()
 * skips them for the rest of its first pass and closes and reopens them
 * in a second pass, after every other event. So their singles come last
 * here, in evlist order, as on the host.
 *
 * Return: the number of events, or -1 with @err set.
 */
int sim_metrics_events(const struct sim_pmu *pmu, const char *ksrc,
		       const struct sim_metric_expansion *x,
		       struct sim_event *ev, bool *leader, int max,
		       char *err, size_t errlen)
{
	struct sim_event *tmp = NULL;
	bool *split = NULL;
	int i, k, n = 0, nr_split = 0, ret = -1;
	char name[256], shown[sizeof(ev->name)];

	split = calloc(max + 1, sizeof(*split));
	if (!split)
		goto nomem;
	for (i = 0; i < x->nr; i++) {
		const struct sim_metric_group *g = &x->g[i];
		int first = n;
		u64 masks[64];

		for (k = 0; k < g->n; k++) {
			if (!core_event_name(g->ids[k], name, sizeof(name),
					     shown, sizeof(shown)))
				continue;
			if (n >= max) {
				sim_err(err, errlen,
					"too many events (at most %d) at '%s'",
					max, g->ids[k]);
				goto out;
			}
			if (sim_events_parse(pmu, ksrc, name, &ev[n], 1, err,
					     errlen) != 1)
				goto out;
			snprintf(ev[n].name, sizeof(ev[n].name), "%s", shown);
			leader[n] = !g->grouped || n == first;
			if (n - first < 64)
				masks[n - first] = ev[n].mask;
			n++;
		}
		/* validate_group(): the weak group falls apart if it cannot fit */
		if (g->grouped && n - first > 1 &&
		    (n - first > 64 ||
		     x86_counter_match(masks, n - first, 0, pmu->nr_gp, NULL)))
			for (k = first; k < n; k++) {
				leader[k] = true;
				split[k] = true;
				nr_split++;
			}
	}

	/* perf stat's second pass: the split groups' events are opened last */
	if (nr_split) {
		int j = 0;

		tmp = malloc(nr_split * sizeof(*tmp));
		if (!tmp)
			goto nomem;
		for (i = 0, k = 0; i < n; i++) {
			if (split[i]) {
				tmp[j++] = ev[i];
				continue;
			}
			ev[k] = ev[i];
			leader[k++] = leader[i];
		}
		for (j = 0; j < nr_split; j++, k++) {
			ev[k] = tmp[j];
			leader[k] = true;
		}
	}
	ret = n;
	goto out;
nomem:
	sim_err(err, errlen, "out of memory");
out:
	free(tmp);
	free(split);
	return ret;
}

int sim_metric_group_names(const struct sim_pmu *pmu, const char *ksrc,
			   char ***names, char *err, size_t errlen)
{
	const struct mtable *t = mtable_get(pmu, ksrc, err, errlen);
	struct ids all = { 0 };
	int i;

	*names = NULL;
	if (!t)
		return -1;
	for (i = 0; i < t->nr; i++) {
		char *list = t->m[i].f[M_GROUP], *copy, *g, *save = NULL;

		if (!list)
			continue;
		copy = strdup(list);
		if (!copy)
			goto nomem;
		for (g = strtok_r(copy, ";", &save); g;
		     g = strtok_r(NULL, ";", &save))
			if (*g && ids_add(&all, g)) {
				free(copy);
				goto nomem;
			}
		free(copy);
	}
	qsort(all.s, all.nr, sizeof(*all.s), cmp_strp);
	*names = all.s;
	return all.nr;
nomem:
	for (i = 0; i < all.nr; i++)
		free(all.s[i]);
	free(all.s);
	sim_err(err, errlen, "out of memory");
	return -1;
}
