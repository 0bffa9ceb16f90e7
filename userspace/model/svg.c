// SPDX-License-Identifier: GPL-2.0
/*
 * Small SVG charts (svg.h): bwap-eval's bar charts and DWP sweeps, bwapd's
 * plots of a tuning run.  A fixed canvas with a plot area, a left and a
 * right y axis, an x axis, polylines and a legend.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <string.h>

#include "svg.h"
#include "utf8.h"

/* the canvas, and the margins around the plot area */
enum { W = BWM_SVG_W, H = BWM_SVG_H, L = BWM_SVG_PL, R = BWM_SVG_PR,
       T = BWM_SVG_PT, B = BWM_SVG_PB };

const char *const bwm_svg_colours[BWM_SVG_NR_COLOURS] = {
	"#888888", "#4e79a7", "#59a14f", "#f28e2b", "#edc948", "#e15759",
	"#76b7b2", "#b07aa1", "#9c755f",
};

static double nice_step(double range)
{
	double e = pow(10, floor(log10(range / 5))), r = range / 5 / e;

	return e * (r < 1.5 ? 1 : r < 3.5 ? 2 : r < 7.5 ? 5 : 10);
}

void bwm_svg_text(FILE *f, const char *s)
{
	char buf[1024];
	const char *p;

	for (p = bwm_utf8_clean(s, buf, sizeof(buf)); *p; p++) {
		switch (*p) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&apos;", f); break;
		default:
			/* XML 1.0 has no C0 controls but tab and newlines */
			if ((unsigned char)*p < 0x20 && !strchr("\t\n\r", *p))
				fputs("\xef\xbf\xbd", f);
			else
				fputc(*p, f);
		}
	}
}

/* <text ATTRS>s</text> */
static void text(FILE *f, const char *s, const char *attrs, ...)
{
	va_list ap;

	fputs("<text ", f);
	va_start(ap, attrs);
	vfprintf(f, attrs, ap);
	va_end(ap);
	fputc('>', f);
	bwm_svg_text(f, s);
	fputs("</text>\n", f);
}

void bwm_svg_begin(FILE *f, const char *title)
{
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
		"viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"12\">\n"
		"<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n",
		W, H, W, H);
	text(f, title, "x=\"%d\" y=\"24\" font-size=\"15\" text-anchor=\"middle\"",
	     (W - R + L) / 2);
}

double bwm_svg_yaxis(FILE *f, double ymax, const char *label, int right)
{
	double step = nice_step(ymax > 0 ? ymax : 1), y;
	int h = H - T - B, x = right ? W - R : L;

	ymax = ceil((ymax > 0 ? ymax : 1) / step) * step;
	for (y = 0; y <= ymax + step / 2; y += step) {
		double py = H - B - y / ymax * h;

		if (!right)
			fprintf(f, "<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>\n",
				L, W - R, py, py);
		fprintf(f, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"%s\">%g</text>\n",
			right ? x + 6 : x - 6, py + 4, right ? "start" : "end", y);
	}
	text(f, label, "transform=\"translate(%d,%d) rotate(-90)\" text-anchor=\"middle\"",
	     right ? W - R + 55 : 18, T + h / 2);
	fprintf(f, "<line x1=\"%d\" x2=\"%d\" y1=\"%d\" y2=\"%d\" stroke=\"black\"/>\n",
		x, x, T, H - B);
	return ymax;
}

double bwm_svg_xaxis(FILE *f, double xmax, const char *label)
{
	double step = nice_step(xmax > 0 ? xmax : 1), x, w = W - L - R;

	xmax = ceil((xmax > 0 ? xmax : 1) / step) * step;
	for (x = 0; x <= xmax + step / 2; x += step)
		fprintf(f, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%g</text>\n",
			L + x / xmax * w, H - B + 18, x);
	text(f, label, "x=\"%.1f\" y=\"%d\" text-anchor=\"middle\"", L + w / 2,
	     H - B + 40);
	fprintf(f, "<line x1=\"%d\" x2=\"%d\" y1=\"%d\" y2=\"%d\" stroke=\"black\"/>\n",
		L, W - R, H - B, H - B);
	return xmax;
}

void bwm_svg_legend(FILE *f, int i, const char *label, const char *colour)
{
	int y = T + 10 + i * 20;

	fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"14\" height=\"14\" fill=\"",
		W - R + 70, y);
	bwm_svg_text(f, colour);
	fputs("\"/>\n", f);
	text(f, label, "x=\"%d\" y=\"%d\"", W - R + 88, y + 11);
}

void bwm_svg_polyline(FILE *f, const double *x, const double *y, int n,
		      double xmax, double ymax, const char *colour)
{
	double w = W - L - R, h = H - T - B;
	int i;

	fputs("<polyline fill=\"none\" stroke=\"", f);
	bwm_svg_text(f, colour);
	fputs("\" stroke-width=\"2\" points=\"", f);
	for (i = 0; i < n; i++)
		fprintf(f, "%.1f,%.1f ", L + x[i] / xmax * w,
			H - B - y[i] / ymax * h);
	fprintf(f, "\"/>\n");
	for (i = 0; i < n; i++) {
		fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"2.5\" fill=\"",
			L + x[i] / xmax * w, H - B - y[i] / ymax * h);
		bwm_svg_text(f, colour);
		fputs("\"/>\n", f);
	}
}

int bwm_svg_bars(FILE *f, const struct bwm_svg_bars *b)
{
	double ymax = 0, gw, bw, h = H - T - B;
	int g, i, k, shown = 0;

	for (i = 0; i < b->ngroups * b->nseries; i++)
		if (isfinite(b->v[i]))
			ymax = fmax(ymax, b->v[i]);
	for (i = 0; i < b->nseries; i++)
		for (g = 0; g < b->ngroups; g++)
			if (isfinite(b->v[g * b->nseries + i])) {
				shown++;
				break;
			}
	bwm_svg_begin(f, b->title);
	ymax = bwm_svg_yaxis(f, ymax, b->ylabel, 0);
	gw = (double)(W - L - R) / (b->ngroups > 0 ? b->ngroups : 1);
	bw = gw * 0.8 / (shown > 0 ? shown : 1);
	for (g = 0; g < b->ngroups; g++) {
		for (i = 0, k = 0; i < b->nseries; i++) {
			double v = b->v[g * b->nseries + i], x, bh;

			if (!isfinite(v))
				continue;
			x = L + g * gw + gw * 0.1 + k++ * bw;
			bh = v / ymax * h;
			fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"",
				x, H - B - bh, bw * 0.9, bh);
			bwm_svg_text(f, b->colour[i]);
			fputs("\"><title>", f);
			bwm_svg_text(f, b->series[i]);
			fprintf(f, ": %.2f", v);
			bwm_svg_text(f, b->unit ? b->unit : "");
			fputs("</title></rect>\n", f);
		}
		text(f, b->group[g], "x=\"%.1f\" y=\"%d\" text-anchor=\"middle\"",
		     L + (g + 0.5) * gw, H - B + 20);
		if (b->sub)
			text(f, b->sub[g],
			     "x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" fill=\"#555\"",
			     L + (g + 0.5) * gw, H - B + 36);
	}
	fprintf(f, "<line x1=\"%d\" x2=\"%d\" y1=\"%d\" y2=\"%d\" stroke=\"black\"/>\n",
		L, W - R, H - B, H - B);
	for (i = 0, k = 0; i < b->nseries; i++)
		for (g = 0; g < b->ngroups; g++)
			if (isfinite(b->v[g * b->nseries + i])) {
				bwm_svg_legend(f, k++, b->series[i], b->colour[i]);
				break;
			}
	return bwm_svg_end(f);
}

int bwm_svg_end(FILE *f)
{
	fprintf(f, "</svg>\n");
	return ferror(f) ? -EIO : 0;
}
