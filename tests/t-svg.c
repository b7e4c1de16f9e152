/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for the SVG writer (lib/svg.c) and the line charts drawn with
 * it (analyzers/plot.c): the exact text of every primitive, XML escaping
 * of text (entities, C0 controls), the number format (one decimal, no
 * "-0.0", non-finite as 0), and for a tiny chart the pixel positions of its
 * line, ticks, legend and mark worked out by hand from the fixed layout
 * (plot area x 78 .. width - 190, y 40 .. height - 58).  That each document
 * is well-formed XML is checked by tests/cli/report.sh with a real parser.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "plot.h"
#include "svg.h"

#define HEAD(w, h) "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"" w \
	"\" height=\"" h "\" viewBox=\"0 0 " w " " h "\" font-family=\"DejaVu Sans, Helvetica, " \
	"Arial, sans-serif\">\n"
#define BG "<rect x=\"0\" y=\"0\" width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n"

static void primitives(void)
{
	const struct hs_svg_stroke solid = { "#000000", 1, NULL }, dash = { "#0072B2", 2.5, "8 4" };
	const double xy[] = { 0, 0, 10.04, -0.04, 20.25, 5 };
	struct hs_svg *s;
	const char *text;
	size_t len;

	T_EQ_I64(hs_svg_new(100, 50, "a<b & \"c\"", &s), 0);
	hs_svg_line(s, 1, 2, 3.33, 4.45, &solid);
	hs_svg_polyline(s, xy, 3, &dash);
	hs_svg_polyline(s, xy, 1, &dash);	/* one point: nothing */
	hs_svg_rect(s, 0, 0, 10, 5, "#eeeeee", NULL);
	hs_svg_rect(s, 1, 1, 2, 2, NULL, &solid);
	hs_svg_circle(s, 5, 6, 2.5, "#D55E00");
	hs_svg_text(s, 10, 20, 13, HS_SVG_END, 0, false, "x < y");
	hs_svg_text(s, 18, 25, 14, HS_SVG_MIDDLE, -90, true, "miss ratio (%)");
	T_EQ_I64(hs_svg_finish(s, &text, &len), 0);
	T_EQ_STR(text, HEAD("100.0", "50.0")
		 "<title>a&lt;b &amp; &quot;c&quot;</title>\n" BG
		 "<line x1=\"1.0\" y1=\"2.0\" x2=\"3.3\" y2=\"4.5\" stroke=\"#000000\" "
		 "stroke-width=\"1.0\"/>\n"
		 "<polyline points=\"0.0,0.0 10.0,0.0 20.3,5.0\" fill=\"none\" stroke=\"#0072B2\" "
		 "stroke-width=\"2.5\" stroke-dasharray=\"8 4\" stroke-linejoin=\"round\"/>\n"
		 "<rect x=\"0.0\" y=\"0.0\" width=\"10.0\" height=\"5.0\" fill=\"#eeeeee\"/>\n"
		 "<rect x=\"1.0\" y=\"1.0\" width=\"2.0\" height=\"2.0\" fill=\"none\" "
		 "stroke=\"#000000\" stroke-width=\"1.0\"/>\n"
		 "<circle cx=\"5.0\" cy=\"6.0\" r=\"2.5\" fill=\"#D55E00\"/>\n"
		 "<text x=\"10.0\" y=\"20.0\" font-size=\"13.0\" text-anchor=\"end\">"
		 "x &lt; y</text>\n"
		 "<text x=\"18.0\" y=\"25.0\" font-size=\"14.0\" text-anchor=\"middle\" "
		 "font-weight=\"bold\" transform=\"rotate(-90.0 18.0 25.0)\">"
		 "miss ratio (%)</text>\n"
		 "</svg>\n");
	T_EQ_U64(len, strlen(text));
	/* Finishing twice gives the same document; drawing after it adds nothing. */
	hs_svg_line(s, 0, 0, 1, 1, &solid);
	T_EQ_I64(hs_svg_finish(s, &text, NULL), 0);
	T_EQ_U64(strlen(text), len);
	hs_svg_free(s);
	hs_svg_free(NULL);
}

static void escaping(void)
{
	char *buf = NULL;
	size_t len = 0, cap = 0;

	T_EQ_I64(hs_xml_escape(&buf, &len, &cap, "<a href='x'>&amp;\"</a>"), 0);
	T_EQ_STR(buf, "&lt;a href=&#39;x&#39;&gt;&amp;amp;&quot;&lt;/a&gt;");
	len = 0;
	/* C0 controls but tab, newline and CR are not XML 1.0: U+FFFD. UTF-8 passes. */
	T_EQ_I64(hs_xml_escape(&buf, &len, &cap, "a\x01\tb\x1b\n\xc3\xa9"), 0);
	T_EQ_STR(buf, "a\xef\xbf\xbd\tb\xef\xbf\xbd\n\xc3\xa9");
	len = 0;
	T_EQ_I64(hs_xml_escape(&buf, &len, &cap, ""), 0);
	T_EQ_STR(buf, "");
	free(buf);
}

static void numbers(void)
{
	const struct hs_svg_stroke st = { "#000000", 1, "" };
	struct hs_svg *s;
	const char *text;

	T_EQ_I64(hs_svg_new(1, 1, NULL, &s), 0);
	/* -0.04 rounds to -0.0, printed 0.0; 0.25 to 0.3 (half away from zero); NaN, inf 0 */
	hs_svg_line(s, -0.04, 0.25, NAN, INFINITY, &st);
	T_EQ_I64(hs_svg_finish(s, &text, NULL), 0);
	T_EQ_STR(text, HEAD("1.0", "1.0") BG
		 "<line x1=\"0.0\" y1=\"0.3\" x2=\"0.0\" y2=\"0.0\" stroke=\"#000000\" "
		 "stroke-width=\"1.0\"/>\n</svg>\n");
	hs_svg_free(s);
}

/*
 * 500 x 300: plot area x 78 .. 310, y 40 .. 242.  x 0 .. 10 (linear), y 0 ..
 * 100 (fixed): (0, 0) -> (78, 242), (5, 50) -> (194, 141), (10, 100) ->
 * (310, 40).  y ticks every 20 (nice step of 100 / 5), label x = 78 - 6,
 * baseline y + 4.5; x ticks every 2 (nice step of 10 / 6 = 1.67), labels 18
 * below.  Legend at x 310 + 16, first baseline 40 + 10.
 */
static void tiny_chart(void)
{
	const double x[] = { 0, 5, 10 }, y[] = { 0, 50, 100 }, y2[] = { 100, NAN, 20 };
	const struct hs_plot_series sr[] = {
		{ "opt", 0, x, y, 3 },
		{ "lru & co", 1, x, y2, 3 },
	};
	const struct hs_plot_mark mark = { 5, "limit" };
	struct hs_plot p = { .title = "T", .xlabel = "size (pages)", .ylabel = "miss ratio (%)",
			     .ymin = 0, .ymax = 100, .series = sr, .nr_series = 2,
			     .marks = &mark, .nr_marks = 1, .width = 500, .height = 300 };
	char *svg = NULL;
	size_t len = 0;

	T_EQ_I64(hs_plot_svg(&p, &svg, &len), 0);
	T_ASSERT(svg && len == strlen(svg));
	if (!svg)
		return;
	T_ASSERT(!strncmp(svg, HEAD("500.0", "300.0") "<title>T</title>\n" BG,
			  strlen(HEAD("500.0", "300.0") "<title>T</title>\n" BG)));
	T_ASSERT(strstr(svg, "<polyline points=\"78.0,242.0 194.0,141.0 310.0,40.0\" "
			"fill=\"none\" stroke=\"#000000\" stroke-width=\"2.5\" "
			"stroke-linejoin=\"round\"/>"));
	/* The NaN breaks the second line: no polyline through 1 point, dots only. */
	T_ASSERT(!strstr(svg, "points=\"78.0,40.0"));
	T_ASSERT(strstr(svg, "<circle cx=\"78.0\" cy=\"40.0\" r=\"2.5\" fill=\"#0072B2\"/>"));
	T_ASSERT(strstr(svg, "<circle cx=\"310.0\" cy=\"201.6\" r=\"2.5\" fill=\"#0072B2\"/>"));
	/* ticks */
	T_ASSERT(strstr(svg, "<text x=\"72.0\" y=\"246.5\" font-size=\"13.0\" "
			"text-anchor=\"end\">0</text>"));
	T_ASSERT(strstr(svg, "<text x=\"72.0\" y=\"44.5\" font-size=\"13.0\" "
			"text-anchor=\"end\">100</text>"));
	T_ASSERT(strstr(svg, "<text x=\"124.4\" y=\"260.0\" font-size=\"13.0\" "
			"text-anchor=\"middle\">2</text>"));
	T_ASSERT(!strstr(svg, ">120</text>"));
	/* axis labels, the mark, the legend (escaped) */
	T_ASSERT(strstr(svg, "<text x=\"194.0\" y=\"282.0\" font-size=\"14.0\" "
			"text-anchor=\"middle\">size (pages)</text>"));
	T_ASSERT(strstr(svg, "<line x1=\"194.0\" y1=\"40.0\" x2=\"194.0\" y2=\"242.0\" "
			"stroke=\"#555555\" stroke-width=\"1.5\" stroke-dasharray=\"4 4\"/>"));
	T_ASSERT(strstr(svg, ">limit</text>"));
	T_ASSERT(strstr(svg, "<text x=\"368.0\" y=\"50.0\" font-size=\"13.0\">opt</text>"));
	T_ASSERT(strstr(svg, "<text x=\"368.0\" y=\"70.0\" font-size=\"13.0\">lru &amp; co"
			"</text>"));
	T_ASSERT(strstr(svg, "</svg>\n") == svg + len - 7);
	free(svg);
}

/* Log x from 1 to 1000: three decades, ticks at 1, 10, 100, 1000 only. */
static void log_axis(void)
{
	const double x[] = { 1, 1000, 0 }, y[] = { 3, 4, 5 };
	const struct hs_plot_series sr = { "s", 16, x, y, 3 };
	struct hs_plot p = { .title = "L", .xlabel = "x", .ylabel = "y", .xlog = true,
			     .ymin = NAN, .ymax = NAN, .series = &sr, .nr_series = 1,
			     .width = 500, .height = 300 };
	char *svg = NULL;

	T_EQ_I64(hs_plot_svg(&p, &svg, NULL), 0);
	if (!svg)
		return;
	/*
	 * y auto: from 0, nice step 1 (4 / 5 = 0.8), up to 4 and one step of
	 * headroom above the top point: 0 .. 5.  x = 0 is left out.
	 */
	T_ASSERT(strstr(svg, "<polyline points=\"78.0,120.8 310.0,80.4\""));
	T_ASSERT(strstr(svg, "text-anchor=\"middle\">1</text>"));
	T_ASSERT(strstr(svg, "<text x=\"155.3\" y=\"260.0\" font-size=\"13.0\" "
			"text-anchor=\"middle\">10</text>"));
	T_ASSERT(strstr(svg, "text-anchor=\"middle\">1000</text>"));
	T_ASSERT(!strstr(svg, "text-anchor=\"middle\">20</text>"));
	free(svg);
}

static void no_data(void)
{
	const double x[] = { NAN }, y[] = { 1 };
	const struct hs_plot_series sr = { "s", 3, x, y, 1 };
	struct hs_plot p = { .title = "Empty", .xlabel = "x", .ylabel = "y", .ymin = NAN,
			     .ymax = NAN, .series = &sr, .nr_series = 1 };
	char *svg = NULL;

	T_EQ_I64(hs_plot_svg(&p, &svg, NULL), 0);
	T_ASSERT(svg && strstr(svg, ">no data</text>"));
	T_ASSERT(svg && !strstr(svg, "<polyline"));
	free(svg);
}

/* Style 0 is OPT's solid black; policy styles differ in colour or dash from each other. */
static void styles(void)
{
	T_EQ_STR(hs_plot_style(0)->color, "#000000");
	T_EQ_STR(hs_plot_style(0)->dash, "");
	for (unsigned int i = 0; i < HS_PLOT_POLICY_STYLES; i++)
		for (unsigned int k = i + 1; k < HS_PLOT_POLICY_STYLES; k++)
			T_ASSERT(strcmp(hs_plot_style(i)->color, hs_plot_style(k)->color) ||
				 strcmp(hs_plot_style(i)->dash, hs_plot_style(k)->dash));
	T_ASSERT(hs_plot_style(HS_PLOT_STYLES) == hs_plot_style(0));
}

static const struct t_case cases[] = {
	{ "primitives", primitives },
	{ "escaping", escaping },
	{ "numbers", numbers },
	{ "tiny_chart", tiny_chart },
	{ "log_axis", log_axis },
	{ "no_data", no_data },
	{ "styles", styles },
};

int main(int argc, char **argv)
{
	return t_main(cases, sizeof(cases) / sizeof(cases[0]), argc, argv);
}
