/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The SVG writer of lib/svg.h: each primitive appends one element to a
 * growing text buffer.  Numbers go through one formatter (one decimal,
 * "-0.0" printed as "0.0") so that equal drawings give equal bytes; text
 * goes through hs_xml_escape().  The first failed allocation makes the
 * writer inert and hs_svg_finish() reports it.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "svg.h"

struct hs_svg {
	char	*buf;
	size_t	len;
	size_t	cap;
	int	err;		/* sticky: -ENOMEM after a failed allocation */
	bool	done;		/* </svg> written */
};

static int grow(char **buf, size_t *cap, size_t need)
{
	size_t ncap = *cap ? *cap : 1024;
	char *nb;

	while (ncap < need)
		ncap *= 2;
	if (ncap == *cap)
		return 0;
	nb = realloc(*buf, ncap);
	if (!nb)
		return -ENOMEM;
	*buf = nb;
	*cap = ncap;
	return 0;
}

static void put(struct hs_svg *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void put(struct hs_svg *s, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (s->err || s->done)
		return;
	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || grow(&s->buf, &s->cap, s->len + (size_t)n + 1)) {
		s->err = -ENOMEM;
		return;
	}
	va_start(ap, fmt);
	vsnprintf(s->buf + s->len, s->cap - s->len, fmt, ap);
	va_end(ap);
	s->len += (size_t)n;
}

/* Append @v with one decimal; NaN and infinities as 0 (never in valid SVG). */
static void num(struct hs_svg *s, double v)
{
	if (!isfinite(v))
		v = 0;
	v = round(v * 10) / 10;
	if (v == 0)
		v = 0;	/* -0.0 */
	put(s, "%.1f", v);
}

static void text_escaped(struct hs_svg *s, const char *text)
{
	if (s->err || s->done)
		return;
	if (hs_xml_escape(&s->buf, &s->len, &s->cap, text ? text : ""))
		s->err = -ENOMEM;
}

/**
 * hs_xml_escape() - append @text to a buffer, escaped for XML text and attributes
 * @buf: the buffer (*buf may be NULL), grown with realloc
 * @len: bytes used in *buf
 * @cap: bytes allocated
 * @text: UTF-8 text
 *
 * Return: 0 or -ENOMEM.
 */
int hs_xml_escape(char **buf, size_t *len, size_t *cap, const char *text)
{
	for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
		const char *rep = NULL;
		char one[2] = { (char)*p, '\0' };
		size_t n;

		switch (*p) {
		case '&':
			rep = "&amp;";
			break;
		case '<':
			rep = "&lt;";
			break;
		case '>':
			rep = "&gt;";
			break;
		case '"':
			rep = "&quot;";
			break;
		case '\'':
			rep = "&#39;";
			break;
		default:
			if (*p < 0x20 && *p != '\t' && *p != '\n' && *p != '\r')
				rep = "\xef\xbf\xbd";	/* U+FFFD: not in XML 1.0 */
			else
				rep = one;
		}
		n = strlen(rep);
		if (grow(buf, cap, *len + n + 1))
			return -ENOMEM;
		memcpy(*buf + *len, rep, n);
		*len += n;
		(*buf)[*len] = '\0';
	}
	if (grow(buf, cap, *len + 1))
		return -ENOMEM;
	(*buf)[*len] = '\0';
	return 0;
}

/**
 * hs_svg_new() - start a document
 * @width: width in px (also the viewBox)
 * @height: height in px
 * @title: the document's <title> (escaped), or NULL
 * @out: receives the writer
 *
 * Return: 0 or -ENOMEM.
 */
int hs_svg_new(double width, double height, const char *title, struct hs_svg **out)
{
	struct hs_svg *s = calloc(1, sizeof(*s));

	if (!s)
		return -ENOMEM;
	put(s, "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"");
	num(s, width);
	put(s, "\" height=\"");
	num(s, height);
	put(s, "\" viewBox=\"0 0 ");
	num(s, width);
	put(s, " ");
	num(s, height);
	put(s, "\" font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\">\n");
	if (title) {
		put(s, "<title>");
		text_escaped(s, title);
		put(s, "</title>\n");
	}
	put(s, "<rect x=\"0\" y=\"0\" width=\"100%%\" height=\"100%%\" fill=\"#ffffff\"/>\n");
	if (s->err) {
		hs_svg_free(s);
		return -ENOMEM;
	}
	*out = s;
	return 0;
}

/**
 * hs_svg_free() - free a writer and its text
 * @s: the writer, or NULL
 *
 * Return: nothing.
 */
void hs_svg_free(struct hs_svg *s)
{
	if (!s)
		return;
	free(s->buf);
	free(s);
}

static void stroke(struct hs_svg *s, const struct hs_svg_stroke *st)
{
	put(s, " stroke=\"%s\" stroke-width=\"", st->color);
	num(s, st->width);
	put(s, "\"");
	if (st->dash && *st->dash)
		put(s, " stroke-dasharray=\"%s\"", st->dash);
}

/**
 * hs_svg_line() - a straight line from (x1, y1) to (x2, y2)
 * @s: the writer
 * @x1: start x
 * @y1: start y
 * @x2: end x
 * @y2: end y
 * @st: the stroke
 *
 * Return: nothing.
 */
void hs_svg_line(struct hs_svg *s, double x1, double y1, double x2, double y2,
		 const struct hs_svg_stroke *st)
{
	put(s, "<line x1=\"");
	num(s, x1);
	put(s, "\" y1=\"");
	num(s, y1);
	put(s, "\" x2=\"");
	num(s, x2);
	put(s, "\" y2=\"");
	num(s, y2);
	put(s, "\"");
	stroke(s, st);
	put(s, "/>\n");
}

/**
 * hs_svg_polyline() - an open path through @n points
 * @s: the writer
 * @xy: x0, y0, x1, y1, ... (2 * @n numbers)
 * @n: points (nothing is drawn below 2)
 * @st: the stroke
 *
 * Return: nothing.
 */
void hs_svg_polyline(struct hs_svg *s, const double *xy, size_t n,
		     const struct hs_svg_stroke *st)
{
	if (n < 2)
		return;
	put(s, "<polyline points=\"");
	for (size_t i = 0; i < n; i++) {
		if (i)
			put(s, " ");
		num(s, xy[2 * i]);
		put(s, ",");
		num(s, xy[2 * i + 1]);
	}
	put(s, "\" fill=\"none\"");
	stroke(s, st);
	put(s, " stroke-linejoin=\"round\"/>\n");
}

/**
 * hs_svg_rect() - a rectangle
 * @s: the writer
 * @x: left
 * @y: top
 * @w: width
 * @h: height
 * @fill: "#rrggbb", or NULL for none
 * @st: its outline, or NULL for none
 *
 * Return: nothing.
 */
void hs_svg_rect(struct hs_svg *s, double x, double y, double w, double h, const char *fill,
		 const struct hs_svg_stroke *st)
{
	put(s, "<rect x=\"");
	num(s, x);
	put(s, "\" y=\"");
	num(s, y);
	put(s, "\" width=\"");
	num(s, w);
	put(s, "\" height=\"");
	num(s, h);
	put(s, "\" fill=\"%s\"", fill ? fill : "none");
	if (st)
		stroke(s, st);
	put(s, "/>\n");
}

/**
 * hs_svg_circle() - a filled dot (a point marker)
 * @s: the writer
 * @cx: centre x
 * @cy: centre y
 * @r: radius
 * @fill: "#rrggbb"
 *
 * Return: nothing.
 */
void hs_svg_circle(struct hs_svg *s, double cx, double cy, double r, const char *fill)
{
	put(s, "<circle cx=\"");
	num(s, cx);
	put(s, "\" cy=\"");
	num(s, cy);
	put(s, "\" r=\"");
	num(s, r);
	put(s, "\" fill=\"%s\"/>\n", fill);
}

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
 *
 * Return: nothing.
 */
void hs_svg_text(struct hs_svg *s, double x, double y, double size, enum hs_svg_anchor anchor,
		 double rotate, bool bold, const char *text)
{
	static const char *const anchors[] = { "start", "middle", "end" };

	put(s, "<text x=\"");
	num(s, x);
	put(s, "\" y=\"");
	num(s, y);
	put(s, "\" font-size=\"");
	num(s, size);
	put(s, "\"");
	if (anchor != HS_SVG_START)
		put(s, " text-anchor=\"%s\"", anchors[anchor]);
	if (bold)
		put(s, " font-weight=\"bold\"");
	if (rotate != 0) {
		put(s, " transform=\"rotate(");
		num(s, rotate);
		put(s, " ");
		num(s, x);
		put(s, " ");
		num(s, y);
		put(s, ")\"");
	}
	put(s, ">");
	text_escaped(s, text);
	put(s, "</text>\n");
}

/**
 * hs_svg_finish() - close the document
 * @s: the writer (no drawing after this)
 * @text: receives the document, NUL-terminated, owned by @s
 * @len: receives its length, or NULL
 *
 * Return: 0, or -ENOMEM when any call before failed to allocate.
 */
int hs_svg_finish(struct hs_svg *s, const char **text, size_t *len)
{
	if (!s->done) {
		put(s, "</svg>\n");
		s->done = true;
	}
	if (s->err)
		return s->err;
	*text = s->buf;
	if (len)
		*len = s->len;
	return 0;
}
