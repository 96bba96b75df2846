// SPDX-License-Identifier: GPL-2.0
/*
 * The simulator's SVG timeline: one row per counter of each hyper-thread,
 * one column per tick, cells filled with the colour of the event counting
 * there. Corrupting events are hatched, XSU states are tinted and lettered,
 * and cells inside the erratum's corruption window get a red outline. The
 * document is plain SVG 1.1 (rect, line, text, g, defs, pattern, title).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "sim_svg.h"

#define SVG_ROW_H	18	/* height of one counter row */
#define SVG_EV_INSET	3	/* event bar inset within its row, XSU on */
#define SVG_PLOT_W	1600	/* width the timeline aims for */
#define SVG_CELL_MAX	14	/* widest cell */
#define SVG_LETTER_MIN	8	/* narrowest cell that gets a state letter */
#define SVG_MARGIN	16
#define SVG_CHAR_W	7.3	/* advance of a 12 px monospace character */
#define SVG_SMALL_W	6.7	/* advance of an 11 px monospace character */
#define SVG_LEG_LINE	20	/* legend line height */
#define SVG_LEG_HEAD	104	/* width of the legend's heading column */
#define SVG_MIN_W	720	/* narrowest document, room for the legend */

#define SVG_EXPOSED	"#e00000"
#define SVG_TINT_X	"#4a4a4a"
#define SVG_TINT_S	"#bdbdbd"

/*
 * Event colours, indexed by (thread, event): distinguishable hues, none of
 * them red (the warning colour) or grey (the state tints).
 */
static const unsigned int svg_palette[] = {
	0x1f77b4, 0xff7f0e, 0x2ca02c, 0x9467bd, 0x17becf, 0xbcbd22,
	0xe377c2, 0x8c564b, 0xaec7e8, 0xffbb78, 0x98df8a, 0xc5b0d5,
	0x9edae5, 0xdbdb8d, 0xf7b6d2, 0xc49c94,
};

#define SVG_NR_COLOURS	(sizeof(svg_palette) / sizeof(svg_palette[0]))

/* Where everything goes, in pixels. */
struct svg_geom {
	int cw;		/* cell width */
	int rows;	/* rows per thread */
	int gx, gy;	/* top-left corner of HT0's band */
	int band_h;	/* height of one thread's band */
	int gap;	/* space between the two bands */
	int every;	/* tick label interval */
	int width, height;
	int legend_y;	/* top of the legend */
};

/* One legend entry: a swatch and its text. */
struct svg_item {
	unsigned int rgb;	/* swatch fill */
	bool hatch;		/* hatched: corrupting */
	bool exposed;		/* red outline: exposure */
	char letter;		/* state letter drawn on the swatch, or 0 */
	const char *text;
	const char *suffix;	/* appended to text, not escaped, or NULL */
	const struct sim_event *ev;	/* for the tooltip, or NULL */
};

/* The legend's pen: flows items left to right, wrapping at xmax. */
struct svg_pen {
	FILE *f;	/* NULL: only measure */
	int x0, x, y, xmax;
};

/*
 * Length of the well-formed UTF-8 sequence at @s (1 to 4), or 0 if it is
 * not one: XML parsers reject malformed text, so such bytes are replaced.
 */
static int utf8_len(const unsigned char *s)
{
	int n, i;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4;
	else
		return 0;
	for (i = 1; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	/* overlong forms, surrogates, beyond U+10FFFF */
	if ((s[0] == 0xe0 && s[1] < 0xa0) || (s[0] == 0xed && s[1] >= 0xa0) ||
	    (s[0] == 0xf0 && s[1] < 0x90) || (s[0] == 0xf4 && s[1] >= 0x90))
		return 0;
	return n;
}

/* Write @s as XML character data or attribute text. */
static void put_esc(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	while (*p) {
		int n = utf8_len(p);

		switch (*p) {
		case '&':
			fputs("&amp;", f);
			break;
		case '<':
			fputs("&lt;", f);
			break;
		case '>':
			fputs("&gt;", f);
			break;
		case '"':
			fputs("&quot;", f);
			break;
		case '\'':
			fputs("&#39;", f);
			break;
		default:
			if (!n || (*p < 0x20 && *p != '\t')) {
				fputc('?', f);
				n = 1;
			} else {
				fwrite(p, 1, n, f);
			}
			p += n;
			continue;
		}
		p++;
	}
}

/* Width in pixels of @s in a monospace font of advance @adv. */
static int text_w(const char *s, double adv)
{
	int n = 0;

	for (; *s; s++)
		if ((*s & 0xc0) != 0x80)
			n++;
	return (int)(n * adv + 0.5);
}

static unsigned int ev_rgb(const struct sim_timeline *tl, int th, int e)
{
	int i = th ? tl->nr_events[0] + e : e;

	return svg_palette[i % SVG_NR_COLOURS];
}

/* Black or white, whichever reads better on @rgb. */
static const char *ink_on(unsigned int rgb)
{
	unsigned int r = rgb >> 16 & 0xff, g = rgb >> 8 & 0xff, b = rgb & 0xff;

	return 299 * r + 587 * g + 114 * b > 140000 ? "#000" : "#fff";
}

static const struct sim_event *cell_event(const struct sim_timeline *tl,
					  int t, int th, int r)
{
	int e = SIM_CELL(tl, t, th, r).event;

	return e >= 0 ? &tl->events[th][e] : NULL;
}

/*
 * The erratum's corruption window: a non-corrupting event on GP counter
 * @r of thread @th while the sibling counts a corrupting event on its own
 * GP counter @r.
 */
static bool exposed(const struct sim_timeline *tl, int t, int th, int r)
{
	const struct sim_event *me, *sib;

	if (r >= tl->nr_gp)
		return false;
	me = cell_event(tl, t, th, r);
	sib = cell_event(tl, t, !th, r);
	return me && !me->corrupting && sib && sib->corrupting;
}

/* Check @tl before anything is written. Returns 0, or -1 with @err set. */
static int check_timeline(const struct sim_timeline *tl, char *err,
			  size_t errlen)
{
	int t, th, r, rows;

	if (!tl) {
		sim_err(err, errlen, "svg: no timeline");
		return -1;
	}
	rows = tl->nr_gp + tl->nr_fixed;
	if (tl->ticks < 1) {
		sim_err(err, errlen, "svg: timeline has %d ticks", tl->ticks);
		return -1;
	}
	if (tl->nr_gp < 0 || tl->nr_fixed < 0 || rows < 1 || rows > 64) {
		sim_err(err, errlen, "svg: bad counter rows (%d GP, %d fixed)",
			tl->nr_gp, tl->nr_fixed);
		return -1;
	}
	if (!tl->cells) {
		sim_err(err, errlen, "svg: timeline has no cells");
		return -1;
	}
	for (th = 0; th < 2; th++) {
		if (tl->nr_events[th] < 0 ||
		    tl->nr_events[th] > SIM_MAX_EVENTS ||
		    (tl->nr_events[th] && !tl->events[th])) {
			sim_err(err, errlen, "svg: bad event list of HT%d", th);
			return -1;
		}
	}
	for (t = 0; t < tl->ticks; t++) {
		for (th = 0; th < 2; th++) {
			for (r = 0; r < rows; r++) {
				const struct sim_cell *c =
					&SIM_CELL(tl, t, th, r);

				if (c->event >= tl->nr_events[th] ||
				    c->event < -1 || c->state > SIM_X) {
					sim_err(err, errlen,
						"svg: bad cell at tick %d HT%d row %d (event %d, state %u)",
						t, th, r, c->event, c->state);
					return -1;
				}
			}
		}
	}
	return 0;
}

/* Smallest interval 1, 2, 5, 10, 20, 50, ... whose labels do not touch. */
static int label_interval(int ticks, int cw)
{
	int digits = 1, n, need, step = 0;
	static const int mant[] = { 1, 2, 5 };

	for (n = ticks - 1; n >= 10; n /= 10)
		digits++;
	need = (int)(digits * SVG_SMALL_W) + 20;
	for (n = 1;; n *= 10)
		for (step = 0; step < 3; step++)
			if (mant[step] * n * cw >= need)
				return mant[step] * n;
}

static void pen_newline(struct svg_pen *p)
{
	p->x = p->x0;
	p->y += SVG_LEG_LINE;
}

/* Draw (or measure) a legend heading at the start of a new line. */
static void pen_heading(struct svg_pen *p, int x, const char *text)
{
	if (p->f) {
		fprintf(p->f, "<text x=\"%d\" y=\"%d\" font-weight=\"bold\">",
			x, p->y + 12);
		put_esc(p->f, text);
		fputs("</text>\n", p->f);
	}
}

/* Draw a 12x12 swatch at (@x, @y) as @it describes. */
static void put_swatch(FILE *f, const struct svg_item *it, int x, int y)
{
	fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" fill=\"#%06x\" stroke=\"%s\" stroke-width=\"%d\"/>\n",
		x, y, it->rgb, it->exposed ? SVG_EXPOSED : "#555",
		it->exposed ? 2 : 1);
	if (it->hatch)
		fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" fill=\"url(#hatch)\"/>\n",
			x, y);
	if (it->letter)
		fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"9\" font-weight=\"bold\" text-anchor=\"middle\" fill=\"%s\">%c</text>\n",
			x + 6, y + 10, ink_on(it->rgb), it->letter);
}

/* Place one legend item, wrapping first if it does not fit the line. */
static void pen_item(struct svg_pen *p, const struct svg_item *it)
{
	int w = 18 + text_w(it->text, SVG_CHAR_W) +
		(it->suffix ? text_w(it->suffix, SVG_CHAR_W) : 0);

	if (p->x > p->x0 && p->x + w > p->xmax)
		pen_newline(p);
	if (p->f) {
		fputs("<g>", p->f);
		if (it->ev) {
			fputs("<title>", p->f);
			put_esc(p->f, it->ev->name);
			fprintf(p->f, ": mask 0x%llx%s</title>",
				(unsigned long long)it->ev->mask,
				it->ev->corrupting ? ", corrupting" : "");
		}
		fputc('\n', p->f);
		put_swatch(p->f, it, p->x, p->y + 2);
		fprintf(p->f, "<text x=\"%d\" y=\"%d\">", p->x + 18, p->y + 12);
		put_esc(p->f, it->text);
		if (it->suffix)
			put_esc(p->f, it->suffix);
		fputs("</text></g>\n", p->f);
	}
	p->x += w + 20;
}

/*
 * Draw the legend from @y0 down (or only measure it if @f is NULL): each
 * thread's events with their colours, then the meaning of the marks.
 * Returns the height it takes.
 */
static int legend(FILE *f, const struct sim_timeline *tl,
		  const struct svg_geom *g, int y0)
{
	struct svg_pen p = {
		.f = f,
		.x0 = SVG_MARGIN + SVG_LEG_HEAD,
		.x = SVG_MARGIN + SVG_LEG_HEAD,
		.y = y0,
		.xmax = g->width - SVG_MARGIN,
	};
	struct svg_item it;
	int th, e;

	for (th = 0; th < 2; th++) {
		pen_heading(&p, SVG_MARGIN, th ? "HT1 events:" : "HT0 events:");
		if (!tl->nr_events[th]) {
			memset(&it, 0, sizeof(it));
			it.rgb = 0xffffff;
			it.text = "(none)";
			pen_item(&p, &it);
		}
		for (e = 0; e < tl->nr_events[th]; e++) {
			const struct sim_event *ev = &tl->events[th][e];

			memset(&it, 0, sizeof(it));
			it.rgb = ev_rgb(tl, th, e);
			it.hatch = ev->corrupting;
			it.text = ev->name;
			it.suffix = ev->corrupting ? " (corrupting)" : NULL;
			it.ev = ev;
			pen_item(&p, &it);
		}
		pen_newline(&p);
	}

	pen_heading(&p, SVG_MARGIN, "Marks:");
	memset(&it, 0, sizeof(it));
	it.rgb = 0xdddddd;
	it.hatch = true;
	it.text = "hatched: corrupting event";
	pen_item(&p, &it);
	memset(&it, 0, sizeof(it));
	it.rgb = 0xffffff;
	it.exposed = true;
	it.text = "red outline: exposed (sibling's same GP counter counts a corrupting event)";
	pen_item(&p, &it);
	if (tl->xsu) {
		memset(&it, 0, sizeof(it));
		it.rgb = 0x4a4a4a;
		it.letter = 'X';
		it.text = "XSU exclusive";
		pen_item(&p, &it);
		it.rgb = 0xbdbdbd;
		it.letter = 'S';
		it.text = "XSU shared";
		pen_item(&p, &it);
		it.rgb = 0xffffff;
		it.letter = 0;
		it.text = "XSU unused (no mark)";
		pen_item(&p, &it);
	}
	pen_newline(&p);
	return p.y - y0;
}

/* Lay the picture out: cell size, label column, bands, legend. */
static void layout(const struct sim_timeline *tl, struct svg_geom *g)
{
	int label_chars = 6, n, w;

	memset(g, 0, sizeof(*g));
	g->rows = tl->nr_gp + tl->nr_fixed;
	g->cw = SVG_PLOT_W / tl->ticks;
	if (g->cw > SVG_CELL_MAX)
		g->cw = SVG_CELL_MAX;
	if (g->cw < 1)
		g->cw = 1;
	g->every = label_interval(tl->ticks, g->cw);

	/* "HT0 c" plus the digits of the widest counter number */
	for (n = (tl->nr_gp > tl->nr_fixed ? tl->nr_gp : tl->nr_fixed) - 1;
	     n >= 10; n /= 10)
		label_chars++;
	g->gx = SVG_MARGIN + (int)(label_chars * SVG_SMALL_W) + 10;
	g->gy = 76;
	g->band_h = g->rows * SVG_ROW_H;
	g->gap = SVG_ROW_H;

	g->width = g->gx + tl->ticks * g->cw + SVG_MARGIN + 10;
	if (g->width < SVG_MIN_W)
		g->width = SVG_MIN_W;
	w = 2 * SVG_MARGIN + text_w(tl->title ? tl->title : "", 9.6);
	if (g->width < w)
		g->width = w;

	/* bottom tick labels, then the legend */
	g->legend_y = g->gy + 2 * g->band_h + g->gap + 36;
	g->height = g->legend_y + legend(NULL, tl, g, g->legend_y) +
		    SVG_MARGIN;
}

static int band_y(const struct svg_geom *g, int th)
{
	return g->gy + th * (g->band_h + g->gap);
}

static void put_tick_labels(FILE *f, const struct sim_timeline *tl,
			    const struct svg_geom *g, int y)
{
	int t;

	fprintf(f, "<g font-size=\"11\" fill=\"#444\" text-anchor=\"middle\">\n");
	fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">tick</text>\n",
		g->gx - 6, y);
	for (t = 0; t < tl->ticks; t += g->every)
		fprintf(f, "<text x=\"%d\" y=\"%d\">%d</text>\n",
			g->gx + t * g->cw + g->cw / 2, y, t);
	fputs("</g>\n", f);
}

/* Row labels, background and grid lines of thread @th's band. */
static void put_band_frame(FILE *f, const struct sim_timeline *tl,
			   const struct svg_geom *g, int th)
{
	int y = band_y(g, th), gw = tl->ticks * g->cw, r, t;

	fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"#fafafa\"/>\n",
		g->gx, y, gw, g->band_h);
	fputs("<g stroke=\"#e2e2e2\" stroke-width=\"1\">\n", f);
	for (t = g->every; t < tl->ticks; t += g->every)
		fprintf(f, "<line x1=\"%d.5\" y1=\"%d\" x2=\"%d.5\" y2=\"%d\"/>\n",
			g->gx + t * g->cw, y, g->gx + t * g->cw,
			y + g->band_h);
	for (r = 1; r < g->rows; r++)
		fprintf(f, "<line x1=\"%d\" y1=\"%d.5\" x2=\"%d\" y2=\"%d.5\"%s/>\n",
			g->gx, y + r * SVG_ROW_H, g->gx + gw,
			y + r * SVG_ROW_H,
			r == tl->nr_gp ? " stroke=\"#999\"" : "");
	fputs("</g>\n", f);

	fputs("<g font-size=\"11\" text-anchor=\"end\">\n", f);
	for (r = 0; r < g->rows; r++)
		fprintf(f, "<text x=\"%d\" y=\"%d\">HT%d %c%d</text>\n",
			g->gx - 6, y + r * SVG_ROW_H + 13, th,
			r < tl->nr_gp ? 'c' : 'f',
			r < tl->nr_gp ? r : r - tl->nr_gp);
	fputs("</g>\n", f);
}

/* Tints of the cells whose XSU state is not U, one rectangle per run. */
static void put_states(FILE *f, const struct sim_timeline *tl,
		       const struct svg_geom *g, int th)
{
	int y = band_y(g, th), r, t, t0;

	for (r = 0; r < g->rows; r++) {
		for (t = 0; t < tl->ticks; t = t0) {
			u8 st = SIM_CELL(tl, t, th, r).state;

			for (t0 = t + 1; t0 < tl->ticks &&
			     SIM_CELL(tl, t0, th, r).state == st; t0++)
				;
			if (st == SIM_U)
				continue;
			fprintf(f, "<rect class=\"state-%c\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\"/>\n",
				st == SIM_X ? 'x' : 's', g->gx + t * g->cw,
				y + r * SVG_ROW_H, (t0 - t) * g->cw, SVG_ROW_H,
				st == SIM_X ? SVG_TINT_X : SVG_TINT_S);
		}
	}
}

/*
 * The events of thread @th: one bar per run of ticks with the same event
 * on a row, hatched on top if the event is corrupting, with a tooltip.
 */
static void put_events(FILE *f, const struct sim_timeline *tl,
		       const struct svg_geom *g, int th)
{
	int inset = tl->xsu ? SVG_EV_INSET : 1;
	int y = band_y(g, th), r, t, t0;

	for (r = 0; r < g->rows; r++) {
		for (t = 0; t < tl->ticks; t = t0) {
			int e = SIM_CELL(tl, t, th, r).event, x, w, ry;
			const struct sim_event *ev;

			for (t0 = t + 1; t0 < tl->ticks &&
			     SIM_CELL(tl, t0, th, r).event == e; t0++)
				;
			if (e < 0)
				continue;
			ev = &tl->events[th][e];
			x = g->gx + t * g->cw;
			w = (t0 - t) * g->cw;
			ry = y + r * SVG_ROW_H + inset;
			fprintf(f, "<rect class=\"ev%s\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"#%06x\"><title>",
				ev->corrupting ? " corrupting" : "", x, ry, w,
				SVG_ROW_H - 2 * inset, ev_rgb(tl, th, e));
			put_esc(f, ev->name);
			fprintf(f, "%s: HT%d %c%d, ticks %d-%d</title></rect>\n",
				ev->corrupting ? " (corrupting)" : "", th,
				r < tl->nr_gp ? 'c' : 'f',
				r < tl->nr_gp ? r : r - tl->nr_gp, t, t0 - 1);
			if (ev->corrupting)
				fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"url(#hatch)\"/>\n",
					x, ry, w, SVG_ROW_H - 2 * inset);
		}
	}
}

/* A letter per cell whose XSU state is not U, when cells are wide enough. */
static void put_letters(FILE *f, const struct sim_timeline *tl,
			const struct svg_geom *g, int th)
{
	int y = band_y(g, th), r, t;

	if (g->cw < SVG_LETTER_MIN)
		return;
	fputs("<g font-size=\"9\" font-weight=\"bold\" text-anchor=\"middle\">\n",
	      f);
	for (r = 0; r < g->rows; r++) {
		for (t = 0; t < tl->ticks; t++) {
			const struct sim_cell *c = &SIM_CELL(tl, t, th, r);
			unsigned int bg;

			if (c->state == SIM_U)
				continue;
			if (c->event >= 0)
				bg = ev_rgb(tl, th, c->event);
			else
				bg = c->state == SIM_X ? 0x4a4a4a : 0xbdbdbd;
			fprintf(f, "<text x=\"%d\" y=\"%d\" fill=\"%s\">%c</text>\n",
				g->gx + t * g->cw + g->cw / 2,
				y + r * SVG_ROW_H + 12, ink_on(bg),
				c->state == SIM_X ? 'X' : 'S');
		}
	}
	fputs("</g>\n", f);
}

/* Red outlines around runs of exposed cells of thread @th. */
static void put_exposures(FILE *f, const struct sim_timeline *tl,
			  const struct svg_geom *g, int th)
{
	int y = band_y(g, th), r, t, t0;

	for (r = 0; r < tl->nr_gp; r++) {
		for (t = 0; t < tl->ticks; t = t0) {
			bool ex = exposed(tl, t, th, r);
			int x, w, ry;

			for (t0 = t + 1; t0 < tl->ticks &&
			     exposed(tl, t0, th, r) == ex; t0++)
				;
			if (!ex)
				continue;
			x = g->gx + t * g->cw;
			w = (t0 - t) * g->cw;
			ry = y + r * SVG_ROW_H;
			if (w >= 4)
				fprintf(f, "<rect class=\"exposed\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"%s\" stroke-width=\"2\"><title>exposed: ticks %d-%d</title></rect>\n",
					x + 1, ry + 1, w - 2, SVG_ROW_H - 2,
					SVG_EXPOSED, t, t0 - 1);
			else	/* too narrow to outline: a bar, 3 px at least */
				fprintf(f, "<rect class=\"exposed\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\"><title>exposed: ticks %d-%d</title></rect>\n",
					x - (w < 3 ? (3 - w) / 2 : 0), ry,
					w < 3 ? 3 : w, SVG_ROW_H, SVG_EXPOSED,
					t, t0 - 1);
		}
	}
}

/* The whole document. Write errors are left for the caller to find. */
static void put_svg(FILE *f, const struct sim_timeline *tl,
		    const struct svg_geom *g)
{
	const char *title = tl->title ? tl->title : "x86 PMU scheduling";
	int th;

	fputs("<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n",
	      f);
	fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" font-family=\"DejaVu Sans Mono, Menlo, Consolas, monospace\" font-size=\"12\">\n",
		g->width, g->height, g->width, g->height);
	fputs("<title>", f);
	put_esc(f, title);
	fputs("</title>\n", f);
	fputs("<defs>\n<pattern id=\"hatch\" patternUnits=\"userSpaceOnUse\" width=\"6\" height=\"6\" patternTransform=\"rotate(45)\">\n<rect width=\"2\" height=\"6\" fill=\"#000\" fill-opacity=\"0.55\"/>\n</pattern>\n</defs>\n",
	      f);
	fprintf(f, "<rect width=\"%d\" height=\"%d\" fill=\"#fff\"/>\n",
		g->width, g->height);

	fprintf(f, "<text x=\"%d\" y=\"28\" font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\" font-size=\"16\" font-weight=\"bold\">",
		SVG_MARGIN);
	put_esc(f, title);
	fputs("</text>\n", f);
	fprintf(f, "<text x=\"%d\" y=\"48\" font-size=\"11\" fill=\"#555\">%d ticks, %d GP + %d fixed counters per thread%s</text>\n",
		SVG_MARGIN, tl->ticks, tl->nr_gp, tl->nr_fixed,
		tl->xsu ? ", XSU states shown" : "");

	put_tick_labels(f, tl, g, g->gy - 6);
	for (th = 0; th < 2; th++) {
		fprintf(f, "<g id=\"ht%d\">\n", th);
		put_band_frame(f, tl, g, th);
		if (tl->xsu)
			put_states(f, tl, g, th);
		put_events(f, tl, g, th);
		if (tl->xsu)
			put_letters(f, tl, g, th);
		put_exposures(f, tl, g, th);
		fputs("</g>\n", f);
	}
	put_tick_labels(f, tl, g, band_y(g, 1) + g->band_h + 14);

	fputs("<g id=\"legend\">\n", f);
	legend(f, tl, g, g->legend_y);
	fputs("</g>\n</svg>\n", f);
}

int sim_svg_write(const struct sim_timeline *tl, const char *path,
		  char *err, size_t errlen)
{
	struct svg_geom g;
	FILE *f;
	int bad;

	if (err && errlen)
		err[0] = '\0';
	if (check_timeline(tl, err, errlen))
		return -1;
	if (!path || !*path) {
		sim_err(err, errlen, "svg: no output file");
		return -1;
	}

	layout(tl, &g);
	f = fopen(path, "w");
	if (!f) {
		sim_err(err, errlen, "svg: cannot open %s: %s", path,
			strerror(errno));
		return -1;
	}
	put_svg(f, tl, &g);
	bad = ferror(f);
	errno = 0;
	if (fclose(f) || bad) {
		sim_err(err, errlen, "svg: cannot write %s: %s", path,
			errno ? strerror(errno) : "I/O error");
		return -1;
	}
	return 0;
}
