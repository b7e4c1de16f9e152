/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Line charts as standalone SVG (hsctl report, hsctl mrc --format svg): the
 * axes with their labels and units, ticks and grid, the series, vertical
 * marks (the recorded memory limit) and a legend, drawn with lib/svg.h.
 *
 * A series is drawn in one of a fixed set of styles, a colour and a dash
 * pattern together, so that lines stay apart in greyscale print and for
 * colour-blind readers (the colours are Okabe and Ito's).  The caller picks
 * the style: hsctl gives each policy one style everywhere (style 0, solid
 * black, is OPT's, the floor), so a policy looks the same in every chart of
 * a report.  Styles HS_PLOT_AUX and up are greys for what is not a policy
 * (the kernel, death causes).
 */
#ifndef HS_PLOT_H
#define HS_PLOT_H

#include <stdbool.h>
#include <stddef.h>

#define HS_PLOT_POLICY_STYLES	16	/* styles 0 .. 15: policies (0: OPT) */
#define HS_PLOT_AUX		16	/* styles 16 .. 20: the kernel and other series */
#define HS_PLOT_STYLES		21

/**
 * struct hs_plot_style - how a series is drawn
 * @color: "#rrggbb"
 * @dash: SVG stroke-dasharray, "" for solid
 * @width: line width in px
 */
struct hs_plot_style {
	const char	*color;
	const char	*dash;
	double		width;
};

/* Style @i (taken modulo HS_PLOT_STYLES). */
const struct hs_plot_style *hs_plot_style(unsigned int i);

/**
 * struct hs_plot_series - one line of a chart
 * @name: its legend entry
 * @style: hs_plot_style() index
 * @x: x values
 * @y: y values; a NaN breaks the line
 * @n: points
 */
struct hs_plot_series {
	const char		*name;
	unsigned int		style;
	const double		*x;
	const double		*y;
	size_t			n;
};

/* A vertical line across the chart at @x, labelled at its top. */
struct hs_plot_mark {
	double		x;
	const char	*label;
};

/**
 * struct hs_plot - a line chart
 * @title: above the chart
 * @xlabel: the x axis, with its unit: "cache size (pages)"
 * @ylabel: the y axis, with its unit: "miss ratio (%)"
 * @xlog: logarithmic x axis (points with x <= 0 are left out)
 * @ymin: lowest y shown, NaN: 0 or the lowest value if below
 * @ymax: highest y shown, NaN: from the data
 * @series: the lines, drawn in order, listed in the legend in order
 * @nr_series: entries of @series
 * @marks: vertical marks, NULL for none
 * @nr_marks: entries of @marks
 * @width: px, 0 for 760
 * @height: px, 0 for 420
 */
struct hs_plot {
	const char			*title;
	const char			*xlabel;
	const char			*ylabel;
	bool				xlog;
	double				ymin;
	double				ymax;
	const struct hs_plot_series	*series;
	size_t				nr_series;
	const struct hs_plot_mark	*marks;
	size_t				nr_marks;
	double				width;
	double				height;
};

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
int hs_plot_svg(const struct hs_plot *p, char **out, size_t *len);

#endif /* HS_PLOT_H */
