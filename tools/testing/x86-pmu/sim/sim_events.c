// SPDX-License-Identifier: GPL-2.0
/*
 * PMU models and event lists of the scheduling simulator: the models it
 * knows (snb, ivb, hsw, generic), perf's JSON event tables of the kernel
 * tree (tools/perf/pmu-events/arch/x86/<model>/), and the parsers of the
 * event lists (names, raw codes, explicit masks) into struct sim_event.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "sim_events.h"

#define JSON_SUBDIR	"/tools/perf/pmu-events/arch/x86/"
#define JSON_MAX_DEPTH	64	/* nesting allowed in values we skip */
#define NR_CACHE	3	/* one table per Intel model */

/* The models sim_pmu_lookup() knows; json_dir NULL: no tables. */
static const struct {
	const char *name;
	const char *json_dir;
} models[] = {
	{ "snb",	"sandybridge" },
	{ "ivb",	"ivybridge" },
	{ "hsw",	"haswell" },
	{ "generic",	NULL },
};

/* Errata that make an event corrupt the sibling's counters (HT on). */
static const char *const corrupting_errata[] = { "BJ122", "BV98", "HSD29" };

/* One event of perf's tables, as much of it as the simulator needs. */
struct tab_event {
	char *name;		/* EventName */
	int code;		/* first EventCode, 0 if absent */
	unsigned long umask;	/* UMask, 0 if absent */
	bool raw_ok;		/* code, umask readable: raw codes find it */
	u64 gp_list;		/* GP counters the Counter field names */
	int fixed;		/* N of "Fixed counter N", or -1 */
	bool corrupting;	/* code 0xd0-0xd3 or a corrupting erratum */
};

/* The events of one table directory. */
struct table {
	char *dir;		/* the directory's path, NULL: free slot */
	const char *json_dir;	/* the model's directory name */
	struct tab_event *ev;
	size_t nr, cap;
};

/* The per-model cache: tables are read once per directory. */
static struct table cache[NR_CACHE];

/* malloc()ed copy of @s, or NULL. */
static char *str_dup(const char *s)
{
	size_t len = strlen(s) + 1;
	char *p = malloc(len);

	if (p)
		memcpy(p, s, len);
	return p;
}

int sim_pmu_lookup(const char *model, bool ht, int counters,
		   struct sim_pmu *pmu, char *err, size_t errlen)
{
	size_t i;

	for (i = 0; model && i < sizeof(models) / sizeof(models[0]); i++)
		if (!strcmp(model, models[i].name))
			break;
	if (!model || i == sizeof(models) / sizeof(models[0])) {
		sim_err(err, errlen,
			"unknown PMU model '%s' (snb, ivb, hsw, generic)",
			model ? model : "");
		return -1;
	}

	if (!models[i].json_dir && (counters < 1 || counters > 32)) {
		sim_err(err, errlen,
			"bad number of counters %d for PMU model '%s' (1 to 32)",
			counters, model);
		return -1;
	}
	if (models[i].json_dir && counters) {
		sim_err(err, errlen,
			"PMU model '%s' has a fixed number of counters, only 'generic' takes one",
			model);
		return -1;
	}

	memset(pmu, 0, sizeof(*pmu));
	snprintf(pmu->name, sizeof(pmu->name), "%s", model);
	pmu->json_dir = models[i].json_dir;
	pmu->ht = ht;
	if (!pmu->json_dir) {
		pmu->nr_gp = counters;
		pmu->nr_fixed = 0;
		pmu->erratum = false;
	} else {
		pmu->nr_gp = ht ? 4 : 8;
		pmu->nr_fixed = 3;
		pmu->erratum = ht;
	}
	return 0;
}

/* ---- a small JSON reader ---- */

/* Parser state over one file held in memory. */
struct json {
	const char *start, *p, *end;
	const char *path;	/* for messages */
	char *err;
	size_t errlen;
};

/* Report a syntax error at the current position; returns -1. */
static int json_error(struct json *js, const char *what)
{
	const char *q;
	int line = 1;

	for (q = js->start; q < js->p && q < js->end; q++)
		line += *q == '\n';
	sim_err(js->err, js->errlen, "%s:%d: bad JSON: %s", js->path, line,
		what);
	return -1;
}

static void json_skip_ws(struct json *js)
{
	while (js->p < js->end && (*js->p == ' ' || *js->p == '\t' ||
				   *js->p == '\n' || *js->p == '\r'))
		js->p++;
}

/* Value of the hex digit @c, or -1. */
static int hex_val(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Read the four hex digits of a \u escape at js->p. */
static int json_read_u16(struct json *js, unsigned int *val)
{
	int i, d;

	if (js->end - js->p < 4)
		return json_error(js, "short \\u escape");
	for (*val = 0, i = 0; i < 4; i++) {
		d = hex_val(js->p[i]);
		if (d < 0)
			return json_error(js, "bad \\u escape");
		*val = *val << 4 | d;
	}
	js->p += 4;
	return 0;
}

/* Append code point @cp as UTF-8 at @q; returns the new end. */
static char *put_utf8(char *q, unsigned int cp)
{
	if (cp < 0x80) {
		*q++ = cp;
	} else if (cp < 0x800) {
		*q++ = 0xc0 | cp >> 6;
		*q++ = 0x80 | (cp & 0x3f);
	} else if (cp < 0x10000) {
		*q++ = 0xe0 | cp >> 12;
		*q++ = 0x80 | (cp >> 6 & 0x3f);
		*q++ = 0x80 | (cp & 0x3f);
	} else {
		*q++ = 0xf0 | cp >> 18;
		*q++ = 0x80 | (cp >> 12 & 0x3f);
		*q++ = 0x80 | (cp >> 6 & 0x3f);
		*q++ = 0x80 | (cp & 0x3f);
	}
	return q;
}

/*
 * Read the string at js->p (at its opening quote). With @out, its decoded
 * text is returned there, malloc()ed; without, it is only skipped. An
 * escape never decodes into more bytes than it is written with, so the
 * raw length bounds the buffer.
 */
static int json_string(struct json *js, char **out)
{
	const char *s = ++js->p;
	char *buf = NULL, *q = NULL;
	unsigned int cp, lo;

	/* Find the closing quote first, stepping over escapes. */
	while (js->p < js->end && *js->p != '"')
		js->p += *js->p == '\\' ? 2 : 1;
	if (js->p >= js->end)
		return json_error(js, "unterminated string");
	if (out) {
		buf = malloc(js->p - s + 1);
		if (!buf)
			return json_error(js, "out of memory");
		q = buf;
	}
	js->p = s;

	while (*js->p != '"') {
		char c = *js->p++;

		if (c != '\\') {
			if (q)
				*q++ = c;
			continue;
		}
		c = *js->p++;
		switch (c) {
		case '"': case '\\': case '/':
			break;
		case 'b': c = '\b'; break;
		case 'f': c = '\f'; break;
		case 'n': c = '\n'; break;
		case 'r': c = '\r'; break;
		case 't': c = '\t'; break;
		case 'u':
			if (json_read_u16(js, &cp))
				goto fail;
			/* A surrogate pair is one code point. */
			if (cp >= 0xd800 && cp < 0xdc00 &&
			    js->end - js->p >= 6 && js->p[0] == '\\' &&
			    js->p[1] == 'u') {
				js->p += 2;
				if (json_read_u16(js, &lo))
					goto fail;
				if (lo >= 0xdc00 && lo < 0xe000)
					cp = 0x10000 + ((cp - 0xd800) << 10) +
					     (lo - 0xdc00);
				else
					js->p -= 6;	/* lone surrogate */
			}
			if (q)
				q = put_utf8(q, cp);
			continue;
		default:
			js->p--;
			json_error(js, "bad escape in string");
			goto fail;
		}
		if (q)
			*q++ = c;
	}
	js->p++;
	if (out) {
		*q = '\0';
		*out = buf;
	}
	return 0;
fail:
	free(buf);
	return -1;
}

/*
 * Read a number, true, false or null at js->p. With @out, its text is
 * returned there, malloc()ed.
 */
static int json_scalar(struct json *js, char **out)
{
	const char *s = js->p;
	size_t len;

	while (js->p < js->end &&
	       (isalnum((unsigned char)*js->p) || *js->p == '-' ||
		*js->p == '+' || *js->p == '.'))
		js->p++;
	len = js->p - s;
	if (!len)
		return json_error(js, "unexpected character");
	if (!isdigit((unsigned char)*s) && *s != '-' &&
	    !(len == 4 && !memcmp(s, "true", 4)) &&
	    !(len == 5 && !memcmp(s, "false", 5)) &&
	    !(len == 4 && !memcmp(s, "null", 4))) {
		js->p = s;
		return json_error(js, "unexpected word");
	}
	if (out) {
		*out = malloc(len + 1);
		if (!*out)
			return json_error(js, "out of memory");
		memcpy(*out, s, len);
		(*out)[len] = '\0';
	}
	return 0;
}

/*
 * Read any value at js->p. Strings and scalars go to @out (if given) as
 * text; arrays and objects are skipped, and @out left NULL.
 */
static int json_value(struct json *js, char **out, int depth)
{
	char open, close;

	if (out)
		*out = NULL;
	json_skip_ws(js);
	if (js->p >= js->end)
		return json_error(js, "unexpected end of file");
	if (*js->p == '"')
		return json_string(js, out);
	if (*js->p != '[' && *js->p != '{')
		return json_scalar(js, out);

	if (depth >= JSON_MAX_DEPTH)
		return json_error(js, "nested too deeply");
	open = *js->p++;
	close = open == '[' ? ']' : '}';
	json_skip_ws(js);
	if (js->p < js->end && *js->p == close) {
		js->p++;
		return 0;
	}
	for (;;) {
		if (open == '{') {
			json_skip_ws(js);
			if (js->p >= js->end || *js->p != '"')
				return json_error(js, "expected a key");
			if (json_string(js, NULL))
				return -1;
			json_skip_ws(js);
			if (js->p >= js->end || *js->p != ':')
				return json_error(js, "expected ':'");
			js->p++;
		}
		if (json_value(js, NULL, depth + 1))
			return -1;
		json_skip_ws(js);
		if (js->p < js->end && *js->p == ',') {
			js->p++;
			continue;
		}
		if (js->p < js->end && *js->p == close) {
			js->p++;
			return 0;
		}
		return json_error(js, open == '[' ? "expected ',' or ']'" :
				  "expected ',' or '}'");
	}
}

/* ---- perf's event tables ---- */

/* The fields of one table entry the simulator reads, as text. */
enum { F_NAME, F_CODE, F_UMASK, F_COUNTER, F_ERRATA, NR_FIELDS };

static const char *const field_keys[NR_FIELDS] = {
	[F_NAME]	= "EventName",
	[F_CODE]	= "EventCode",
	[F_UMASK]	= "UMask",
	[F_COUNTER]	= "Counter",
	[F_ERRATA]	= "Errata",
};

/*
 * Parse a number as the tables write them: "0xD0", "0XB7", "208"; only
 * the first of a list ("0xB7, 0xBB") counts. Returns -1 if there is none.
 */
static int table_number(const char *s, unsigned long *val)
{
	char *end;

	while (*s == ' ')
		s++;
	errno = 0;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		if (!isxdigit((unsigned char)s[2]))
			return -1;
		*val = strtoul(s + 2, &end, 16);
	} else {
		if (!isdigit((unsigned char)*s))
			return -1;
		*val = strtoul(s, &end, 10);
	}
	if (errno)
		return -1;
	while (*end == ' ')
		end++;
	return *end == '\0' || *end == ',' ? 0 : -1;
}

/*
 * Decode the Counter field: "Fixed counter N", or a list of GP counters
 * ("0,1,2,3", "2"). Anything unreadable leaves gp_list 0 (all GP).
 */
static void table_counter(const char *s, struct tab_event *te)
{
	unsigned long n;
	char *end;

	te->gp_list = 0;
	te->fixed = -1;
	if (!s)
		return;
	if (!strncasecmp(s, "Fixed counter", 13)) {
		s += 13;
		while (*s == ' ')
			s++;
		if (!isdigit((unsigned char)*s))
			return;
		n = strtoul(s, &end, 10);
		if (*end == '\0' && n < 32)
			te->fixed = n;
		return;
	}
	for (;;) {
		while (*s == ' ')
			s++;
		if (!isdigit((unsigned char)*s))
			goto bad;
		n = strtoul(s, &end, 10);
		if (n >= 64)
			goto bad;
		te->gp_list |= 1ULL << n;
		s = end;
		while (*s == ' ')
			s++;
		if (*s == '\0')
			return;
		if (*s++ != ',')
			goto bad;
	}
bad:
	te->gp_list = 0;
}

/* Does the Errata field @s name one of the corrupting errata? */
static bool table_errata(const char *s)
{
	size_t i, len;

	while (s && *s) {
		while (*s && !isalnum((unsigned char)*s))
			s++;
		for (len = 0; isalnum((unsigned char)s[len]); len++)
			;
		for (i = 0; len && i < sizeof(corrupting_errata) /
				       sizeof(corrupting_errata[0]); i++)
			if (strlen(corrupting_errata[i]) == len &&
			    !strncasecmp(s, corrupting_errata[i], len))
				return true;
		s += len;
	}
	return false;
}

/* Turn the text fields of one entry into a table event (takes the name). */
static int table_add(struct table *tab, char **f)
{
	struct tab_event *te;
	unsigned long val;

	if (tab->nr == tab->cap) {
		size_t cap = tab->cap ? 2 * tab->cap : 256;
		struct tab_event *ev = realloc(tab->ev, cap * sizeof(*ev));

		if (!ev)
			return -1;
		tab->ev = ev;
		tab->cap = cap;
	}
	te = &tab->ev[tab->nr++];
	te->name = f[F_NAME];
	f[F_NAME] = NULL;
	/* Fixed counter events have no EventCode: it is 0 then. */
	te->raw_ok = true;
	te->code = 0;
	if (f[F_CODE]) {
		if (table_number(f[F_CODE], &val) || val > 0xff)
			te->raw_ok = false;
		else
			te->code = val;
	}
	te->umask = 0;
	if (f[F_UMASK] && table_number(f[F_UMASK], &te->umask))
		te->raw_ok = false;
	table_counter(f[F_COUNTER], te);
	te->corrupting = (te->code >= 0xd0 && te->code <= 0xd3) ||
			 table_errata(f[F_ERRATA]);
	return 0;
}

/* What to read of each object of a file's top-level array. */
struct json_spec {
	const char *const *keys;	/* the fields wanted */
	int nr;				/* how many (at most JSON_MAX_FIELDS) */
	int (*fn)(char **vals, void *arg);	/* called per object */
	void *arg;
};

#define JSON_MAX_FIELDS	16

/* Read one object of the top-level array and hand its fields to @spec. */
static int json_object(struct json *js, const struct json_spec *spec)
{
	char *f[JSON_MAX_FIELDS] = { NULL }, *key, *val;
	int i, ret = -1;

	js->p++;	/* '{' */
	json_skip_ws(js);
	if (js->p < js->end && *js->p == '}') {
		js->p++;
		return 0;
	}
	for (;;) {
		json_skip_ws(js);
		if (js->p >= js->end || *js->p != '"') {
			json_error(js, "expected a key");
			goto out;
		}
		if (json_string(js, &key))
			goto out;
		json_skip_ws(js);
		if (js->p >= js->end || *js->p != ':') {
			free(key);
			json_error(js, "expected ':'");
			goto out;
		}
		js->p++;
		if (json_value(js, &val, 1)) {
			free(key);
			goto out;
		}
		for (i = 0; i < spec->nr; i++)
			if (!strcmp(key, spec->keys[i]))
				break;
		free(key);
		if (i < spec->nr) {
			free(f[i]);	/* the last of duplicate keys wins */
			f[i] = val;
		} else {
			free(val);
		}
		json_skip_ws(js);
		if (js->p < js->end && *js->p == ',') {
			js->p++;
			continue;
		}
		if (js->p < js->end && *js->p == '}') {
			js->p++;
			break;
		}
		json_error(js, "expected ',' or '}'");
		goto out;
	}
	ret = 0;
	if (spec->fn(f, spec->arg)) {
		json_error(js, "out of memory");
		ret = -1;
	}
out:
	for (i = 0; i < spec->nr; i++)
		free(f[i]);
	return ret;
}

/* An event of the tables goes into the table: events need a name. */
static int table_add_cb(char **f, void *arg)
{
	if (!f[F_NAME] || !f[F_NAME][0])
		return 0;
	return table_add(arg, f);
}

/* Parse one table file held in @buf: an array of objects. */
static int json_parse_table(const char *buf, size_t len, const char *path,
			    const struct json_spec *spec, char *err,
			    size_t errlen)
{
	struct json js = {
		.start = buf, .p = buf, .end = buf + len,
		.path = path, .err = err, .errlen = errlen,
	};

	if (len >= 3 && !memcmp(buf, "\xef\xbb\xbf", 3))
		js.p += 3;	/* UTF-8 byte order mark */
	json_skip_ws(&js);
	if (js.p >= js.end || *js.p != '[')
		return json_error(&js, "expected '['");
	js.p++;
	json_skip_ws(&js);
	if (js.p < js.end && *js.p == ']') {
		js.p++;
	} else {
		for (;;) {
			json_skip_ws(&js);
			if (js.p < js.end && *js.p == '{') {
				if (json_object(&js, spec))
					return -1;
			} else if (json_value(&js, NULL, 1)) {
				return -1;	/* not an event: skipped */
			}
			json_skip_ws(&js);
			if (js.p < js.end && *js.p == ',') {
				js.p++;
				continue;
			}
			if (js.p < js.end && *js.p == ']') {
				js.p++;
				break;
			}
			return json_error(&js, "expected ',' or ']'");
		}
	}
	json_skip_ws(&js);
	if (js.p != js.end)
		return json_error(&js, "trailing characters after ']'");
	return 0;
}

int sim_json_read(const char *path, const char *const *keys, int nr,
		  int (*fn)(char **vals, void *arg), void *arg,
		  char *err, size_t errlen)
{
	struct json_spec spec = { keys, nr, fn, arg };
	size_t len = 0, cap = 0, n;
	char *buf = NULL, *nbuf;
	FILE *f;
	int ret;

	if (nr > JSON_MAX_FIELDS) {
		sim_err(err, errlen, "%s: too many fields asked for", path);
		return -1;
	}
	f = fopen(path, "rb");
	if (!f) {
		sim_err(err, errlen, "cannot open %s: %s", path,
			strerror(errno));
		return -1;
	}
	for (;;) {
		if (len == cap) {
			cap = cap ? 2 * cap : 65536;
			nbuf = realloc(buf, cap);
			if (!nbuf) {
				sim_err(err, errlen, "%s: out of memory",
					path);
				ret = -1;
				goto out;
			}
			buf = nbuf;
		}
		n = fread(buf + len, 1, cap - len, f);
		len += n;
		if (n == 0)
			break;
	}
	if (ferror(f)) {
		sim_err(err, errlen, "cannot read %s", path);
		ret = -1;
		goto out;
	}
	ret = json_parse_table(buf, len, path, &spec, err, errlen);
out:
	free(buf);
	fclose(f);
	return ret;
}

/* Is @name one of the table files of a model (not metrics, not uncore)? */
static bool table_file_wanted(const char *name)
{
	size_t len = strlen(name);

	if (len < 5 || strcmp(name + len - 5, ".json"))
		return false;
	return !strstr(name, "metrics") && strcmp(name, "metricgroups.json") &&
	       strcmp(name, "counter.json") && strncmp(name, "uncore-", 7);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void table_free(struct table *tab)
{
	size_t i;

	for (i = 0; i < tab->nr; i++)
		free(tab->ev[i].name);
	free(tab->ev);
	free(tab->dir);
	memset(tab, 0, sizeof(*tab));
}

/* Read all table files of the directory @dir into @tab, in name order. */
static int table_load(const char *dir, struct table *tab,
		      char *err, size_t errlen)
{
	char **names = NULL, **nn, *path;
	size_t nr = 0, cap = 0, i;
	struct dirent *de;
	int ret = -1;
	DIR *d;

	d = opendir(dir);
	if (!d) {
		sim_err(err, errlen, "cannot read event tables in %s: %s",
			dir, strerror(errno));
		return -1;
	}
	while ((de = readdir(d))) {
		if (!table_file_wanted(de->d_name))
			continue;
		if (nr == cap) {
			cap = cap ? 2 * cap : 16;
			nn = realloc(names, cap * sizeof(*names));
			if (!nn)
				goto nomem;
			names = nn;
		}
		names[nr] = str_dup(de->d_name);
		if (!names[nr])
			goto nomem;
		nr++;
	}
	if (!nr) {
		sim_err(err, errlen, "no event tables in %s", dir);
		goto out;
	}
	qsort(names, nr, sizeof(*names), cmp_str);

	for (i = 0; i < nr; i++) {
		path = malloc(strlen(dir) + strlen(names[i]) + 2);
		if (!path)
			goto nomem;
		sprintf(path, "%s/%s", dir, names[i]);
		ret = sim_json_read(path, field_keys, NR_FIELDS, table_add_cb,
				    tab, err, errlen);
		free(path);
		if (ret)
			goto out;
	}
	ret = 0;
	goto out;
nomem:
	sim_err(err, errlen, "%s: out of memory", dir);
	ret = -1;
out:
	for (i = 0; i < nr; i++)
		free(names[i]);
	free(names);
	closedir(d);
	return ret;
}

/*
 * The tables of @pmu in the tree @ksrc, from the cache or read now. A
 * model read from another tree before is read again.
 */
static const struct table *table_get(const struct sim_pmu *pmu,
				     const char *ksrc, char *err,
				     size_t errlen)
{
	struct table *tab = NULL, tmp;
	char *dir;
	int i;

	memset(&tmp, 0, sizeof(tmp));
	if (!ksrc || !*ksrc)
		ksrc = ".";
	dir = malloc(strlen(ksrc) + strlen(JSON_SUBDIR) +
		     strlen(pmu->json_dir) + 1);
	if (!dir) {
		sim_err(err, errlen, "out of memory");
		return NULL;
	}
	sprintf(dir, "%s%s%s", ksrc, JSON_SUBDIR, pmu->json_dir);

	for (i = 0; i < NR_CACHE; i++)
		if (cache[i].dir && !strcmp(cache[i].dir, dir)) {
			free(dir);
			return &cache[i];
		}

	if (table_load(dir, &tmp, err, errlen)) {
		table_free(&tmp);
		free(dir);
		return NULL;
	}
	tmp.dir = dir;
	tmp.json_dir = pmu->json_dir;

	/* Replace the same model from another tree, else take a free slot. */
	for (i = 0; i < NR_CACHE && !tab; i++)
		if (cache[i].dir && !strcmp(cache[i].json_dir, pmu->json_dir))
			tab = &cache[i];
	for (i = 0; i < NR_CACHE && !tab; i++)
		if (!cache[i].dir)
			tab = &cache[i];
	if (!tab)
		tab = &cache[0];
	table_free(tab);
	*tab = tmp;
	return tab;
}

/* Free the cache at exit, so that leak checkers see a clean heap. */
static void __attribute__((destructor)) table_cache_free(void)
{
	int i;

	for (i = 0; i < NR_CACHE; i++)
		table_free(&cache[i]);
}

/* ---- event lists ---- */

static u64 all_gp(const struct sim_pmu *pmu)
{
	return pmu->nr_gp >= 64 ? ~0ULL : (1ULL << pmu->nr_gp) - 1;
}

/* Fixed counter @k as a mask bit, if @pmu has it. */
static u64 fixed_bit(const struct sim_pmu *pmu, int k)
{
	return k < pmu->nr_fixed ? 1ULL << (SIM_FIXED_BASE + k) : 0;
}

/*
 * Table events perf opens with their architectural encoding although the
 * table says "Fixed counter N": jevents.py (real_event()) writes
 * INST_RETIRED.ANY as event=0xc0 and CPU_CLK_UNHALTED.THREAD as event=0x3c,
 * and the kernel's FIXED_EVENT_CONSTRAINT entries for 0x00c0 and 0x003c
 * take every GP counter besides the fixed one (only pseudo encodings such
 * as CPU_CLK_UNHALTED.REF_TSC's 0x0300 stay on theirs). THREAD_ANY is
 * event=0x3c,any=1, which matches no fixed constraint: GP counters only.
 */
static const struct {
	const char *name;
	int fixed;		/* the fixed counter it may also use, or -1 */
} arch_encoded[] = {
	{ "INST_RETIRED.ANY",		0 },
	{ "INST_RETIRED.ANY_P",		0 },
	{ "CPU_CLK_UNHALTED.THREAD",	1 },
	{ "CPU_CLK_UNHALTED.CORE",	1 },
	{ "CPU_CLK_UNHALTED.THREAD_ANY", -1 },
};

/* Static mask of a table event on @pmu, as the kernel constrains it. */
static u64 tab_event_mask(const struct sim_pmu *pmu,
			  const struct tab_event *te)
{
	u64 gp = all_gp(pmu), m;
	size_t i;

	for (i = 0; i < sizeof(arch_encoded) / sizeof(arch_encoded[0]); i++) {
		if (strcasecmp(te->name, arch_encoded[i].name))
			continue;
		if (arch_encoded[i].fixed < 0)
			return gp;
		return gp | fixed_bit(pmu, arch_encoded[i].fixed);
	}
	if (te->fixed >= 0)
		return te->fixed < pmu->nr_fixed ?
		       1ULL << (SIM_FIXED_BASE + te->fixed) : gp;
	/* "0,1,2,3" is perf's way to say: any GP counter. */
	if ((te->gp_list & 0xf) == 0xf)
		return gp;
	m = te->gp_list & gp;
	return m ? m : gp;
}

/* perf's generic hardware events. */
enum { GEN_GP, GEN_CYCLES, GEN_INSTRUCTIONS, GEN_REF_CYCLES };

static const struct {
	const char *name;
	int kind;
} generic_events[] = {
	{ "cycles",		GEN_CYCLES },
	{ "cpu-cycles",		GEN_CYCLES },
	{ "instructions",	GEN_INSTRUCTIONS },
	{ "ref-cycles",		GEN_REF_CYCLES },
	{ "branches",		GEN_GP },
	{ "branch-instructions", GEN_GP },
	{ "branch-misses",	GEN_GP },
	{ "cache-references",	GEN_GP },
	{ "cache-misses",	GEN_GP },
	{ "bus-cycles",		GEN_GP },
	{ "stalled-cycles-frontend", GEN_GP },
	{ "stalled-cycles-backend", GEN_GP },
};


/*
 * perf's legacy hardware cache events ("L1-dcache-load-misses",
 * "iTLB-loads"; parse-events.c's names): the config of the @len bytes at
 * @name (type | op << 8 | result << 16), or -1 if they name none.
 */
long sim_hw_cache_config(const char *name, size_t len)
{
	static const char *const types[] = {
		"L1-dcache|l1-d|l1d|L1-data", "L1-icache|l1-i|l1i|L1-instruction",
		"LLC|L2", "dTLB|d-tlb|Data-TLB", "iTLB|i-tlb|Instruction-TLB",
		"branch|branches|bpu|btb|bpc", "node",
	};
	static const char *const ops[] = {
		"load|loads|read", "store|stores|write",
		"prefetch|prefetches|speculative-read|speculative-load",
	};
	static const char *const results[] = {
		"refs|Reference|ops|access", "misses|miss",
	};
	const char *const *tabs[3] = { types, ops, results };
	const size_t nr[3] = { 7, 3, 2 };
	long val[3] = { -1, -1, 0 };
	const char *p = name, *end = name + len;
	int part;

	for (part = 0; part < 3 && p < end; part++) {
		size_t i, best = 0;

		for (i = 0; i < nr[part]; i++) {
			const char *alt = tabs[part][i];

			while (*alt) {
				size_t al = strcspn(alt, "|");

				/* longest alternative followed by '-' or the end */
				if (al <= (size_t)(end - p) && al > best &&
				    !strncasecmp(p, alt, al) &&
				    (p + al == end || p[al] == '-')) {
					best = al;
					val[part] = i;
				}
				alt += al + (alt[al] == '|');
			}
		}
		if (!best)
			return -1;
		p += best + (p + best < end);
	}
	if (p < end || val[0] < 0 || val[1] < 0)
		return -1;
	return val[0] | val[1] << 8 | val[2] << 16;
}

/*
 * Look @name up among perf's generic events. Returns 1 if found (@ev
 * filled), 0 if not, -1 if the PMU cannot count it.
 */
static int parse_generic(const struct sim_pmu *pmu, const char *name,
			 const char *token, struct sim_event *ev,
			 char *err, size_t errlen)
{
	size_t i;

	for (i = 0; i < sizeof(generic_events) / sizeof(generic_events[0]);
	     i++)
		if (!strcasecmp(name, generic_events[i].name))
			break;
	if (i == sizeof(generic_events) / sizeof(generic_events[0])) {
		/*
		 * A hardware cache event: the kernel's per-model table maps
		 * it to a raw event, not modelled here: any GP counter.
		 */
		if (sim_hw_cache_config(name, strlen(name)) < 0)
			return 0;
		ev->corrupting = false;
		ev->mask = all_gp(pmu);
		return 1;
	}

	ev->corrupting = false;
	switch (generic_events[i].kind) {
	case GEN_CYCLES:
		ev->mask = all_gp(pmu) | fixed_bit(pmu, 1);
		break;
	case GEN_INSTRUCTIONS:
		ev->mask = all_gp(pmu) | fixed_bit(pmu, 0);
		break;
	case GEN_REF_CYCLES:
		ev->mask = fixed_bit(pmu, 2);
		if (!ev->mask) {
			sim_err(err, errlen,
				"event '%s' needs fixed counter 2, PMU %s has none",
				token, pmu->name);
			return -1;
		}
		break;
	default:
		ev->mask = all_gp(pmu);
	}
	return 1;
}

/*
 * Parse @name as a raw code rUUEE. Returns 1 if it is one (@ev filled),
 * 0 if it is no raw code at all, -1 if it is a malformed one.
 */
static int parse_raw(const struct sim_pmu *pmu, const struct table *tab,
		     const char *name, const char *token,
		     struct sim_event *ev, char *err, size_t errlen)
{
	unsigned int val = 0, code, umask;
	const char *s = name + 1;
	size_t i, n;

	if (name[0] != 'r' && name[0] != 'R')
		return 0;
	for (n = 0; hex_val(s[n]) >= 0; n++)
		val = (val << 4 | hex_val(s[n])) & 0xfffff;
	/*
	 * "r" and anything like "r8x1d0" are raw codes gone wrong; names
	 * like ROB_MISC_EVENTS.LBR_INSERTS or ref-cycles are no raw codes.
	 */
	if (s[n] && !isdigit((unsigned char)s[0]))
		return 0;
	if (s[n] || n == 0 || n > 4) {
		sim_err(err, errlen, "malformed raw event code '%s'", token);
		return -1;
	}
	code = val & 0xff;
	umask = val >> 8;

	ev->mask = all_gp(pmu);
	ev->corrupting = code >= 0xd0 && code <= 0xd3;
	for (i = 0; tab && i < tab->nr; i++)
		if (tab->ev[i].raw_ok && tab->ev[i].code == (int)code &&
		    tab->ev[i].umask == umask) {
			ev->mask = tab_event_mask(pmu, &tab->ev[i]);
			ev->corrupting = tab->ev[i].corrupting;
			break;
		}
	return 1;
}

/* Are all modifiers in @mods ones perf knows? */
static bool modifiers_ok(const char *mods)
{
	if (!*mods)
		return false;
	for (; *mods; mods++)
		if (!strchr("ukhHGpPSIDeW", *mods))
			return false;
	return true;
}

/* Strip blanks around @s in place; returns the new start. */
static char *trim(char *s)
{
	char *e = s + strlen(s);

	while (*s == ' ' || *s == '\t')
		s++;
	while (e > s && (e[-1] == ' ' || e[-1] == '\t'))
		e--;
	*e = '\0';
	return s;
}

/* Copy @token into @ev->name, cut to fit. */
static void set_name(struct sim_event *ev, const char *token)
{
	snprintf(ev->name, sizeof(ev->name), "%s", token);
}

/* Parse one token of an event list into @ev. */
static int parse_event(const struct sim_pmu *pmu, const struct table *tab,
		       char *token, struct sim_event *ev,
		       char *err, size_t errlen)
{
	char *name, *colon;
	size_t i;
	int ret;

	memset(ev, 0, sizeof(*ev));
	set_name(ev, token);

	/* The name alone, modifiers checked and dropped. */
	name = str_dup(token);
	if (!name) {
		sim_err(err, errlen, "out of memory");
		return -1;
	}
	colon = strchr(name, ':');
	if (colon) {
		*colon = '\0';
		if (!modifiers_ok(colon + 1)) {
			sim_err(err, errlen, "bad modifier in event '%s'",
				token);
			ret = -1;
			goto out;
		}
	}
	if (!*name) {
		sim_err(err, errlen, "missing event name in '%s'", token);
		ret = -1;
		goto out;
	}

	ret = parse_raw(pmu, tab, name, token, ev, err, errlen);
	if (ret)
		goto out;
	ret = parse_generic(pmu, name, token, ev, err, errlen);
	if (ret)
		goto out;
	for (i = 0; tab && i < tab->nr; i++)
		if (!strcasecmp(tab->ev[i].name, name)) {
			ev->mask = tab_event_mask(pmu, &tab->ev[i]);
			ev->corrupting = tab->ev[i].corrupting;
			ret = 1;
			goto out;
		}
	sim_err(err, errlen, "unknown event '%s' for PMU %s", token,
		pmu->name);
	ret = -1;
out:
	free(name);
	return ret < 0 ? -1 : 0;
}

/*
 * Split the comma-separated @list and hand each token to @parse. The list
 * as a whole (no empty token, at most @max) is checked first, and the
 * events go to a scratch array: @ev is written only if all is good.
 */
static int parse_list(const char *list, struct sim_event *ev, int max,
		      int (*parse)(char *token, struct sim_event *ev,
				   const void *arg, char *err, size_t errlen),
		      const void *arg, const char *what,
		      char *err, size_t errlen)
{
	struct sim_event *tmp = NULL;
	char *copy, *s, *comma, **tokens = NULL;
	int nr = 1, n = 0, i, ret = -1;

	copy = str_dup(list ? list : "");
	if (!copy) {
		sim_err(err, errlen, "out of memory");
		return -1;
	}
	if (!*trim(copy)) {
		sim_err(err, errlen, "empty %s list", what);
		goto out;
	}
	for (s = copy; *s; s++)
		nr += *s == ',';
	tokens = calloc(nr, sizeof(*tokens));
	tmp = calloc(nr, sizeof(*tmp));
	if (!tokens || !tmp) {
		sim_err(err, errlen, "out of memory");
		goto out;
	}
	for (s = copy; s; s = comma ? comma + 1 : NULL) {
		comma = strchr(s, ',');
		if (comma)
			*comma = '\0';
		tokens[n] = trim(s);
		if (!*tokens[n]) {
			sim_err(err, errlen, "empty %s in list '%s'", what,
				list);
			goto out;
		}
		if (n >= max) {
			sim_err(err, errlen,
				"too many %ss (at most %d) at '%s'", what,
				max < 0 ? 0 : max, tokens[n]);
			goto out;
		}
		n++;
	}
	for (i = 0; i < n; i++)
		if (parse(tokens[i], &tmp[i], arg, err, errlen))
			goto out;
	memcpy(ev, tmp, n * sizeof(*ev));
	ret = n;
out:
	free(tokens);
	free(tmp);
	free(copy);
	return ret;
}

/* What parse_event_cb() needs besides the token. */
struct event_ctx {
	const struct sim_pmu *pmu;
	const struct table *tab;
};

static int parse_event_cb(char *token, struct sim_event *ev,
			  const void *arg, char *err, size_t errlen)
{
	const struct event_ctx *ctx = arg;

	return parse_event(ctx->pmu, ctx->tab, token, ev, err, errlen);
}

int sim_events_parse(const struct sim_pmu *pmu, const char *ksrc,
		     const char *list, struct sim_event *ev, int max,
		     char *err, size_t errlen)
{
	struct event_ctx ctx = { .pmu = pmu, .tab = NULL };

	if (!pmu || pmu->nr_gp < 1 || pmu->nr_gp > 32 || pmu->nr_fixed < 0 ||
	    pmu->nr_fixed > 32) {
		sim_err(err, errlen, "bad PMU description");
		return -1;
	}
	if (pmu->json_dir) {
		ctx.tab = table_get(pmu, ksrc, err, errlen);
		if (!ctx.tab)
			return -1;
	}
	return parse_list(list, ev, max, parse_event_cb, &ctx, "event",
			  err, errlen);
}

/* Parse one token "MASK" or "MASK:c" of an explicit mask list. */
static int parse_mask_cb(char *token, struct sim_event *ev, const void *arg,
			 char *err, size_t errlen)
{
	unsigned long long val;
	char *end;

	memset(ev, 0, sizeof(*ev));
	set_name(ev, token);
	if (!isdigit((unsigned char)*token))
		goto bad;
	errno = 0;
	val = strtoull(token, &end, 0);
	if (errno || val == 0)
		goto bad;
	if (*end == ':') {
		if (strcmp(end + 1, "c"))
			goto bad;
		ev->corrupting = true;
	} else if (*end) {
		goto bad;
	}
	ev->mask = val;
	return 0;
bad:
	sim_err(err, errlen, "bad counter mask '%s'", token);
	return -1;
}

int sim_masks_parse(const char *list, struct sim_event *ev, int max,
		    char *err, size_t errlen)
{
	return parse_list(list, ev, max, parse_mask_cb, NULL, "mask",
			  err, errlen);
}

/*
 * Every event of the model's tables (name, static mask, corrupting), for
 * random event lists. Returns how many were written (at most @max), or -1
 * with @err set.
 */
int sim_events_all(const struct sim_pmu *pmu, const char *ksrc,
		   struct sim_event *ev, int max, char *err, size_t errlen)
{
	const struct table *tab;
	size_t i;
	int n = 0;

	if (!pmu->json_dir) {
		sim_err(err, errlen, "PMU %s has no event tables", pmu->name);
		return -1;
	}
	tab = table_get(pmu, ksrc, err, errlen);
	if (!tab)
		return -1;
	for (i = 0; i < tab->nr && n < max; i++, n++) {
		set_name(&ev[n], tab->ev[i].name);
		ev[n].mask = tab_event_mask(pmu, &tab->ev[i]);
		ev[n].corrupting = tab->ev[i].corrupting;
	}
	return n;
}
