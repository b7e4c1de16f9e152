/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Line charts (analyzers/plot.h) drawn with the SVG writer of lib/svg.c.
 *
 * The layout is fixed: the title on top, the plot area with a light grid
 * at the ticks, tick labels and axis labels below and to the left, the
 * legend in a column on the right, outside the data, so that it never hides
 * a line.  Ticks are "nice" numbers (1, 2 or 5 times a power of ten) on a
 * linear axis and powers of ten (with 2 and 5 between them when the range
 * is short) on a logarithmic one; labels above 9,999 are written 10k, 2.5M.
 * Fonts are 13 to 15 px, so the chart reads at 80 % zoom.  Points get a
 * small dot when a series has few of them, which also tells lines apart
 * where they overlap.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hs.h"
#include "plot.h"
#include "svg.h"

#define FONT_TICK	13.0
#define FONT_LABEL	14.0
#define FONT_TITLE	15.0
#define LEGEND_W	190.0
#define MARKER_MAX	64	/* series with at most this many points get dots */

/*
 * Policies: Okabe-Ito colours (yellow left out: unreadable on white) with
 * dash patterns, so no two styles are alike in greyscale.  0 is OPT's.
 */
static const struct hs_plot_style styles[HS_PLOT_STYLES] = {
	{ "#000000", "", 2.5 },
	{ "#0072B2", "", 2.0 },
	{ "#D55E00", "8 4", 2.0 },
	{ "#009E73", "2 3", 2.5 },
	{ "#CC79A7", "10 3 2 3", 2.0 },
	{ "#E69F00", "", 2.0 },
	{ "#56B4E9", "8 4", 2.0 },
	{ "#8C510A", "2 3", 2.5 },
	{ "#0072B2", "10 3 2 3", 2.0 },
	{ "#D55E00", "", 2.0 },
	{ "#009E73", "8 4", 2.0 },
	{ "#CC79A7", "2 3", 2.5 },
	{ "#E69F00", "10 3 2 3", 2.0 },
	{ "#56B4E9", "", 2.0 },
	{ "#8C510A", "8 4", 2.0 },
	{ "#0072B2", "2 3", 2.5 },
	/* HS_PLOT_AUX: greys */
	{ "#333333", "", 2.5 },
	{ "#777777", "8 4", 2.0 },
	{ "#333333", "2 3", 2.5 },
	{ "#999999", "10 3 2 3", 2.0 },
	{ "#555555", "12 3 3 3 3 3", 2.0 },
};

/**
 * hs_plot_style() - the colour, dash pattern and width of a style
 * @i: the style (taken modulo HS_PLOT_STYLES)
 *
 * Return: the style.
 */
const struct hs_plot_style *hs_plot_style(unsigned int i)
{
	return &styles[i % HS_PLOT_STYLES];
}

/* A tick label: 0.5, 40, 9999, 10k, 2.5M, 1G. */
static void fmt_num(char *buf, size_t size, double v)
{
	double a = fabs(v);

	if (a >= 1e9)
		snprintf(buf, size, "%.3gG", v / 1e9);
	else if (a >= 1e6)
		snprintf(buf, size, "%.3gM", v / 1e6);
	else if (a >= 1e4)
		snprintf(buf, size, "%.3gk", v / 1e3);
	else
		snprintf(buf, size, "%.4g", v);
}

/* 1, 2 or 5 times a power of ten, near @raw. */
static double nice_step(double raw)
{
	double mag = pow(10, floor(log10(raw))), f = raw / mag;

	return (f < 1.5 ? 1 : f < 3 ? 2 : f < 7 ? 5 : 10) * mag;
}

struct frame {
	double	l, r, t, b;		/* the plot area in px */
	double	x0, x1, y0, y1;		/* the data range (x in log10 on a log axis) */
	bool	xlog;
};

static double px(const struct frame *f, double x)
{
	if (f->xlog)
		x = log10(x);
	return f->l + (x - f->x0) / (f->x1 - f->x0) * (f->r - f->l);
}

static double py(const struct frame *f, double y)
{
	if (y < f->y0)
		y = f->y0;
	if (y > f->y1)
		y = f->y1;
	return f->b - (y - f->y0) / (f->y1 - f->y0) * (f->b - f->t);
}

static bool usable(const struct hs_plot *p, double x, double y)
{
	return isfinite(x) && isfinite(y) && (!p->xlog || x > 0);
}

/* The data range; false when there is no point to draw. */
static bool data_range(const struct hs_plot *p, struct frame *f)
{
	double xmin = INFINITY, xmax = -INFINITY, ymin = INFINITY, ymax = -INFINITY;

	for (size_t i = 0; i < p->nr_series; i++) {
		const struct hs_plot_series *s = &p->series[i];

		for (size_t k = 0; k < s->n; k++) {
			if (!usable(p, s->x[k], s->y[k]))
				continue;
			xmin = fmin(xmin, s->x[k]);
			xmax = fmax(xmax, s->x[k]);
			ymin = fmin(ymin, s->y[k]);
			ymax = fmax(ymax, s->y[k]);
		}
	}
	for (size_t i = 0; i < p->nr_marks; i++) {
		if (!isfinite(p->marks[i].x) || (p->xlog && p->marks[i].x <= 0))
			continue;
		xmin = fmin(xmin, p->marks[i].x);
		xmax = fmax(xmax, p->marks[i].x);
	}
	if (!isfinite(xmin) || !isfinite(ymin))
		return false;
	f->xlog = p->xlog;
	if (p->xlog) {
		xmin = log10(xmin);
		xmax = log10(xmax);
		if (xmax - xmin < 1e-9) {
			xmin -= 0.5;
			xmax += 0.5;
		}
	} else if (xmax - xmin < 1e-9) {
		xmin -= 1;
		xmax += 1;
	}
	f->x0 = xmin;
	f->x1 = xmax;
	f->y0 = isfinite(p->ymin) ? p->ymin : fmin(0, ymin);
	if (isfinite(p->ymax)) {
		f->y1 = p->ymax;
	} else {
		double step;

		if (ymax <= f->y0)
			ymax = f->y0 + 1;
		step = nice_step((ymax - f->y0) / 5);
		f->y1 = f->y0 + ceil((ymax - f->y0) / step - 1e-9) * step;
		if (f->y1 - ymax < step * 0.05)
			f->y1 += step;	/* headroom: no line runs along the frame */
	}
	if (f->y1 <= f->y0)
		f->y1 = f->y0 + 1;
	return true;
}

static void axes(struct hs_svg *s, const struct hs_plot *p, const struct frame *f)
{
	const struct hs_svg_stroke grid = { "#dddddd", 1, NULL }, axis = { "#000000", 1.2, NULL };
	double step = nice_step((f->y1 - f->y0) / 5);
	char buf[32];

	/* y ticks and grid */
	for (double v = ceil(f->y0 / step - 1e-9) * step; v <= f->y1 + step * 1e-6; v += step) {
		double y = py(f, v);

		hs_svg_line(s, f->l, y, f->r, y, &grid);
		fmt_num(buf, sizeof(buf), fabs(v) < step * 1e-6 ? 0 : v);
		hs_svg_text(s, f->l - 6, y + 4.5, FONT_TICK, HS_SVG_END, 0, false, buf);
	}
	/* x ticks and grid */
	if (f->xlog) {
		static const double mult[] = { 1, 2, 5 };
		bool short_range = f->x1 - f->x0 < 2.5;

		for (double d = floor(f->x0); d <= ceil(f->x1); d++) {
			for (size_t m = 0; m < (short_range ? 3 : 1); m++) {
				double v = mult[m] * pow(10, d), lv = log10(v), x;

				if (lv < f->x0 - 1e-9 || lv > f->x1 + 1e-9)
					continue;
				x = px(f, v);
				hs_svg_line(s, x, f->t, x, f->b, &grid);
				fmt_num(buf, sizeof(buf), v);
				hs_svg_text(s, x, f->b + 18, FONT_TICK, HS_SVG_MIDDLE, 0, false,
					    buf);
			}
		}
	} else {
		double xs = nice_step((f->x1 - f->x0) / 6);

		for (double v = ceil(f->x0 / xs - 1e-9) * xs; v <= f->x1 + xs * 1e-6; v += xs) {
			double x = px(f, v);

			hs_svg_line(s, x, f->t, x, f->b, &grid);
			fmt_num(buf, sizeof(buf), fabs(v) < xs * 1e-6 ? 0 : v);
			hs_svg_text(s, x, f->b + 18, FONT_TICK, HS_SVG_MIDDLE, 0, false, buf);
		}
	}
	hs_svg_line(s, f->l, f->b, f->r, f->b, &axis);
	hs_svg_line(s, f->l, f->t, f->l, f->b, &axis);
	hs_svg_text(s, (f->l + f->r) / 2, f->b + 40, FONT_LABEL, HS_SVG_MIDDLE, 0, false,
		    p->xlabel);
	hs_svg_text(s, 18, (f->t + f->b) / 2, FONT_LABEL, HS_SVG_MIDDLE, -90, false, p->ylabel);
}

static void draw_series(struct hs_svg *s, const struct hs_plot *p, const struct frame *f,
			const struct hs_plot_series *sr, double *xy)
{
	const struct hs_plot_style *ps = hs_plot_style(sr->style);
	const struct hs_svg_stroke st = { ps->color, ps->width, ps->dash };
	size_t run = 0, drawn = 0;

	for (size_t k = 0; k <= sr->n; k++) {
		if (k < sr->n && usable(p, sr->x[k], sr->y[k])) {
			xy[2 * run] = px(f, sr->x[k]);
			xy[2 * run + 1] = py(f, sr->y[k]);
			run++;
			drawn++;
			continue;
		}
		hs_svg_polyline(s, xy, run, &st);
		run = 0;
	}
	if (drawn > MARKER_MAX)
		return;
	for (size_t k = 0; k < sr->n; k++)
		if (usable(p, sr->x[k], sr->y[k]))
			hs_svg_circle(s, px(f, sr->x[k]), py(f, sr->y[k]), drawn == 1 ? 4 : 2.5,
				      ps->color);
}

static void legend(struct hs_svg *s, const struct hs_plot *p, double x, double y)
{
	for (size_t i = 0; i < p->nr_series; i++, y += 20) {
		const struct hs_plot_style *ps = hs_plot_style(p->series[i].style);
		const struct hs_svg_stroke st = { ps->color, ps->width, ps->dash };

		hs_svg_line(s, x, y - 4.5, x + 34, y - 4.5, &st);
		if (p->series[i].n <= MARKER_MAX)	/* its points have dots too */
			hs_svg_circle(s, x + 17, y - 4.5, 2.5, ps->color);
		hs_svg_text(s, x + 42, y, FONT_TICK, HS_SVG_START, 0, false, p->series[i].name);
	}
}

/*
 * The title, cut with an ellipsis where it would run out of the picture
 * (about 9 px per character of the bold face): the whole title is still
 * the document's <title>.
 */
static void title_line(struct hs_svg *s, const char *title, double x, double room)
{
	size_t max = (size_t)(room / 9.0), n = 0, cut = 0;
	char buf[512];

	for (const char *c = title; *c; c++) {
		if (((unsigned char)*c & 0xc0) == 0x80)
			continue;	/* UTF-8 continuation byte */
		if (++n == max)
			cut = (size_t)(c - title);
	}
	if (n <= max || cut + 4 > sizeof(buf)) {
		hs_svg_text(s, x, 24, FONT_TITLE, HS_SVG_START, 0, true, title);
		return;
	}
	memcpy(buf, title, cut);
	memcpy(buf + cut, "\xe2\x80\xa6", 4);	/* U+2026 and the NUL */
	hs_svg_text(s, x, 24, FONT_TITLE, HS_SVG_START, 0, true, buf);
}

/**
 * hs_plot_svg() - draw a chart as a standalone SVG document
 * @p: the chart
 * @out: receives the document (malloc'd, NUL-terminated; the caller frees it)
 * @len: receives its length, or NULL
 *
 * A chart without a single point to draw says "no data" in its middle.
 *
 * Return: 0 or -ENOMEM.
 */
int hs_plot_svg(const struct hs_plot *p, char **out, size_t *len)
{
	double w = p->width > 0 ? p->width : 760, h = p->height > 0 ? p->height : 420;
	const struct hs_svg_stroke mark = { "#555555", 1.5, "4 4" };
	struct frame f = { .l = 78, .t = 40, .r = w - LEGEND_W, .b = h - 58 };
	struct hs_svg *s;
	const char *text;
	size_t maxn = 0, n;
	double *xy = NULL;
	int ret;

	ret = hs_svg_new(w, h, p->title, &s);
	if (ret)
		return ret;
	title_line(s, p->title ? p->title : "", f.l, w - f.l - 10);
	if (!data_range(p, &f)) {
		const struct hs_svg_stroke axis = { "#000000", 1.2, NULL };

		hs_svg_rect(s, f.l, f.t, f.r - f.l, f.b - f.t, NULL, &axis);
		hs_svg_text(s, (f.l + f.r) / 2, (f.t + f.b) / 2, FONT_LABEL, HS_SVG_MIDDLE, 0,
			    false, "no data");
		goto done;
	}
	axes(s, p, &f);
	for (size_t i = 0; i < p->nr_marks; i++) {
		double x;

		if (!isfinite(p->marks[i].x) || (p->xlog && p->marks[i].x <= 0))
			continue;
		x = px(&f, p->marks[i].x);
		hs_svg_line(s, x, f.t, x, f.b, &mark);
		/* the label on the side with more room, so it stays inside the plot */
		if (x > (f.l + f.r) / 2)
			hs_svg_text(s, x - 4, f.t + 14 + 16 * (double)i, FONT_TICK, HS_SVG_END, 0,
				    false, p->marks[i].label);
		else
			hs_svg_text(s, x + 4, f.t + 14 + 16 * (double)i, FONT_TICK, HS_SVG_START,
				    0, false, p->marks[i].label);
	}
	for (size_t i = 0; i < p->nr_series; i++)
		maxn = HS_MAX(maxn, p->series[i].n);
	xy = malloc(2 * (maxn ? maxn : 1) * sizeof(*xy));
	if (!xy) {
		hs_svg_free(s);
		return -ENOMEM;
	}
	for (size_t i = 0; i < p->nr_series; i++)
		draw_series(s, p, &f, &p->series[i], xy);
	legend(s, p, f.r + 16, f.t + 10);
done:
	free(xy);
	ret = hs_svg_finish(s, &text, &n);
	if (!ret) {
		*out = malloc(n + 1);
		if (*out) {
			memcpy(*out, text, n + 1);
			if (len)
				*len = n;
		} else {
			ret = -ENOMEM;
		}
	}
	hs_svg_free(s);
	return ret;
}
