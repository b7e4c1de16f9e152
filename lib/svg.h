/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A small SVG writer: the drawing primitives the charts of hsctl report and
 * hsctl mrc --format svg are made of (lines, polylines, rectangles, text),
 * written into a growing buffer as one standalone SVG 1.1 document.
 *
 * Why our own and not a plotting library: the charts are a few hundred
 * lines of SVG text, a library (cairo, plplot, gnuplot behind a pipe) would
 * add a dependency to a tool that must build as a static binary for a
 * minimal guest, and its output could not be diffed in a test.  Here the
 * output is a pure function of the calls: coordinates are printed with one
 * decimal ("%.1f", the C locale's point), attributes in a fixed order, and
 * every text and attribute value is escaped for XML (& < > " ' and the
 * control characters XML 1.0 forbids, which become U+FFFD), so a title
 * taken from a session name cannot break the document.
 *
 * Errors are sticky: a failed allocation marks the writer, later calls do
 * nothing, and hs_svg_finish() returns -ENOMEM.  lib/ never prints: the
 * caller writes the finished text where it wants (a file, an HTML page).
 */
#ifndef HS_SVG_H
#define HS_SVG_H

#include <stdbool.h>
#include <stddef.h>

struct hs_svg;

/**
 * struct hs_svg_stroke - how a line is drawn
 * @color: "#rrggbb" (written as given: the caller's constant, not escaped)
 * @width: stroke width in px
 * @dash: stroke-dasharray ("6 3"), or NULL / "" for a solid line
 */
struct hs_svg_stroke {
	const char	*color;
	double		width;
	const char	*dash;
};

/* Text anchors (SVG text-anchor). */
enum hs_svg_anchor { HS_SVG_START, HS_SVG_MIDDLE, HS_SVG_END };

/**
 * hs_svg_new() - start a document
 * @width: width in px (also the viewBox)
 * @height: height in px
 * @title: the document's <title> (escaped), or NULL
 * @out: receives the writer
 *
 * Return: 0 or -ENOMEM.
 */
int hs_svg_new(double width, double height, const char *title, struct hs_svg **out);

/* Free a writer (NULL is fine). */
void hs_svg_free(struct hs_svg *s);

/**
 * hs_svg_line() - a straight line from (x1, y1) to (x2, y2)
 * @s: the writer
 * @x1: start x
 * @y1: start y
 * @x2: end x
 * @y2: end y
 * @st: the stroke
 */
void hs_svg_line(struct hs_svg *s, double x1, double y1, double x2, double y2,
		 const struct hs_svg_stroke *st);

/**
 * hs_svg_polyline() - an open path through @n points
 * @s: the writer
 * @xy: x0, y0, x1, y1, ... (2 * @n numbers)
 * @n: points (nothing is drawn below 2)
 * @st: the stroke
 */
void hs_svg_polyline(struct hs_svg *s, const double *xy, size_t n,
		     const struct hs_svg_stroke *st);

/**
 * hs_svg_rect() - a rectangle
 * @s: the writer
 * @x: left
 * @y: top
 * @w: width
 * @h: height
 * @fill: "#rrggbb", or NULL for none
 * @st: its outline, or NULL for none
 */
void hs_svg_rect(struct hs_svg *s, double x, double y, double w, double h, const char *fill,
		 const struct hs_svg_stroke *st);

/**
 * hs_svg_circle() - a filled dot (a point marker)
 * @s: the writer
 * @cx: centre x
 * @cy: centre y
 * @r: radius
 * @fill: "#rrggbb"
 */
void hs_svg_circle(struct hs_svg *s, double cx, double cy, double r, const char *fill);

/**
 * hs_svg_text() - a line of text
 * @s: the writer
 * @x: anchor point x
 * @y: baseline y
 * @size: font size in px
 * @anchor: where (x, y) is on the text
 * @rotate: degrees about (x, y) (-90: reads upwards), 0 for none
 * @bold: a bold face
 * @text: UTF-8 text (escaped)
 */
void hs_svg_text(struct hs_svg *s, double x, double y, double size, enum hs_svg_anchor anchor,
		 double rotate, bool bold, const char *text);

/**
 * hs_svg_finish() - close the document
 * @s: the writer (no drawing after this)
 * @text: receives the document, NUL-terminated, owned by @s
 * @len: receives its length, or NULL
 *
 * Return: 0, or -ENOMEM when any call before failed to allocate.
 */
int hs_svg_finish(struct hs_svg *s, const char **text, size_t *len);

/**
 * hs_xml_escape() - append @text to a buffer, escaped for XML text and attributes
 * @buf: the buffer (*buf may be NULL), grown with realloc
 * @len: bytes used in *buf
 * @cap: bytes allocated
 * @text: UTF-8 text
 *
 * & < > " ' become entities, C0 controls other than tab, newline and
 * carriage return become U+FFFD.  The buffer stays NUL-terminated.
 *
 * Return: 0 or -ENOMEM.
 */
int hs_xml_escape(char **buf, size_t *len, size_t *cap, const char *text);

#endif /* HS_SVG_H */
