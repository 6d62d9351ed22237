/* SPDX-License-Identifier: MIT */
/* zn-bench: median of reps, latency percentiles, spread. */
#include <math.h>
#include <stdlib.h>

#include "bench.h"

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

void bench_sort(double *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_double);
}

/* The middle value, or the mean of the two middle ones; NAN for none. */
double bench_median(double *v, unsigned n)
{
	if (!n)
		return NAN;
	bench_sort(v, n);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/*
 * Nearest rank: the smallest sample such that at least p percent of the
 * samples are not above it (so p99.9 of 1000 samples is the 999th, and of
 * fewer than 1000 it is the largest). v must be sorted.
 */
double bench_percentile(double *v, size_t n, double p)
{
	size_t rank;

	if (!n || p < 0 || p > 100)
		return NAN;
	rank = (size_t)ceil(p / 100.0 * (double)n - 1e-9);
	if (rank < 1)
		rank = 1;
	if (rank > n)
		rank = n;
	return v[rank - 1];
}

double bench_spread(double median, double min, double max)
{
	if (!(median > 0) || max < min)
		return NAN;
	return (max - min) / median;
}
